"""A file that holds several sessions (an Agents SDK database) opens on a list of them:
enter opens one, as ``--session ID`` would."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from ..facts import SessionInfo
from ..text import inert


class SessionPicker(ModalScreen[str | None]):
    """Dismisses with the chosen session's id, or None."""

    BINDINGS = [Binding("escape", "cancel", "Close", id="sessions.cancel", tooltip="Close without opening")]

    def __init__(self, name: str, sessions: Sequence[SessionInfo]) -> None:
        super().__init__()
        self.file_name = name
        self.sessions = list(sessions)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog wide sessions"):
            yield Static(f"{inert(self.file_name)} holds {len(self.sessions)} sessions: which one?",
                         id="dialog-title", markup=False)
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
            yield Static("enter opens it (as --session ID) · esc closes", classes="dialog-hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("session", "items", "last activity", "first user message")
        for s in self.sessions:
            # Text, not str: a DataTable reads a str cell as markup, and message text is data.
            table.add_row(Text(inert(s.id)), Text(f"{s.items:,}"), Text(inert(s.last_activity or "—")),
                          Text(inert(s.first_user[:80]) or "—"), key=s.id)
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(str(event.row_key.value))

    def action_cancel(self) -> None:
        self.dismiss(None)

"""A file that holds several sessions (an Agents SDK database) opens on a list of them:
enter opens one, as ``--session ID`` would. Given the file's source, each session's resume
verdict is worked out in the background and shown beside it: the doctor's row for it
(``inspector.doctor.rows_of``, which renders ``inspector.verdict``), as the folder browser
shows it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from ... import doctor
from ...io import read_bytes
from ..facts import SessionInfo
from ..text import inert
from .browser import LABELS, PENDING


class SessionPicker(ModalScreen[str | None]):
    """Dismisses with the chosen session's id, or None."""

    BINDINGS = [Binding("escape", "cancel", "Close", id="sessions.cancel", tooltip="Close without opening")]

    def __init__(self, name: str, sessions: Sequence[SessionInfo], source: Any = None) -> None:
        super().__init__()
        self.file_name = name
        self.sessions = list(sessions)
        self.source = source        # the file's tui.loader.Source: its sessions' verdicts are shown
        self.verdicts: dict[str, tuple[str, str]] = {}   # session id -> (label, sentence)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog wide sessions"):
            yield Static(f"{inert(self.file_name)} holds {len(self.sessions)} sessions: which one?",
                         id="dialog-title", markup=False)
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
            yield Static("enter opens it (as --session ID) · esc closes", classes="dialog-hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        judged = self.source is not None and (self.source.path is not None or self.source.data is not None)
        if judged:
            table.add_column("verdict", key="verdict", width=13)
        table.add_columns("session", "items", "last activity", "first user message")
        for s in self.sessions:
            # Text, not str: a DataTable reads a str cell as markup, and message text is data.
            cells = [Text(inert(s.id)), Text(f"{s.items:,}"), Text(inert(s.last_activity or "—")),
                     Text(inert(s.first_user[:80]) or "—")]
            table.add_row(*([Text(PENDING)] if judged else []), *cells, key=s.id)
        table.focus()
        if judged:
            self.run_worker(self._judge, thread=True, exclusive=True, group="session-verdicts",
                            description="judge sessions")

    def _judge(self) -> None:
        """Every session's row as the doctor gives it, off the UI thread (the file is parsed once)."""
        worker = get_current_worker()
        source = self.source
        data = source.data
        path = Path(source.path) if source.path is not None else Path(self.file_name)
        item = doctor.Found(path, path.parent, None, self.file_name)
        try:
            rows = doctor.rows_of(item, (lambda _: data) if data is not None else read_bytes)
        except Exception:  # noqa: BLE001 - the picker still opens sessions; the verdicts stay unknown
            return
        for row in rows:
            if worker.is_cancelled:
                return
            if row.session is not None:
                self.app.call_from_thread(self._show, row.session, LABELS[row.status], row.verdict.sentence)

    def _show(self, session: str, label: str, sentence: str) -> None:
        self.verdicts[session] = (label, sentence)
        table = self.query_one(DataTable)
        try:
            table.update_cell(session, "verdict", Text(label))
        except Exception:  # noqa: BLE001 - a session the table no longer lists
            pass

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(str(event.row_key.value))

    def action_cancel(self) -> None:
        self.dismiss(None)

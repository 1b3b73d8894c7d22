"""A file that cannot be opened gets a dialog, not a crash: title, where, one OK button."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from ..text import inert


class ErrorDialog(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close", id="error.close", tooltip="Close this message")]

    def __init__(self, title: str, message: str) -> None:
        super().__init__()
        self.title_text = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog error"):
            yield Static(Text(inert(self.title_text)), id="dialog-title")
            yield Static(Text(inert(self.message, single_line=False)), id="dialog-message")
            yield Button("OK", variant="error", id="ok")
            yield Static("enter or esc closes", classes="dialog-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)

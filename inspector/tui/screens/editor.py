"""The playground's dialogs: edit one native entry's JSON, pick a template for a new entry.

The editor is Textual's ``TextArea`` as a code editor, with JSON highlighting where
tree-sitter and its JSON grammar are installed and plain text where they are not. What it
gives back is parsed here, with :func:`inspector.tui.edits.parse_value`: invalid JSON is
named by line and column under the text, the cursor goes there, and nothing is applied.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from ...io import InputError
from ..edits import parse_value
from ..text import inert

NOTHING: Any = object()  # what the editor dismisses with when nothing is applied


def json_editor(text: str, *, id: str | None = None) -> TextArea:
    """A code editor for JSON: highlighted when tree-sitter knows JSON, plain text when not."""
    try:
        editor = TextArea.code_editor(text, language="json", theme="css", id=id, soft_wrap=True)
    except Exception:  # noqa: BLE001 - tree-sitter present without a JSON grammar: plain text
        editor = TextArea.code_editor(text, language=None, theme="css", id=id, soft_wrap=True)
    if "json" not in editor.available_languages:
        editor.language = None  # no grammar: no highlighting, and no warning on every keystroke
    return editor


class EditorDialog(ModalScreen[Any]):
    """Dismisses with the parsed value, or :data:`NOTHING` (escape, or cancel)."""

    DEFAULT_CSS = """
    EditorDialog #editor-box { width: 90%; max-width: 120; height: 90%; padding: 0 1; }
    EditorDialog #editor-text { height: 1fr; min-height: 5; }
    EditorDialog #editor-help, EditorDialog #editor-keys { color: $text-muted; }
    EditorDialog #editor-error { height: auto; color: $text-error; }
    EditorDialog #editor-buttons { height: auto; }
    """

    # ctrl+s is the app's one binding (inspector.tui.keys): it calls action_save, which applies.
    BINDINGS = [
        # priority: the text area would take escape to leave itself, and the dialog would stay
        Binding("escape", "cancel", "Cancel", priority=True, id="editor.cancel", tooltip="Close without applying"),
    ]

    def __init__(self, title: str, text: str, note: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.note = note
        self.error: InputError | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="editor-box", classes="dialog"):
            yield Label(Text(inert(self.title_text), style="bold"), id="editor-title")
            if self.note:
                yield Static(Text(inert(self.note)), id="editor-help")
            yield json_editor(self.text, id="editor-text")
            yield Static(id="editor-error")
            with Horizontal(id="editor-buttons", classes="buttons"):
                yield Button("Apply", variant="primary", id="editor-apply")
                yield Button("Cancel", id="editor-cancel")
            yield Static(Text("ctrl+s applies · escape closes without applying"), id="editor-keys")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "editor-apply":
            self.action_apply()
        else:
            self.action_cancel()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self.error is not None:  # an old error would point at text that has moved
            self.error = None
            self.query_one("#editor-error", Static).update("")

    def action_save(self) -> None:
        """ctrl+s: apply the edit."""
        self.action_apply()

    def action_apply(self) -> None:
        area = self.query_one(TextArea)
        try:
            value = parse_value(area.text)
        except InputError as exc:
            self.error = exc
            where = f"line {exc.line}, column {exc.column}: " if exc.line is not None else ""
            self.query_one("#editor-error", Static).update(
                Text(inert(f"Not applied: {where}{exc.reason}"), style="bold"))
            if exc.line is not None:
                area.cursor_location = (max(exc.line - 1, 0), max((exc.column or 1) - 1, 0))
            area.focus()
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(NOTHING)


class TemplatePicker(ModalScreen[str | None]):
    """Which new entry to insert: dismisses with a template's name, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="templates.cancel", tooltip="Insert nothing")]
    DEFAULT_CSS = """
    TemplatePicker #templates-list { height: auto; max-height: 12; margin: 1 0; }
    TemplatePicker .dialog-hint { color: $text-muted; }
    """

    def __init__(self, choices: list[tuple[str, str]], where: str) -> None:
        super().__init__()
        self.choices = choices  # (name, label)
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical(id="templates-box", classes="dialog"):
            yield Label(Text(inert(f"Insert a new entry {self.where}"), style="bold"))
            yield OptionList(*(Option(Text(inert(label)), id=name) for name, label in self.choices),
                             id="templates-list")
            yield Static(Text("enter inserts · escape closes"), classes="dialog-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)

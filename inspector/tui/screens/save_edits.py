"""Saving the playground's edits as a new file, and the questions unsaved edits ask.

The input is never written: the dialog proposes ``NAME.edited.EXT`` beside it (the current
folder for samples and standard input), refuses the input's own path, asks before replacing
any other file, and writes atomically (:func:`inspector.io.atomic_write`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...io import InputError, atomic_write, describe_error
from .. import confine, destination
from ..text import inert


def edited_path(source: str | None, sample: bool = False) -> str:
    """``NAME.edited.json`` beside the input (``.jsonl`` stays ``.jsonl``); samples and
    standard input in the current folder."""
    if source is None:
        return "stdin.edited.json"
    path = Path(source)
    if sample:
        path = Path(path.name)
    suffix = path.suffix or ".json"
    return str(path.with_name(f"{path.name[:-len(path.suffix)] if path.suffix else path.name}.edited{suffix}"))


class ConfirmDialog(ModalScreen[bool]):
    """A question with two answers; escape is the safe one (no)."""

    BINDINGS = [Binding("escape", "no", "No", id="confirm.no", tooltip="Keep things as they are")]

    def __init__(self, title: str, message: str, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__()
        self.title_text, self.message, self.yes, self.no = title, message, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static(Text(inert(self.title_text)), id="dialog-title")
            yield Static(Text(inert(self.message, single_line=False)), id="dialog-message")
            with Horizontal(classes="buttons"):
                yield Button(self.yes, variant="warning", id="yes")   # every dialog: the action, then the way out
                yield Button(self.no, id="no")
            yield Static("esc answers no", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_no(self) -> None:
        self.dismiss(False)


class SaveEditsDialog(ModalScreen[str | None]):
    """Dismisses with the path written, or None. ``data`` gives the bytes when writing."""

    DEFAULT_CSS = "SaveEditsDialog #save-note { height: auto; color: $text-warning; }"

    BINDINGS = [Binding("escape", "cancel", "Close", id="save.cancel", tooltip="Close without writing")]

    def __init__(self, default: str, inputs: tuple[str, ...], data: Callable[[], bytes], what: str) -> None:
        super().__init__()
        self.default = default
        self.inputs = inputs
        self.data = data
        self.what = what
        self._confirm: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static(Text("Save the edited history as a new file"), id="dialog-title")
            yield Static(Text(inert(self.what)), id="save-what", classes="dialog-hint")
            yield Input(self.default, id="save-path")
            yield Static(id="save-note")
            with Horizontal(classes="buttons"):
                yield Button("Save", variant="primary", id="save")   # every dialog: the action, then the way out
                yield Button("Cancel", id="cancel")
            yield Static("enter saves · esc closes · the input file is never written", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _note(self, message: str) -> None:
        self.query_one("#save-note", Static).update(Text(inert(message)))

    def on_input_changed(self, event: Input.Changed) -> None:
        if self._confirm is not None and event.value != self._confirm:
            self._confirm = None
            self.query_one("#save", Button).label = "Save"
            self._note("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.attempt()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.attempt()
        else:
            self.dismiss(None)

    def attempt(self) -> None:
        path = os.path.expanduser(self.query_one(Input).value.strip())
        if not path:
            self._note("Give a path to write to.")
            return
        served = confine.of(self.app) is not None
        if not served:
            problem = destination.refusal(path, self.inputs)
            if problem:
                self._note(problem)
                return
            question = destination.replace_question(path, self._confirm)
            if question:
                self._confirm = path
                self.query_one("#save", Button).label = "Replace"
                self._note(question)
                return
        try:
            data = self.data()
            if served:  # a download in the browser, nothing written here (deliver runs off the UI thread)
                app = self.app
                app.run_worker(lambda: confine.deliver(app, path, data), thread=True, group="save-edits")
                self.dismiss(path)
                return
            atomic_write(path, data, inputs=self.inputs, proposed=True,
                         mode_of=next(iter(self.inputs), None))
        except InputError as exc:
            self._note(str(exc))
            return
        except OSError as exc:
            self._note(f"{path}: {exc.strerror or exc}")
            return
        except Exception as exc:   # the edits cannot be written (too deep, not JSON): say so, keep them (R3-15)
            self._note(describe_error(exc, path))
            return
        self.dismiss(path)

    def action_save(self) -> None:
        """ctrl+s (the app's binding) in this dialog: save."""
        self.attempt()

    def action_cancel(self) -> None:
        self.dismiss(None)

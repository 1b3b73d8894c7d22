"""Export the final messages: a path, a confirmation before replacing, never the input.

The bytes come from :func:`inspector.io.dump_messages`, exactly what `inspector normalize`
writes. ``EXPORTERS`` is the seam for other output formats: a name, a label and a
function from the engine's result to bytes; the dialog lists it when there is more than one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...engine import Result
from ...io import InputError, atomic_write, dump_messages, same_file
from ..text import inert

EXPORTERS: dict[str, tuple[str, Callable[[Result], bytes]]] = {
    "flat": ("a flat JSON array, the same bytes as 'inspector normalize'", lambda r: dump_messages(r.messages)),
}


def default_export_path(source: str | None) -> str:
    """Beside the input as NAME.normalized.json; stdin and samples go to the current folder."""
    if source is None:
        return "stdin.normalized.json"
    path = Path(source)
    stem = path.name[:-5] if path.name.endswith(".json") else path.name
    return str(path.with_name(f"{stem}.normalized.json"))


class ExportDialog(ModalScreen[str | None]):
    """Dismisses with a confirmation sentence once the file is written, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Close without writing")]

    def __init__(self, result: Result, default: str, inputs: tuple[str, ...], fmt: str = "flat") -> None:
        super().__init__()
        self.result = result
        self.default = default
        self.inputs = inputs
        self.fmt = fmt
        self._confirm: str | None = None  # the existing path the user was asked about

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static("Export repaired JSON", id="dialog-title")
            yield Static(Text(f"{len(self.result.messages):,} messages, as {EXPORTERS[self.fmt][0]}.",
                              "dim"))
            yield Input(self.default, id="export-path", placeholder="path to write")
            yield Static("", id="export-note")
            with Horizontal(classes="buttons"):
                yield Button("Export", variant="primary", id="export")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _note(self, message: str, error: bool = True) -> None:
        note = self.query_one("#export-note", Static)
        note.set_class(error, "-error")
        note.update(Text(inert(message)))

    def on_input_changed(self, event: Input.Changed) -> None:
        if self._confirm is not None and event.value != self._confirm:
            self._confirm = None
            self.query_one("#export", Button).label = "Export"
            self._note("", error=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.attempt()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export":
            self.attempt()
        else:
            self.dismiss(None)

    def attempt(self) -> None:
        path = os.path.expanduser(self.query_one(Input).value.strip())
        if not path:
            self._note("Give a path to write to.")
            return
        if any(same_file(source, path) for source in self.inputs):
            self._note(f"{path} is the input file: choose another path (the input is never overwritten).")
            return
        if Path(path).is_dir():
            self._note(f"{path} is a folder: give a file name.")
            return
        if Path(path).exists() and self._confirm != path:
            self._confirm = path
            self.query_one("#export", Button).label = "Replace"
            self._note(f"{path} exists. Press enter (or Replace) again to replace it, or change the path.")
            return
        try:
            data = EXPORTERS[self.fmt][1](self.result)
            atomic_write(path, data, inputs=self.inputs)
        except InputError as exc:
            self._note(str(exc))
            return
        except OSError as exc:
            self._note(f"{path}: {exc.strerror or exc}")
            return
        r = self.result
        self.dismiss(f"Wrote {len(r.messages):,} messages to {path} "
                     f"(dropped {r.dropped:,}, synthesized {r.synthesized:,}, moved {r.moved:,}).")

    def action_cancel(self) -> None:
        self.dismiss(None)


def export_inputs(source: Any) -> tuple[str, ...]:
    return (source,) if isinstance(source, str) and source != "-" else ()

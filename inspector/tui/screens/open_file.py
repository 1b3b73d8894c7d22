"""Open another history: type a path, or pick a .json file from the folder tree."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Footer, Input, Static

from .. import confine


class JsonTree(DirectoryTree):
    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        paths = confine.visible(self.app, paths)  # served mode: nothing that leads out of the folder
        return [p for p in paths if not p.name.startswith(".") and (p.is_dir() or p.suffix == ".json")]


class OpenFileDialog(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Close", id="open.cancel", tooltip="Close without opening")]

    def __init__(self, start: str | None = None) -> None:
        super().__init__()
        self.start = start or os.getcwd()

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog wide"):
            yield Static("Open a history (JSON)", id="dialog-title")
            yield Input(placeholder="path to a .json file, then enter", id="open-path")
            yield JsonTree(self.start, id="open-tree")
            yield Static("enter opens · tab moves to the folder tree · esc closes", classes="dialog-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = os.path.expanduser(event.value.strip())
        if value:
            self.dismiss(value)

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(str(event.path))

    def action_cancel(self) -> None:
        self.dismiss(None)

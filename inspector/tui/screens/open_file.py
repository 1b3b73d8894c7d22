"""Open another history: type a path (completed as you type: → accepts), or pick a file the
format registry can read from the folder tree; ``ctrl+↑`` (or ``..`` then enter) goes up a
folder, and a folder typed then enter shows that folder."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import DirectoryTree, Footer, Input, Static

from .. import confine, facts


class HistoryTree(DirectoryTree):
    """Folders, and the files some registered format reads (histories, sessions, databases)."""

    def on_mount(self) -> None:
        if confine.of(self.app) is not None:  # a browser may have no emoji font: marks every font has
            self.ICON_NODE, self.ICON_NODE_EXPANDED, self.ICON_FILE = "▸ ", "▾ ", "  "

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        paths = confine.visible(self.app, paths)  # served mode: nothing that leads out of the folder
        suffixes = facts.openable_suffixes()
        return [p for p in paths if not p.name.startswith(".") and (p.is_dir() or p.name.endswith(suffixes))]


class PathSuggester(Suggester):
    """Completes a typed path with the first folder or readable file that starts with it."""

    def __init__(self, screen: "OpenFileDialog") -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.dialog = screen

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        typed = confine.expand(self.dialog.app, value)
        folder, _, stem = typed.rpartition("/")
        base = Path(folder or ".") if folder or not typed.startswith("/") else Path("/")
        if not Path(typed).is_absolute():
            base = Path(self.dialog.start) / base
        try:
            entries = sorted(p for p in base.iterdir() if p.name.startswith(stem) and not p.name.startswith("."))
        except OSError:
            return None
        tree = self.dialog.query_one(HistoryTree)
        for p in tree.filter_paths(entries):
            if p.name != stem or p.is_dir():
                return value[:len(value) - len(stem)] + p.name + ("/" if p.is_dir() else "")
        return None


class OpenFileDialog(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Close", id="open.cancel", tooltip="Close without opening"),
        Binding("ctrl+up", "up", "Up a folder", key_display="ctrl+↑", id="open.up",
                tooltip="Show the folder above this one"),
    ]

    def __init__(self, start: str | None = None) -> None:
        super().__init__()
        self.start = start or os.getcwd()

    def compose(self) -> ComposeResult:
        suffixes = " ".join(facts.openable_suffixes())
        with Vertical(id="dialog", classes="dialog wide"):
            yield Static(Text(f"Open a history or session file ({suffixes})"), id="dialog-title")
            yield Input(placeholder="path, then enter (→ completes; a folder shows it; .. goes up)",
                        id="open-path", suggester=PathSuggester(self))
            yield HistoryTree(self.start, id="open-tree")
            yield Static("enter opens · tab moves to the folder tree · ctrl+↑ up a folder · esc closes",
                         classes="dialog-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _show_folder(self, folder: Path) -> None:
        if confine.refusal(self.app, str(folder)) is not None:
            self.notify(f"{confine.shown(self.app, folder)}: outside the served folder", severity="warning",
                        markup=False)
            return
        self.start = str(folder)
        self.query_one(HistoryTree).path = folder
        self.query_one("#dialog-title", Static).update(
            Text(f"Open a history or session file: {confine.shown(self.app, folder)}"))

    def action_up(self) -> None:
        self._show_folder(Path(self.start).resolve().parent)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = confine.expand(self.app, event.value.strip())
        if not value:
            return
        path = Path(value) if Path(value).is_absolute() else Path(self.start) / value
        if value == "..":
            self.query_one(Input).value = ""
            self.action_up()
        elif path.is_dir():
            self.query_one(Input).value = ""
            self._show_folder(path.resolve())
        else:
            # As typed when it names the current folder's file, or the home (refused as typed when served).
            relative = not Path(value).is_absolute() and not value.startswith("~")
            self.dismiss(str(path) if relative and self.start != os.getcwd() else value)

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(str(event.path))

    def action_cancel(self) -> None:
        self.dismiss(None)

"""The main screen with the playground's keys: edit the history on view 0 and watch every
stage follow.

:class:`PlaygroundScreen` is :class:`~inspector.tui.screens.main.MainScreen` with the edit
keys bound; the editing itself (the edit history, the worker that reads an edited document
again, saving, ``--watch``) is the screen's :class:`~inspector.tui.screens.editing.Editing`
collaborator, which every main screen composes. This class overrides nothing of the main
screen's: it adds bindings, their actions (each a call into the collaborator) and the
lessons' entry.

Which key does what is decided in one place each: the edit keys act on view 0
(:meth:`MainScreen.check_action`; ``delete`` deletes there, ``x`` stays the next problem
everywhere); ``ctrl+s`` is the app's one binding (:mod:`inspector.tui.keys`), which calls the
screen's ``action_save``: it saves the edits on view 0 of an edited history
(:meth:`Editing.owns_save_key`) and exports the repair otherwise.
"""

from __future__ import annotations

from typing import Any

from ..actions import EDIT_BINDINGS, MAIN_BINDINGS
from .editing import ask_before_quit, read_native, row_of
from .main import MainScreen

__all__ = ["EDIT_BINDINGS", "PlaygroundScreen", "ask_before_quit", "read_native", "row_of"]


class PlaygroundScreen(MainScreen):
    BINDINGS = [*MAIN_BINDINGS, *EDIT_BINDINGS]  # no key of the main screen's: the help lists these after

    def __init__(self, strict: bool = False, target: str = "auto", reasoning: str = "keep",
                 watch_file: bool = False) -> None:
        super().__init__(strict=strict, target=target, reasoning=reasoning, watch_file=watch_file)
        self.lessons: Any = None  # the lessons' state (screens/learn.py), once opened

    def action_edit_entry(self) -> None:
        self.editing.edit_entry()

    def action_delete_entry(self) -> None:
        self.editing.delete_entry()

    def action_insert_entry(self) -> None:
        self.editing.insert_entry()

    def action_move_entry(self, delta: int) -> None:
        self.editing.move_entry(delta)

    def action_undo_edit(self) -> None:
        self.editing.undo()

    def action_redo_edit(self) -> None:
        self.editing.redo()

    def action_save_edits(self) -> None:
        self.editing.save()

    def owns_save_key(self) -> bool:
        """``ctrl+s`` saves the edits on view 0 of an edited history; otherwise it exports."""
        return self.editing.owns_save_key()

    def action_learn(self) -> None:
        from .levels import open_levels  # the levels' state is kept in self.lessons: L comes back to it

        open_levels(self)

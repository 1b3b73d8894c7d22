"""The main screen with the playground: edit the history on view 0 and watch every stage follow.

:class:`PlaygroundScreen` is :class:`~inspector.tui.screens.main.MainScreen` plus editing,
undo and redo, saving the edits, ``--watch`` and the lessons' entry. Every edit is a step
of an :class:`~inspector.tui.edits.EditHistory` over the native document (never the file,
never the objects the open result shares); the edited document is read again by the
format's own importer and repaired in a thread worker, then shown as a reload that keeps
the view, the filters and the cursor on the edited entry.

Which key does what is decided in one place each: the edit keys act on view 0
(:meth:`PlaygroundScreen.check_action`; ``delete`` deletes there, ``x`` stays the next
problem everywhere); ``ctrl+s`` is the app's one binding (:mod:`inspector.tui.keys`), which
calls the screen's ``action_save``: here it saves the edits on view 0 of an edited history
(:meth:`PlaygroundScreen.owns_save_key`) and exports the repair otherwise, as the main
screen does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.worker import get_current_worker

from ... import formats, pipeline
from ...io import InputError, describe_error
from .. import edit_templates, edits, loader, watch
from ..adapter import format_label
from ..edits import EditHistory, Native, NotEditable
from ..loader import Document, Source
from ..rows import call_ids
from ..widgets.diff_table import DiffTable
from ..widgets.title_bar import TitleBar
from .editor import NOTHING, EditorDialog, TemplatePicker
from .error import ErrorDialog
from .main import MainScreen
from .save_edits import ConfirmDialog, SaveEditsDialog, edited_path

# After an edit the provider checks and the stage preparation start this much later: their
# threads would hold the interpreter while the edited screen paints (bench/tui.py measured the
# first frame 0.16-0.19 s after the key under load without it, 0.07-0.10 s with it), and keys
# in a burst (ctrl+z held) start them once.
BACKGROUND_DELAY = 0.1

EDIT_BINDINGS = [
    Binding("E", "edit_entry", "Edit", show=False, id="edit.entry",
            tooltip="Edit the selected entry's JSON (view 0): the stages follow; the file is not written"),
    # Not x: x is the next problem the provider would reject, on view 0 too (where it shows
    # what to edit next); adding "x" here makes it delete on view 0 (check_action lets it fall through elsewhere).
    Binding("delete,backspace", "delete_entry", "Delete", show=False, key_display="del", id="edit.delete",
            tooltip="Delete the selected entry (view 0)"),
    Binding("a", "insert_entry", "Add", show=False, id="edit.insert",
            tooltip="Insert a new entry after the selected one, from a template (view 0)"),
    Binding("alt+up", "move_entry(-1)", "Move up", show=False, id="edit.up",
            tooltip="Move the selected entry up (view 0)"),
    Binding("alt+down", "move_entry(1)", "Move down", show=False, id="edit.down",
            tooltip="Move the selected entry down (view 0)"),
    Binding("ctrl+z", "undo_edit", "Undo", show=False, id="edit.undo", tooltip="Undo the last edit"),
    Binding("ctrl+y", "redo_edit", "Redo", show=False, id="edit.redo", tooltip="Redo the edit undone"),
    Binding("L", "learn", "Levels", show=False, id="app.learn",
            tooltip="Levels: predict what a stage or a provider does, reach a goal, break a session and see"),
]


class EditRead(Message):
    """The worker has read and repaired an edited document."""

    def __init__(self, document: Document, native: Native, focus: Any, block: int | None, label: str,
                 started: float) -> None:
        super().__init__()
        self.document, self.native, self.focus, self.block, self.label = document, native, focus, block, label
        self.started = started


class EditRefused(Message):
    """The edited document is not one its format reads: the edit is taken back."""

    def __init__(self, native: Native, error: str) -> None:
        super().__init__()
        self.native = native
        self.error = error


@dataclass(slots=True)
class Timing:
    """When the last edit's key was handled and when its screen was installed (bench/tui.py)."""

    key: float = 0.0
    shown: float = 0.0


class PlaygroundScreen(MainScreen):
    BINDINGS = [*MainScreen.BINDINGS, *EDIT_BINDINGS]  # no key of the main screen's: the help lists these after

    def __init__(self, strict: bool = False, target: str = "auto", reasoning: str = "keep",
                 watch_file: bool = False) -> None:
        super().__init__(strict=strict, target=target, reasoning=reasoning)
        self.edits: EditHistory | None = None
        self.watch_file = watch_file
        self.timing = Timing()
        self._pending: Native | None = None  # the state a worker is reading, until it is shown
        self._installing_edit = False  # the history being installed is an edit's
        self._mute = False  # notifications are dropped (a reload's toasts during an edit or a watch)
        self._watched: str | None = None
        self._watch_previous: Document | None = None
        self.lessons: Any = None  # the lessons' state (screens/learn.py), once opened

    # -- which key does what: the one place -------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "delete_entry":
            return self.doc is not None and self.view == 0  # elsewhere the key is not ours
        return super().check_action(action, parameters)

    def owns_save_key(self) -> bool:
        """``ctrl+s`` saves the edits on view 0 of an edited history; otherwise it exports."""
        return self.doc is not None and self.view == 0 and self.edits is not None and self.edits.edited

    def action_save(self) -> None:
        """ctrl+s (the app's binding, :mod:`inspector.tui.keys`): the edits on view 0 of an edited
        history, else the main screen's save (the export)."""
        if self.owns_save_key():
            self.action_save_edits()
        else:
            super().action_save()

    # -- the edit model of the open document --------------------------------------------
    def _history(self) -> EditHistory | None:
        """The open document's edit history, begun on the first edit."""
        if self.doc is None:
            return None
        if self.edits is None:
            im = self.doc.imported
            try:
                self.edits = EditHistory(Native.of(im.document, im.history, im.container))
            except NotEditable:
                self.notify(f"{format_label(im.format)} files are not edited here: export the history (e), "
                            "edit the file, open it again.",
                            title="Edit", severity="warning")
                return None
        return self.edits

    def _target(self) -> tuple[EditHistory, edits.Target] | None:
        if self.view != 0:
            self.notify("Edits are made on view 0, the entries as given: 0 goes there.", title="Edit")
            return None
        if self._pending is not None:
            self.notify("Still reading the last edit: press the key again in a moment.", severity="warning")
            return None
        history = self._history()
        row = self.query_one(DiffTable).current
        if history is None:
            return None
        if row is None or row.origin is None:
            self.notify("Select an entry first.", title="Edit")
            return None
        loc = self.doc.imported.sources[row.origin]  # type: ignore[union-attr]
        return history, edits.target_of(history.current, loc)

    def action_edit_entry(self) -> None:
        found = self._target()
        if found is None:
            return
        history, target = found
        native = history.current
        where = target.describe(native.container, native.shape == "lines")
        note = ("The native entry, as the file holds it: the import reads it again, so provenance stays true."
                if self.doc is not None and self.doc.model.imported is not None else "")

        def done(value: Any) -> None:
            if value is not NOTHING:
                self._apply(edits.replace_edit(history.current, target, value))

        self.app.push_screen(EditorDialog(f"Edit {where}", edits.as_text(edits.value_of(native, target)), note), done)

    def action_delete_entry(self) -> None:
        found = self._target()
        if found is not None:
            history, target = found
            self._apply(edits.delete_edit(history.current, target))

    def action_insert_entry(self) -> None:
        if self.view != 0:
            self._target()  # says where edits are made
            return
        history = self._history()
        if history is None or self.doc is None:
            return
        if self._pending is not None:
            self.notify("Still reading the last edit: press the key again in a moment.", severity="warning")
            return
        fmt = self.doc.imported.format
        if not edit_templates.available(fmt, history.current.shape):
            self.notify("New entries from templates are for JSON histories and Codex rollouts; E edits this "
                        "file's lines.", title="Add", severity="warning")
            return
        row = self.query_one(DiffTable).current
        target = (edits.target_of(history.current, self.doc.imported.sources[row.origin])
                  if row is not None and row.origin is not None else None)
        call_id, tool = self._selected_call(row.origin if row is not None else None)
        choices = [(name, label.replace("the selected call", f"{call_id}") if name == "result" else label)
                   for name, label in edit_templates.TEMPLATES.items()]
        where = ("after " + target.describe(history.current.container, history.current.shape == "lines")
                 if target is not None else "at the end")

        def picked(name: str | None) -> None:
            if not name or self.doc is None:
                return
            fresh = f"call_new_{history.position + 1}"
            try:
                entry = edit_templates.template(name, fmt, call_id if name == "result" else fresh,
                                                tool if name == "result" else "get_weather")
            except Exception as exc:  # noqa: BLE001 - a format that cannot spell the template says so
                self.notify(f"No {edit_templates.TEMPLATES[name]} template for {fmt}: {describe_error(exc, fmt)}",
                            severity="warning")
                return
            self._apply(edits.insert_edit(history.current, target, [entry], edit_templates.TEMPLATES[name]))

        self.app.push_screen(TemplatePicker(choices, where), picked)

    def _selected_call(self, origin: int | None) -> tuple[str, str]:
        """The call a new result answers: the selected row's first call, else the nearest call above it."""
        if self.doc is None or origin is None:
            return "call_new_1", "get_weather"
        messages = self.doc.imported.messages
        for i in range(min(origin, len(messages) - 1), -1, -1):
            ids = [ident for ident, call in call_ids(messages[i]) if call is not None]
            if ids:
                return ids[0], _call_name(messages[i]) or "get_weather"
        return "call_new_1", "get_weather"

    def action_move_entry(self, delta: int) -> None:
        found = self._target()
        if found is None:
            return
        history, target = found
        edit = edits.move_edit(history.current, target, delta)
        if edit is None:
            self.notify("Already at the edge: nothing to move past.", title="Move")
            return
        self._apply(edit)

    def action_undo_edit(self) -> None:
        history = self.edits
        if history is None or not history.done:
            self.notify("Nothing to undo.", title="Undo")
            return
        edit = history.undo()
        assert edit is not None
        self._read(history.current, edit.undo_focus, None, f"undid {edit.label}")

    def action_redo_edit(self) -> None:
        history = self.edits
        if history is None or not history.undone:
            self.notify("Nothing to redo.", title="Redo")
            return
        edit = history.redo()
        assert edit is not None
        self._read(history.current, edit.focus, edit.block, f"redid {edit.label}")

    def _apply(self, edit: edits.Edit) -> None:
        assert self.edits is not None
        try:
            native = self.edits.apply(edit)
        except ValueError as exc:  # the shown rows and the model disagree: never guess
            self.notify(f"Not applied: {exc}", severity="error")
            return
        self._read(native, edit.focus, edit.block, edit.label)

    # -- reading the edited document, off the UI thread ------------------------------------
    def _read(self, native: Native, focus: Any, block: int | None, label: str) -> None:
        assert self.doc is not None
        self._pending = native
        self.timing.key = time.perf_counter()
        self._reread(self.doc, native, focus, block, label, self.timing.key)

    @work(thread=True, exclusive=True, group="edit", description="read the edited history again")
    def _reread(self, doc: Document, native: Native, focus: Any, block: int | None, label: str,
                started: float) -> None:
        worker = get_current_worker()
        try:
            fresh = loader.reread(doc, read_native(doc, native))
        except InputError as exc:
            if not worker.is_cancelled:
                self.post_message(EditRefused(native, str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - whatever an edit makes, the app stays up and says so
            if not worker.is_cancelled:
                self.post_message(EditRefused(native, describe_error(exc, doc.source.name)))
            return
        fresh.model.rows(0).layout()
        if not worker.is_cancelled:
            self.post_message(EditRead(fresh, native, focus, block, label, started))

    @on(EditRead)
    def _on_edit_read(self, message: EditRead) -> None:
        if self.edits is None or message.native is not self.edits.current:
            return  # a later edit or undo is being read
        self._pending = None
        self._installing_edit = True
        try:
            self._install(message.document)
        finally:
            self._installing_edit = False
        self._put_cursor(message.focus, message.block)
        self.timing.shown = time.perf_counter()
        hint = "ctrl+y redoes" if message.label.startswith("undid") else "ctrl+z undoes"
        self.notify(f"{message.label[:1].upper()}{message.label[1:]} ({self.edits.describe()}; {hint}).",
                    title="Edit", timeout=3)

    @on(EditRefused)
    def _on_edit_refused(self, message: EditRefused) -> None:
        history = self.edits
        if history is None or message.native is not history.current:
            return
        self._pending = None
        history.discard()  # not applied: nothing to redo
        fmt = self.doc.imported.format if self.doc is not None else "its format"
        self.app.push_screen(ErrorDialog("Edit not applied", f"The edited history is not one {fmt} reads, so the "
                                         f"edit was taken back:\n{message.error}"))

    def _put_cursor(self, focus: Any, block: int | None) -> None:
        if self.doc is None or focus is None:
            return
        origin = row_of(self.doc.imported, focus, block)
        if origin is None:
            return
        table = self.query_one(DiffTable)
        position = table.position_of(origin)
        if position is not None and position != table.cursor:
            table.cursor = position

    def _check_providers(self, doc: Document) -> None:
        if self._installing_edit:  # after the edited screen is painted
            self._later(lambda: MainScreen._check_providers(self, doc) if self.doc is doc else None)
        else:
            super()._check_providers(doc)

    def _warm(self, doc: Document) -> Any:
        if self._installing_edit:
            self._later(lambda: MainScreen._warm(self, doc) if self.doc is doc else None)
            return None
        return super()._warm(doc)

    def _later(self, start: Any) -> None:
        self.set_timer(BACKGROUND_DELAY, start, name="after an edit")

    # -- loading: edits belong to one document ----------------------------------------------
    def _install(self, doc: Document) -> None:
        previous = self.doc
        edited = self._installing_edit
        toggled = previous is not None and previous.imported is doc.imported
        if not edited and not toggled:
            self.edits = None  # another file, or the file read again from disk
            self._pending = None
        watched = self._watch_previous is not None and previous is not None and previous.source == doc.source
        # An edit's reload would repeat its toasts (Reloaded, the import's notes) on every key;
        # a watch reload says what changed instead.
        self._mute = edited or watched
        try:
            super()._install(doc)
        finally:
            self._mute = False
        if not edited and not toggled:
            self._watch(doc)
            if watched:
                self.notify(watch.changes(self._watch_previous, doc), title=f"{doc.source.name} changed on disk")
            self._watch_previous = None

    def _show_document(self, keep: Any = None) -> None:
        super()._show_document(keep)
        if self.doc is not None and self.edits is not None and self.edits.total:
            state = "modified" if self.edits.unsaved else ("saved" if self.edits.edited else "as given")
            self.query_one(TitleBar).show(f"{self.doc.source.name} [{state} · {self.edits.describe()}]",
                                          len(self.doc.raw), self.doc.result)

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        if not self._mute:
            super().notify(message, **kwargs)

    def load(self, source: Source) -> None:
        """Opening another file (or reading this one again) drops unsaved edits: ask first."""
        if self.edits is not None and self.edits.unsaved and self.doc is not None:
            def answered(yes: bool | None) -> None:
                if yes:
                    self.edits = None
                    MainScreen.load(self, source)

            what = "read it again from disk" if source == self.doc.source else f"open {source.name}"
            self.app.push_screen(ConfirmDialog("Unsaved edits", f"{self.doc.source.name} has {self.edits.position} "
                                               f"unsaved edit(s). Drop them and {what}?", yes="Drop edits"), answered)
            return
        super().load(source)

    # -- saving ------------------------------------------------------------------------------
    def action_save_edits(self) -> None:
        if self.doc is None or self.edits is None or not self.edits.edited:
            self.notify("No edits to save.", title="Save")
            return
        doc, history = self.doc, self.edits
        native, position = history.current, history.position
        fmt = doc.imported.format
        default = edited_path(doc.source.path, doc.source.sample)
        inputs = (doc.source.path,) if doc.source.path and not doc.source.sample else ()

        def data() -> bytes:
            return native.data(lambda d: formats.REGISTRY[fmt].dump(d, False))

        def saved(path: str | None) -> None:
            if path:
                history.saved = position
                self._show_document(self.current_key())
                self.notify(f"Saved {len(native):,} entries ({history.describe()}) to {path}; "
                            f"{doc.source.name} is unchanged.", title="Saved")

        self.app.push_screen(SaveEditsDialog(default, inputs, data, f"{history.describe()} · {fmt}"), saved)

    # -- watch -------------------------------------------------------------------------------
    def _watch(self, doc: Document) -> None:
        path = doc.source.path if self.watch_file and doc.source.path and not doc.source.sample else None
        if path != self._watched:
            self._watched = path
            if path is not None:
                watch.start(self, path)
            else:
                self.workers.cancel_group(self, "watch")

    def _failed(self, source: Source, message: str) -> None:
        """A watched file caught mid-write is said in a toast, and the last good load stays."""
        if self._watch_previous is not None and self.doc is not None:
            self._watch_previous = None
            self._done_loading()
            self.notify(f"{source.name} changed on disk but cannot be read yet: {message}", title="Watch",
                        severity="warning")
            return
        super()._failed(source, message)

    @on(watch.FileChanged)
    def _on_file_changed(self, message: watch.FileChanged) -> None:
        if self.doc is None or self.doc.source.path != message.path or self.loading_source is not None:
            return
        if self.edits is not None and self.edits.edited:
            self.notify(f"{self.doc.source.name} changed on disk; your edits are kept (r reads the file again "
                        "and drops them).", title="Watch", severity="warning")
            return
        self._watch_previous = self.doc
        MainScreen.load(self, self.doc.source)

    # -- lessons -----------------------------------------------------------------------------
    def action_learn(self) -> None:
        from .levels import open_levels  # the levels' state is kept in self.lessons: L comes back to it

        open_levels(self)


def _call_name(message: Any) -> str | None:
    """The tool name of a message's first call, in either spelling (``function.name`` or
    ``name``; the calls under ``metadata`` for a stored buffer row)."""
    calls = message.get("tool_calls")
    if not isinstance(calls, list) and isinstance(message.get("metadata"), dict):
        calls = message["metadata"].get("tool_calls")
    call = calls[0] if isinstance(calls, list) and calls else None
    if not isinstance(call, dict):
        return None
    name = call["function"].get("name") if isinstance(call.get("function"), dict) else call.get("name")
    return name if isinstance(name, str) else None


def read_native(doc: Document, native: Native) -> Any:
    """The edited document read by the open format's importer (a session file from its bytes,
    as its own parser reads it): the pipeline's steps, so provenance is the import's."""
    fmt, name = doc.imported.format, doc.source.name
    document = pipeline.parse(native.data(), name, fmt) if native.shape == "lines" else native.document()
    return pipeline.read(document, name, fmt)


def row_of(imported: Any, focus: Any, block: int | None) -> int | None:
    """The flat row showing native entry ``focus`` (block ``block`` of it when given), or the
    first row after it; a field name's row for a field."""
    sources = imported.sources
    if isinstance(focus, str):
        return next((i for i, loc in enumerate(sources) if loc.message == focus), None)
    if block is None and 0 <= focus < len(sources) and sources[focus].message == focus:
        return focus  # read one to one up to there (a flat history): no walk over every row
    first = after = None
    for i, loc in enumerate(sources):
        message = loc.message
        if not isinstance(message, int):
            continue
        if message == focus or (loc.items and focus in loc.items):
            if block is None or (loc.blocks and block in loc.blocks):
                return i
            first = i if first is None else first
        elif message > focus and after is None:
            after = i
    if first is not None:
        return first
    return after if after is not None else (len(sources) - 1 if len(sources) else None)


def ask_before_quit(app: Any) -> bool:
    """Whether quitting waits for an answer: the main screen holds unsaved edits, and a
    dialog now asks (yes quits)."""
    try:
        screen = app.get_screen("main")
    except KeyError:
        return False
    history = getattr(screen, "edits", None)
    if history is None or not history.unsaved or isinstance(app.screen, ConfirmDialog):
        return False

    def answered(yes: bool | None) -> None:
        if yes:
            app.exit()

    app.push_screen(ConfirmDialog("Unsaved edits", f"{history.position} edit(s) are not saved (ctrl+s on view 0 "
                                  "saves them as a new file). Quit and drop them?", yes="Quit"), answered)
    return True

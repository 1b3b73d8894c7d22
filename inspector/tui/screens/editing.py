"""Editing the open history on view 0 (the playground): the edit history, the worker that reads
an edited document again, saving the edits, and ``--watch``.

:class:`Editing` is a collaborator the main screen composes, not a subclass of it. Every edit
is a step of an :class:`~inspector.tui.edits.EditHistory` over the native document (never the
file, never the objects the open result shares); the edited document is read again by the
format's own importer and repaired in a thread worker, then installed by the screen as a
reload that keeps the view, the filters and the cursor on the edited entry. The screen asks
this object three things instead of being overridden:

- :meth:`Editing.may_replace`: may another document replace this one (unsaved edits ask first);
- :attr:`Editing.mute`: are the screen's toasts muted (an edit's or a watch's reload would
  repeat "Reloaded" and the import's notes on every key);
- :attr:`Editing.installing`: is the document being installed an edit's (the provider checks
  and the stage preparation then start a moment later, after the edited screen is painted).

How a screen opens a document for editing: ``screen.load(source)`` (any :class:`Source`, a
blank one ``Source(name, None, b"[]")`` included); the edit history begins with the first edit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.worker import get_current_worker

from ... import formats, pipeline
from ...io import InputError, describe_error
from .. import edit_templates, edits, loader, watch
from ..adapter import format_label
from ..edits import EditHistory, Native, NotEditable
from ..loader import Document, Source
from ..messages import EditRead, EditRefused
from ..rows import call_ids
from ..widgets.diff_table import DiffTable
from .editor import NOTHING, EditorDialog, TemplatePicker
from .error import ErrorDialog
from .save_edits import ConfirmDialog, SaveEditsDialog, edited_path

if TYPE_CHECKING:
    from .main import MainScreen

# After an edit the provider checks and the stage preparation start this much later: their
# threads would hold the interpreter while the edited screen paints (bench/tui.py measured the
# first frame 0.16-0.19 s after the key under load without it, 0.07-0.10 s with it), and keys
# in a burst (ctrl+z held) start them once.
BACKGROUND_DELAY = 0.1


@dataclass(slots=True)
class Timing:
    """When the last edit's key was handled and when its screen was installed (bench/tui.py)."""

    key: float = 0.0
    shown: float = 0.0


class Editing:
    """The playground of ``screen``: ``history`` is the open document's edit history (None until
    the first edit), ``pending`` the state a worker is reading, until it is shown."""

    def __init__(self, screen: MainScreen, watch_file: bool = False) -> None:
        self.screen = screen
        self.history: EditHistory | None = None
        self.pending: Native | None = None
        self.timing = Timing()
        self.watch_file = watch_file
        self.installing = False  # the history being installed is an edit's
        self.mute = False  # the screen's toasts are dropped (an edit's or a watch's reload)
        self._watched: str | None = None
        self._watch_previous: Document | None = None

    # -- what the screen asks ------------------------------------------------------------
    def may_replace(self, source: Source, go: Callable[[], None]) -> None:
        """Opening another file (or reading this one again) drops unsaved edits: ask first,
        then ``go``."""
        doc, history = self.screen.doc, self.history
        if history is None or not history.unsaved or doc is None:
            go()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.history = None
                go()

        what = "read it again from disk" if source == doc.source else f"open {source.name}"
        self.screen.app.push_screen(ConfirmDialog("Unsaved edits", f"{doc.source.name} has {unsaved_count(history)} "
                                                  f"unsaved edit(s). Drop them and {what}?", yes="Drop edits"),
                                    answered)

    def before_install(self, previous: Document | None, doc: Document) -> None:
        """``doc`` is about to replace ``previous``: edits belong to one document."""
        toggled = previous is not None and previous.imported is doc.imported  # strict or reasoning again
        if not self.installing and not toggled:
            self.history = None  # another file, or the file read again from disk
            self.pending = None
        watched = self._watch_previous is not None and previous is not None and previous.source == doc.source
        self.mute = self.installing or watched

    def after_install(self, previous: Document | None, doc: Document) -> None:
        self.mute = False
        toggled = previous is not None and previous.imported is doc.imported
        if self.installing or toggled:
            return
        self._watch(doc)
        if self._watch_previous is not None and previous is not None and previous.source == doc.source:
            self.screen.notify(watch.changes(self._watch_previous, doc), title=f"{doc.source.name} changed on disk")
        self._watch_previous = None

    def title(self, name: str) -> str:
        """The title's file name, with the edits' state once there are any."""
        history = self.history
        if history is None or not history.total:
            return name
        state = "modified" if history.unsaved else ("saved" if history.edited else "as given")
        return f"{name} [{state} · {history.describe()}]"

    def owns_save_key(self) -> bool:
        """``ctrl+s`` saves the edits on view 0 of an edited history; otherwise it exports."""
        screen = self.screen
        return screen.doc is not None and screen.view == 0 and self.history is not None and self.history.edited

    def load_failed(self, source: Source, message: str) -> bool:
        """A watched file caught mid-write is said in a toast, and the last good load stays;
        whether that was the case (else the screen shows the error)."""
        screen = self.screen
        if self._watch_previous is None or screen.doc is None:
            return False
        self._watch_previous = None
        screen.notify(f"{source.name} changed on disk but cannot be read yet: {message}", title="Watch",
                      severity="warning")
        return True

    # -- the edit model of the open document ------------------------------------------------
    def _history(self) -> EditHistory | None:
        """The open document's edit history, begun on the first edit."""
        doc = self.screen.doc
        if doc is None:
            return None
        if self.history is None:
            im = doc.imported
            try:
                self.history = EditHistory(Native.of(im.document, im.history, im.container))
            except NotEditable:
                self.screen.notify(f"{format_label(im.format)} files are not edited here: export the history (e), "
                                   "edit the file, open it again.", title="Edit", severity="warning")
                return None
        return self.history

    def _busy(self) -> bool:
        if self.pending is not None:
            self.screen.notify("Still reading the last edit: press the key again in a moment.", severity="warning")
            return True
        return False

    def _target(self) -> tuple[EditHistory, edits.Target] | None:
        screen = self.screen
        if screen.view != 0:
            screen.notify("Edits are made on view 0, the entries as given: 0 goes there.", title="Edit")
            return None
        if self._busy():
            return None
        history = self._history()
        row = screen.query_one(DiffTable).current
        if history is None:
            return None
        if row is None or row.origin is None:
            screen.notify("Select an entry first.", title="Edit")
            return None
        loc = screen.doc.imported.sources[row.origin]  # type: ignore[union-attr]
        return history, edits.target_of(history.current, loc)

    def edit_entry(self) -> None:
        found = self._target()
        if found is None:
            return
        history, target = found
        native = history.current
        where = target.describe(native.container, native.shape == "lines")
        doc = self.screen.doc
        note = ("The native entry, as the file holds it: the import reads it again, so provenance stays true."
                if doc is not None and doc.model.imported is not None else "")
        before = edits.value_of(native, target)

        def done(value: Any) -> None:
            if value is NOTHING:
                return
            if value == before and type(value) is type(before):  # saved unchanged: nothing was edited
                self.screen.notify("Unchanged: nothing to apply.", title="Edit", timeout=3)
                return
            self._apply(edits.replace_edit(history.current, target, value))

        self.screen.app.push_screen(EditorDialog(f"Edit {where}", edits.as_text(before), note), done)

    def delete_entry(self) -> None:
        found = self._target()
        if found is not None:
            history, target = found
            self._apply(edits.delete_edit(history.current, target))

    def insert_entry(self) -> None:
        screen = self.screen
        if screen.view != 0:
            self._target()  # says where edits are made
            return
        history = self._history()
        doc = screen.doc
        if history is None or doc is None or self._busy():
            return
        fmt = doc.imported.format
        if not edit_templates.available(fmt, history.current.shape):
            screen.notify("New entries from templates are for JSON histories and Codex rollouts; E edits this "
                          "file's lines.", title="Add", severity="warning")
            return
        row = screen.query_one(DiffTable).current
        target = (edits.target_of(history.current, doc.imported.sources[row.origin])
                  if row is not None and row.origin is not None else None)
        call_id, tool = selected_call(doc, row.origin if row is not None else None)
        choices = [(name, label.replace("the selected call", f"{call_id}") if name == "result" else label)
                   for name, label in edit_templates.TEMPLATES.items()]
        where = ("after " + target.describe(history.current.container, history.current.shape == "lines")
                 if target is not None else "at the end")

        def picked(name: str | None) -> None:
            if not name or screen.doc is None:
                return
            fresh = f"call_new_{history.position + 1}"
            try:
                entry = edit_templates.template(name, fmt, call_id if name == "result" else fresh,
                                                tool if name == "result" else "get_weather")
            except Exception as exc:  # noqa: BLE001 - a format that cannot spell the template says so
                screen.notify(f"No {edit_templates.TEMPLATES[name]} template for {fmt}: {describe_error(exc, fmt)}",
                              severity="warning")
                return
            self._apply(edits.insert_edit(history.current, target, [entry], edit_templates.TEMPLATES[name]))

        screen.app.push_screen(TemplatePicker(choices, where), picked)

    def move_entry(self, delta: int) -> None:
        found = self._target()
        if found is None:
            return
        history, target = found
        edit = edits.move_edit(history.current, target, delta)
        if edit is None:
            self.screen.notify("Already at the edge: nothing to move past.", title="Move")
            return
        self._apply(edit)

    def undo(self) -> None:
        history = self.history
        if history is None or not history.done:
            self.screen.notify("Nothing to undo.", title="Undo")
            return
        edit = history.undo()
        assert edit is not None
        self._read(history.current, edit.undo_focus, None, f"undid {edit.label}")

    def redo(self) -> None:
        history = self.history
        if history is None or not history.undone:
            self.screen.notify("Nothing to redo.", title="Redo")
            return
        edit = history.redo()
        assert edit is not None
        self._read(history.current, edit.focus, edit.block, f"redid {edit.label}")

    def _apply(self, edit: edits.Edit) -> None:
        assert self.history is not None
        try:
            native = self.history.apply(edit)
        except ValueError as exc:  # the shown rows and the model disagree: never guess
            self.screen.notify(f"Not applied: {exc}", severity="error")
            return
        self._read(native, edit.focus, edit.block, edit.label)

    # -- reading the edited document, off the UI thread ------------------------------------
    def _read(self, native: Native, focus: Any, block: int | None, label: str) -> None:
        screen = self.screen
        doc = screen.doc
        assert doc is not None
        self.pending = native
        self.timing.key = started = time.perf_counter()

        def run() -> None:
            worker = get_current_worker()
            try:
                fresh = loader.reread(doc, read_native(doc, native))
            except InputError as exc:
                if not worker.is_cancelled:
                    screen.post_message(EditRefused(native, str(exc)))
                return
            except Exception as exc:  # noqa: BLE001 - whatever an edit makes, the app stays up and says so
                if not worker.is_cancelled:
                    screen.post_message(EditRefused(native, describe_error(exc, doc.source.name)))
                return
            fresh.model.rows(0).layout()
            if not worker.is_cancelled:
                screen.post_message(EditRead(fresh, native, focus, block, label, started))

        screen.run_worker(run, thread=True, exclusive=True, group="edit", description="read the edited history again")

    def read(self, message: EditRead) -> None:
        """The worker read an edit: show it (unless a later edit or undo is being read)."""
        screen = self.screen
        if self.history is None or message.native is not self.history.current:
            return
        self.pending = None
        self.installing = True
        try:
            screen.install(message.document)
        finally:
            self.installing = False
            self.mute = False
        self._put_cursor(message.focus, message.block)
        self.timing.shown = time.perf_counter()
        hint = "ctrl+y redoes" if message.label.startswith("undid") else "ctrl+z undoes"
        screen.notify(f"{message.label[:1].upper()}{message.label[1:]} ({self.history.describe()}; {hint}).",
                      title="Edit", timeout=3)

    def refused(self, message: EditRefused) -> None:
        history = self.history
        if history is None or message.native is not history.current:
            return
        self.pending = None
        history.discard()  # not applied: nothing to redo
        doc = self.screen.doc
        fmt = doc.imported.format if doc is not None else "its format"
        self.screen.app.push_screen(ErrorDialog("Edit not applied", f"The edited history is not one {fmt} reads, "
                                                f"so the edit was taken back:\n{message.error}"))

    def _put_cursor(self, focus: Any, block: int | None) -> None:
        doc = self.screen.doc
        if doc is None or focus is None:
            return
        origin = row_of(doc.imported, focus, block)
        if origin is None:
            return
        table = self.screen.query_one(DiffTable)
        position = table.position_of(origin)
        if position is not None and position != table.cursor:
            table.cursor = position

    # -- saving ------------------------------------------------------------------------------
    def save(self) -> None:
        screen = self.screen
        if screen.doc is None or self.history is None or not self.history.edited:
            screen.notify("No edits to save.", title="Save")
            return
        doc, history = screen.doc, self.history
        native, position = history.current, history.position
        fmt = doc.imported.format
        default = edited_path(doc.source.path, doc.source.sample)
        inputs = (doc.source.path,) if doc.source.path and not doc.source.sample else ()

        def data() -> bytes:
            return native.data(lambda d: formats.REGISTRY[fmt].dump(d, False))

        def saved(path: str | None) -> None:
            if path:
                history.saved = position
                screen.show_document(screen.current_key())
                screen.notify(f"Saved {len(native):,} entries ({history.describe()}) to {path}; "
                              f"{doc.source.name} is unchanged.", title="Saved")

        screen.app.push_screen(SaveEditsDialog(default, inputs, data, f"{history.describe()} · {fmt}"), saved)

    # -- watch -------------------------------------------------------------------------------
    def _watch(self, doc: Document) -> None:
        path = doc.source.path if self.watch_file and doc.source.path and not doc.source.sample else None
        if path != self._watched:
            self._watched = path
            if path is not None:
                watch.start(self.screen, path)
            else:
                self.screen.workers.cancel_group(self.screen, "watch")

    def file_changed(self, message: watch.FileChanged) -> None:
        screen = self.screen
        doc = screen.doc
        if doc is None or doc.source.path != message.path or screen.loading_source is not None:
            return
        if self.history is not None and self.history.edited:
            screen.notify(f"{doc.source.name} changed on disk; your edits are kept (r reads the file again "
                          "and drops them).", title="Watch", severity="warning")
            return
        self._watch_previous = doc
        screen.load_now(doc.source)


def unsaved_count(history: EditHistory) -> int:
    """How many edits a file written holds not: those since the last save (all, before one;
    an undo back past the save counts the steps back to it)."""
    if history.saved is None:
        return history.position
    return abs(history.position - history.saved)


def selected_call(doc: Document, origin: int | None) -> tuple[str, str]:
    """The call a new result answers: the selected row's first call, else the nearest call above it."""
    if origin is None:
        return "call_new_1", "get_weather"
    messages = doc.imported.messages
    for i in range(min(origin, len(messages) - 1), -1, -1):
        ids = [ident for ident, call in call_ids(messages[i]) if call is not None]
        if ids:
            return ids[0], _call_name(messages[i]) or "get_weather"
    return "call_new_1", "get_weather"


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
    editing = getattr(screen, "editing", None)
    history = editing.history if editing is not None else None
    if history is None or not history.unsaved or isinstance(app.screen, ConfirmDialog):
        return False

    def answered(yes: bool | None) -> None:
        if yes:
            app.exit()

    app.push_screen(ConfirmDialog("Unsaved edits", f"{unsaved_count(history)} edit(s) are not saved (ctrl+s on view 0 "
                                  "saves them as a new file). Quit and drop them?", yes="Quit"), answered)
    return True

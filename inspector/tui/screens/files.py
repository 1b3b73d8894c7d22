"""What the main screen opens and writes: another file, the gallery, the folder browser (and
``inspector doctor --tui``'s list), a pasted path, the export of the repair and a row copied
as JSON. One collaborator of :class:`~inspector.tui.screens.main.MainScreen`; the screen's
actions call it, and it opens what is chosen through the screen's :meth:`load`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from textual import events
from textual.widgets import Input

from .. import confine
from ..loader import Source
from ..widgets.diff_table import DiffTable
from .browser import BrowserScreen
from .export import ExportDialog, default_export_path, export_inputs
from .gallery import GalleryScreen
from .open_file import OpenFileDialog

if TYPE_CHECKING:
    from .main import MainScreen


class Files:
    """``root``: the folder `inspector DIR` (or b) lists; ``left``: the file the browser opened
    last, where it comes back to."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.root: str | None = None
        self.left: str | None = None
        self._cache: dict[Any, Any] = {}  # the browser's verdicts of its files, kept across visits

    def _open(self, path: str) -> None:
        self.left = path
        self.screen.load(Source.file(path))

    def export(self) -> None:
        screen = self.screen
        doc = screen.doc
        if doc is None:
            screen.notify("Open a history first.", severity="warning")
            return
        source = doc.source
        if source.path is None:
            base = None
        elif source.sample:  # the samples folder may not be writable: the current folder
            base = Path(source.path).name
        else:
            base = source.path

        def done(message: str | None) -> None:
            if message:
                screen.notify(message, title="Exported")

        screen.app.push_screen(ExportDialog(doc.result, default_export_path(base), export_inputs(source.path),
                                            imported=doc.imported, strict=doc.strict, source=base,
                                            reasoning=doc.reasoning), done)

    def open(self) -> None:
        screen = self.screen

        def chosen(path: str | None) -> None:
            if path:
                screen.load(Source.file(path))

        start = None
        if screen.doc is not None and screen.doc.source.path and not screen.doc.source.sample:
            start = str(Path(screen.doc.source.path).resolve().parent)
        screen.app.push_screen(OpenFileDialog(start), chosen)

    def gallery(self) -> None:
        """The samples; escape comes back to the screen as it was (the empty screen, from which
        o, g and q go on, when nothing is open)."""
        screen = self.screen

        def chosen(path: Path | None) -> None:
            if path is not None:
                screen.load(Source.file(path, sample=True))
            elif screen.doc is None and screen.loading_source is None:
                screen.show_document()

        screen.app.push_screen(GalleryScreen(), chosen)

    def reload(self) -> None:
        screen = self.screen
        if screen.doc is None:
            screen.notify("Nothing to reload: open a file first.", severity="warning")
        elif not screen.doc.source.reloadable:
            screen.notify("Standard input was read once; it cannot be reloaded.", severity="warning")
        else:
            screen.load(screen.doc.source)

    def copy(self) -> None:
        screen = self.screen
        row = screen.query_one(DiffTable).current
        if row is None:
            return
        try:
            data = orjson.dumps(row.message, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
        except (TypeError, orjson.JSONEncodeError):
            try:
                data = repr(row.message)
            except RecursionError:   # nested deeper than anything can write it out: say so, stay up
                screen.notify("This entry is nested too deeply to be written out as JSON, so nothing was copied.",
                              title="Copy", severity="warning")
                return
        screen.app.copy_to_clipboard(data)
        where = f"#{row.origin}" if row.origin is not None else "the synthesized row"
        screen.notify(f"Copied {where} ({screen.views[screen.view]}) as JSON: {len(data):,} characters.")

    def browse(self) -> None:
        """The folder's files (the one `inspector DIR` named, else the open file's), the cursor on
        the file opened from it last; under `inspector doctor --tui`, the doctor's list again."""
        screen = self.screen
        if getattr(screen.app, "doctor", None) is not None:
            self.doctor(*screen.app.doctor)
            return
        doc = screen.doc
        root = self.root
        if root is None and doc is not None and doc.source.path and not doc.source.sample:
            root = str(Path(doc.source.path).resolve().parent)
        root = root or os.getcwd()
        self.root = root

        def chosen(path: str | None) -> None:
            if path:
                self._open(path)
            elif screen.doc is None:  # the empty screen, from which o and g open something
                screen.show_document()

        screen.app.push_screen(BrowserScreen(root, self._cache, at=self._left_file()), chosen)

    def _left_file(self) -> str | None:
        doc = self.screen.doc
        if doc is not None and doc.source.path and not doc.source.sample:
            return doc.source.path
        return self.left

    def doctor(self, found: list[Any], heading: str) -> None:
        """``inspector doctor --tui``: the browser on the files the doctor found, its verdicts."""
        screen = self.screen

        def chosen(path: str | None) -> None:
            if path:
                self._open(path)
            elif screen.doc is None:
                screen.app.exit()   # back from the doctor's list with nothing open: done

        screen.app.push_screen(BrowserScreen(os.getcwd(), self._cache, found=found, heading=heading,
                                             at=self._left_file()), chosen)

    def paste(self, event: events.Paste) -> None:
        """A path pasted on the screen (a bracketed paste) opens that file, or lists that folder;
        any other text is an error text to explain (``inspector why``: screens/why.py)."""
        screen = self.screen
        if isinstance(screen.focused, Input):  # pasted into the search field: it is search text
            return
        text = event.text.strip().strip("'\"")
        if not text:
            return
        path = confine.expand(screen.app, text) if "\n" not in text else ""
        if path and os.path.isdir(path):
            event.stop()
            self.root = path
            self.browse()
        elif path and os.path.isfile(path):
            event.stop()
            screen.load(Source.file(path))
        elif path and " " not in text and os.sep in text:   # a path that is not there: not an error text
            event.stop()
            screen.notify(f"Pasted path not found: {text}", severity="warning")
        else:
            event.stop()
            screen.why.explain(event.text.strip())

"""Loading the screen's document: the load worker, the progress panel, and the warm-up that
prepares every stage's rows in the background once a history is shown.

:class:`Loading` is the screen's collaborator for this one responsibility, the way toolong's
``LogLines`` owns its ``run_scan``: the screen says *load this* and hears back through the
typed messages of :mod:`inspector.tui.messages`; it never reaches into the worker.
"""

from __future__ import annotations

import gc
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import ProgressBar, Static
from textual.worker import get_current_worker

from .. import confine, loader
from .. import reasoning as thinking
from ..loader import Document, Source
from ..messages import LoadFailed, SessionsOffered, StagesPrepared
from ..text import inert
from ..widgets.diff_table import DiffTable
from ..widgets.title_bar import TitleBar
from .editing import BACKGROUND_DELAY
from .error import ErrorDialog
from .sessions import SessionPicker

if TYPE_CHECKING:
    from .main import MainScreen

BIG_FILE = 2_000_000  # bytes from which the progress panel shows at once
REVEAL_AFTER = 0.15  # seconds a smaller load may take before the progress panel shows


def _size(source: Source) -> int:
    if source.data is not None:
        return len(source.data)
    try:
        return os.path.getsize(source.path) if source.path else 0
    except OSError:
        return 0


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


class Loading:
    """One load at a time for ``screen``: ``source`` is what is being loaded (None: nothing).

    The screen composes ``#loading`` (a label and a bar) and handles the messages the worker
    posts; this object starts the worker and shows how far it is."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.source: Source | None = None
        self._timer: Any = None
        self.deferred = 0   # edited documents whose checks wait for the next paint (timers pending)

    def load(self, source: Source, ask: bool = True) -> None:
        """Open ``source``: in served mode only inside the served folder (and named from it);
        with unsaved edits, once the user lets them go (``ask``)."""
        screen = self.screen
        if (refused := confine.refusal(screen.app, source.path)) is not None:  # served mode: stay inside
            screen.app.push_screen(ErrorDialog(f"Cannot open {source.name}", refused))
            return
        if ask:
            screen.editing.may_replace(source, lambda: self.load(source, ask=False))
            return
        if confine.of(screen.app) is not None and not source.sample:  # served: named from the folder, everywhere
            source = replace(source, name=confine.shown(screen.app, source.name))
        self.start(source, screen.strict, screen.reasoning)

    def toggle_strict(self) -> None:
        """t: normalize the open history again with (or without) the strict stage, in the worker."""
        screen = self.screen
        if self._may_toggle("t"):
            screen.strict = not screen.strict
            self._again(f"Strict {'on' if screen.strict else 'off'}: it applies to the next history opened.",
                        "Strict")

    def toggle_reasoning(self) -> None:
        """R: switch --reasoning (keep or strip) and run the repair and export again, in the worker."""
        screen = self.screen
        if self._may_toggle("R"):
            screen.reasoning = thinking.other(screen.reasoning)
            self._again(f"--reasoning {screen.reasoning}: it applies to the next history opened.", "Reasoning")

    def _may_toggle(self, key: str) -> bool:
        if self.source is not None:
            self.screen.notify(f"Still loading: press {key} again once the history is open.", severity="warning")
            return False
        return True

    def _again(self, nothing_open: str, title: str) -> None:
        """Repair the open history again, in the worker; with none open, say the switch applies
        to the next one."""
        screen = self.screen
        if screen.doc is None:
            screen.notify(nothing_open, title=title)
        else:
            self.start(screen.doc.source, screen.strict, screen.reasoning, again=screen.doc)

    def start(self, source: Source, strict: bool, reasoning: str, again: Document | None = None) -> None:
        """Load ``source`` (given ``again``, repair that document's import again: the strict and
        reasoning toggles) in the loader's worker; the panel shows if it takes a moment."""
        self.begin(source)
        loader.start(self.screen, source, strict, again, reasoning=reasoning)

    def begin(self, source: Source) -> None:
        self.source = source
        if self.screen.doc is None:  # the empty screen says what it is loading
            self.screen.query_one(TitleBar).show(source.name)
            table = self.screen.query_one(DiffTable)
            table.empty_text = f"Loading {inert(source.name)}…"
            table.refresh()
        if self._timer is not None:
            self._timer.stop()
        self.progress(f"Loading {source.name}", 0.0)
        if _size(source) >= BIG_FILE:  # parsing holds the interpreter: show progress before it starts
            self._reveal()
        else:
            self._timer = self.screen.set_timer(REVEAL_AFTER, self._reveal)

    def _reveal(self) -> None:
        if self.source is not None:
            self.screen.query_one("#loading").display = True

    def progress(self, phase: str, fraction: float) -> None:
        if self.source is None and fraction:
            return  # a late message of a load already over
        self.screen.query_one("#loading-label", Static).update(Text(inert(phase)))
        self.screen.query_one("#loading-bar", ProgressBar).update(progress=round(fraction * 100))

    def done(self) -> None:
        self.source = None
        if self._timer is not None:
            self._timer.stop()
        self.screen.query_one("#loading").display = False

    def background(self, doc: Document) -> None:
        """Every provider's verdict (the bar's worker) and every stage's rows (the warm-up);
        after an edit, a moment later, once the edited screen is painted."""
        screen = self.screen

        def start() -> None:
            self.deferred = max(0, self.deferred - 1)
            if screen.doc is doc:
                screen.verdict_bar.compute(doc, screen.target)
                self.warm(doc, lambda: screen.doc)

        if screen.editing.installing:
            self.deferred += 1
            screen.set_timer(BACKGROUND_DELAY, start, name="after an edit")
        else:
            start()

    def prepared(self, message: StagesPrepared) -> None:
        """The stage rows are long-lived like the document: freeze them too, so that the full
        collections a session keeps triggering walk only what the screen makes, not the rows
        of every stage (that walk cost a stage switch 15-35 ms every few keys). No collection
        first: it would stall the screen for 20 ms to free a few hundred objects."""
        if message.document is self.screen.doc:
            gc.freeze()

    def announce(self, doc: Document, reload: bool, toggled: bool, policy: bool) -> None:
        """The toasts of a document just installed: what the strict or reasoning toggle did, a
        reload's count, or the import's notes."""
        notify = self.screen.notify
        if toggled:
            if doc.strict:
                notify("Strict on: the strict stage, Inspector's extension beyond MEM-5, now runs "
                       f"after strip ({_count(len(doc.result.stages[-1].events), 'event')}).", title="Strict")
            else:
                notify("Strict off: the four MEM-5 stages only.", title="Strict")
        elif policy:
            notify(thinking.toggled_text(doc.imported, doc.reasoning, doc.reasoning_events), title="Reasoning")
        elif reload:
            notify(f"Reloaded {doc.source.name}: {len(doc.raw):,} messages.", title="Reload")
        if not toggled and not policy and doc.notes:   # one toast, not one each: they covered the table
            notify("; ".join(doc.notes) + "." if len(doc.notes) > 1 else doc.notes[0],
                   title=f"Import: {len(doc.notes)} notes" if len(doc.notes) > 1 else "Import")

    def failed(self, message: LoadFailed) -> None:
        """The load failed: the error dialog (a watched file caught mid-write: a toast, and the
        last good load stays)."""
        screen = self.screen
        self.done()
        if screen.editing.load_failed(message.source, message.error):
            return
        if screen.doc is None:
            screen.show_document()  # back to the empty state, ready for o or g
        screen.app.push_screen(ErrorDialog(f"Cannot open {message.source.name}", message.error))

    def offered(self, message: SessionsOffered) -> None:
        """A file with several sessions and no --session (or one it does not hold): the user picks one."""
        screen = self.screen
        self.done()
        if screen.doc is None:
            screen.show_document()
        source = message.source

        def chosen(session: str | None) -> None:
            if session:
                screen.load(replace(source, session=session))

        screen.app.push_screen(SessionPicker(source.name, message.sessions, source), chosen)
        if message.missing is not None:
            screen.notify(f"{source.name} holds no session {message.missing!r}: pick one of its "
                          f"{len(message.sessions)} sessions.", title="--session", severity="warning")

    def warm(self, doc: Document, current: Any) -> None:
        """Build every stage's rows of ``doc`` in a thread, so later stage switches are instant;
        ``current()`` is the screen's document now (the worker stops once it is another)."""
        def run() -> None:
            worker = get_current_worker()
            for view in range(1, len(doc.model.views)):
                if worker.is_cancelled or current() is not doc:
                    return
                rows = doc.model.rows(view)
                rows.layout()
                rows.changed()  # what d shows
                DiffTable.prepare(rows)
            if not worker.is_cancelled:
                self.screen.post_message(StagesPrepared(doc))

        self.screen.run_worker(run, thread=True, exclusive=True, group="warm", description="prepare stage rows")

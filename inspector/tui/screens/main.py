"""The inspection screen: stage bar, diff, rule, details, journey and summary of one history.

The screen owns the loaded document and the view state: stage, split, filters are
reactives whose watchers all end in one place (:meth:`MainScreen._show_view`), as in
posting's main screen, so a key, a click, the palette or a summary pick change the view the
same way. Loading and normalizing run in the loader's worker thread
(:func:`inspector.tui.loader.start`), which reports through typed messages
(:mod:`inspector.tui.messages`).
"""

from __future__ import annotations

import gc
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual import events
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input, ProgressBar, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from ...engine import KINDS
from .. import confine, keys, loader
from .. import reasoning as thinking
from ..adapter import STRICT, is_extension
from ..loader import Document, Source
from ..messages import DocumentLoaded, LoadFailed, LoadProgress, SessionsOffered, StagesPrepared
from .. import causes, facts, layout, search as finding, verdict
from ..rows import VIEWS, Row, first_cause
from ..text import inert
from ..widgets.details import Details
from ..widgets.diff_table import DiffTable
from ..widgets.journey import Journey
from ..widgets.rule_panel import RulePanel
from ..widgets.stage_bar import StageBar
from ..widgets.summary import Summary
from ..widgets.title_bar import TitleBar
from ..widgets.verdict import VerdictBar, problems_text
from .browser import BrowserScreen
from .error import ErrorDialog
from .export import ExportDialog, default_export_path, export_inputs
from .gallery import GalleryScreen
from .help import HelpScreen
from .open_file import OpenFileDialog
from .providers import ProviderPicker
from .sessions import SessionPicker

WIDE = layout.BESIDE  # columns from which the side panel sits beside the table (layout decides)
BACKGROUND_SEARCH = 20_000  # rows from which a search runs in a worker thread
BIG_FILE = 2_000_000  # bytes from which the progress panel shows at once
PANE_DELAY = 0.08  # seconds between pane updates while the cursor keeps moving
# Footer entries left out below layout.FULL_FOOTER columns, so that Help and Quit always show (every key is
# still bound, and listed in the help and the palette).
MAXIMIZED_HIDDEN = frozenset({"row.details", "view.zoom"})  # a pane covers the table: esc Back instead
NARROW_HIDDEN = frozenset({"filter.changed", "view.split", "filter.search", "row.journey", "stage.previous"})


def _size(source: Source) -> int:
    if source.data is not None:
        return len(source.data)
    try:
        return os.path.getsize(source.path) if source.path else 0
    except OSError:
        return 0


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


class SidePanel(Vertical):
    """Rule, details, journey and summary; maximizable so a narrow screen can read them."""

    ALLOW_MAXIMIZE = True


def _stage_binding(view: int) -> Binding:
    return Binding(str(view), f"stage({view})", VIEWS[view], show=False, id=f"stage.{VIEWS[view]}",
                   tooltip=f"Jump to stage {view}: {VIEWS[view]}" + (
                       " (the input as given; the import step when the file is in a provider format)"
                       if not view else ""))


class MainScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]
    ESCAPE_TO_MINIMIZE = False  # escape also returns focus to the table: action_back does both

    BINDINGS = [
        # While a search is on, n and N go to its next and previous match (else n is the next stage).
        Binding("n", "match(1)", "Match", show=False, id="search.next",
                tooltip="Next match of the search (wrapping); with none in this stage, the nearest stage with one"),
        Binding("N", "match(-1)", "Prev match", show=False, id="search.previous",
                tooltip="Previous match of the search (wrapping)"),
        Binding("right_square_bracket", "change(1)", "Next change", key_display="]", show=False,
                id="row.next_change", tooltip="Next changed row, without filtering the others out"),
        Binding("left_square_bracket", "change(-1)", "Prev change", key_display="[", show=False,
                id="row.previous_change", tooltip="Previous changed row, without filtering the others out"),
        Binding("n,right", "step(1)", "Next", key_display="n/→", id="stage.next", tooltip="Next stage"),
        Binding("p,left", "step(-1)", "Prev", key_display="p/←", id="stage.previous", tooltip="Previous stage"),
        *[_stage_binding(v) for v in range(len(VIEWS))],
        Binding("5", "stage(5)", "strict", show=False, id="stage.strict",
                tooltip="Jump to stage 5: strict (Inspector's extension beyond MEM-5; on with t)"),
        Binding("R", "reasoning", "Reasoning", show=False, id="view.reasoning",
                tooltip="--reasoning keep or strip: strip removes every reasoning block, signature and encrypted "
                        "item on export, so the history can go to another model (runs the pipeline again)"),
        Binding("t", "strict", "Strict", show=False, id="view.strict",
                tooltip="Strict on/off: add the strict stage, an extension beyond MEM-5 (normalizes again)"),
        Binding("enter", "details", "Details", id="row.details",
                tooltip="Details of the selected row: before, after, every event"),
        Binding("f", "cause", "Cause", show=False, id="row.cause",
                tooltip="Go to the cause: the message that made the selected row's event necessary (→ #N)"),
        Binding("u", "summary", "Summary", show=False, id="view.summary",
                tooltip="Counts by event kind for the whole run; enter on one shows only what it touched"),
        Binding("d", "changed_only", "Changed", id="filter.changed", tooltip="Show only changed rows (toggle)"),
        Binding("s", "split", "Split", id="view.split", tooltip="Side by side (before | after) or unified"),
        Binding("z", "zoom", "Zoom", id="view.zoom",
                tooltip="Zoom: the table takes the whole screen, the side panels hide (z again shows them)"),
        Binding("slash", "search", "Search", key_display="/", id="filter.search",
                tooltip="Search message text or a tool call id"),
        Binding("j", "journey", "Journey", id="row.journey",
                tooltip="The selected message's path through all four stages"),
        Binding("e", "export", "Export", id="file.export", tooltip="Export the repaired history (ctrl+s too)"),
        Binding("v", "providers", "Provider", id="provider.pick",
                tooltip="Which provider to check against: every provider's verdict, enter picks one"),
        Binding("x", "next_problem", "Problem", show=False, id="provider.next",
                tooltip="Go to the next row the chosen provider would reject (marked ! in the table)"),
        Binding("b", "browse", "Folder", show=False, id="file.browse",
                tooltip="The folder's history and session files, with a verdict for each"),
        Binding("o", "open", "Open", show=False, id="file.open", tooltip="Open another file"),
        Binding("g", "gallery", "Samples", show=False, id="file.gallery", tooltip="The bundled samples gallery"),
        Binding("r", "reload", "Reload", show=False, id="file.reload", tooltip="Reload the file from disk"),
        Binding("c", "copy", "Copy", show=False, id="row.copy", tooltip="Copy the selected message as JSON"),
        Binding("question_mark,f1", "help", "Help", key_display="?", id="app.help",
                tooltip="Keys and the full MEM-5 summary"),
        Binding("q", "app.quit", "Quit", id="app.quit", tooltip="Quit Inspector"),
        Binding("escape", "back", "Back", show=False, id="view.back",
                tooltip="Back to the table; clear search and filters"),
    ]

    # The view state: every change goes through the watchers below, to _show_view, which
    # refreshes exactly the widgets that change (repainting the screen itself as well would
    # cost a stage switch one more frame).
    view: reactive[int] = reactive(0, init=False, repaint=False)
    split: reactive[bool] = reactive(False, init=False, repaint=False)
    changed_only: reactive[bool] = reactive(False, init=False, repaint=False)
    kind: reactive[str | None] = reactive(None, init=False, repaint=False)
    query_text: reactive[str] = reactive("", init=False, repaint=False)

    def __init__(self, strict: bool = False, target: str = "auto", reasoning: str = "keep") -> None:
        super().__init__()
        self.reasoning = reasoning  # the --reasoning policy (keep | strip) every export of this screen runs with
        self.doc: Document | None = None
        self.target_option = target  # --target: a target name, or auto (the provider the format speaks)
        self.target: str | None = None  # the provider the verdict shows (None: every provider's, at a glance)
        self.verdicts: verdict.Verdicts | None = None
        self.caused: dict[int, list[Any]] = {}  # input entry -> the later events it made necessary
        self.browse_root: str | None = None  # the folder `inspector DIR` (or b) lists
        self._browse_cache: dict[Any, Any] = {}  # its files' verdicts, kept across visits
        self.strict = strict  # the strict stage (beyond MEM-5) on every history this screen loads
        self.kind_keys: set[Any] | None = None
        self.searching = False
        self._elsewhere: tuple[Any, list[tuple[int, int]]] | None = None  # (search asked, where else it matches)
        self.loading_source: Source | None = None
        self._loading_timer = None
        self._pane_timer = None
        self._pending_row: Row | None = None
        self._shown: tuple[Any, ...] | None = None  # what the panes show: (view, rows, row key)
        self._pane_row: Row | None = None
        self._stale_tabs: set[str] = set()  # panes not yet filled for the selected row

    # -- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar(id="title")
        yield StageBar(id="stages")
        yield VerdictBar(id="verdict")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield DiffTable(id="table")
                yield Static(id="status")
                yield Input(placeholder="search text or tool call id; enter applies, escape cancels",
                            id="search")
            with SidePanel(id="side"):
                yield RulePanel(id="rule")
                with TabbedContent(id="tabs"):
                    with TabPane("Details", id="tab-details"):
                        yield Details(id="details")
                    with TabPane("Journey", id="tab-journey"):
                        yield Journey(id="journey")
                    with TabPane("Summary", id="tab-summary"):
                        yield Summary(id="summary")
                    with TabPane("Provider", id="tab-provider"):
                        with VerticalScroll(id="problems-scroll"):
                            yield Static(id="problems")
        with Vertical(id="loading"):
            yield Static("Loading…", id="loading-label")
            yield ProgressBar(total=100, show_eta=False, id="loading-bar")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#search", Input).display = False
        self.query_one("#loading").display = False
        self.query_one("#table", DiffTable).focus()
        self._show_document()

    # -- view state --------------------------------------------------------------------
    def validate_view(self, view: int) -> int:
        return max(0, min(view, len(self.views) - 1))

    def watch_view(self) -> None:
        self._state_changed()

    def watch_split(self) -> None:
        self._state_changed()

    def watch_changed_only(self) -> None:
        self._state_changed()

    def watch_kind(self) -> None:
        self._kind_keys()
        self._state_changed()

    def watch_query_text(self) -> None:
        self._state_changed()

    def _state_changed(self) -> None:
        self._show_view(self.current_key())

    def _kind_keys(self) -> None:
        kind = self.kind
        self.kind_keys = self.doc.model.touched_by(kind) if kind is not None and self.doc is not None else None

    def _change(self, keep: Any = None, *, moved: bool = False, **state: Any) -> bool:
        """Change several reactives of the view state at once, without their watchers
        (``set_reactive``), then show the view once if any changed; ``moved``: the cursor
        goes to ``keep`` (None: the first row) rather than staying on its message."""
        keep = keep if moved else self.current_key()
        changed = [name for name, value in state.items() if getattr(self, name) != value]
        for name in changed:
            self.set_reactive(getattr(MainScreen, name), state[name])
        if "kind" in changed:
            self._kind_keys()
        if changed:
            self._show_view(keep)
        return bool(changed)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """On a narrow screen the footer keeps the keys that matter most, Help and Quit among them."""
        bindings = super().active_bindings
        if self.maximized is not None and "escape" in bindings:  # a pane covers the table: say how back,
            bindings = {key: (active._replace(binding=replace(active.binding, show=False))  # in the room of
                              if active.binding.id in MAXIMIZED_HIDDEN else active)   # keys for the table
                        for key, active in bindings.items()}
            back = bindings["escape"]
            bindings["escape"] = back._replace(binding=replace(back.binding, show=True))
        if layout.full_footer(self.app.size.width):
            return bindings
        return {key: (active._replace(binding=replace(active.binding, show=False))
                      if active.binding.id in NARROW_HIDDEN else active)
                for key, active in bindings.items()}

    @property
    def views(self) -> tuple[str, ...]:
        """This document's views: input or import, the four stages, and strict when it is on."""
        return self.doc.model.views if self.doc is not None else VIEWS

    def _show_rule(self) -> None:
        if self.doc is None and self.loading_source is None:
            self.query_one(RulePanel).show_empty()
            return
        self.query_one(RulePanel).show(self.view, brief=self.app.size.width < WIDE,
                                       name=self.views[self.view] if self.view < len(self.views) else None,
                                       imported=self.doc.model.imported if self.doc is not None else None)

    def watch_maximized(self) -> None:
        self.refresh_bindings()  # the footer shows esc Back while a pane covers the table

    def on_resize(self) -> None:
        self.query_one(SidePanel).styles.width = layout.panel(self.app.size.width).side or None
        self._show_rule()
        self.refresh_bindings()  # the footer's set of keys depends on the width

    # -- loading ----------------------------------------------------------------------
    def load(self, source: Source) -> None:
        """Load in a worker; the progress panel appears only if it takes more than a moment."""
        if (refused := confine.refusal(self.app, source.path)) is not None:  # served mode: stay inside
            self.app.push_screen(ErrorDialog(f"Cannot open {source.name}", refused))
            return
        if confine.of(self.app) is not None and not source.sample:  # served: named from the folder, everywhere
            source = replace(source, name=confine.shown(self.app, source.name))
        self._begin_loading(source)
        loader.start(self, source, self.strict, reasoning=self.reasoning)

    def _begin_loading(self, source: Source) -> None:
        self.loading_source = source
        if self._loading_timer is not None:
            self._loading_timer.stop()
        if self.doc is None:
            self.query_one(TitleBar).show(source.name)
            table = self.query_one(DiffTable)
            table.empty_text = f"Loading {inert(source.name)}…"
            table.refresh()
        self._progress(f"Loading {source.name}", 0.0)
        if _size(source) >= BIG_FILE:  # parsing holds the interpreter: show progress before it starts
            self._reveal_loading()
        else:
            self._loading_timer = self.set_timer(0.15, self._reveal_loading)

    def _reveal_loading(self) -> None:
        if self.loading_source is not None:
            self.query_one("#loading").display = True

    def _progress(self, phase: str, fraction: float) -> None:
        self.query_one("#loading-label", Static).update(Text(inert(phase)))
        self.query_one("#loading-bar", ProgressBar).update(progress=round(fraction * 100))

    @on(LoadProgress)
    def _on_progress(self, message: LoadProgress) -> None:
        if self.loading_source is not None:
            self._progress(message.phase, message.fraction)

    @on(DocumentLoaded)
    def _on_loaded(self, message: DocumentLoaded) -> None:
        self._install(message.document)

    @on(LoadFailed)
    def _on_failed(self, message: LoadFailed) -> None:
        self._failed(message.source, message.error)

    @on(SessionsOffered)
    def _on_sessions(self, message: SessionsOffered) -> None:
        """A file with several sessions and no --session: the user picks one."""
        self._done_loading()
        if self.doc is None:
            self._show_document()
        source = message.source

        def chosen(session: str | None) -> None:
            if session:
                self.load(replace(source, session=session))

        self.app.push_screen(SessionPicker(source.name, message.sessions, source), chosen)

    @on(VerdictBar.Ready)
    def _on_verdicts(self, message: VerdictBar.Ready) -> None:
        if message.document is self.doc:
            self.verdicts = message.verdicts
            self._show_verdict()

    def _verdict_stage(self) -> str:
        return verdict.stage_of_view(self.views[self.view] if self.view < len(self.views) else "", self.view)

    def _show_verdict(self) -> None:
        """The bar, the problem marks in the table and the Provider pane, for the view shown."""
        stage = self._verdict_stage()
        self.query_one(VerdictBar).show_verdict(self.verdicts, stage, self.target)
        table = self.query_one(DiffTable)
        chosen = self.verdicts.at(stage, self.target) if self.verdicts and self.target else None
        flags: dict[int, str] = {}
        if chosen is not None and table.rows is not None:
            rows = table.rows
            final = self.view == len(self.views) - 1 or stage == verdict.INPUT
            flags = verdict.flagged_rows(chosen, rows.layout().row_of,
                                         ((d, r) for r, d in enumerate(rows.dst) if d >= 0) if final else ())
        if flags != table.flags:
            table.flags = flags
            table.refresh()
        before = self.verdicts.at(verdict.MEM5, self.target) if (
            self.verdicts and self.target and stage == verdict.STRICT) else None
        if self.verdicts is None:
            self.query_one("#problems", Static).update(Text("Checking what each provider would accept…"))
        else:
            self.query_one("#problems", Static).update(problems_text(chosen, before).content())

    def _done_loading(self) -> None:
        self.loading_source = None
        if self._loading_timer is not None:
            self._loading_timer.stop()
        self.query_one("#loading").display = False

    def _failed(self, source: Source, message: str) -> None:
        self._done_loading()
        if self.doc is None:
            self._show_document()  # back to the empty state, ready for o or g
        self.app.push_screen(ErrorDialog(f"Cannot open {source.name}", message))

    def _install(self, doc: Document) -> None:
        reload = self.doc is not None and self.doc.source == doc.source
        toggled = reload and self.doc.imported is doc.imported  # the strict or reasoning toggle: same history
        policy = toggled and self.doc.reasoning != doc.reasoning  # the reasoning toggle (R)
        toggled = toggled and not policy
        keep = self.current_key() if reload else None
        self._done_loading()
        self.doc = doc
        self._shown = None  # the panes show another document's rows, whatever their ids
        gc.freeze()  # a loaded history is long-lived: keep it out of every later collection
        # The new document's state, without the watchers: _show_document shows it once.
        if not reload:
            self.set_reactive(MainScreen.view, 0)
            self.set_reactive(MainScreen.kind, None)
            self.set_reactive(MainScreen.query_text, "")
        else:
            last = len(doc.model.views) - 1
            self.set_reactive(MainScreen.view, last if doc.strict and toggled else min(self.view, last))
        self._kind_keys()
        self.caused = causes.caused(doc.result.events)
        table = self.query_one(DiffTable)
        table.later = {o: causes.tag(evs) for o, evs in self.caused.items()}
        table.reasoning = thinking.markers(doc.imported)
        self.verdicts = None
        if not reload or self.target is None and self.target_option == "auto":
            self.target = (facts.provider_of(doc.imported.format) if self.target_option == "auto"
                           else self.target_option)
        self._show_document(keep)
        self._check_providers(doc)
        if toggled:
            if doc.strict:
                self.notify("Strict on: the strict stage, Inspector's extension beyond MEM-5, now runs "
                            f"after strip ({_count(len(doc.result.stages[-1].events), 'event')}).", title="Strict")
            else:
                self.notify("Strict off: the four MEM-5 stages only.", title="Strict")
        elif policy:
            self.notify(thinking.toggled_text(doc.imported, doc.reasoning, doc.export_events), title="Reasoning")
        elif reload:
            self.notify(f"Reloaded {doc.source.name}: {len(doc.raw):,} messages.", title="Reload")
        if not toggled and not policy:
            for note in doc.notes:
                self.notify(note)
        self._warm(doc)

    def _check_providers(self, doc: Document) -> None:
        """Every provider's verdict on the history just shown, in the verdict bar's worker."""
        self.query_one(VerdictBar).compute(doc, self.target)

    @work(thread=True, exclusive=True, group="warm", description="prepare stage rows")
    def _warm(self, doc: Document) -> None:
        """Build every stage's rows in the background so later switches are instant."""
        for view in range(1, len(doc.model.views)):
            if get_current_worker().is_cancelled or self.doc is not doc:
                return
            rows = doc.model.rows(view)
            rows.layout()
            rows.changed()  # what d shows
            DiffTable.prepare(rows)
        if not get_current_worker().is_cancelled:
            self.post_message(StagesPrepared(doc))

    @on(StagesPrepared)
    def _on_prepared(self, message: StagesPrepared) -> None:
        """The stage rows are long-lived like the document: freeze them too, so that the full
        collections a session keeps triggering walk only what the screen makes, not the rows
        of every stage (that walk cost a stage switch 15-35 ms every few keys). No collection
        first: it would stall the screen for 20 ms to free a few hundred objects."""
        if message.document is self.doc:
            gc.freeze()

    def _show_document(self, keep: Any = None) -> None:
        title = self.query_one(TitleBar)
        table = self.query_one(DiffTable)
        bar = self.query_one(StageBar)
        if self.doc is None:
            title.show(None)
            bar.set_counts([], VIEWS)
            table.empty_text = "No history open: o opens a file, g the bundled samples, q quits."
            table.show(None, None)
            self._show_rule()
            self.query_one(Summary).show({})
            self._status()
            return
        doc = self.doc
        title.show(doc.source.name, len(doc.raw), doc.result,
                   f"reasoning {doc.reasoning}" if doc.imported.reasoning or doc.reasoning != "keep" else "")
        bar.set_counts([doc.model.stage_counts(v) for v in range(len(doc.model.views))], doc.model.views)
        table.empty_text = "No rows: the history is empty." if not doc.raw else "No rows match the filters."
        self.query_one(Summary).show(doc.model.kind_counts)
        self._show_view(keep)

    def _show_view(self, keep: Any = None) -> None:
        if self.doc is None:
            return
        model = self.doc.model
        rows = model.rows(self.view)
        if self.query_text and len(rows) > BACKGROUND_SEARCH:
            # Searching every message of a big history takes a moment: do it off the UI thread.
            self.searching = True
            self._status()
            self._filter_worker(self.doc, self.view, self.changed_only, self.kind_keys, self.query_text, keep)
            return
        visible = model.filter_rows(self.view, changed_only=self.changed_only, keys=self.kind_keys,
                                    query=self.query_text)
        self._apply_view(rows, visible, keep)

    @work(thread=True, exclusive=True, group="filter", description="search rows")
    def _filter_worker(self, doc: Document, view: int, changed_only: bool, keys: set[Any] | None,
                       query: str, keep: Any) -> None:
        visible = doc.model.filter_rows(view, changed_only=changed_only, keys=keys, query=query)
        if get_current_worker().is_cancelled:
            return

        def apply() -> None:
            still = (self.doc is doc and self.view == view and self.query_text == query
                     and self.changed_only == changed_only and self.kind_keys is keys)
            if still:
                self._apply_view(doc.model.rows(view), visible, keep)

        self.app.call_from_thread(apply)

    def _apply_view(self, rows: Any, visible: list[int] | None, keep: Any) -> None:
        self.searching = False
        table = self.query_one(DiffTable)
        table.search_text = self.query_text
        if self.doc is not None and self.doc.raw:
            table.empty_text = "No rows match the filters."
        table.show(rows, visible, split=self.split, keep=keep)
        if self._pane_key(table.current) != self._shown:  # a filter or the split keeps the row: no new layout
            self._show_row(table.current)  # in this frame, not one message later
        views = self.views
        imported = self.doc.model.imported if self.doc is not None else None
        if self.view == 0 and imported is not None:
            table.border_title = f"0 import: {imported.format} → flat messages"
        elif self.view == 0:
            table.border_title = "0 input: the entries as given"
        else:
            name = views[self.view] + (" (ext.)" if is_extension(views[self.view]) else "")
            table.border_title = (f"{self.view} {name}: "
                                  f"{views[self.view - 1] if self.view > 1 else 'input'} → {views[self.view]}")
        self.query_one(StageBar).current = self.view
        self._show_rule()
        self._show_verdict()
        self._status()
        if self.query_text and table.row_count == 0:
            self._nowhere_here()

    def _where_else(self) -> list[tuple[int, int]]:
        """Other views where the search (with the other filters) finds rows, nearest first; the
        answer the empty view already worked out when it is for the same search (a big history's
        count ran in a worker: n must not run it again on the UI thread)."""
        assert self.doc is not None
        asked = (id(self.doc), self.view, self.query_text, self.changed_only, id(self.kind_keys))
        if self._elsewhere is not None and self._elsewhere[0] == asked:
            return self._elsewhere[1]
        where = finding.elsewhere(self.doc.model, self.view, self.query_text, changed_only=self.changed_only,
                                  keys=self.kind_keys)
        self._elsewhere = (asked, where)
        return where

    def _nowhere_here(self) -> None:
        """Nothing matches here: say where it does (other stages, how many rows) and that n goes there."""
        if self.doc is not None and len(self.doc.model.rows(self.view)) > BACKGROUND_SEARCH:
            self._nowhere_worker(self.doc, self.view, self.query_text, self.changed_only, self.kind_keys)
            return
        self._say_nowhere(self._where_else() if self.doc is not None else [])

    @work(thread=True, exclusive=True, group="filter", description="search the other stages")
    def _nowhere_worker(self, doc: Document, view: int, query: str, changed_only: bool,
                        keys: set[Any] | None) -> None:
        where = finding.elsewhere(doc.model, view, query, changed_only=changed_only, keys=keys)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(
                lambda: self._say_nowhere(where) if (self.doc is doc and self.view == view
                                                     and self.query_text == query) else None)

    def _say_nowhere(self, where: list[tuple[int, int]]) -> None:
        if self.doc is not None:
            self._elsewhere = ((id(self.doc), self.view, self.query_text, self.changed_only, id(self.kind_keys)),
                               where)
        sentence = finding.nowhere_here(self.views, self.view, self.query_text, where)
        table = self.query_one(DiffTable)
        table.empty_text = finding.nowhere_short(self.views, self.view, self.query_text, where)
        table.refresh()
        self.notify(sentence, severity="warning")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """n is the next match only while a search is on; otherwise the next stage's binding takes it."""
        if action == "match" and parameters == (1,) and not self.query_text:
            return False
        return True

    def action_match(self, delta: int) -> None:
        """The next (1) or previous (-1) match, wrapping; none in this stage: the nearest stage with one."""
        if self.doc is None or not self.query_text:
            self.notify("No search: / searches, then n and N go from match to match.")
            return
        table = self.query_one(DiffTable)
        if self.searching:
            return
        if table.row_count == 0:
            where = self._where_else()
            if not where:
                self.notify(finding.nowhere_here(self.views, self.view, self.query_text, []), severity="warning")
                return
            self.view = where[0][0]
            table.cursor = 0 if delta > 0 else table.row_count - 1
        else:
            position = table.cursor + delta
            if not 0 <= position < table.row_count:
                position %= table.row_count
                self.notify(f"Search wrapped to the {'first' if delta > 0 else 'last'} match "
                            f"({table.row_count:,} in {self.views[self.view]}).")
            table.cursor = position
        table.focus()
        self.minimize()

    def action_change(self, delta: int) -> None:
        """The next (1) or previous (-1) changed row, the others still shown, wrapping."""
        table = self.query_one(DiffTable)
        if self.doc is None or table.rows is None:
            return
        position, wrapped = finding.next_change(finding.changed_rows(table.rows), table.order, table.cursor, delta)
        if position is None:
            self.notify(f"No changed row in {self.views[self.view]}" +
                        (" among the rows shown." if table.order is not None else "."))
            return
        if wrapped:
            self.notify(f"Wrapped to the {'first' if delta > 0 else 'last'} change of {self.views[self.view]}.")
        table.cursor = position
        table.focus()
        self.minimize()

    def _status(self) -> None:
        table = self.query_one(DiffTable)
        parts = []
        if self.doc is not None:
            total = len(table.rows) if table.rows is not None else 0
            shown = table.row_count
            name = self.views[self.view]
            parts.append(f"{name}: {shown:,} of {total:,} rows" if shown != total else f"{name}: {total:,} rows")
            if self.doc.strict:
                parts.append("strict on (beyond MEM-5)")
            if said := thinking.status_text(self.doc.imported, self.doc.reasoning, self.doc.export_events):
                parts.append(said)
            if self.changed_only:
                parts.append("only changed")
            if self.kind:
                info = KINDS.get(self.kind)
                label = info.label if info is not None else self.kind
                parts.append(f"kind: {self.kind} ({label})")
            if self.query_text:
                parts.append(f"search: {self.query_text!r}" + (" (searching…)" if self.searching else ""))
            if self.changed_only or self.kind or self.query_text:
                parts.append("esc clears")
            parts.append("split" if self.split else "unified")
            if self.zoomed:
                parts.append("zoomed: z shows the panels")
        self.query_one("#status", Static).update(Text(inert(" · ".join(parts))), layout=False)  # one line, always

    def current_key(self) -> Any:
        row = self.query_one(DiffTable).current
        return row.key if row is not None else None

    # -- row panes ------------------------------------------------------------------
    def _pane_key(self, row: Row | None) -> tuple[Any, ...]:
        return self.view, id(self.query_one(DiffTable).rows), row.key if row is not None else None

    @on(DiffTable.Highlighted)
    def _highlighted(self, event: DiffTable.Highlighted) -> None:
        """Panes follow the cursor at once, then at most every PANE_DELAY while keys repeat."""
        self._pending_row = event.row
        if self._pane_key(event.row) == self._shown:
            return  # already shown (a stage switch shows its row's panes in the same frame)
        if self._pane_timer is None:
            self._show_row(event.row)
            self._pane_timer = self.set_timer(PANE_DELAY, self._pane_cooldown)

    def _pane_cooldown(self) -> None:
        self._pane_timer = None
        if self._pane_key(self._pending_row) != self._shown:
            self._highlighted(DiffTable.Highlighted(self._pending_row))

    def _show_row(self, row: Row | None) -> None:
        """Fill the pane that is showing; the other tab is filled when it is opened."""
        self._shown = self._pane_key(row)
        self._pane_row = row
        self._stale_tabs = {"tab-details", "tab-journey"}
        self._fill_tab(self.query_one(TabbedContent).active)

    def _fill_tab(self, tab: str) -> None:
        if tab not in self._stale_tabs:
            return
        self._stale_tabs.discard(tab)
        row = self._pane_row
        model = self.doc.model if self.doc is not None else None
        if tab == "tab-details":
            later = self.caused.get(row.origin, []) if row is not None and row.origin is not None and not self.view else []
            self.query_one(Details).show(row, self.view, self.views[self.view] if self.view < len(self.views) else None,
                                         model.imported if model is not None else None,
                                         model.import_at if model is not None else None, later,
                                         extra=thinking.details_lines(self.doc.imported, row.origin, self.doc.reasoning,
                                                                      self.doc.export_events)
                                         if row is not None and self.doc is not None else ())
        elif tab == "tab-journey":
            steps = model.journey(row.key) if (row is not None and model is not None) else []
            where = None
            if model is not None and model.imported is not None and row is not None and row.origin is not None:
                where = f"{model.imported.where(row.origin)} ({model.imported.format})"
            self.query_one(Journey).show(row, steps, where)

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id:
            self._fill_tab(event.pane.id)

    @on(DiffTable.Chosen)
    def _chosen(self, event: DiffTable.Chosen) -> None:
        self.action_details()

    @on(StageBar.Picked)
    def _picked(self, event: StageBar.Picked) -> None:
        self.action_stage(event.view)

    @on(Summary.KindChosen)
    def _kind_chosen(self, event: Summary.KindChosen) -> None:
        self.filter_kind(event.kind)

    def filter_kind(self, kind: str | None) -> None:
        """Show only the messages events of ``kind`` touched, starting where it happens."""
        if self.doc is None:
            return
        if kind is None:
            self.kind = None
            return
        first = self.doc.model.first_view_of(kind)
        self._change(None, moved=True, kind=kind, **({"view": first} if first is not None else {}))
        self.minimize()  # a narrow screen showed the summary maximized: the filtered table now
        self.query_one(DiffTable).focus()

    # -- actions ----------------------------------------------------------------------
    def action_stage(self, view: int) -> None:
        if self.doc is None:
            return
        if view >= len(self.views) and STRICT not in self.views:
            self.notify("The strict stage is off: t turns it on (an extension beyond MEM-5).")
            return
        if 0 <= view < len(self.views):
            self.view = view

    def action_step(self, delta: int) -> None:
        self.action_stage(max(0, min(len(self.views) - 1, self.view + delta)))

    def _open_tab(self, tab: str, widget: Any) -> None:
        """Show a pane; on a narrow screen it takes the whole body until escape."""
        self.query_one(TabbedContent).active = tab
        self._fill_tab(tab)
        widget.focus()
        if self.app.size.width < WIDE or self.zoomed:
            self.maximize(self.query_one(SidePanel), container=False)

    def action_details(self) -> None:
        self._open_tab("tab-details", self.query_one(Details))

    def action_journey(self) -> None:
        self._open_tab("tab-journey", self.query_one(Journey))

    def action_summary(self) -> None:
        summary = self.query_one(Summary)
        self._open_tab("tab-summary", summary)
        if summary.highlighted is None and summary.option_count:
            summary.highlighted = 0  # enter works at once

    def action_cause(self) -> None:
        """Go to the message behind the selected row's event (`→ #N`): in this stage if it is
        shown here, else in the latest earlier view that shows it."""
        row = self.query_one(DiffTable).current
        cause = first_cause(row.events) if row is not None else None
        if cause is None and row is not None and self.view == 0 and self.caused.get(row.origin):
            self._go_to_effect(self.caused[row.origin][0])
            return
        if cause is None or self.doc is None:
            self.notify("The selected row names no cause (only events that another message made "
                        "necessary do: → #N in the table).")
            return
        table = self.query_one(DiffTable)
        if table.position_of(cause) is None and (self.changed_only or self.kind or self.query_text):
            self.clear_filters()
        for view in range(self.view, -1, -1):
            if view != self.view:
                self.view = view
            position = table.position_of(cause)
            if position is not None:
                table.cursor = position
                table.focus()
                self.minimize()
                return
        self.notify(f"#{cause} is not shown in any view.", severity="warning")

    def _go_to_effect(self, event: Any) -> None:
        """From an input entry to the stage and row of what it causes (``f`` on view 0)."""
        assert self.doc is not None
        view = next((v for v in range(1, len(self.views)) if self.views[v] == event.stage), None)
        if view is None:
            return
        rows = self.doc.model.rows(view)
        key: Any = event.origin
        if key is None:  # a synthesized row: the one whose event this is
            key = next((("+", ident) for ident, e in rows.synth.items() if e is event), None)
        if self.changed_only or self.kind or self.query_text:
            self.clear_filters()
        self._change(key, moved=True, view=view)
        self.query_one(DiffTable).focus()
        self.minimize()

    def action_changed_only(self) -> None:
        self.changed_only = not self.changed_only

    def action_split(self) -> None:
        self.split = not self.split

    @property
    def zoomed(self) -> bool:
        return self.has_class("-zoomed")

    def action_zoom(self) -> None:
        """The table alone under the stage bar (app.tcss hides the rest); a pane opened
        meanwhile shows maximized, and escape comes back to the zoomed table."""
        self.minimize()
        self.set_class(not self.zoomed, "-zoomed")
        self.query_one(DiffTable).focus()
        self._status()

    def action_search(self) -> None:
        if self.doc is None:
            return
        search = self.query_one("#search", Input)
        search.value = self.query_text
        search.display = True
        search.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.search(event.value)

    def search(self, text: str) -> None:
        search = self.query_one("#search", Input)
        search.display = False
        self.query_text = text.strip()
        self.query_one(DiffTable).focus()

    def action_back(self) -> None:
        table = self.query_one(DiffTable)
        search = self.query_one("#search", Input)
        if search.display:
            search.display = False
            table.focus()
        elif self.focused is not table or self.maximized is not None:  # a maximized pane covers the table
            self.minimize()
            table.focus()
        elif self.changed_only or self.kind or self.query_text:
            self.clear_filters()

    def clear_filters(self) -> None:
        self._change(changed_only=False, kind=None, query_text="")

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        """Notifications quote file names and search text: never read them as markup."""
        kwargs.setdefault("markup", False)
        super().notify(inert(message), **kwargs)

    def action_export(self) -> None:
        if self.doc is None:
            self.notify("Open a history first.", severity="warning")
            return
        source = self.doc.source
        if source.path is None:
            base = None
        elif source.sample:  # the samples folder may not be writable: the current folder
            base = Path(source.path).name
        else:
            base = source.path
        default = default_export_path(base)
        inputs = export_inputs(source.path)

        def done(message: str | None) -> None:
            if message:
                self.notify(message, title="Exported")

        self.app.push_screen(ExportDialog(self.doc.result, default, inputs, imported=self.doc.imported,
                                          strict=self.doc.strict, source=base, reasoning=self.doc.reasoning), done)

    def action_save(self) -> None:
        """ctrl+s (:mod:`inspector.tui.keys`): on this screen, saving is exporting the repair."""
        self.action_export()

    def action_open(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self.load(Source.file(path))

        start = None
        if self.doc is not None and self.doc.source.path and not self.doc.source.sample:
            start = str(Path(self.doc.source.path).resolve().parent)
        self.app.push_screen(OpenFileDialog(start), chosen)

    def action_gallery(self) -> None:
        def chosen(path: Path | None) -> None:
            if path is not None:
                self.load(Source.file(path, sample=True))
            else:
                self._back_to_nothing()

        self.app.push_screen(GalleryScreen(), chosen)

    def _back_to_nothing(self) -> None:
        """Escape from the gallery goes back to the history open; with none open (nor loading)
        there is nothing to go back to, so the app quits rather than show an empty screen."""
        if self.doc is None and self.loading_source is None:
            self.app.exit()

    def action_reload(self) -> None:
        if self.doc is None:
            self.notify("Nothing to reload: open a file first.", severity="warning")
        elif not self.doc.source.reloadable:
            self.notify("Standard input was read once; it cannot be reloaded.", severity="warning")
        else:
            self.load(self.doc.source)

    def action_copy(self) -> None:
        row = self.query_one(DiffTable).current
        if row is None:
            return
        try:
            data = orjson.dumps(row.message, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
        except (TypeError, orjson.JSONEncodeError):
            try:
                data = repr(row.message)
            except RecursionError:   # nested deeper than anything can write it out: say so, stay up
                self.notify("This entry is nested too deeply to be written out as JSON, so nothing was copied.",
                            title="Copy", severity="warning")
                return
        self.app.copy_to_clipboard(data)
        where = f"#{row.origin}" if row.origin is not None else "the synthesized row"
        self.notify(f"Copied {where} ({self.views[self.view]}) as JSON: {len(data):,} characters.")

    def action_strict(self) -> None:
        """Normalize the open history again with (or without) the strict stage, in the worker."""
        if self.loading_source is not None:
            self.notify("Still loading: press t again once the history is open.", severity="warning")
            return
        self.strict = not self.strict
        if self.doc is None:
            self.notify(f"Strict {'on' if self.strict else 'off'}: it applies to the next history opened.",
                        title="Strict")
            return
        self._begin_loading(self.doc.source)
        loader.start(self, self.doc.source, self.strict, self.doc, reasoning=self.reasoning)

    def action_reasoning(self) -> None:
        """Switch --reasoning (keep or strip) and run the repair and export again, in the worker."""
        if self.loading_source is not None:
            self.notify("Still loading: press R again once the history is open.", severity="warning")
            return
        self.reasoning = thinking.other(self.reasoning)
        if self.doc is None:
            self.notify(f"--reasoning {self.reasoning}: it applies to the next history opened.", title="Reasoning")
            return
        self._begin_loading(self.doc.source)
        loader.start(self, self.doc.source, self.strict, self.doc, reasoning=self.reasoning)

    def action_providers(self) -> None:
        """Every provider's verdict for the view shown; enter checks against the one picked."""
        if self.doc is None or self.verdicts is None or not self.verdicts.complete:
            self.notify("Open a history first; its providers' verdicts follow in a moment."
                        if self.doc is None or self.verdicts is None else
                        "Still checking the other providers: v again in a moment.", severity="warning")
            return

        def picked(name: str | None) -> None:
            if name is None:
                return
            self.target = name or None
            self._show_verdict()
            if name:
                self._open_tab("tab-provider", self.query_one("#problems-scroll"))

        self.app.push_screen(ProviderPicker(self.verdicts, self._verdict_stage(), self.target), picked)

    def action_next_problem(self) -> None:
        """The next row (after the cursor, wrapping) the chosen provider has a problem with."""
        table = self.query_one(DiffTable)
        if not table.flags:
            self.notify("No row marked: the chosen provider has no problem with this view "
                        "(v picks another provider)." if self.target else "v picks a provider first.")
            return
        if (self.changed_only or self.kind or self.query_text) and table.order is not None \
                and not set(table.flags) & set(table.order):
            self.clear_filters()
        order = table.order if table.order is not None else range(table.row_count)
        marked = [p for p, r in enumerate(order) if r in table.flags]
        if not marked:
            return
        after = [p for p in marked if p > table.cursor]
        table.cursor = after[0] if after else marked[0]
        table.focus()
        self.minimize()

    def action_browse(self) -> None:
        """The folder's files (the one `inspector DIR` named, else the open file's); under
        `inspector doctor --tui`, the doctor's list again."""
        if getattr(self.app, "doctor", None) is not None:
            self.action_doctor(*self.app.doctor)
            return
        root = self.browse_root
        if root is None and self.doc is not None and self.doc.source.path and not self.doc.source.sample:
            root = str(Path(self.doc.source.path).resolve().parent)
        root = root or os.getcwd()
        self.browse_root = root

        def chosen(path: str | None) -> None:
            if path:
                self.load(Source.file(path))
            elif self.doc is None:  # the empty screen, from which o and g open something
                self._show_document()

        self.app.push_screen(BrowserScreen(root, self._browse_cache), chosen)

    def action_doctor(self, found: list[Any], heading: str) -> None:
        """``inspector doctor --tui``: the browser on the files the doctor found, its verdicts."""
        def chosen(path: str | None) -> None:
            if path:
                self.load(Source.file(path))
            elif self.doc is None:
                self.app.exit()   # back from the doctor's list with nothing open: done

        self.app.push_screen(BrowserScreen(os.getcwd(), self._browse_cache, found=found, heading=heading), chosen)

    def on_paste(self, event: events.Paste) -> None:
        """A path pasted on the screen (a bracketed paste) opens that file, or lists that folder."""
        if isinstance(self.focused, Input):  # pasted into the search field: it is search text
            return
        text = event.text.strip().strip("'\"")
        if not text or "\n" in text:
            return
        path = confine.expand(self.app, text)
        if os.path.isdir(path):
            event.stop()
            self.browse_root = path
            self.action_browse()
        elif os.path.isfile(path):
            event.stop()
            self.load(Source.file(path))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen([*self.BINDINGS, *DiffTable.BINDINGS, keys.SAVE]))

"""The inspection screen: stage bar, diff, rule, details, journey and summary of one history.

The screen owns the view state (stage, split, filters: reactives whose watchers all end in
one place, :meth:`MainScreen.show_view`, as in posting's main screen, so a key, a click, the
palette or a summary pick change the view the same way) and the panes that follow the cursor.
Each other responsibility is a collaborator it composes, never a subclass that overrides it:

- loading (:class:`~inspector.tui.loading.Loading`): the load worker, the progress panel and
  the warm-up of every stage's rows, reporting through :mod:`inspector.tui.messages`;
- the verdict (:class:`~inspector.tui.widgets.verdict.VerdictBar`): the provider chosen, the
  verdicts known, the rows they mark, the next one ``x`` goes to;
- search (:class:`~inspector.tui.searching.Search`): the field, a big history's search in a
  worker, where else a search matches, ``n`` and ``N``;
- editing (:class:`~inspector.tui.screens.editing.Editing`): the playground's edit history,
  its read worker, saving and ``--watch``; the screen asks it whether another document may
  replace this one and whether toasts are muted.

Its keys are the action table of :mod:`inspector.tui.actions`.
"""

from __future__ import annotations

import gc
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import ActiveBinding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input, ProgressBar, Static, TabbedContent, TabPane

from ...engine import MEM5_STAGES
from .. import causes, keys, layout, panes
from .. import reasoning as thinking
from ..actions import MAIN_BINDINGS, footer_bindings
from ..adapter import STRICT
from ..loader import Document, Source
from ..messages import DocumentLoaded, EditRead, EditRefused, LoadFailed, LoadProgress, SessionsOffered, StagesPrepared
from ..rows import VIEWS
from ..panes import Panes
from ..searching import Search
from ..text import inert
from ..watch import FileChanged
from ..widgets.details import Details
from ..widgets.diff_table import DiffTable
from ..widgets.journey import Journey
from ..widgets.rule_panel import RulePanel
from ..widgets.stage_bar import StageBar
from ..widgets.summary import Summary
from ..widgets.title_bar import TitleBar
from ..widgets.verdict import VerdictBar
from .editing import Editing
from .files import Files
from .help import HelpScreen
from .loading import Loading
from .providers import pick_provider
from .why import Why

WIDE = layout.BESIDE  # columns from which the side panel sits beside the table (layout decides)


def _to(part: str, name: str) -> Any:
    """An action (or handler) of the screen that is a collaborator's method: ``part.name``."""
    def run(self: Any, *args: Any) -> Any:
        return getattr(getattr(self, part), name)(*args)

    run.__doc__ = f"{part}.{name}: see its docstring."
    return run


class SidePanel(Vertical):
    """Rule, details, journey and summary; maximizable so a narrow screen can read them."""

    ALLOW_MAXIMIZE = True


class MainScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (layout.TALL, "-tall")]
    ESCAPE_TO_MINIMIZE = False  # escape also returns focus to the table: action_back does both

    BINDINGS = MAIN_BINDINGS

    # The view state: every change goes through the watchers below, to show_view, which
    # refreshes exactly the widgets that change (repainting the screen itself as well would
    # cost a stage switch one more frame).
    view: reactive[int] = reactive(0, init=False, repaint=False)
    """The view shown: 0 the input (or the import), then each stage, strict last when it is on."""
    split: reactive[bool] = reactive(False, init=False, repaint=False)
    """Before and after side by side (True) or one unified column."""
    changed_only: reactive[bool] = reactive(False, init=False, repaint=False)
    """Only the rows the view's stage changed are shown (d)."""
    kind: reactive[str | None] = reactive(None, init=False, repaint=False)
    """Only the messages events of this kind touched are shown (a summary pick); None: every kind."""
    query_text: reactive[str] = reactive("", init=False, repaint=False)
    """The search in force (/): only the rows whose text or call ids hold it are shown."""

    def __init__(self, strict: bool = False, target: str = "auto", reasoning: str = "keep",
                 watch_file: bool = False) -> None:
        super().__init__()
        self.reasoning = reasoning  # the --reasoning policy (keep | strip) every export of this screen runs with
        self.doc: Document | None = None
        self.target_option = target  # --target: a target name, or auto (the provider the format speaks)
        self.caused: dict[int, list[Any]] = {}  # input entry -> the later events it made necessary
        self.strict = strict  # the strict stage (beyond MEM-5) on every history this screen loads
        self.kind_keys: set[Any] | None = None
        self.loads = Loading(self)
        self.finder = Search(self)
        self.editing = Editing(self, watch_file)
        self.files, self.why = Files(self), Why(self)   # why: an error text's rule, entry and fix; y
        self.panes = Panes(self)

    # -- what the app, the other screens and the tests read --------------------------------
    loading_source = property(lambda self: self.loads.source, doc="What is being loaded (None: nothing).")
    searching = property(lambda self: self.finder.searching, doc="A search runs in the worker.")
    verdict_bar = property(lambda self: self.query_one(VerdictBar), doc="The verdict's state and line.")
    target = property(lambda self: self.verdict_bar.target, doc="The provider the verdict shows (None: all).")
    verdicts = property(lambda self: self.verdict_bar.verdicts, doc="The verdicts known so far.")
    edits = property(lambda self: self.editing.history, doc="The playground's edit history (None: no edit).")
    timing = property(lambda self: self.editing.timing, doc="The last edit's times (bench/tui.py).")

    @property
    def browse_root(self) -> str | None:
        """The folder `inspector DIR` (or b) lists."""
        return self.files.root

    @browse_root.setter
    def browse_root(self, root: str | None) -> None:
        self.files.root = root

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
        self.show_document()

    # -- view state --------------------------------------------------------------------
    def validate_view(self, view: int) -> int:
        return max(0, min(view, len(self.views) - 1))

    def _state_changed(self) -> None:
        self.show_view(self.current_key())

    watch_view = watch_split = watch_changed_only = watch_query_text = _state_changed

    def watch_kind(self) -> None:
        self._kind_keys()
        self._state_changed()

    def _kind_keys(self) -> None:
        kind = self.kind
        self.kind_keys = self.doc.model.touched_by(kind) if kind is not None and self.doc is not None else None

    def change_view(self, keep: Any = None, *, moved: bool = False, **state: Any) -> bool:
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
            self.show_view(keep)
        return bool(changed)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """On a narrow screen the footer keeps the keys that matter most, Help and Quit among them."""
        return footer_bindings(super().active_bindings, self.maximized is not None, self.app.size.width)

    @property
    def views(self) -> tuple[str, ...]:
        """This document's views: input or import, the four stages, and strict when it is on."""
        return self.doc.model.views if self.doc is not None else VIEWS

    def watch_maximized(self) -> None:
        self.refresh_bindings()  # the footer shows esc Back while a pane covers the table

    def on_resize(self) -> None:
        self.query_one(SidePanel).styles.width = layout.panel(self.app.size.width).side or None
        self.panes.show_rule()
        self.refresh_bindings()  # the footer's set of keys depends on the width

    # -- loading ----------------------------------------------------------------------
    def load(self, source: Source) -> None:
        """Open ``source`` (unsaved edits ask first), in a worker; the progress panel appears
        only if it takes more than a moment. How any screen opens a document, for editing too."""
        self.loads.load(source)

    def load_now(self, source: Source) -> None:
        """Open ``source`` without asking (what :meth:`load` does once the edits may go)."""
        self.loads.load(source, ask=False)

    @on(LoadProgress)
    def _on_progress(self, message: LoadProgress) -> None:
        if self.loading_source is not None:
            self.loads.progress(message.phase, message.fraction)

    # The workers' messages, each to the collaborator it is for.
    _on_failed = on(LoadFailed)(_to("loads", "failed"))
    _on_sessions = on(SessionsOffered)(_to("loads", "offered"))
    _on_prepared = on(StagesPrepared)(_to("loads", "prepared"))
    _on_edit_read = on(EditRead)(_to("editing", "read"))
    _on_edit_refused = on(EditRefused)(_to("editing", "refused"))
    _on_file_changed = on(FileChanged)(_to("editing", "file_changed"))

    @on(DocumentLoaded)
    def _on_loaded(self, message: DocumentLoaded) -> None:
        self.install(message.document)

    @on(VerdictBar.Ready)
    def _on_verdicts(self, message: VerdictBar.Ready) -> None:
        if self.verdict_bar.receive(message):
            self.show_verdict()

    def show_verdict(self) -> None:
        """The bar, the problem marks in the table and the Provider pane, for the view shown."""
        bar = self.verdict_bar
        stage = bar.stage_of(self.views, self.view)
        bar.show_verdict(bar.verdicts, stage, bar.target, partial=self.views[self.view] in MEM5_STAGES[:-1])
        table = self.query_one(DiffTable)
        flags = bar.marks(stage, table.rows, self.view == len(self.views) - 1 or self.view == 0)
        if flags != table.flags:
            table.flags = flags
            table.refresh()
        self.query_one("#problems", Static).update(bar.problems(stage))

    def install(self, doc: Document) -> None:
        """Show a loaded (or re-read, or repaired again) history, keeping what a reload keeps."""
        previous = self.doc
        reload = previous is not None and previous.source == doc.source
        toggled = reload and previous.imported is doc.imported  # the strict or reasoning toggle: same history
        policy = toggled and previous.reasoning != doc.reasoning  # the reasoning toggle (R)
        toggled = toggled and not policy
        keep = self.current_key() if reload else None
        self.editing.before_install(previous, doc)
        self.loads.done()
        self.doc = doc
        self.panes.shown = None  # the panes show another document's rows, whatever their ids
        gc.freeze()  # a loaded history is long-lived: keep it out of every later collection
        # The new document's state, without the watchers: show_document shows it once.
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
        self.verdict_bar.begin(doc, self.target_option, keep=reload, model=getattr(self.app, "model", None))
        self.show_document(keep)
        self.loads.background(doc)
        self.loads.announce(doc, reload, toggled, policy)
        self.editing.after_install(previous, doc)

    def show_document(self, keep: Any = None) -> None:
        title = self.query_one(TitleBar)
        table = self.query_one(DiffTable)
        bar = self.query_one(StageBar)
        if self.doc is None:
            title.show(None)
            bar.set_counts([], VIEWS)
            table.empty_text = "No history open: o opens a file, g the bundled samples, q quits."
            table.show(None, None)
            self.panes.show_rule()
            self.query_one(Summary).show({})
            self.show_status()
            return
        doc = self.doc
        title.show(self.editing.title(_title_name(doc)), len(doc.raw), doc.result,
                   f"reasoning {doc.reasoning}" if doc.imported.reasoning or doc.reasoning != "keep" else "")
        bar.set_counts([doc.model.stage_counts(v) for v in range(len(doc.model.views))], doc.model.views)
        table.empty_text = "No rows: the history is empty." if not doc.raw else "No rows match the filters."
        self.query_one(Summary).show(doc.model.kind_counts)
        self.show_view(keep)

    def show_view(self, keep: Any = None) -> None:
        """The view shown with the filters in force (the search may finish it from a worker)."""
        self.finder.show(keep)

    def apply_view(self, rows: Any, visible: list[int] | None, keep: Any) -> None:
        table = self.query_one(DiffTable)
        table.search_text = self.query_text
        if self.doc is not None and self.doc.raw:
            table.empty_text = "No rows match the filters."
        table.show(rows, visible, split=self.split, keep=keep)
        if self.panes.key(table.current) != self.panes.shown:  # a filter or the split keeps the row: no new layout
            self.panes.show_row(table.current)  # in this frame, not one message later
        table.border_title = panes.border_title(self.view, self.views,
                                                self.doc.model.imported if self.doc is not None else None)
        self.query_one(StageBar).current = self.view
        self.panes.show_rule()
        self.show_verdict()
        self.show_status()
        if self.query_text and table.row_count == 0:
            self.finder.nowhere_here()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """n is the next match only while a search is on (otherwise the next stage's binding takes
        it); delete deletes on view 0 only (elsewhere the key is not the screen's)."""
        if action == "match" and parameters == (1,) and not self.query_text:
            return False
        if action == "delete_entry":
            return self.doc is not None and self.view == 0
        return True

    def show_status(self) -> None:
        panes.show_status(self)

    def current_key(self) -> Any:
        row = self.query_one(DiffTable).current
        return row.key if row is not None else None

    # -- row panes ------------------------------------------------------------------
    @on(DiffTable.Highlighted)
    def _highlighted(self, event: DiffTable.Highlighted) -> None:
        self.panes.follow()

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id:
            self.panes.fill(event.pane.id)

    @on(DiffTable.Chosen)
    def _chosen(self, event: DiffTable.Chosen) -> None:
        self.action_details()

    @on(StageBar.Picked)
    def _picked(self, event: StageBar.Picked) -> None:
        self.action_stage(event.view)

    @on(Summary.KindChosen)
    def _kind_chosen(self, event: Summary.KindChosen) -> None:
        self.filter_kind(event.kind)

    filter_kind = _to("finder", "filter_kind")

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
        self.panes.fill(tab)
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
        self.show_status()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.search(event.value)

    action_search = _to("finder", "open")
    search = _to("finder", "submit")

    def action_back(self) -> None:
        table = self.query_one(DiffTable)
        if self.finder.close():
            return
        if self.focused is not table or self.maximized is not None:  # a maximized pane covers the table
            self.minimize()
            table.focus()
        elif self.filtered:
            self.clear_filters()

    @property
    def filtered(self) -> bool:
        """A filter is in force (only changed rows, a kind, a search)."""
        return bool(self.changed_only or self.kind or self.query_text)

    def clear_filters(self) -> None:
        self.change_view(changed_only=False, kind=None, query_text="")

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        """Notifications quote file names and search text: never read them as markup. Muted
        while an edit's (or a watch's) reload is installed: it would repeat its toasts on every key."""
        if self.editing.mute:
            return
        kwargs.setdefault("markup", False)
        super().notify(inert(message), **kwargs)

    def action_save(self) -> None:
        """ctrl+s (:mod:`inspector.tui.keys`): the edits on view 0 of an edited history, else the
        export of the repair."""
        if self.editing.owns_save_key():
            self.editing.save()
        else:
            self.files.export()

    # What the screen opens and writes (screens/files.py), the search's n, N, ] and [, the panes' f.
    action_export = _to("files", "export")
    action_open = _to("files", "open")
    action_gallery = _to("files", "gallery")
    action_reload = _to("files", "reload")
    action_copy = _to("files", "copy")
    action_browse = _to("files", "browse")
    action_doctor = _to("files", "doctor")
    on_paste = _to("files", "paste")
    action_match = _to("finder", "match")
    action_change = _to("finder", "change")
    action_cause = _to("panes", "cause")
    action_why, action_copy_resume = _to("why", "ask"), _to("why", "copy_command")   # screens/why.py

    action_strict = _to("loads", "toggle_strict")
    action_reasoning = _to("loads", "toggle_reasoning")

    def action_providers(self) -> None:
        """Every provider's verdict for the view shown; enter checks against the one picked."""
        pick_provider(self, lambda name: self._open_tab("tab-provider", self.query_one("#problems-scroll")))

    def action_next_problem(self) -> None:
        """The next row (after the cursor, wrapping) the chosen provider has a problem with."""
        self.verdict_bar.next_problem(self)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen([*self.BINDINGS, *DiffTable.BINDINGS, keys.SAVE]))


def _title_name(doc: Document) -> str:
    """The title's name of the open history: the file's, and the session's when one of several is open."""
    session = doc.source.session
    return f"{doc.source.name} · session {session}" if session else doc.source.name

"""The inspection screen: stage bar, diff, rule, details, journey and summary of one history.

The screen owns the loaded document and the view state (stage, filters, split); widgets
only draw what it hands them. Loading and normalizing run in a worker thread.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import orjson
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, ProgressBar, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from ...io import InputError
from .. import confine
from ..loader import Document, Source, load_document, renormalize
from ..rows import VIEWS, Row, kind_info
from ..text import inert
from ..widgets.details import Details
from ..widgets.diff_table import DiffTable
from ..widgets.journey import Journey
from ..widgets.rule_panel import RulePanel
from ..widgets.stage_bar import StageBar
from ..widgets.summary import Summary
from ..widgets.title_bar import TitleBar
from .error import ErrorDialog
from .export import ExportDialog, default_export_path, export_inputs
from .gallery import GalleryScreen
from .help import HelpScreen
from .open_file import OpenFileDialog

WIDE = 120  # columns from which the side panel sits beside the table instead of under it
BACKGROUND_SEARCH = 20_000  # rows from which a search runs in a worker thread
BIG_FILE = 2_000_000  # bytes from which the progress panel shows at once
PANE_DELAY = 0.08  # seconds between pane updates while the cursor keeps moving


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
        Binding("n,right", "step(1)", "Next", key_display="n/→", id="stage.next", tooltip="Next stage"),
        Binding("p,left", "step(-1)", "Prev", key_display="p/←", id="stage.previous", tooltip="Previous stage"),
        *[_stage_binding(v) for v in range(len(VIEWS))],
        Binding("5", "stage(5)", "strict", show=False, id="stage.strict",
                tooltip="Jump to stage 5: strict (Inspector's extension beyond MEM-5; on with t)"),
        Binding("t", "strict", "Strict", show=False, id="view.strict",
                tooltip="Strict on/off: add the strict stage, an extension beyond MEM-5 (normalizes again)"),
        Binding("enter", "details", "Details", id="row.details",
                tooltip="Details of the selected row: before, after, every event"),
        Binding("d", "changed_only", "Changed", id="filter.changed", tooltip="Show only changed rows (toggle)"),
        Binding("s", "split", "Split", id="view.split", tooltip="Side by side (before | after) or unified"),
        Binding("slash", "search", "Search", key_display="/", id="filter.search",
                tooltip="Search message text or a tool call id"),
        Binding("j", "journey", "Journey", id="row.journey",
                tooltip="The selected message's path through all four stages"),
        Binding("e", "export", "Export", id="file.export", tooltip="Export the repaired JSON"),
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

    def __init__(self, strict: bool = False) -> None:
        super().__init__()
        self.doc: Document | None = None
        self.strict = strict  # the strict stage (beyond MEM-5) on every history this screen loads
        self.view = 0
        self.split = False
        self.changed_only = False
        self.kind: str | None = None
        self.kind_keys: set[Any] | None = None
        self.query_text = ""
        self.searching = False
        self.loading_source: Source | None = None
        self._loading_timer = None
        self._pane_timer = None
        self._pending_row: Row | None = None
        self._shown_row: Row | None = None

    # -- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar(id="title")
        yield StageBar(id="stages")
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
        with Vertical(id="loading"):
            yield Static("Loading…", id="loading-label")
            yield ProgressBar(total=100, show_eta=False, id="loading-bar")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#search", Input).display = False
        self.query_one("#loading").display = False
        self.query_one("#table", DiffTable).focus()
        self._show_document()

    @property
    def views(self) -> tuple[str, ...]:
        """This document's views: input or import, the four stages, and strict when it is on."""
        return self.doc.model.views if self.doc is not None else VIEWS

    def _show_rule(self) -> None:
        self.query_one(RulePanel).show(self.view, brief=self.app.size.width < WIDE,
                                       name=self.views[self.view] if self.view < len(self.views) else None,
                                       imported=self.doc.model.imported if self.doc is not None else None)

    def on_resize(self) -> None:
        self._show_rule()

    # -- loading ----------------------------------------------------------------------
    def load(self, source: Source) -> None:
        """Load in a worker; the progress panel appears only if it takes more than a moment."""
        if (refused := confine.refusal(self.app, source.path)) is not None:  # served mode: stay inside
            self.app.push_screen(ErrorDialog(f"Cannot open {source.name}", refused))
            return
        self._begin_loading(source)
        self._load_worker(source, self.strict)

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

    @work(thread=True, exclusive=True, group="load", description="load a history")
    def _load_worker(self, source: Source, strict: bool, again: Document | None = None) -> None:
        """Read, import and normalize ``source``; or, given ``again``, normalize that document's
        imported history again (the strict toggle) without reading the file."""
        worker = get_current_worker()

        def progress(phase: str, fraction: float) -> None:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._progress, phase, fraction)

        try:
            doc = renormalize(again, strict, progress) if again is not None else load_document(source, progress, strict)
        except InputError as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._failed, source, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - whatever a file does, the app stays up and says so
            if not worker.is_cancelled:
                self.app.call_from_thread(self._failed, source,
                                          f"{source.name}: could not be read as a history "
                                          f"({type(exc).__name__}: {exc})")
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._install, doc)

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
        toggled = reload and self.doc.imported is doc.imported  # the strict toggle: same history
        keep = self.current_key() if reload else None
        self._done_loading()
        self.doc = doc
        gc.freeze()  # a loaded history is long-lived: keep it out of every later collection
        if not reload:
            self.view, self.kind, self.kind_keys, self.query_text = 0, None, None, ""
        else:
            if doc.strict and toggled:
                self.view = len(doc.model.views) - 1  # show what the strict stage did
            self.view = min(self.view, len(doc.model.views) - 1)
            if self.kind is not None:
                self.kind_keys = doc.model.touched_by(self.kind)
        self._show_document(keep)
        if toggled:
            if doc.strict:
                self.notify("Strict on: the strict stage, Inspector's extension beyond MEM-5, now runs "
                            f"after strip ({_count(len(doc.result.stages[-1].events), 'event')}).", title="Strict")
            else:
                self.notify("Strict off: the four MEM-5 stages only.", title="Strict")
        elif reload:
            self.notify(f"Reloaded {doc.source.name}: {len(doc.raw):,} messages.", title="Reload")
        if not toggled:
            for note in doc.notes:
                self.notify(note)
        self._warm(doc)

    @work(thread=True, exclusive=True, group="warm", description="prepare stage rows")
    def _warm(self, doc: Document) -> None:
        """Build every stage's rows in the background so later switches are instant."""
        for view in range(1, len(doc.model.views)):
            if get_current_worker().is_cancelled or self.doc is not doc:
                return
            doc.model.rows(view)

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
        title.show(doc.source.name, len(doc.raw), doc.result)
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
        table.show(rows, visible, split=self.split, keep=keep)
        views = self.views
        imported = self.doc.model.imported if self.doc is not None else None
        if self.view == 0 and imported is not None:
            table.border_title = f"0 import: {imported.format} → flat messages"
        elif self.view == 0:
            table.border_title = "0 input: the entries as given"
        else:
            name = views[self.view] + (" (ext.)" if self.view > len(VIEWS) - 1 else "")
            table.border_title = (f"{self.view} {name}: "
                                  f"{views[self.view - 1] if self.view > 1 else 'input'} → {views[self.view]}")
        self.query_one(StageBar).current = self.view
        self._show_rule()
        self._status()
        if self.query_text and table.row_count == 0:
            self.notify(f"No row in {views[self.view]} matches {self.query_text!r}.", severity="warning")

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
            if self.changed_only:
                parts.append("only changed")
            if self.kind:
                info = kind_info(self.kind)
                label = info.label if info is not None else self.kind
                parts.append(f"kind: {self.kind} ({label})")
            if self.query_text:
                parts.append(f"search: {self.query_text!r}" + (" (searching…)" if self.searching else ""))
            if self.changed_only or self.kind or self.query_text:
                parts.append("esc clears")
            parts.append("split" if self.split else "unified")
        self.query_one("#status", Static).update(Text(inert(" · ".join(parts))))

    def current_key(self) -> Any:
        row = self.query_one(DiffTable).current
        return row.key if row is not None else None

    # -- row panes ------------------------------------------------------------------
    @on(DiffTable.Highlighted)
    def _highlighted(self, event: DiffTable.Highlighted) -> None:
        """Panes follow the cursor at once, then at most every PANE_DELAY while keys repeat."""
        self._pending_row = event.row
        if self._pane_timer is None:
            self._show_row(event.row)
            self._shown_row = event.row
            self._pane_timer = self.set_timer(PANE_DELAY, self._pane_cooldown)

    def _pane_cooldown(self) -> None:
        self._pane_timer = None
        if self._pending_row is not self._shown_row:
            self._highlighted(DiffTable.Highlighted(self._pending_row))

    def _show_row(self, row: Row | None) -> None:
        model = self.doc.model if self.doc is not None else None
        self.query_one(Details).show(row, self.view, self.views[self.view] if self.view < len(self.views) else None,
                                     model.imported if model is not None else None,
                                     model.import_at if model is not None else None)
        steps = self.doc.model.journey(row.key) if (row is not None and self.doc is not None) else []
        where = None
        if model is not None and model.imported is not None and row is not None and row.origin is not None:
            where = f"{model.imported.where(row.origin)} ({model.imported.format})"
        self.query_one(Journey).show(row, steps, where)

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
            self.kind, self.kind_keys = None, None
            self._show_view(self.current_key())
            return
        self.kind = kind
        self.kind_keys = self.doc.model.touched_by(kind)
        first = self.doc.model.first_view_of(kind)
        if first is not None:
            self.view = first
        self._show_view()
        self.query_one(DiffTable).focus()

    # -- actions ----------------------------------------------------------------------
    def action_stage(self, view: int) -> None:
        if self.doc is None:
            return
        if view == len(VIEWS) and len(self.views) == len(VIEWS):
            self.notify("The strict stage is off: t turns it on (an extension beyond MEM-5).")
            return
        if not 0 <= view < len(self.views):
            return
        keep = self.current_key()
        self.view = view
        self._show_view(keep)

    def action_step(self, delta: int) -> None:
        self.action_stage(max(0, min(len(self.views) - 1, self.view + delta)))

    def _open_tab(self, tab: str, widget: Any) -> None:
        """Show a pane; on a narrow screen it takes the whole body until escape."""
        self.query_one(TabbedContent).active = tab
        widget.focus()
        if self.app.size.width < WIDE:
            self.maximize(self.query_one(SidePanel), container=False)

    def action_details(self) -> None:
        self._open_tab("tab-details", self.query_one(Details))

    def action_journey(self) -> None:
        self._open_tab("tab-journey", self.query_one(Journey))

    def action_summary(self) -> None:
        self.query_one(TabbedContent).active = "tab-summary"
        self.query_one(Summary).focus()

    def action_changed_only(self) -> None:
        self.changed_only = not self.changed_only
        self._show_view(self.current_key())

    def action_split(self) -> None:
        self.split = not self.split
        self._show_view(self.current_key())

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
        self.query_text = text.strip()
        search = self.query_one("#search", Input)
        search.display = False
        self._show_view(self.current_key())
        self.query_one(DiffTable).focus()

    def action_back(self) -> None:
        table = self.query_one(DiffTable)
        search = self.query_one("#search", Input)
        if search.display:
            search.display = False
            table.focus()
        elif self.focused is not table:
            self.minimize()
            table.focus()
        elif self.changed_only or self.kind or self.query_text:
            self.clear_filters()

    def clear_filters(self) -> None:
        self.changed_only, self.kind, self.kind_keys, self.query_text = False, None, None, ""
        self._show_view(self.current_key())

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
                                          strict=self.doc.strict, source=base), done)

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

        self.app.push_screen(GalleryScreen(), chosen)

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
            data = repr(row.message)
        self.app.copy_to_clipboard(data)
        where = f"#{row.origin}" if row.origin is not None else "the synthesized row"
        self.notify(f"Copied {where} ({self.views[self.view]}) as JSON: {len(data):,} characters.")

    def action_strict(self) -> None:
        """Normalize the open history again with (or without) the strict stage, in the worker."""
        if self.loading_source is not None:
            self.notify("Still loading: press t again once the history is open.", severity="warning")
            return
        self.strict = not self.strict
        if self.doc is None or self.doc.imported is None:
            self.notify(f"Strict {'on' if self.strict else 'off'}: it applies to the next history opened.",
                        title="Strict")
            return
        self._begin_loading(self.doc.source)
        self._load_worker(self.doc.source, self.strict, self.doc)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen([*self.BINDINGS, *DiffTable.BINDINGS]))

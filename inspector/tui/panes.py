"""The panes that follow the table's cursor (details, journey), going from a row to its cause
or its effect, and the status line under the table: one collaborator of the main screen,
reading the screen's view state and its document, never changing the document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static, TabbedContent

from ..engine import KINDS
from . import layout
from . import reasoning as thinking
from .adapter import is_extension
from .rows import Row, first_cause
from .text import inert
from .widgets.details import Details
from .widgets.diff_table import DiffTable
from .widgets.journey import Journey
from .widgets.rule_panel import RulePanel

if TYPE_CHECKING:
    from .screens.main import MainScreen

PANE_DELAY = 0.08  # seconds between pane updates while the cursor keeps moving


class Panes:
    """What the panes show: ``shown`` is (view, rows, row key) of the row they were filled for."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.shown: tuple[Any, ...] | None = None
        self._row: Row | None = None
        self._stale: set[str] = set()  # panes not yet filled for the selected row
        self._timer: Any = None

    def key(self, row: Row | None) -> tuple[Any, ...]:
        return self.screen.view, id(self.screen.query_one(DiffTable).rows), row.key if row is not None else None

    def follow(self) -> None:
        """Panes follow the cursor at once, then at most every PANE_DELAY while keys repeat.
        Always the row under the cursor now, never the one a queued highlight named: an edit or
        a reload may have replaced the document since, and that row's entry may not exist in it
        (R3-18: the cooldown showed such a row, an IndexError from the Journey's ``where``)."""
        row = self.screen.query_one(DiffTable).current
        if self.key(row) == self.shown:
            return  # already shown (a stage switch shows its row's panes in the same frame)
        if self._timer is None:
            self.show_row(row)
            self._timer = self.screen.set_timer(PANE_DELAY, self._cooldown)

    def _cooldown(self) -> None:
        self._timer = None
        self.follow()

    def show_row(self, row: Row | None) -> None:
        """Fill the pane that is showing; the other tab is filled when it is opened."""
        self.shown = self.key(row)
        self._row = row
        self._stale = {"tab-details", "tab-journey"}
        self.fill(self.screen.query_one(TabbedContent).active)

    def fill(self, tab: str) -> None:
        if tab not in self._stale:
            return
        self._stale.discard(tab)
        s, row = self.screen, self._row
        doc = s.doc
        model = doc.model if doc is not None else None
        if tab == "tab-details":
            later = s.caused.get(row.origin, []) if row is not None and row.origin is not None and not s.view else []
            s.query_one(Details).show(row, s.view, s.views[s.view] if s.view < len(s.views) else None,
                                      model.imported if model is not None else None,
                                      model.import_at if model is not None else None, later,
                                      extra=thinking.details_lines(doc.imported, row.origin, doc.reasoning,
                                                                   doc.reasoning_events)
                                      if row is not None and doc is not None else ())
        elif tab == "tab-journey":
            steps = model.journey(row.key) if (row is not None and model is not None) else []
            where = None
            if model is not None and model.imported is not None and row is not None and row.origin is not None:
                where = f"{model.imported.where(row.origin)} ({model.imported.format})"
            s.query_one(Journey).show(row, steps, where)

    def show_rule(self) -> None:
        """The rule panel: the clause the view's stage applies (brief on a narrow screen)."""
        s = self.screen
        if s.doc is None and s.loading_source is None:
            s.query_one(RulePanel).show_empty()
            return
        s.query_one(RulePanel).show(s.view, brief=s.app.size.width < layout.BESIDE,
                                    name=s.views[s.view] if s.view < len(s.views) else None,
                                    imported=s.doc.model.imported if s.doc is not None else None)

    # -- from a row to its cause, or to its effect ------------------------------------------
    def cause(self) -> None:
        """Go to the message behind the selected row's event (`→ #N`): in this stage if it is
        shown here, else in the latest earlier view that shows it."""
        s = self.screen
        table = s.query_one(DiffTable)
        row = table.current
        cause = first_cause(row.events) if row is not None else None
        if cause is None and row is not None and s.view == 0 and s.caused.get(row.origin):
            self._go_to_effect(s.caused[row.origin][0])
            return
        if cause is None or s.doc is None:
            s.notify("The selected row names no cause (only events that another message made "
                     "necessary do: → #N in the table).")
            return
        if table.position_of(cause) is None and s.filtered:
            s.clear_filters()
        for view in range(s.view, -1, -1):
            if view != s.view:
                s.view = view
            position = table.position_of(cause)
            if position is not None:
                table.cursor = position
                table.focus()
                s.minimize()
                return
        s.notify(f"#{cause} is not shown in any view.", severity="warning")

    def _go_to_effect(self, event: Any) -> None:
        """From an input entry to the stage and row of what it causes (``f`` on view 0)."""
        s = self.screen
        assert s.doc is not None
        view = next((v for v in range(1, len(s.views)) if s.views[v] == event.stage), None)
        if view is None:
            return
        rows = s.doc.model.rows(view)
        key: Any = event.origin
        if key is None:  # a synthesized row: the one whose event this is
            key = next((("+", ident) for ident, e in rows.synth.items() if e is event), None)
        if s.filtered:
            s.clear_filters()
        s.change_view(key, moved=True, view=view)
        s.query_one(DiffTable).focus()
        s.minimize()


def border_title(view: int, views: tuple[str, ...], imported: Any) -> str:
    """The table's title: which step the view shows, from what to what."""
    if view == 0 and imported is not None:
        return f"0 import: {imported.format} → flat messages"
    if view == 0:
        return "0 input: the entries as given"
    name = views[view] + (" (ext.)" if is_extension(views[view]) else "")
    return f"{view} {name}: {views[view - 1] if view > 1 else 'input'} → {views[view]}"


def show_status(screen: MainScreen) -> None:
    """The one line under the table: rows shown, the policy, the filters in force, the layout."""
    s = screen
    table = s.query_one(DiffTable)
    parts = []
    if s.doc is not None:
        total = len(table.rows) if table.rows is not None else 0
        shown = table.row_count
        name = s.views[s.view]
        parts.append(f"{name}: {shown:,} of {total:,} rows" if shown != total else f"{name}: {total:,} rows")
        if s.doc.strict:
            parts.append("strict on (beyond MEM-5)")
        if said := thinking.status_text(s.doc.imported, s.doc.reasoning, s.doc.reasoning_events):
            parts.append(said)
        if s.changed_only:
            parts.append("only changed")
        if s.kind:
            info = KINDS.get(s.kind)
            label = info.label if info is not None else s.kind
            parts.append(f"kind: {s.kind} ({label})")
        if s.query_text:
            parts.append(f"search: {s.query_text!r}" + (" (searching…)" if s.searching else ""))
        if s.filtered:
            parts.append("esc clears")
        parts.append("split" if s.split else "unified")
        if s.zoomed:
            parts.append("zoomed: z shows the panels")
    s.query_one("#status", Static).update(Text(inert(" · ".join(parts))), layout=False)  # one line, always

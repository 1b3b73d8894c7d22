"""The screen's search: the search field, filtering a big history off the UI thread, where
else a search finds rows when the view shown has none, and ``n``/``N`` from match to match.

:class:`Search` is one collaborator of the main screen (as :class:`~inspector.tui.loading.Loading`
and :class:`~inspector.tui.screens.editing.Editing` are): the screen keeps the view state (its
reactives) and asks the search to show a filtered view; what a search matches is
:mod:`inspector.tui.search`'s (pure, no textual).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Input
from textual.worker import get_current_worker

from . import search as finding
from .widgets.diff_table import DiffTable

if TYPE_CHECKING:
    from .screens.main import MainScreen

BACKGROUND_SEARCH = 20_000  # rows from which a search runs in a worker thread


class Search:
    """``searching``: a search runs in the worker and its rows are not shown yet."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.searching = False
        self._elsewhere: tuple[Any, list[tuple[int, int]]] | None = None  # (search asked, where else it matches)

    @property
    def field(self) -> Input:
        return self.screen.query_one("#search", Input)

    # -- the field ----------------------------------------------------------------------
    def open(self) -> None:
        """Show the field with the search in force, focused (``/``), once a history is open."""
        if self.screen.doc is None:
            return
        field = self.field
        field.value = self.screen.query_text
        field.display = True
        field.focus()

    def submit(self, text: str) -> None:
        self.field.display = False
        self.screen.query_text = text.strip()
        self.screen.query_one(DiffTable).focus()

    def close(self) -> bool:
        """Hide the field if it shows (escape); whether it did."""
        field = self.field
        if not field.display:
            return False
        field.display = False
        self.screen.query_one(DiffTable).focus()
        return True

    # -- showing a view --------------------------------------------------------------------
    def show(self, keep: Any) -> None:
        """The view shown with the filters in force: at once, or from the worker for a search
        of a big history."""
        screen = self.screen
        doc = screen.doc
        if doc is None:
            return
        rows = doc.model.rows(screen.view)
        if screen.query_text and len(rows) > BACKGROUND_SEARCH:
            # Searching every message of a big history takes a moment: do it off the UI thread.
            self.searching = True
            screen.show_status()
            self._filter(doc, screen.view, screen.changed_only, screen.kind_keys, screen.query_text, keep)
            return
        visible = doc.model.filter_rows(screen.view, changed_only=screen.changed_only, keys=screen.kind_keys,
                                        query=screen.query_text)
        self.searching = False
        screen.apply_view(rows, visible, keep)

    def _filter(self, doc: Any, view: int, changed_only: bool, keys: set[Any] | None, query: str, keep: Any) -> None:
        screen = self.screen

        def run() -> None:
            visible = doc.model.filter_rows(view, changed_only=changed_only, keys=keys, query=query)
            if get_current_worker().is_cancelled:
                return

            def apply() -> None:
                still = (screen.doc is doc and screen.view == view and screen.query_text == query
                         and screen.changed_only == changed_only and screen.kind_keys is keys)
                if still:
                    self.searching = False
                    screen.apply_view(doc.model.rows(view), visible, keep)

            screen.app.call_from_thread(apply)

        screen.run_worker(run, thread=True, exclusive=True, group="filter", description="search rows")

    # -- nothing here ----------------------------------------------------------------------
    def _asked(self) -> tuple[Any, ...]:
        s = self.screen
        return id(s.doc), s.view, s.query_text, s.changed_only, id(s.kind_keys)

    def where_else(self) -> list[tuple[int, int]]:
        """Other views where the search (with the other filters) finds rows, nearest first; the
        answer the empty view already worked out when it is for the same search (a big history's
        count ran in a worker: n must not run it again on the UI thread)."""
        s = self.screen
        assert s.doc is not None
        asked = self._asked()
        if self._elsewhere is not None and self._elsewhere[0] == asked:
            return self._elsewhere[1]
        where = finding.elsewhere(s.doc.model, s.view, s.query_text, changed_only=s.changed_only, keys=s.kind_keys)
        self._elsewhere = (asked, where)
        return where

    def nowhere_here(self) -> None:
        """Nothing matches here: say where it does (other stages, how many rows) and that n goes there."""
        s = self.screen
        doc = s.doc
        if doc is not None and len(doc.model.rows(s.view)) > BACKGROUND_SEARCH:
            view, query, changed_only, keys = s.view, s.query_text, s.changed_only, s.kind_keys

            def run() -> None:
                where = finding.elsewhere(doc.model, view, query, changed_only=changed_only, keys=keys)
                if not get_current_worker().is_cancelled:
                    s.app.call_from_thread(
                        lambda: self._say_nowhere(where) if (s.doc is doc and s.view == view
                                                             and s.query_text == query) else None)

            s.run_worker(run, thread=True, exclusive=True, group="filter", description="search the other stages")
            return
        self._say_nowhere(self.where_else() if doc is not None else [])

    def _say_nowhere(self, where: list[tuple[int, int]]) -> None:
        s = self.screen
        if s.doc is not None:
            self._elsewhere = (self._asked(), where)
        table = s.query_one(DiffTable)
        table.empty_text = finding.nowhere_short(s.views, s.view, s.query_text, where)
        table.refresh()
        s.notify(finding.nowhere_here(s.views, s.view, s.query_text, where), severity="warning")

    # -- n and N ---------------------------------------------------------------------------
    def match(self, delta: int) -> None:
        """The next (1) or previous (-1) match, wrapping; none in this stage: the nearest stage with one."""
        s = self.screen
        if s.doc is None or not s.query_text:
            s.notify("No search: / searches, then n and N go from match to match.")
            return
        table = s.query_one(DiffTable)
        if self.searching:
            return
        if table.row_count == 0:
            where = self.where_else()
            if not where:
                s.notify(finding.nowhere_here(s.views, s.view, s.query_text, []), severity="warning")
                return
            s.view = where[0][0]
            table.cursor = 0 if delta > 0 else table.row_count - 1
        else:
            position = table.cursor + delta
            if not 0 <= position < table.row_count:
                position %= table.row_count
                s.notify(f"Search wrapped to the {'first' if delta > 0 else 'last'} match "
                         f"({table.row_count:,} in {s.views[s.view]}).")
            table.cursor = position
        table.focus()
        s.minimize()

    def filter_kind(self, kind: str | None) -> None:
        """Show only the messages events of ``kind`` touched, starting where it happens."""
        s = self.screen
        if s.doc is None:
            return
        if kind is None:
            s.kind = None
            return
        first = s.doc.model.first_view_of(kind)
        s.change_view(None, moved=True, kind=kind, **({"view": first} if first is not None else {}))
        s.minimize()  # a narrow screen showed the summary maximized: the filtered table now
        s.query_one(DiffTable).focus()

    # -- ] and [ -----------------------------------------------------------------------------
    def change(self, delta: int) -> None:
        """The next (1) or previous (-1) changed row, the others still shown, wrapping."""
        s = self.screen
        table = s.query_one(DiffTable)
        if s.doc is None or table.rows is None:
            return
        position, wrapped = finding.next_change(finding.changed_rows(table.rows), table.order, table.cursor, delta)
        if position is None:
            s.notify(f"No changed row in {s.views[s.view]}" +
                     (" among the rows shown." if table.order is not None else "."))
            return
        if wrapped:
            s.notify(f"Wrapped to the {'first' if delta > 0 else 'last'} change of {s.views[s.view]}.")
        table.cursor = position
        table.focus()
        s.minimize()

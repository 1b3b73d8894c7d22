"""Search and change navigation over a history's views, read from the rows and their events.

What a search finds is :func:`inspector.tui.rows.matches` (one definition); this module says
where else a query finds rows when the view shown has none, cuts a line's text into matched
and unmatched pieces for highlighting (Rich ``Text`` spans over the text as data: the text is
never parsed as markup), and lists the rows a stage changed for ``]`` and ``[``. No textual.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from rich.text import Text

MATCH = "search-match"  # the span style name; the table styles matched pieces by its own class


def elsewhere(model: Any, view: int, query: str, *, changed_only: bool = False,
              keys: set[Any] | None = None) -> list[tuple[int, int]]:
    """(view, matching rows) of every other view where ``query`` (with the same filters) finds
    rows, the nearest view first (an earlier one before a later one at the same distance)."""
    found = []
    for v in range(len(model.views)):
        if v == view:
            continue
        visible = model.filter_rows(v, changed_only=changed_only, keys=keys, query=query)
        if visible:
            found.append((v, len(visible)))
    return sorted(found, key=lambda vc: (abs(vc[0] - view), vc[0]))


def _rows(n: int) -> str:
    return f"{n:,} row{'' if n == 1 else 's'}"


def nowhere_here(views: Sequence[str], view: int, query: str, where: list[tuple[int, int]]) -> str:
    """The sentence for a search that finds nothing in the view shown: where it does find rows
    (each stage with its number key and how many rows), and that ``n`` goes to the nearest."""
    head = f"No row in {views[view]} matches {query!r}"
    if not where:
        return head + " in any stage."
    places = [f"{_rows(count)} in {views[v]} ({v})" for v, count in where]
    listed = places[0] if len(places) == 1 else ", ".join(places[:-1]) + " and " + places[-1]
    return f"{head}; it matches {listed}: n goes to {views[where[0][0]]}."


def nowhere_short(views: Sequence[str], view: int, query: str, where: list[tuple[int, int]]) -> str:
    """The same, short enough for the empty table's one line: the nearest stage with matches."""
    head = f"No row in {views[view]} matches {query!r}"
    if not where:
        return head + " in any stage."
    v, count = where[0]
    return f"{head}: n goes to {views[v]} ({_rows(count)})."


def pieces(text: str, query: str) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, matched) in order, matching ``query`` ignoring case, through
    Rich's own word highlighting (spans over plain text)."""
    if not query or not text:
        return [(text, False)]
    marked = Text(text)
    if not marked.highlight_words([query], MATCH, case_sensitive=False):
        return [(text, False)]
    out: list[tuple[str, bool]] = []
    at = 0
    for span in sorted(marked.spans, key=lambda s: s.start):
        if span.start < at:
            continue
        if span.start > at:
            out.append((text[at:span.start], False))
        out.append((text[span.start:span.end], True))
        at = span.end
    if at < len(text):
        out.append((text[at:], False))
    return out


def changed_rows(rows: Any) -> list[int]:
    """Row numbers the view marks as changed; on view 0 (the input), the entries some stage
    will change (they carry events), worked out once per view."""
    if rows.view:
        return rows.changed()
    cached = rows.view_cache.get("changed-rows")
    if cached is None:
        events_at = rows.events_at
        cached = [r for r, o in enumerate(rows.origins) if o in events_at]
        rows.view_cache["changed-rows"] = cached
    return cached


def next_change(changed: list[int], order: list[int] | None, cursor: int, delta: int) -> tuple[int | None, bool]:
    """The table position of the next (``delta`` 1) or previous (-1) changed row from
    ``cursor``, wrapping around (then True), or (None, False) when no shown row changed.
    ``order`` is the row numbers the table shows (None: all, in order)."""
    if order is None:
        positions: Sequence[int] = changed
    else:
        wanted = set(changed)
        positions = [p for p, r in enumerate(order) if r in wanted]
    if not positions:
        return None, False
    if delta > 0:
        i = bisect_right(positions, cursor)
        return (positions[i], False) if i < len(positions) else (positions[0], True)
    i = bisect_left(positions, cursor) - 1
    return (positions[i], False) if i >= 0 else (positions[-1], True)

"""The diff of one stage as a line-based table: only the rows on screen are ever rendered.

A widget per message would not survive 200,000 messages; this draws each visible line
from the row arrays in :mod:`inspector.tui.rows` and keeps nothing else.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...engine import CLAUSES
from ..rows import ADD, CHANGE, DROP, MOVE, Row, StageRows, call_ids, original_part, role_of
from ..text import describe_original, inert, preview

ROLE_WIDTH = 10
IDS_WIDTH = 16
TAG_WIDTH = 24
WHERE_WIDTH = 24  # the import view's source path column (messages[3].content[1])

_MARK_CLASS = {DROP: "diff-table--drop", ADD: "diff-table--add", MOVE: "diff-table--move",
               CHANGE: "diff-table--change"}


def fit(text: str, width: int) -> str:
    """Exactly ``width`` cells; text that does not fit ends with an ellipsis."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


def tag_of(row: Row, view: int) -> str:
    """The clause and kind that explain a row, from its events; on the input, its fate."""
    if not row.events:
        return ""
    if view == 0:
        drops = [e for e in row.events if e.drop and e.call is None]
        if drops:
            e = drops[0]
            clause = CLAUSES.get(e.clause)
            where = "" if clause is not None and clause.stage == e.stage else f"{e.stage} "
            return f"→ {where}({e.clause}) {e.kind}"
        stages = []
        for e in row.events:
            if e.stage not in stages:
                stages.append(e.stage)
        return "→ ~ " + ", ".join(stages)
    events = row.events
    first = events[0]  # events are in the order the stage acted: the cause comes first
    # A MEM-5 event names its clause; a strict one's kind already says strict (its clause is in the details).
    text = f"({first.clause}) {first.kind}" if first.clause in CLAUSES else first.kind
    if first.call is not None and first.tool_call_id:
        text += f" {first.tool_call_id}"
    more = len(events) - 1
    return f"{text} +{more}" if more else text


class DiffTable(ScrollView, can_focus=True):
    """Rows of the current stage; a cursor row drives the details and journey panes."""

    DEFAULT_CSS = "DiffTable { overflow-x: hidden; }"

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="table.up", tooltip="Previous row"),
        Binding("down", "cursor(1)", "Down", show=False, id="table.down", tooltip="Next row"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="table.page_up", tooltip="One screen up"),
        Binding("pagedown,space", "page(1)", "Page down", show=False, id="table.page_down",
                tooltip="One screen down"),
        Binding("home", "edge(0)", "First row", show=False, id="table.first", tooltip="First row"),
        Binding("end", "edge(1)", "Last row", show=False, id="table.last", tooltip="Last row"),
    ]

    COMPONENT_CLASSES = {
        "diff-table--header", "diff-table--cursor", "diff-table--drop", "diff-table--add",
        "diff-table--move", "diff-table--change", "diff-table--dim", "diff-table--gone",
    }

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Highlighted(Message):
        """The cursor moved to another row (None when the table is empty)."""

        def __init__(self, row: Row | None) -> None:
            super().__init__()
            self.row = row

    class Chosen(Message):
        """A double click on a row: show its details (enter is the screen's binding)."""

        def __init__(self, row: Row) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: StageRows | None = None
        self.order: list[int] | None = None  # row numbers shown, None for all
        self.split = False
        self.empty_text = "No rows."

    # -- data ---------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        if self.rows is None:
            return 0
        return len(self.order) if self.order is not None else len(self.rows)

    def show(self, rows: StageRows | None, order: list[int] | None, *, split: bool | None = None,
             keep: Any = None) -> None:
        """Show a view; put the cursor back on the message ``keep`` (a row key) if it is there."""
        self.rows = rows
        self.order = order
        if split is not None:
            self.split = split
        target = 0
        if keep is not None and rows is not None:
            target = self._find(keep)
        self.virtual_size = Size(0, self.row_count + 1)  # no horizontal scrolling: columns fit the width
        self._refresh_scrollbars()
        self.cursor = min(target, max(self.row_count - 1, 0))
        self.refresh()

    def _find(self, key: Any) -> int:
        """Cursor position of the row holding ``key``, or of the nearest earlier origin."""
        assert self.rows is not None
        origins = self.rows.origins
        order = self.order if self.order is not None else range(len(self.rows))
        if isinstance(key, int):
            best = 0
            for pos, r in enumerate(order):
                o = origins[r]
                if o is None:
                    continue
                if o == key:
                    return pos
                if o < key:
                    best = pos
            return best
        for pos, r in enumerate(order):
            if origins[r] is None and self.rows.row(r).key == key:
                return pos
        return 0

    def row_at(self, position: int) -> Row | None:
        if self.rows is None or not 0 <= position < self.row_count:
            return None
        r = self.order[position] if self.order is not None else position
        return self.rows.row(r)

    @property
    def current(self) -> Row | None:
        return self.row_at(self.cursor)

    # -- cursor ---------------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        top = round(self.scroll_y)
        self._scroll_to_cursor()
        if round(self.scroll_y) == top and old != new:
            self.refresh_line(old + 1)  # only the two rows that changed look: line 0 is the header
            self.refresh_line(new + 1)
        else:
            self.refresh()
        self.post_message(self.Highlighted(self.current))

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.row_count - 1)) if self.row_count else 0

    def _scroll_to_cursor(self) -> None:
        body = max(self.scrollable_content_region.height - 1, 1)
        top = round(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + body:
            self.scroll_to(y=self.cursor - body + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.cursor = self.cursor + delta

    def action_page(self, direction: int) -> None:
        body = max(self.scrollable_content_region.height - 2, 1)
        self.cursor = self.cursor + direction * body

    def action_edge(self, end: int) -> None:
        self.cursor = self.row_count - 1 if end else 0

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and offset.y >= 1:  # line 0 is the header
            self.cursor = round(self.scroll_y) + offset.y - 1
            if event.chain == 2 and self.current is not None:
                self.post_message(self.Chosen(self.current))

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(0, self.row_count + 1)

    # -- rendering ------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            return self._line(self._header(width), base + self._style("diff-table--header"), width)
        if self.rows is None or self.row_count == 0:
            if y == 2:
                return self._line([(f"  {self.empty_text}", None)], base + self._style("diff-table--dim"), width)
            return Strip.blank(width, base)
        position = round(self.scroll_y) + y - 1
        row = self.row_at(position)
        if row is None:
            return Strip.blank(width, base)
        style = base
        if row.mark in _MARK_CLASS:
            style = style + self._style(_MARK_CLASS[row.mark])
        if position == self.cursor:
            style = style + self._style("diff-table--cursor")
        cells = self._split_cells(row, width) if self.split else self._unified_cells(row, width)
        return self._line(cells, style, width)

    def _line(self, cells: list[tuple[str, Style | None]], style: Style, width: int) -> Strip:
        segments = []
        used = 0
        for text, extra in cells:
            segments.append(Segment(text, style + extra if extra is not None else style))
            used += cell_len(text)
        if used < width:
            segments.append(Segment(" " * (width - used), style))
        return Strip(segments).crop(0, width)

    @property
    def importing(self) -> bool:
        """The import view of a provider format: rows say where they came from."""
        return self.rows is not None and self.rows.imported is not None

    def _where_width(self, width: int) -> int:
        if not self.importing:
            return 0
        return WHERE_WIDTH if width >= 100 else 22 if width >= 70 else 16 if width >= 50 else 0

    def _widths(self, width: int) -> tuple[int, int, int, int, int]:
        index = max(len(str(len(self.rows.before or self.rows.after) if self.rows else 0)), 3) + 1
        tag = TAG_WIDTH if width >= 70 else 0
        ids = IDS_WIDTH if width >= 90 else (10 if width >= 60 else 0)
        role = ROLE_WIDTH if width >= 50 else 6
        if self.importing:  # the where column takes the room: ids and fate only on a wide table
            ids = IDS_WIDTH if width >= 130 else 0
            tag = TAG_WIDTH if width >= 100 else 0
        where = self._where_width(width)
        fixed = (2 + index + 1 + role + 1 + (ids + 1 if ids else 0) + (tag + 1 if tag else 0)
                 + (where + 1 if where else 0))
        return index, role, max(width - fixed, 8), ids, tag

    def _header(self, width: int) -> list[tuple[str, Style | None]]:
        if self.rows is None:
            return [("", None)]
        if self.split:
            half = (width - 3) // 2
            left = "before " + self.rows.name if self.rows.view else "input"
            right = "after " + self.rows.name if self.rows.view else ""
            if self.importing:
                left, right = f"original ({self.rows.imported.format})", "flat (what MEM-5 reads)"
            return [("  ", None), (set_cell_size(left, half), None), (" │ ", None), (set_cell_size(right, half), None)]
        index, role, text, ids, tag = self._widths(width)
        cells = [("  ", None), (set_cell_size("#in", index), None), (" ", None), (set_cell_size("role", role), None)]
        where = self._where_width(width)
        if where:
            cells += [(" ", None), (set_cell_size("from", where), None)]
        cells += [(" ", None), (set_cell_size("original" if self.importing else "content", text), None)]
        if ids:
            cells += [(" ", None), (set_cell_size("call ids", ids), None)]
        if tag:
            cells += [(" ", None), (set_cell_size("fate" if self.rows.view == 0 else "clause · kind", tag), None)]
        return cells

    def _ids_cells(self, row: Row, width: int) -> list[tuple[str, Style | None]]:
        """Call ids from the message entering the stage; ids the stage removed are struck out."""
        source = row.before if row.before is not None else row.after
        gone = {e.call for e in row.events if e.drop and e.call is not None}
        cells: list[tuple[str, Style | None]] = []
        used = 0
        for ident, call in call_ids(source):
            text = inert(ident[:width])
            if cells:
                text = " " + text
            style = self._style("diff-table--gone") if call is not None and call in gone else None
            cells.append((text, style))
            used += cell_len(text)
            if used >= width:
                break
        out: list[tuple[str, Style | None]] = []
        remaining = width
        for text, style in cells:
            if remaining <= 0:
                break
            piece = fit(text, min(cell_len(text), remaining))
            out.append((piece, style))
            remaining -= cell_len(piece)
        if remaining > 0:
            out.append((" " * remaining, None))
        return out

    def _index_text(self, row: Row) -> str:
        return f"#{row.origin}" if row.origin is not None else "new"

    def _unified_cells(self, row: Row, width: int) -> list[tuple[str, Style | None]]:
        index, role, text, ids, tag = self._widths(width)
        message = row.message
        dim = self._style("diff-table--dim")
        cells: list[tuple[str, Style | None]] = [
            (row.mark + " ", None),
            (set_cell_size(self._index_text(row).rjust(index - 1) + " ", index), dim),
            (" ", None),
            (fit(inert(role_of(message)), role), None),
        ]
        where = self._where_width(width)
        if where and row.origin is not None:
            imported = self.rows.imported
            cells += [(" ", None), (fit(inert(imported.where(row.origin)), where), dim),
                      (" ", None), (fit(preview(describe_original(original_part(imported, row.origin))), text), None)]
        else:
            cells += [(" ", None), (fit(self._preview(message), text), None)]
        if ids:
            cells.append((" ", None))
            cells.extend(self._ids_cells(row, ids))
        if tag:
            text_tag = tag_of(row, self.rows.view)
            if not text_tag and row.origin is not None and self.rows.import_at.get(row.origin):
                text_tag = f"import: {self.rows.import_at[row.origin][0].kind}"
            cells += [(" ", None), (fit(text_tag, tag), None)]
        return cells

    def _split_cells(self, row: Row, width: int) -> list[tuple[str, Style | None]]:
        half = max((width - 5) // 2, 10)
        dim = self._style("diff-table--dim")

        def side(message: Any, present: bool, note: str) -> list[tuple[str, Style | None]]:
            if not present:
                return [(fit(note, half), dim)]
            head = f"{self._index_text(row)} {inert(role_of(message))[:ROLE_WIDTH]}: "
            return [(fit(head + self._preview(message), half), None)]

        view = self.rows.view if self.rows else 0
        tag = tag_of(row, view)
        left = side(row.before, row.before is not None, "" if view else "")
        right = side(row.after, row.after is not None, tag)
        if view == 0 and self.importing and row.origin is not None:
            imported = self.rows.imported
            head = inert(imported.where(row.origin)) + ": "
            left = [(fit(head + preview(describe_original(original_part(imported, row.origin))), half), None)]
            right = side(row.after, True, "")
        elif view == 0:
            left, right = side(row.after, True, ""), [(fit(tag, half), dim)]
        return [(row.mark + " ", None), *left, (" │ ", dim), *right]

    @staticmethod
    def _preview(message: Any) -> str:
        if isinstance(message, dict):
            return preview(message.get("content"))
        return preview(message)

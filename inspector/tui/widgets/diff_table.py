"""The diff of one stage as a line-based table: only the rows on screen are ever rendered.

A widget per message would not survive 200,000 messages; this draws each visible line
from the row arrays in :mod:`inspector.tui.rows` and keeps nothing else.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .. import facts, layout, search
from ..styles import component_style
from ..adapter import describe_block
from ..layout import ROLE_WIDTH
from ..rows import (ADD, CHANGE, DROP, GHOST, MOVE, TAG_LEVEL_COUNT, Row, StageRows, call_ids, import_tag, original_part,
                    role_of, tag_text)
from ..text import compact_json, inert, preview


_MARK_CLASS = {DROP: "diff-table--drop", ADD: "diff-table--add", MOVE: "diff-table--move",
               CHANGE: "diff-table--change", GHOST: "diff-table--ghost"}
MOVED_AWAY = "(moved: now at the ↑ row)"  # the split view's notes on a move, read from the ghost rows
MOVED_HERE = "(moved here: ┊ was its place)"


def head_cells(text: str, cells: int) -> str:
    """The longest prefix of ``text`` at most ``cells`` wide (a wide character is never halved)."""
    if cell_len(text) <= cells:
        return text
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > cells:
            break
        out.append(ch)
        used += w
    return "".join(out)


def tail_cells(text: str, cells: int) -> str:
    """The longest suffix of ``text`` at most ``cells`` wide."""
    return head_cells(text[::-1], cells)[::-1]


def fit(text: str, width: int) -> str:
    """Exactly ``width`` cells: a true prefix of the text and, when it does not fit, an ellipsis."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(head_cells(text, width - 1) + "…", width)
    return set_cell_size(text, width)


def shorten(ident: str, width: int) -> str:
    """An id cut in the middle (`call_…yon_7f3a9c`), always with an ellipsis: ids of one
    history usually share a prefix and differ at the end, so the end keeps more. The two
    ends are a true prefix and a true suffix, measured in cells (`call_日本` keeps `本`)."""
    if cell_len(ident) <= width:
        return ident
    if width <= 2:
        return "…"[:width]
    keep = width - 1
    head = head_cells(ident, keep // 3)
    return head + "…" + tail_cells(ident, keep - cell_len(head))


# The tag column's header, the longest that fits its width; at the levels that leave the
# clause to the rule panel (1 and 3, see inspector.tui.rows.tag_text) it does not name one.
TAG_HEADERS = ("clause · kind → cause", "clause · kind", "kind")
KIND_HEADERS = ("kind → cause", "kind")


def tag_headers(level: int) -> tuple[str, ...]:
    return KIND_HEADERS if level in (1, 3) else TAG_HEADERS
FATE_HEADERS = ("fate",)


def header_for(options: tuple[str, ...], width: int) -> str:
    return next((o for o in options if cell_len(o) <= width), options[-1])


def tag_of(row: Row, view: int, level: int = 0) -> str:
    """The clause, kinds and cause that explain a row (see :func:`inspector.tui.rows.tag_text`)."""
    return tag_text(row.events, view, level, row.ghost)


class Lines:
    """Where each row starts when some rows take more than one line (one per call id).

    Only rows with extra lines are stored, so a view with none costs nothing."""

    __slots__ = ("pos", "start", "cum", "total")

    def __init__(self, order: list[int] | None, count: int, extra: dict[int, int]) -> None:
        self.pos: list[int] = []
        self.start: list[int] = []
        self.cum: list[int] = []  # extra lines up to and including the i-th tall row
        added = 0
        if extra:
            if order is None:
                items: Any = ((r, extra[r]) for r in sorted(extra))
            else:
                items = ((p, extra[r]) for p, r in enumerate(order) if r in extra)
            for p, e in items:
                self.pos.append(p)
                self.start.append(p + added)
                added += e
                self.cum.append(added)
        self.total = count + added

    def line_of(self, position: int) -> int:
        i = bisect_left(self.pos, position)
        return position + (self.cum[i - 1] if i else 0)

    def height(self, position: int) -> int:
        i = bisect_left(self.pos, position)
        if i < len(self.pos) and self.pos[i] == position:
            return 1 + self.cum[i] - (self.cum[i - 1] if i else 0)
        return 1

    def at(self, line: int) -> tuple[int, int]:
        """(row position, line within the row) of a content line."""
        i = bisect_right(self.start, line) - 1
        if i < 0:
            return line, 0
        first = self.start[i]
        if line < first + 1 + self.cum[i] - (self.cum[i - 1] if i else 0):
            return self.pos[i], line - first
        return line - self.cum[i], 0


LATER_TAG = 24  # characters the input view's fate column grows to for what an entry causes later


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
        "diff-table--match", "diff-table--reasoning", "diff-table--ghost",
    }

    # watch_cursor refreshes the lines that change (or all of them when the table scrolls).
    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)

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
        self.lines = Lines(None, 0, {})
        self._sized: tuple[Size, Size, Size] | None = None  # what the last layout gave (see _size_updated)
        self._base: Style | None = None  # the widget's style during one paint (see render_lines)
        self.flags: dict[int, str] = {}  # row number -> severity of the chosen provider's problem on it
        self.later: dict[int, str] = {}  # input entry -> what it causes later (the input view's fate)
        self.search_text = ""  # the search shown: its matches in a row's text and ids are highlighted
        self.reasoning: dict[int, str] = {}  # input entry -> its reasoning marker (tui.reasoning.markers)

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
        position = 0
        if keep is not None and rows is not None:
            position = self._find(keep)
        self._relayout()
        self.cursor = min(position, max(self.row_count - 1, 0))
        self.refresh()

    @staticmethod
    def prepare(rows: StageRows) -> None:
        """Work out a whole view's lines, with the ids column showing, ahead of its first
        showing (the warm-up worker calls this off the UI thread)."""
        extra = rows.layout().extra
        rows.view_cache.setdefault(("lines", bool(extra)), Lines(None, len(rows), extra))

    def _relayout(self) -> None:
        extra: dict[int, int] = {}
        if self.rows is not None and self._ids_width(self.scrollable_content_region.width):
            extra = self.rows.layout().extra  # one line per call id, when the ids column shows
        if self.order is None and self.rows is not None:  # a whole view: its lines are worked out once
            key = ("lines", bool(extra))
            if key not in self.rows.view_cache:
                self.rows.view_cache[key] = Lines(None, self.row_count, extra)
            self.lines = self.rows.view_cache[key]
        else:
            self.lines = Lines(self.order, self.row_count, extra)
        self.virtual_size = Size(0, self.lines.total + 1)  # no horizontal scrolling: columns fit the width
        self._refresh_scrollbars()

    def _find(self, key: Any) -> int:
        """Cursor position of the row holding ``key``, or of the nearest earlier origin."""
        assert self.rows is not None
        if isinstance(key, tuple) and key[0] == "ghost":  # a moved message's old place: go to the message
            key = key[1]
        origins = self.rows.origins
        order = self.order if self.order is not None else range(len(self.rows))
        if isinstance(key, int) and self.order is None:
            found = self.rows.layout().row_of.get(key)
            if found is not None:
                return found
        if isinstance(key, int):
            best = 0
            ghosts = self.rows.ghosts
            for pos, r in enumerate(order):
                o = origins[r]
                if o is None or r in ghosts:  # a moved message is found at its new place
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

    def position_of(self, origin: int) -> int | None:
        """Where the row of input #origin is shown, if it is."""
        if self.rows is None:
            return None
        pos = self._find(origin)
        row = self.row_at(pos)
        return pos if row is not None and row.origin == origin else None

    def row_at(self, position: int) -> Row | None:
        if self.rows is None or not 0 <= position < self.row_count:
            return None
        r = self.order[position] if self.order is not None else position
        return self.rows.row(r)

    @property
    def current(self) -> Row | None:
        return self.row_at(self.cursor)

    def screen_line(self, position: int) -> int:
        """The content line (under the header) a row position starts on, at the current scroll."""
        return self.lines.line_of(position) - round(self.scroll_y) + 1

    # -- cursor ---------------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        top = round(self.scroll_y)
        self._scroll_to_cursor()
        if round(self.scroll_y) == top and old != new:
            for position in (old, new):  # only the rows that changed look: line 0 is the header
                self.refresh_lines(self.lines.line_of(position) + 1, self.lines.height(position))
        else:
            self.refresh()
        self.post_message(self.Highlighted(self.current))

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.row_count - 1)) if self.row_count else 0

    def _scroll_to_cursor(self) -> None:
        body = max(self.scrollable_content_region.height - 1, 1)
        top = round(self.scroll_y)
        first = self.lines.line_of(self.cursor)
        last = first + self.lines.height(self.cursor) - 1
        if first < top:
            self.scroll_to(y=first, animate=False, immediate=True)
        elif last >= top + body:
            self.scroll_to(y=min(first, last - body + 1), animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.cursor = self.cursor + delta

    def action_page(self, direction: int) -> None:
        body = max(self.scrollable_content_region.height - 2, 1)
        line = self.lines.line_of(self.cursor) + direction * body
        self.cursor = self.lines.at(max(0, min(line, self.lines.total - 1)))[0]

    def action_edge(self, end: int) -> None:
        self.cursor = self.row_count - 1 if end else 0

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and offset.y >= 1:  # line 0 is the header
            line = round(self.scroll_y) + offset.y - 1
            if line < self.lines.total:
                self.cursor = self.lines.at(line)[0]
                if event.chain == 2 and self.current is not None:
                    self.post_message(self.Chosen(self.current))

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        """Every layout of the screen calls this; ScrollView then repaints the scrollbar one
        frame later whenever the compositor's idea of the virtual size differs from ours,
        which for a line-based table is always. A stage switch lays the screen out twice
        (the side panel changes height), so that cost it a third frame for nothing: here
        the scrollbar is updated only when the table's size or its virtual size changed."""
        sized = (size, self.virtual_size, container_size)
        if sized == self._sized:
            return False
        self._sized = sized
        return super()._size_updated(size, virtual_size, container_size, layout)

    def on_resize(self, event: events.Resize) -> None:
        if self.rows is not None:
            self._relayout()
            self._scroll_to_cursor()
        else:
            self.virtual_size = Size(0, self.row_count + 1)

    # -- rendering ------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        return component_style(self, name)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The widget's style walks every ancestor: read it once per paint, not once per line."""
        self._base = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._base = None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self._base if self._base is not None else self.rich_style
        if y == 0:
            return self._line(self._header(width), base + self._style("diff-table--header"), width)
        if self.rows is None or self.row_count == 0:
            if y == 2:
                return self._line([(f"  {self.empty_text}", None)], base + self._style("diff-table--dim"), width)
            return Strip.blank(width, base)
        line = round(self.scroll_y) + y - 1
        if line >= self.lines.total:
            return Strip.blank(width, base)
        position, sub = self.lines.at(line)
        row = self.row_at(position)
        if row is None:
            return Strip.blank(width, base)
        style = base
        if row.mark in _MARK_CLASS:
            style = style + self._style(_MARK_CLASS[row.mark])
        top = None
        if position == self.cursor:  # the theme's cursor colours win over every mark and cell colour
            top = self._style("diff-table--cursor")
            style = style + top
        if self.split:
            cells = self._split_cells(row, width, sub)
        else:
            cells = self._unified_cells(row, width, sub)
        return self._line(cells, style, width, top)

    def _line(self, cells: list[tuple[str, Style | None]], style: Style, width: int,
              top: Style | None = None) -> Strip:
        segments = []
        used = 0
        for text, extra in cells:
            if extra is not None:
                cell = style + extra
                segments.append(Segment(text, cell + top if top is not None else cell))
            else:
                segments.append(Segment(text, style))
            used += cell_len(text)
        if used < width:
            segments.append(Segment(" " * (width - used), style))
        return Strip(segments).crop(0, width)

    @property
    def importing(self) -> bool:
        """The import view of a provider format: rows say where they came from."""
        return self.rows is not None and self.rows.imported is not None

    def _measures(self) -> layout.Measures:
        rows = self.rows
        if rows is None:
            return layout.Measures(shown=False)
        measured = rows.layout()
        tags = measured.tags
        if rows.view == 0 and self.later:  # what entries cause later shares the fate column
            later = min(max(map(len, self.later.values())), LATER_TAG)
            tags = tuple(max(t, later) for t in tags) if tags else (later,) * TAG_LEVEL_COUNT
        return layout.Measures(len(rows.before or rows.after) if rows else 0, measured.longest_id, tags,
                               measured.where, self.importing, counts=measured.counts)

    def _where_width(self, width: int) -> int:
        return layout.where_width(width, self._measures())

    def _ids_width(self, width: int) -> int:
        return self._split_widths(width)[2] if self.split else self._widths(width)[3]

    def _widths(self, width: int) -> tuple[int, int, int, int, int]:
        """(index, role, content, ids, tag): :func:`inspector.tui.layout.unified` decides."""
        w = layout.unified(width, self._measures())
        return w.index, w.role, w.content, w.ids, w.tag

    def tag_level(self, width: int) -> int:
        """The tag's level of shortening for every row of the table (the layout's choice)."""
        m = self._measures()
        return (layout.split(width, m) if self.split else layout.unified(width, m)).level

    def _header(self, width: int) -> list[tuple[str, Style | None]]:
        if self.rows is None:
            return [("", None)]
        if self.split:
            return self._split_header(width)
        index, role, text, ids, tag = self._widths(width)
        cells = [("  ", None), (set_cell_size("#in", index), None), (" ", None), (set_cell_size("role", role), None)]
        where = self._where_width(width)
        if where:
            cells += [(" ", None), (set_cell_size("from", where), None)]
        cells += [(" ", None), (set_cell_size("original" if self.importing else "content", text), None)]
        if ids:
            cells += [(" ", None), (set_cell_size("call ids", ids), None)]
        if tag:
            heads = FATE_HEADERS if self.rows.view == 0 else tag_headers(self.tag_level(width))
            cells += [(" ", None), (set_cell_size(header_for(heads, tag), tag), None)]
        return cells

    def _ids_cells(self, row: Row, width: int, sub: int = 0) -> list[tuple[str, Style | None]]:
        """Line ``sub`` of a row shows the ``sub``-th call id of the message entering the stage
        (one line per call), shortened in the middle only when the column is narrower than
        it; an id the stage removed is struck out."""
        source = row.before if row.entered else row.after
        ids = call_ids(source)[sub:sub + 1]
        if not ids:
            return [(" " * width, None)]
        ident, call = ids[0]
        gone = call is not None and any(e.drop and e.call == call for e in row.events)
        short = shorten(inert(ident), width)
        pad = " " * max(width - cell_len(short), 0)  # only the id is struck out, not the padding after it
        return [*self._found(short, self._style("diff-table--gone") if gone else None), (pad, None)]

    def _content(self, row: Row, text: str, width: int) -> list[tuple[str, Style | None]]:
        """A content cell ``width`` wide: the row's reasoning marker (``«signed» ``) first when its
        turn carries reasoning and the cell has room for more than the marker, then the text."""
        mark = self.reasoning.get(row.origin) if row.origin is not None else None
        if not mark or width < 2 * cell_len(mark):
            return self._found(fit(text, width))
        return [(mark, self._style("diff-table--reasoning")), *self._found(fit(text, width - cell_len(mark)))]

    def _found(self, text: str, extra: Style | None = None) -> list[tuple[str, Style | None]]:
        """``text`` as cells, the search's matches in it styled as matches (spans over the
        text as data, :func:`inspector.tui.search.pieces`)."""
        if not self.search_text:
            return [(text, extra)]
        match = self._style("diff-table--match")
        return [(piece, (extra + match if extra is not None else match) if hit else extra)
                for piece, hit in search.pieces(text, self.search_text)]

    def _mark_cells(self, row: Row) -> list[tuple[str, Style | None]]:
        """The row's mark, then ``!`` when the chosen provider has a problem with it."""
        flag = self.flags.get(row.index)
        if flag is None:
            return [(row.mark + " ", None)]
        return [(row.mark, None), ("!", self._style("diff-table--drop" if flag == "error" else "diff-table--change"))]

    def _index_text(self, row: Row) -> str:
        return f"#{row.origin}" if row.origin is not None else "new"

    def _tag(self, row: Row, width: int, level: int) -> str:
        """The row's tag at the table's one ``level``; cut with an ellipsis only when even
        that level is wider than the column (the same for every row)."""
        view = self.rows.view if self.rows is not None else 0
        text = tag_of(row, view, level)
        if not text and row.origin is not None and self.rows is not None:
            text = import_tag(self.rows.import_at.get(row.origin, []))
        if not text and view == 0 and row.origin is not None:
            text = self.later.get(row.origin, "")
        return fit(text, width)

    def _unified_cells(self, row: Row, width: int, sub: int = 0) -> list[tuple[str, Style | None]]:
        index, role, text, ids, tag = self._widths(width)
        if sub:  # a continuation line: only the next call id
            lead = 2 + index + 1 + role + 1 + text + 1
            where = self._where_width(width)
            lead += where + 1 if where else 0
            return [(" " * lead, None), *self._ids_cells(row, ids, sub)]
        message = row.message
        dim = self._style("diff-table--dim")
        cells: list[tuple[str, Style | None]] = [
            *self._mark_cells(row),
            (set_cell_size(self._index_text(row).rjust(index - 1) + " ", index), dim),
            (" ", None),
            (fit(inert(role_of(message)), role), None),
        ]
        where = self._where_width(width)
        if where and row.origin is not None:
            imported = self.rows.imported
            cells += [(" ", None), *self._found(fit(inert(imported.where(row.origin)), where), dim),
                      (" ", None), *self._content(row, self._original(row), text)]
        else:
            cells += [(" ", None), *self._content(row, self._preview(message), text)]
        if ids:
            cells.append((" ", None))
            cells.extend(self._ids_cells(row, ids))
        if tag:
            cells += [(" ", None), (self._tag(row, tag, self.tag_level(width)), None)]
        return cells

    # -- split: before | after, the after side keeping the ids and the clause ---------
    def _split_widths(self, width: int) -> tuple[int, int, int, int]:
        """(left, right text, ids, tag): :func:`inspector.tui.layout.split` decides."""
        w = layout.split(width, self._measures())
        return w.left, w.right, w.ids, w.tag

    def _split_header(self, width: int) -> list[tuple[str, Style | None]]:
        assert self.rows is not None
        half, right, ids, tag = self._split_widths(width)
        left_title = "before " + self.rows.name if self.rows.view else "input"
        right_title = "after " + self.rows.name if self.rows.view else "fate"
        if self.importing:
            left_title, right_title = f"original ({self.rows.imported.format})", "flat (what MEM-5 reads)"
        cells = [("  ", None), (set_cell_size(left_title, half), None), (" │ ", None),
                 (set_cell_size(right_title, right), None)]
        if ids:
            cells += [(" ", None), (set_cell_size("call ids", ids), None)]
        if tag:
            cells += [(" ", None), (set_cell_size(header_for(tag_headers(self.tag_level(width)), tag), tag), None)]
        return cells

    def _split_cells(self, row: Row, width: int, sub: int = 0) -> list[tuple[str, Style | None]]:
        half, right_width, ids, tag = self._split_widths(width)
        dim = self._style("diff-table--dim")
        if sub:
            return [(" " * (2 + half), None), (" │ ", dim), (" " * (right_width + 1), None),
                    *self._ids_cells(row, ids, sub)]
        view = self.rows.view if self.rows else 0

        def side(message: Any, present: bool, note: str, room: int) -> list[tuple[str, Style | None]]:
            if not present:
                return [(fit(note, room), dim)]
            head = f"{self._index_text(row)} {inert(role_of(message))[:ROLE_WIDTH]}: "
            return self._found(fit(head + self._preview(message), room))

        if view == 0 and self.importing and row.origin is not None:
            imported = self.rows.imported
            head = inert(imported.where(row.origin)) + ": "
            left = self._found(fit(head + self._original(row), half))
            right = side(row.after, True, "", right_width)
        elif view == 0:
            left = side(row.after, True, "", half)
            right = [(" " * right_width, None)]
        elif row.ghost:  # the before column reads in the order the stage received
            left = side(row.before, True, "", half)
            right = [(fit(MOVED_AWAY, right_width), dim)]
        elif row.mark == MOVE and self.rows.ghosts:
            left = [(fit(MOVED_HERE, half), dim)]
            right = side(row.after, row.left, "(dropped)", right_width)
        else:
            left = side(row.before, row.entered, "(not there before: created by this stage)", half)
            right = side(row.after, row.left, "(dropped)", right_width)
        cells = [*self._mark_cells(row), *left, (" │ ", dim), *right]
        if ids:
            cells += [(" ", None), *self._ids_cells(row, ids)]
        if tag:
            cells += [(" ", None), (self._tag(row, tag, self.tag_level(width)), None)]
        return cells

    def _original(self, row: Row) -> str:
        """The import view's reading of the original a row came from (its blocks, as the format
        names them; a plain message by its text)."""
        imported = self.rows.imported
        shown = describe_block(imported.format, original_part(imported, row.origin))
        if shown is not None and facts.is_session_format(imported.format):
            text = self._preview(row.after)  # a session's line is named by its type: its text says which turn
            return f"{text} · {preview(shown)}" if text else preview(shown)
        return preview(shown) if shown is not None else self._preview(row.after)

    @staticmethod
    def _preview(message: Any) -> str:
        if isinstance(message, dict):
            return preview(message.get("content"))
        return preview(compact_json(message))

"""Where the screen's room goes: the one place the diff table's column widths, the tag's
shortening and the side panel's width and place are decided.

Pure arithmetic on a few measures of the rows shown (the longest call id, the widest tag at
each level of shortening, the widest source path, how many rows) and the widths of the
table and the terminal, so it is tested over every size without a screen
(``tests/tui/test_columns.py``). The table only draws the cells these functions size, and
the screen only places the panel where :func:`panel` says.

Room is given in a fixed order of preference: the content keeps a readable width, the call
ids are shown in full (up to ``ID_LIMIT`` cells), the tag keeps its clause and cause; the
tag is shortened first, one level for every row of the table (never row by row), then the
ids are cut in the middle, and only then does the content get less than it wants. One
exception: before a row's kinds are counted (`+1`), the content gives up cells down to a lean
floor so that the tag still names every kind (sample 17 at 160x50, issue 35).
"""

from __future__ import annotations

from dataclasses import dataclass

ROLE_WIDTH = 10
ID_LIMIT = 40  # ids up to this long are shown in full when the table has room
SHORT_IDS = 12  # the narrowest a shortened id column gets (the ellipsis and both ends)
WHERE_WIDTH = 24  # the import view's source path column (messages[3].content[1])
MIN_CONTENT = 10
CONTENT_WANT = 24  # the content width every column gives way for before the content does
SPLIT_TEXT = 16  # narrowest before or after text in the split view
SPLIT_WANT = 22  # what each split text wants before the ids are cut
TAG_FLOOR = 12  # the narrowest tag column when a tag has to be cut with an ellipsis
# The tag's levels of shortening (see inspector.tui.rows.tag_text): every kind; every kind
# without the clause (the rule panel names the stage's clause), so a row with two kinds names
# both as long as that fits; the first kind and a count; the count without the clause.
TAG_LEVELS = ("full", "every kind", "counted", "no clause")
EVERY_KIND = TAG_LEVELS.index("every kind")

# The side panel (rule, details, journey, summary): beside the table from BESIDE columns,
# under it below; its width beside is a share of the terminal within bounds.
BESIDE = 160
SIDE_SHARE = 0.3
SIDE_MIN = 48  # room for a 40-cell id quoted in an event sentence, `('…'):`
SIDE_MAX = 60
FULL_FOOTER = 130  # terminal columns from which the footer has room for every shown key
# Terminal rows below which the screen is short (80x24): the side panel under the table takes
# less of it and the rule panel one line (? has the whole rule), so the table shows more rows
# and the Details pane its content; the verdict keeps to one line.
TALL = 31


@dataclass(frozen=True, slots=True)
class Measures:
    """What the widths depend on in the rows: 0 for a column with nothing to show."""

    rows: int = 0          # how many rows the index column numbers
    longest_id: int = 0    # the longest call id, in cells
    tags: tuple[int, ...] = ()  # the widest tag at each of TAG_LEVELS, in cells (() : no tag)
    where: int = 0         # the widest source path of the import view, in cells
    importing: bool = False  # the import view of a provider format: rows say where they came from
    shown: bool = True     # False: no rows at all (nothing open)
    counts: bool = False   # some row has more than one kind: the "counted" level would count them

    def tag(self, level: int) -> int:
        """The widest tag at ``level`` (the last level for any beyond it)."""
        if not self.tags:
            return 0
        return self.tags[min(level, len(self.tags) - 1)]


@dataclass(frozen=True, slots=True)
class Unified:
    index: int
    role: int
    content: int
    ids: int
    tag: int
    where: int
    level: int = 0  # the tag's level of shortening, for every row


@dataclass(frozen=True, slots=True)
class Split:
    left: int
    right: int
    ids: int
    tag: int
    level: int = 0


@dataclass(frozen=True, slots=True)
class Panel:
    beside: bool  # the side panel sits beside the table (else under it)
    side: int     # its width in columns when beside (0 under the table)


def beside(screen_width: int) -> bool:
    """Whether the side panel sits beside the table: only where the table keeps room for
    full ids and tags next to it (below, the table has the whole width)."""
    return screen_width >= BESIDE


def panel(screen_width: int) -> Panel:
    if not beside(screen_width):
        return Panel(False, 0)
    return Panel(True, max(SIDE_MIN, min(int(screen_width * SIDE_SHARE), SIDE_MAX)))


def full_footer(screen_width: int) -> bool:
    return screen_width >= FULL_FOOTER


def where_width(width: int, m: Measures) -> int:
    """The import view's source path column; 0 outside it or when the table is too narrow."""
    if not m.importing:
        return 0
    cap = WHERE_WIDTH if width >= 100 else 22 if width >= 70 else 16 if width >= 50 else 0
    return min(max(m.where, 4), cap) if cap else 0


def _full_ids(m: Measures) -> int:
    return min(max(m.longest_id, 8), ID_LIMIT) if m.longest_id else 0


def _short_ids(width: int, m: Measures) -> int:
    """Ids cut in the middle: a fifth of the table, at least SHORT_IDS, never more than in full."""
    full = _full_ids(m)
    if not full or width < 60 or m.importing:  # the import view's where column takes the room
        return 0
    return min(full, max(SHORT_IDS, width // 5))


def _choices(width: int, m: Measures) -> list[tuple[int, int, bool]]:
    """(ids, level, lean) in the order of preference: full ids with the tag shortened level
    by level, then shortened ids (or none) with the tag shortened again. Right before the
    level that counts kinds comes the level naming every kind once more, ``lean``: with the
    content at its lean floor rather than its usual one."""
    levels = range(len(m.tags)) if m.tags else range(1)
    full, short = _full_ids(m), _short_ids(width, m)

    def at(ids: int) -> list[tuple[int, int, bool]]:
        out = []
        for level in levels:
            if level == EVERY_KIND + 1 and m.counts:
                out.append((ids, EVERY_KIND, True))
            out.append((ids, level, False))
        return out

    return at(full) + (at(short) if short != full else [])


def content_floor(room: int) -> int:
    """The content width the other columns give way for, out of ``room`` cells: a third of
    it, between MIN_CONTENT and CONTENT_WANT. It grows slower than the room, so a wider
    table never makes a column shorter."""
    return max(MIN_CONTENT, min(room // 3, CONTENT_WANT))


def lean_floor(room: int) -> int:
    """The content width given up to, out of ``room`` cells, so that the tag names every kind
    rather than counting them: two thirds of :func:`content_floor`. The content then still
    opens each message (the details pane shows it whole), and it grows with the room too."""
    return max(MIN_CONTENT, content_floor(room) * 2 // 3)


def _tag_width(m: Measures, level: int) -> int:
    return m.tag(level) if m.tags and m.tag(level) else 0


def _cols(ids: int, tag: int) -> int:
    """Cells the ids and tag columns take, each with the space before it."""
    return (ids + 1 if ids else 0) + (tag + 1 if tag else 0)


def unified(width: int, m: Measures) -> Unified:
    """The unified view's columns: index, role, (where), content, ids, tag."""
    index = max(len(str(m.rows)), 3) + 1
    role = ROLE_WIDTH if width >= 50 else 6
    where = where_width(width, m)
    fixed = 2 + index + 1 + role + 1 + (where + 1 if where else 0)
    if not m.shown or width < 50:
        return Unified(index, role, max(width - fixed, 8), 0, 0, where)
    choices = _choices(width, m)
    floor, lean = content_floor(width - fixed), lean_floor(width - fixed)
    for ids, level, leaner in choices:
        tag = _tag_width(m, level)
        if width - fixed - _cols(ids, tag) >= (lean if leaner else floor):
            return Unified(index, role, width - fixed - _cols(ids, tag), ids, tag, where, level)
    # Short of room at every level: the last level's tag is cut (to its floor), then the ids.
    ids, level, _ = choices[-1]
    tag = _tag_width(m, level)
    room = width - fixed - MIN_CONTENT
    if tag:
        tag = max(min(tag, room - _cols(ids, 0) - 1), min(tag, TAG_FLOOR))
    if _cols(ids, tag) > room and ids:
        ids = room - _cols(0, tag) - 1
        ids = ids if ids >= 6 else 0
    content = max(width - fixed - _cols(ids, tag), 8)
    return Unified(index, role, content, ids, tag, where, level)


def split(width: int, m: Measures) -> Split:
    """The split view's columns: the after side carries the explaining columns; the two
    texts share what they leave, each at least SPLIT_TEXT wide (the tag, then the ids, give
    way, in the same order as in the unified view)."""
    if not m.shown or width < 50:
        avail = width - 5
        left = max(avail // 2, 8)
        return Split(left, max(avail - left, 8), 0, 0)
    choices = _choices(width, m)
    chosen = None
    floor = 2 * max(SPLIT_TEXT, min((width - 5) // 6, SPLIT_WANT))
    for ids, level, leaner in choices:
        if leaner:  # the split's two texts are already at their own floor
            continue
        if width - 5 - _cols(ids, _tag_width(m, level)) >= floor:
            chosen = ids, _tag_width(m, level), level
            break
    if chosen is None:
        ids, level, _ = choices[-1]
        tag = _tag_width(m, level)
        short = 2 * SPLIT_TEXT - (width - 5 - _cols(ids, tag))
        if tag:
            tag = max(tag - short, min(tag, TAG_FLOOR + 2))
        short = 2 * SPLIT_TEXT - (width - 5 - _cols(ids, tag))
        if short > 0 and ids:
            ids = max(ids - short, 10)
        if width - 5 - _cols(ids, tag) < 2 * SPLIT_TEXT:
            ids = tag = 0
        chosen = ids, tag, level
    ids, tag, level = chosen
    avail = width - 5 - _cols(ids, tag)
    left = max(avail // 2, 8)
    return Split(left, max(avail - left, 8), ids, tag, level)

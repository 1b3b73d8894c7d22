"""Where the diff table's columns go: the one place their widths are decided.

Pure arithmetic on a few measures of the rows shown (the longest call id, the widest tag,
the widest source path, how many rows) and the widths of the table and the terminal, so it
is tested without a screen (``tests/tui/test_columns.py``). The table only draws the cells
these functions size.
"""

from __future__ import annotations

from dataclasses import dataclass

ROLE_WIDTH = 10
ID_LIMIT = 40  # ids up to this long are shown in full on a wide screen
WIDE_IDS = 120  # terminal columns from which every call id of a row is shown in full, one line each
WHERE_WIDTH = 24  # the import view's source path column (messages[3].content[1])
MIN_CONTENT = 10
SPLIT_TEXT = 16  # narrowest before or after text in the split view
SPLIT_TAG = 26  # the compact tag of the split view: the first kind, how many more, the cause


@dataclass(frozen=True, slots=True)
class Measures:
    """What the widths depend on in the rows: 0 for a column with nothing to show."""

    rows: int = 0          # how many rows the index column numbers
    longest_id: int = 0    # the longest call id, in cells
    tag: int = 0           # the widest fate tag, in cells
    where: int = 0         # the widest source path of the import view, in cells
    importing: bool = False  # the import view of a provider format: rows say where they came from
    shown: bool = True     # False: no rows at all (nothing open)


@dataclass(frozen=True, slots=True)
class Unified:
    index: int
    role: int
    content: int
    ids: int
    tag: int
    where: int


@dataclass(frozen=True, slots=True)
class Split:
    left: int
    right: int
    ids: int
    tag: int


def wide_ids(screen_width: int) -> bool:
    """Whether the terminal is wide enough to show every call id of a row in full."""
    return screen_width >= WIDE_IDS


def where_width(width: int, m: Measures) -> int:
    """The import view's source path column; 0 outside it or when the table is too narrow."""
    if not m.importing:
        return 0
    cap = WHERE_WIDTH if width >= 100 else 22 if width >= 70 else 16 if width >= 50 else 0
    return min(max(m.where, 4), cap) if cap else 0


def columns(width: int, m: Measures, wide: bool) -> tuple[int, int]:
    """(ids, tag) for a table ``width`` cells wide: every id in full when the screen is
    ``wide``, every kind and the cause when there is room; the content takes the rest."""
    if not m.shown or width < 50:
        return 0, 0
    if wide:
        ids = min(max(m.longest_id, 8), ID_LIMIT) if m.longest_id else 0
    else:
        ids = min(max(m.longest_id, 8), max(10, width // 5)) if m.longest_id and width >= 60 else 0
    tag = min(max(m.tag, 12), max(16, width * 2 // 5)) if m.tag else 0
    if m.importing and not wide:  # the where column takes the room
        ids = 0
    return ids, tag


def unified(width: int, m: Measures, wide: bool) -> Unified:
    """The unified view's columns: index, role, (where), content, ids, tag."""
    index = max(len(str(m.rows)), 3) + 1
    role = ROLE_WIDTH if width >= 50 else 6
    ids, tag = columns(width, m, wide)
    where = where_width(width, m)
    fixed = 2 + index + 1 + role + 1 + (where + 1 if where else 0)
    room = width - fixed - MIN_CONTENT
    if ids + tag + (ids > 0) + (tag > 0) > room:  # short of room: the tag gives way first, then ids
        tag = max(min(tag, room - ids - (ids > 0) - 1), 12) if tag else 0
        if ids + tag + (ids > 0) + (tag > 0) > room:
            ids = max(room - tag - 2, 0) if ids else 0
            ids = ids if ids >= 6 else 0
    content = max(width - fixed - (ids + 1 if ids else 0) - (tag + 1 if tag else 0), 8)
    return Unified(index, role, content, ids, tag, where)


def split(width: int, m: Measures, wide: bool) -> Split:
    """The split view's columns: the after side carries the explaining columns; the two
    texts share what they leave, each at least SPLIT_TEXT wide (the tag, then the ids, give
    way)."""
    ids, tag = columns(width, m, wide)
    tag = min(tag, SPLIT_TAG)

    def avail() -> int:
        return width - 5 - (ids + 1 if ids else 0) - (tag + 1 if tag else 0)

    if avail() < 2 * SPLIT_TEXT and tag:
        tag = max(tag - (2 * SPLIT_TEXT - avail()), 14)
    if avail() < 2 * SPLIT_TEXT and ids:
        ids = max(ids - (2 * SPLIT_TEXT - avail()), 10)
    if avail() < 2 * SPLIT_TEXT:
        ids = tag = 0
    left = max(avail() // 2, 8)
    return Split(left, max(avail() - left, 8), ids, tag)

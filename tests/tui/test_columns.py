"""Where the screen's room goes (inspector.tui.layout), without a screen: every column fits
the table, the content keeps its room, what gives way gives way in order (the tag level by
level for the whole table, then the ids), and the side panel only sits beside the table
where the table keeps its full ids and tags."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from inspector.tui import layout
from inspector.tui.layout import Measures

LEVELS = st.lists(st.integers(1, 60), min_size=4, max_size=4).map(lambda t: tuple(sorted(t, reverse=True)))
MEASURES = st.builds(Measures, st.integers(0, 10**6), st.integers(0, 80), st.one_of(st.just(()), LEVELS),
                     st.integers(0, 40), st.booleans(), st.booleans(), st.booleans())
# Sample 17's repair view: 39-cell ids; its widest tag full, every kind without the clause,
# counted, counted without the clause; a row (#7) with two kinds.
SAMPLE_17 = Measures(rows=10, longest_id=39, tags=(38, 34, 27, 23), counts=True)


def _unified_total(w: layout.Unified) -> int:
    """Cells a unified line takes: the cursor gutter, index, role, where, content, ids, tag,
    one space after each column but the last shown."""
    return (2 + w.index + 1 + w.role + 1 + (w.where + 1 if w.where else 0) + w.content
            + (w.ids + 1 if w.ids else 0) + (w.tag + 1 if w.tag else 0))


def _table_width(screen: int) -> int:
    """The table's inner width at a terminal width: the side panel's share, then the border."""
    return screen - layout.panel(screen).side - 2


@given(width=st.integers(50, 400), m=MEASURES)
def test_a_unified_line_fills_the_table_exactly_when_there_is_room(width, m):
    w = layout.unified(width, m)
    assert w.content >= 8 and w.ids >= 0 and w.tag >= 0
    if w.content > 8:   # the content took the rest: the line is exactly the table's width
        assert _unified_total(w) == width
    assert 0 <= w.level < max(len(m.tags), 1)


@given(width=st.integers(40, 400), m=MEASURES)
def test_a_split_line_keeps_both_texts(width, m):
    w = layout.split(width, m)
    assert w.left >= 8 and w.right >= 8
    if w.left > 8 and w.right > 8:   # the two texts share the rest evenly, and fill the line
        assert w.right - w.left in (0, 1)
        assert 5 + w.left + w.right + (w.ids + 1 if w.ids else 0) + (w.tag + 1 if w.tag else 0) == width


@given(width=st.integers(50, 400), m=MEASURES)
def test_a_tag_column_is_as_wide_as_its_level_needs_or_cut_only_at_the_last_level(width, m):
    """One level for the whole table: the column holds the widest tag at that level, so no
    row is cut, unless even the last level does not fit."""
    w = layout.unified(width, m)
    if w.tag and w.level < len(m.tags) - 1:
        assert w.tag == m.tag(w.level)


@given(m=MEASURES)
def test_a_wider_table_never_shows_less(m):
    """More room never shortens the ids or the tag, nor narrows the content for the same columns."""
    previous = None
    for width in range(50, 260, 7):
        w = layout.unified(width, m)
        if previous is not None:
            assert w.ids >= previous.ids
            if w.ids == previous.ids:
                assert w.level <= previous.level
            if (w.ids, w.tag) == (previous.ids, previous.tag):
                assert w.content >= previous.content
        previous = w


@pytest.mark.parametrize("screen", [120, 130, 140, 150, 159, 160, 180, 200])
def test_from_120_columns_ids_are_whole_and_tags_keep_the_cause(screen):
    """The issue's sample 17 at every width from 120: full ids, the cause on every tag (its
    kinds counted at worst, with the clause), and a content column of at least CONTENT_WANT,
    or of its lean floor where that lets the tag name every kind (160 columns)."""
    room = _table_width(screen) - (2 + 4 + 1 + layout.ROLE_WIDTH + 1)
    w = layout.unified(_table_width(screen), SAMPLE_17)
    assert w.ids == SAMPLE_17.longest_id
    assert w.level <= 2 and w.tag == SAMPLE_17.tag(w.level)
    assert w.content >= layout.CONTENT_WANT or (w.level == layout.EVERY_KIND and w.content >= layout.lean_floor(room))


@pytest.mark.parametrize("screen", [80, 100])
def test_narrow_screens_cut_ids_in_the_middle_but_keep_the_tag_whole(screen):
    w = layout.unified(_table_width(screen), SAMPLE_17)
    assert layout.SHORT_IDS <= w.ids < SAMPLE_17.longest_id
    assert w.tag == SAMPLE_17.tag(w.level) and w.content >= layout.MIN_CONTENT


def test_full_tags_when_there_is_room_and_the_same_level_for_every_row():
    assert layout.unified(200, SAMPLE_17).level == 0
    assert layout.unified(200, SAMPLE_17).tag == 38
    # 160 columns with the side panel beside: 39-cell ids and the content's floor leave 27 cells,
    # too few for every kind even without the clause (34); the content gives up 7 cells for it
    assert layout.unified(110, SAMPLE_17).level == layout.EVERY_KIND


def test_the_content_gives_up_cells_only_to_name_every_kind():
    """Issue 35: at 160x50 sample 17's row #7 counted its second kind (27 cells for a 34-cell
    tag). The content goes down to its lean floor (two thirds of its usual one) rather than
    have kinds counted; where no row has two kinds, or even the lean floor is too much, it
    keeps its floor and the tag is shortened as before."""
    w = layout.unified(110, SAMPLE_17)
    room = 110 - (2 + 4 + 1 + layout.ROLE_WIDTH + 1)
    assert (w.level, w.ids, w.tag) == (layout.EVERY_KIND, 39, 34)
    assert layout.lean_floor(room) <= w.content < layout.content_floor(room)
    single = Measures(rows=10, longest_id=39, tags=SAMPLE_17.tags)   # no row with two kinds: nothing to count
    assert layout.unified(110, single).level == 2 and layout.unified(110, single).content >= layout.CONTENT_WANT
    many = Measures(rows=10, longest_id=39, tags=(50, 46, 27, 23), counts=True)  # three long kinds: too wide
    assert (layout.unified(110, many).level, layout.unified(110, many).content) == (2, layout.CONTENT_WANT)


def test_a_row_with_two_kinds_names_both_before_its_kinds_are_counted():
    """Issue 35 item 7: where the full tag does not fit but every kind without the clause does,
    the table takes that level (both kinds named) before it counts kinds (`+1`); the ids stay
    whole and the content keeps its floor. A repair view with 30-cell ids at 160 columns."""
    m = Measures(rows=6, longest_id=30, tags=(38, 34, 27, 23))
    w = layout.unified(_table_width(160), m)
    assert (w.level, w.ids, w.tag) == (1, 30, 34) and w.content >= layout.CONTENT_WANT
    assert layout.unified(_table_width(160), Measures(rows=6, longest_id=37, tags=m.tags)).level == 2


def test_short_ids_and_tags_get_a_readable_minimum():
    w = layout.unified(160, Measures(rows=3, longest_id=2, tags=(3, 3, 3)))
    assert (w.ids, w.tag) == (8, 3)   # the header picks a shorter title for a narrow tag
    assert (layout.unified(160, Measures(rows=3)).ids, layout.unified(160, Measures(rows=3)).tag) == (0, 0)


def test_nothing_open_or_too_narrow_has_no_ids_or_tag():
    for w in (layout.unified(200, Measures(shown=False, longest_id=20, tags=(20, 20, 20))),
              layout.unified(49, Measures(longest_id=20, tags=(20, 20, 20)))):
        assert (w.ids, w.tag) == (0, 0)


def test_the_import_view_gives_the_ids_room_to_the_source_path():
    m = Measures(rows=5, longest_id=20, tags=(14, 14, 14), where=30, importing=True)
    assert layout.unified(100, m).ids == 20              # room for all: ids whole
    assert layout.unified(70, m).ids == 0                # short: no ids, the path stays
    assert [layout.where_width(w, m) for w in (40, 60, 80, 120)] == [0, 16, 22, layout.WHERE_WIDTH]
    assert layout.where_width(120, Measures(where=30)) == 0            # not the import view


def test_when_room_is_short_the_tag_gives_way_before_the_ids():
    m = Measures(rows=5, longest_id=16, tags=(40, 36, 30, 26))
    roomy = layout.unified(200, m)
    assert (roomy.ids, roomy.tag, roomy.level) == (16, 40, 0)
    tighter = layout.unified(90, m)               # full ids; the tag shortened two levels
    assert (tighter.ids, tighter.level) == (16, 2)
    tight = layout.unified(50, m)                 # every level too wide: the last level's tag is cut to fit
    assert (tight.level, tight.ids, tight.content) == (3, 0, layout.MIN_CONTENT) and tight.tag < 26
    assert _unified_total(tight) == 50


@pytest.mark.parametrize("rows, index", [(0, 4), (999, 4), (1000, 5), (250_000, 7)])
def test_the_index_column_is_as_wide_as_the_largest_row_number(rows, index):
    assert layout.unified(120, Measures(rows=rows)).index == index


def test_the_role_column_narrows_below_50_columns():
    assert layout.unified(49, Measures(rows=1)).role == 6
    assert layout.unified(50, Measures(rows=1)).role == layout.ROLE_WIDTH


@pytest.mark.parametrize("screen, beside", [(80, False), (120, False), (150, False), (159, False), (160, True), (180, True),
                                            (240, True)])
def test_the_side_panel_sits_beside_only_where_the_table_keeps_its_room(screen, beside):
    p = layout.panel(screen)
    assert p.beside is beside
    if beside:
        assert layout.SIDE_MIN <= p.side <= layout.SIDE_MAX
        assert _table_width(screen) >= 100
    else:
        assert p.side == 0

"""The diff table's column widths (inspector.tui.layout), without a screen: every column
fits the table, the content keeps its room, and what gives way gives way in order."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from inspector.tui import layout
from inspector.tui.layout import Measures

MEASURES = st.builds(Measures, st.integers(0, 10**6), st.integers(0, 80), st.integers(0, 60),
                     st.integers(0, 40), st.booleans(), st.booleans())


def _unified_total(w: layout.Unified) -> int:
    """Cells a unified line takes: the cursor gutter, index, role, where, content, ids, tag,
    one space after each column but the last shown."""
    return (2 + w.index + 1 + w.role + 1 + (w.where + 1 if w.where else 0) + w.content
            + (w.ids + 1 if w.ids else 0) + (w.tag + 1 if w.tag else 0))


@given(width=st.integers(50, 400), m=MEASURES, wide=st.booleans())
def test_a_unified_line_fills_the_table_exactly_when_there_is_room(width, m, wide):
    w = layout.unified(width, m, wide)
    assert w.content >= 8 and w.ids >= 0 and w.tag >= 0
    if w.content > 8:   # the content took the rest: the line is exactly the table's width
        assert _unified_total(w) == width


@given(width=st.integers(40, 400), m=MEASURES, wide=st.booleans())
def test_a_split_line_keeps_both_texts(width, m, wide):
    w = layout.split(width, m, wide)
    assert w.left >= 8 and w.right >= 8
    if w.left > 8 and w.right > 8:   # the two texts share the rest evenly, and fill the line
        assert w.right - w.left in (0, 1)
        assert 5 + w.left + w.right + (w.ids + 1 if w.ids else 0) + (w.tag + 1 if w.tag else 0) == width
    assert w.tag <= layout.SPLIT_TAG


def test_wide_screens_show_ids_in_full_up_to_the_limit():
    m = Measures(rows=10, longest_id=30, tag=20)
    assert layout.columns(200, m, wide=True) == (30, 20)
    assert layout.columns(200, Measures(rows=10, longest_id=90, tag=20), wide=True)[0] == layout.ID_LIMIT
    assert layout.columns(80, m, wide=False)[0] == 16          # a fifth of the table when narrow
    assert layout.columns(55, m, wide=False)[0] == 0           # no ids below 60 columns when narrow


def test_short_ids_and_tags_get_a_readable_minimum():
    assert layout.columns(160, Measures(rows=3, longest_id=2, tag=3), wide=True) == (8, 12)
    assert layout.columns(160, Measures(rows=3), wide=True) == (0, 0)   # nothing to show: no column


def test_nothing_open_or_too_narrow_has_no_ids_or_tag():
    assert layout.columns(200, Measures(shown=False, longest_id=20, tag=20), wide=True) == (0, 0)
    assert layout.columns(49, Measures(longest_id=20, tag=20), wide=True) == (0, 0)


def test_the_import_view_gives_the_ids_room_to_the_source_path():
    m = Measures(rows=5, longest_id=20, tag=14, where=30, importing=True)
    assert layout.columns(100, m, wide=False)[0] == 0
    assert layout.columns(100, m, wide=True)[0] == 20
    assert [layout.where_width(w, m) for w in (40, 60, 80, 120)] == [0, 16, 22, layout.WHERE_WIDTH]
    assert layout.where_width(120, Measures(where=30)) == 0            # not the import view


def test_when_room_is_short_the_tag_gives_way_before_the_ids():
    m = Measures(rows=5, longest_id=16, tag=40)
    roomy = layout.unified(200, m, wide=False)
    assert (roomy.ids, roomy.tag) == (16, 40)
    tight = layout.unified(70, m, wide=False)          # ids a fifth of the table; the tag shrinks to fit
    assert (tight.ids, tight.tag, tight.content) == (14, 26, layout.MIN_CONTENT)
    tighter = layout.unified(50, m, wide=True)         # the tag at its floor of 12: then the ids give way
    assert (tighter.ids, tighter.tag, tighter.content) == (8, 12, layout.MIN_CONTENT)


@pytest.mark.parametrize("rows, index", [(0, 4), (999, 4), (1000, 5), (250_000, 7)])
def test_the_index_column_is_as_wide_as_the_largest_row_number(rows, index):
    assert layout.unified(120, Measures(rows=rows), wide=True).index == index


def test_the_role_column_narrows_below_50_columns():
    assert layout.unified(49, Measures(rows=1), wide=False).role == 6
    assert layout.unified(50, Measures(rows=1), wide=False).role == layout.ROLE_WIDTH

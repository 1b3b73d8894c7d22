"""Search as a user drives it: where else a search finds rows when the stage shown has none,
n and N from match to match (n goes to that stage), matches highlighted in the row, and ]
and [ from change to change with every row still shown."""

from __future__ import annotations

import json

from rich.style import Style

from inspector.engine import normalize
from inspector.tui import search
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import BROKEN, opened


def origins(table) -> list:
    return [table.row_at(p).origin for p in range(table.row_count)]


async def test_a_search_with_no_match_in_this_stage_says_where_it_matches_and_n_goes_there(broken_file):
    async with opened(broken_file) as (app, pilot):
        main = app.main
        table = main.query_one(DiffTable)
        await pilot.press("4", "slash", *"nobody asked", "enter")
        assert table.row_count == 0
        said = app.notified[-1].message
        # #7 is dropped at repair (3): strip never sees it; every earlier view does.
        assert said.startswith("No row in strip matches 'nobody asked'; it matches 1 row in repair (3)")
        assert "1 row in input (0)" in said and "n goes to repair" in said
        assert table.empty_text == "No row in strip matches 'nobody asked': n goes to repair (1 row)."
        await pilot.press("n")
        assert main.view == 3 and origins(table) == [7] and table.cursor == 0


async def test_n_and_shift_n_go_from_match_to_match_and_wrap(broken_file):
    async with opened(broken_file) as (app, pilot):
        main = app.main
        table = main.query_one(DiffTable)
        await pilot.press("3", "slash", *"c1", "enter")
        found = origins(table)
        assert found == [4, 5, 6, 8]   # the call, its result, the duplicate, the redeclaring turn
        assert table.cursor == 0
        await pilot.press("n", "n")
        assert table.cursor == 2 and main.view == 3   # n is the next match, not the next stage
        await pilot.press("N")
        assert table.cursor == 1
        await pilot.press("N", "N")
        assert table.cursor == len(found) - 1   # wrapped to the last
        assert "wrapped" in app.notified[-1].message
        await pilot.press("escape")  # the search cleared: n is the next stage again
        await pilot.press("n")
        assert main.view == 4


async def test_matches_are_highlighted_in_the_row_and_markup_in_the_query_is_text(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps([{"role": "user", "content": "look at [bold]THIS[/bold] please"},
                                {"role": "assistant", "content": "ok"}]))
    async with opened(path, size=(120, 30)) as (app, pilot):
        table = app.main.query_one(DiffTable)
        await pilot.press("slash", *"[bold]this", "enter")
        assert origins(table) == [0]
        table.cursor = 0
        match = table.get_component_rich_style("diff-table--match", partial=True)
        strip = table.render_line(table.screen_line(0))
        lit = "".join(seg.text for seg in strip if seg.style and seg.style.reverse)
        assert lit.casefold() == "[bold]this"   # exactly the match, as typed text, nothing else
        assert match.reverse


def test_pieces_cut_text_at_every_match_ignoring_case():
    assert search.pieces("a Call_X and call_x", "call_x") == [
        ("a ", False), ("Call_X", True), (" and ", False), ("call_x", True)]
    assert search.pieces("nothing here", "zz") == [("nothing here", False)]
    assert search.pieces("[/]", "[/]") == [("[/]", True)]


async def test_brackets_go_from_change_to_change_without_filtering(broken_file):
    async with opened(broken_file) as (app, pilot):
        main = app.main
        table = main.query_one(DiffTable)
        await pilot.press("3", "home")
        everything = table.row_count
        changed = [p for p in range(everything) if table.row_at(p).mark != " "]
        assert len(changed) >= 3
        expected = [p for p in changed if p > 0] + [changed[0]]   # then it wraps to the first
        seen = []
        for _ in expected:
            await pilot.press("right_square_bracket")
            seen.append(table.cursor)
        assert seen == expected
        assert table.row_count == everything   # nothing filtered out
        await pilot.press("left_square_bracket")   # from the first change back to the last
        assert table.cursor == changed[-1]
        # On the input view: the entries some stage will change (they carry events).
        await pilot.press("0", "home", "right_square_bracket")
        touched = sorted({e.origin for e in normalize(BROKEN).events if e.origin is not None})
        assert table.row_at(table.cursor).origin == next(o for o in touched if o > 0)


def test_next_change_wraps_and_follows_the_shown_order():
    assert search.next_change([2, 5, 9], None, 5, 1) == (9, False)
    assert search.next_change([2, 5, 9], None, 9, 1) == (2, True)
    assert search.next_change([2, 5, 9], None, 2, -1) == (9, True)
    assert search.next_change([2, 5, 9], [1, 5, 9], 0, 1) == (1, False)   # positions in the filtered order
    assert search.next_change([], None, 0, 1) == (None, False)

"""What a user reads at 80 and 160 columns: every call id (full when wide, distinct when
narrow), every kind and cause on a row, the jump to a cause, the footer's keys, readable
cursor rows in every theme. Checked against the engine's own events for the same file."""

from __future__ import annotations

import orjson
import pytest
from textual.theme import BUILTIN_THEMES

from inspector.bundled import samples_dir
from inspector.formats import import_history
from inspector.engine import normalize
from inspector.io import parse_json, read_bytes
from inspector.tui.rows import call_ids, role_of, tag_text
from inspector.tui.styles import component_style
from inspector.tui.widgets.diff_table import DiffTable, Lines, shorten

from .helpers import BROKEN, opened, row_lines, settled, widget_text
from inspector.tui.screenshots import app_for, settle

SAMPLE = "17-long-parallel-call-ids.json"
# The footer and id tests share one running app each (the ``running`` fixture), resized per
# test, on the module's event loop; every other test opens its own.
SHARED = pytest.mark.asyncio(loop_scope="module")


def _sample():
    imported = import_history(parse_json(read_bytes(samples_dir() / SAMPLE), SAMPLE), SAMPLE)
    return imported, normalize(imported.messages)


def _footer(app) -> dict:
    """The footer's key labels on the current screen, with where each is drawn."""
    return {key.description: key.region for key in app.screen.query("FooterKey") if key.description}


def _ids(messages) -> list[str]:
    return sorted({i for m in messages for i, _ in call_ids(m)})


def test_shorten_keeps_an_ellipsis_and_the_distinguishing_end():
    ids = _ids(_sample()[0].messages)
    assert min(map(len, ids)) >= 30
    for width in (12, 15, 20):
        short = [shorten(i, width) for i in ids]
        assert all(len(s) == width and "…" in s for s in short)
        assert len(set(short)) == len(ids)  # distinct ids stay distinct
    assert shorten("call_1", 10) == "call_1"


def test_lines_map_rows_with_several_calls_to_several_lines():
    lines = Lines(None, 5, {1: 2, 3: 1})  # row 1 has three ids, row 3 two
    assert lines.total == 8
    assert [lines.line_of(p) for p in range(5)] == [0, 1, 4, 5, 7]
    assert [lines.at(y) for y in range(8)] == [(0, 0), (1, 0), (1, 1), (1, 2), (2, 0), (3, 0), (3, 1), (4, 0)]
    filtered = Lines([1, 3], 2, {1: 2, 3: 1})
    assert filtered.total == 5 and filtered.at(3) == (1, 0) and filtered.height(0) == 3


@SHARED
@pytest.mark.parametrize("size", [(160, 50), (80, 24)])
async def test_every_call_id_is_readable_at_both_sizes(size, running):
    imported, result = _sample()
    app, pilot = await running.open(samples_dir() / SAMPLE, size, group="ids")
    if True:
        assert (app.size.width, app.size.height) == size
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        table = app.main.query_one(DiffTable)
        shown = ""
        for position in range(table.row_count):  # every line of every row, scrolled into view
            table.cursor = position
            top = table.screen_line(position)
            shown += "\n" + "\n".join(table.render_line(top + k).text for k in range(table.lines.height(position)))
        for ident in _ids(imported.messages):
            if size[0] >= 120:
                assert ident in shown, ident
            else:
                assert shorten(ident, table._widths(table.scrollable_content_region.width)[3]) in shown


async def test_each_row_shows_all_its_kinds_and_its_cause():
    imported, result = _sample()
    repair = result.stage("repair")
    async with opened(samples_dir() / SAMPLE) as (app, pilot):
        await pilot.press("3")
        table = app.main.query_one(DiffTable)
        lines = row_lines(app)
        for origin in {e.origin for e in repair.events if e.origin is not None}:
            events = [e for e in repair.events if e.origin == origin]
            line = next(ln for ln in lines if ln[2:].split()[:1] == [f"#{origin}"])
            kinds = {e.kind for e in events}
            assert all(k in line for k in kinds) or f"+{len(kinds) - 1}" in line, line
            cause = next((e.cause for e in events if e.cause is not None), None)
            if cause is not None:
                assert f"→ #{cause}" in line
        assert any("turn-emptied" in ln or "+1" in ln for ln in lines)
        # f goes to the cause: the redeclared turn's first declaration.
        redeclared = next(e for e in repair.events if e.kind == "call-redeclared")
        table.cursor = table.position_of(redeclared.origin)
        await pilot.press("f")
        await pilot.pause()
        assert table.current.origin == redeclared.cause
        # The details explain each event once, with its cause as a jump.
        table.cursor = table.position_of(redeclared.origin)
        await pilot.press("enter")
        await pilot.pause(0.2)
        details = " ".join(widget_text(app, "#details-body").split())
        assert f"→ #{redeclared.cause} (f goes there)" in details
        from inspector.engine import kind

        assert kind("call-redeclared").meaning not in details  # the kind's meaning is the help's


def test_tag_text_names_every_kind_or_counts_them():
    imported, result = _sample()
    events = [e for e in result.stage("repair").events if e.kind in ("call-redeclared", "turn-emptied")]
    full, kinds, short, bare = (tag_text(events, 3, level) for level in range(4))
    assert "call-redeclared" in full and "turn-emptied" in full and f"→ #{events[0].cause}" in full
    assert kinds == f"call-redeclared, turn-emptied → #{events[0].cause}"    # both named, no clause
    assert short == f"(3) call-redeclared +1 → #{events[0].cause}"
    assert bare == f"call-redeclared +1 → #{events[0].cause}"


def test_role_cell_for_entries_that_are_not_objects():
    assert role_of("a log line") == "string"
    assert role_of(None) == "null"
    assert role_of([1]) == "array"
    assert role_of({"content": "x"}) == "no role"
    assert role_of({"role": 3}).endswith(" role") and role_of({"role": 3}) != "no role"  # its type, as formats word it


async def test_null_entry_is_a_readable_row():
    history = [{"role": "user", "content": "hi"}, None, "a log line"]
    async with opened(stdin_data=b'[{"role": "user", "content": "hi"}, null, "a log line"]') as (app, pilot):
        lines = row_lines(app)
        assert any("null" in ln and "#1" in ln for ln in lines)
        assert any("string" in ln and "a log line" in ln for ln in lines)
    assert len(history) == 3


@SHARED
@pytest.mark.parametrize("width", [80, 120, 129, 130, 160])
async def test_footer_shows_help_and_quit(module_broken_file, running, width):
    app, pilot = await running.open(module_broken_file, (width, 24))
    if True:
        assert app.size.width == width
        keys = _footer(app)
        assert {"Help", "Quit", "Export", "Next", "Details"} <= set(keys)
        assert all(region.right <= width and region.width > 0 for region in keys.values())
        palette = keys.pop("palette", None)  # docked right: a key under it is hidden
        if palette is not None:
            assert all(region.right <= palette.x for region in keys.values()), keys


async def test_modals_have_their_own_footer_and_close_hint(broken_file):
    async with opened(broken_file, size=(80, 24)) as (app, pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        assert set(_footer(app)) == {"Close"}
        assert "esc" in widget_text(app, "#help-hint")
        assert "`/`" in app.screen.markdown and "slash" not in app.screen.markdown
        await pilot.press("escape", "e")
        await pilot.pause()
        assert [str(label.render()) for label in app.screen.query(".field-label")][:1] == ["Format"]
        assert "Close" in _footer(app)


async def test_summary_has_a_key_and_enter_works_at_once(broken_file):
    async with opened(broken_file) as (app, pilot):
        await pilot.press("u")
        await pilot.pause()
        summary = app.main.query_one("#summary")
        assert app.main.focused is summary
        first = summary.get_option_at_index(0).id
        await pilot.press("enter")
        await pilot.pause()
        assert app.main.kind == first


async def test_selected_drop_row_uses_the_theme_cursor_colours():
    """Red on bright blue was unreadable: in every built-in theme the cursor's own colours win
    over the row's mark (and over a struck-out id)."""
    async with opened(stdin_data=__import__("orjson").dumps(BROKEN), size=(120, 30)) as (app, pilot):
        await pilot.press("3")
        table = app.main.query_one(DiffTable)
        table.cursor = next(p for p in range(table.row_count) if table.row_at(p).mark == "-")
        for theme in sorted(BUILTIN_THEMES):
            app.theme = theme
            await pilot.pause()
            cursor = component_style(table, "diff-table--cursor")  # the theme's, over the table's background
            drop = component_style(table, "diff-table--drop")
            strip = table.render_line(table.screen_line(table.cursor))
            colours = {seg.style.color for seg in strip if seg.text.strip() and seg.style is not None}
            assert colours == {cursor.color} and cursor.color != drop.color, theme
            assert {seg.style.bgcolor for seg in strip if seg.style is not None} == {cursor.bgcolor}, theme


def _less(low, high) -> None:
    assert low < high, (low, high)


async def test_table_scrollbar_follows_the_view_the_end_key_and_the_terminal():
    """The table's scrollbar is updated only when the table's size or length changes (not on
    every layout of the screen): it must still follow each of those."""
    history = []
    for i in range(150):
        history.append({"role": "user", "content": f"question {i}"})
        history.append({"role": "tool", "content": "stray", "tool_call_id": f"nobody-{i}"} if i % 3 == 0
                       else {"role": "assistant", "content": f"answer {i}"})
    data = orjson.dumps(history)
    async with opened(stdin_data=data, size=(80, 24)) as (app, pilot):
        table = app.main.query_one(DiffTable)
        bar = table.vertical_scrollbar

        def consistent() -> None:
            assert table.show_vertical_scrollbar
            assert bar.window_virtual_size == table.virtual_size.height
            assert bar.window_size == table.scrollable_content_region.height
            assert bar.position == table.scroll_y

        await settled(pilot, consistent)
        whole = table.virtual_size.height
        await pilot.press("3")  # repair drops the 50 stray results: a shorter view after d
        await pilot.press("d")
        await settled(pilot, lambda: _less(table.virtual_size.height, whole))
        await settled(pilot, consistent)
        await pilot.press("d", "end")
        await settled(pilot, lambda: _less(0, table.scroll_y))
        await settled(pilot, consistent)
        small = table.scrollable_content_region.height
        await pilot.resize_terminal(160, 50)
        await settled(pilot, lambda: _less(small, table.scrollable_content_region.height))
        await settled(pilot, consistent)
        first = table.lines.line_of(table.cursor)
        assert table.scroll_y <= first < table.scroll_y + table.scrollable_content_region.height


@pytest.mark.parametrize("ident", ["call_日本", "call_日本語のツール呼び出し_7f3a", "日本語_call_x", "call_🙂🙂_end"])
def test_ids_with_wide_characters_are_cut_in_cells_to_a_true_prefix_and_suffix(ident):
    """`call_日本` in 7 cells was `ca…ll_日`: the tail counted in characters, the width in cells."""
    from rich.cells import cell_len

    from inspector.tui.widgets.diff_table import fit

    for width in range(3, cell_len(ident)):
        short = shorten(ident, width)
        head, _, tail = short.partition("…")
        assert cell_len(short) <= width and width - cell_len(short) <= 1, (width, short)  # at most a half-cell left
        assert ident.startswith(head) and ident.endswith(tail) and tail, (width, short)
        cut = fit(ident, width)
        assert cell_len(cut) == width and ident.startswith(cut.rstrip(" ").rstrip("…")), (width, cut)
    assert shorten("call_日本", 7) == "ca…日本"


async def test_a_wide_character_id_in_a_narrow_table_keeps_its_end():
    history = [{"role": "assistant", "content": "", "tool_calls": [{"id": "call_日本語のツール呼び出し_7f3a",
                                                                 "name": "f"}]},
               {"role": "tool", "content": "ok", "tool_call_id": "call_日本語のツール呼び出し_7f3a"}]
    async with opened(stdin_data=orjson.dumps(history), size=(80, 24)) as (app, pilot):
        await pilot.press("3")
        table = app.main.query_one(DiffTable)
        ids = table._widths(table.scrollable_content_region.width)[3]
        assert 0 < ids < 34
        lines = row_lines(app)
        assert all(shorten("call_日本語のツール呼び出し_7f3a", ids) in ln for ln in lines[1:3]), lines[:3]
        assert all("_7f3a" in ln for ln in lines[1:3])


async def test_at_160x50_a_row_with_two_kinds_names_both_where_the_table_has_the_room(tmp_path):
    """Issue 35 item 7: a redeclared call whose turn is emptied carries two kinds. With 30-cell
    ids at 160x50 the full tag does not fit beside whole ids and the content's floor, but both
    kinds without the clause do: the row names both (it said `(3) call-redeclared +1 → #1`)."""
    ident = "call_list_dir_20261130_deploy1"          # 30 cells
    history = [
        {"role": "user", "content": "List the deploy folder, then show me the Dockerfile."},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": ident, "name": "ls", "arguments": {}}]},
        {"role": "tool", "content": "Dockerfile", "tool_call_id": ident},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": ident, "name": "cat", "arguments": {}}]},
        {"role": "tool", "content": "FROM python:3.12-slim", "tool_call_id": ident},
        {"role": "assistant", "content": "It builds on python:3.12-slim."},
    ]
    path = tmp_path / "redeclared.json"
    path.write_bytes(orjson.dumps(history, option=orjson.OPT_INDENT_2))
    async with opened(path, size=(160, 50)) as (app, pilot):
        await pilot.press("3")
        await pilot.pause()
        line = next(ln for ln in row_lines(app) if ln[2:].split()[:1] == ["#3"])
        assert "call-redeclared, turn-emptied → #1" in line, line
        assert ident in line                                   # the id stays whole
        assert "+1" not in line


async def test_sample_17_at_160x50_names_both_kinds_with_its_ids_whole():
    """Issue 35: sample 17's 39-cell ids left its tag 27 cells at 160x50, so row #7 counted its
    second kind (`(3) call-redeclared +1 → #2`). The content now gives up cells to its lean floor
    before kinds are counted: the row names both, every id is whole, every message still opens."""
    async with opened(samples_dir() / SAMPLE, size=(160, 50)) as (app, pilot):
        await pilot.press("3")
        await pilot.pause()
        lines = row_lines(app)
        row = next(ln for ln in lines if ln[2:].split()[:1] == ["#7"])
        assert "call-redeclared, turn-emptied → #2" in row and "+1" not in row, row
        messages = parse_json(read_bytes(samples_dir() / SAMPLE), SAMPLE)["messages"]
        every_id = {ident for msg in messages for ident, _ in call_ids(msg)}
        shown = " ".join(lines)
        assert every_id and all(ident in shown for ident in every_id)   # whole, never cut
        assert "You are a stock" in lines[1], lines[1]

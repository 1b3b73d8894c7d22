"""What a narrow screen shows after a pick in a side pane, and the zoom key: the table comes
back whatever the user reaches for, and can take the whole screen."""

from __future__ import annotations

import re

import pytest

from inspector.bundled import samples_dir
from inspector.engine import normalize
from inspector.formats import import_history
from inspector.io import parse_json, read_bytes
from inspector.tui import layout
from inspector.tui.styles import component_style
from inspector.tui.rows import GHOST, MOVE_KINDS, Row, tag_text
from inspector.tui.widgets.diff_table import DiffTable, tag_headers

from .helpers import opened, row_lines, settled, steady, widget_text

SAMPLE = "17-long-parallel-call-ids.json"
MOVED = "06-system-mid-conversation.json"  # hoist moves a system message from #3 to the front

# One event loop for the module, so that the tag tests share one running app per sample
# (the ``running`` fixture); every other test opens its own.
pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_enter_on_a_summary_kind_shows_the_filtered_table_at_80x24():
    """The summary, maximized on a narrow screen, filters on enter and gives way to the table;
    escape then clears the filter rather than leaving the user on a pane they cannot leave."""
    async with opened(samples_dir() / SAMPLE, size=(80, 24)) as (app, pilot):
        main = app.main
        table = main.query_one(DiffTable)
        await pilot.press("3", "u")
        await pilot.pause()
        assert main.maximized is main.query_one("#side")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert main.kind is not None
        assert main.maximized is None and main.focused is table
        assert table.region.height > 5 and table.row_count == len(main.doc.model.filter_rows(
            main.view, keys=main.kind_keys))
        lines = row_lines(app)
        assert len(lines) > 3 and lines[0].lstrip().startswith("#in")
        await pilot.press("escape")
        await pilot.pause()
        assert main.kind is None and main.maximized is None


async def test_escape_always_leaves_a_maximized_pane(broken_file):
    """However focus moved while a pane was maximized (a pick, a click), escape restores the table."""
    async with opened(broken_file, size=(80, 24)) as (app, pilot):
        main = app.main
        table = main.query_one(DiffTable)
        await pilot.press("u")
        await pilot.pause()
        assert main.maximized is not None
        assert {"Back", "Help", "Quit"} <= _footer(app)  # the way back is on screen
        table.focus()  # focus on the table while the pane still covers it
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert main.maximized is None and main.focused is table


def _tag_cells(app) -> list[tuple[Row, str]]:
    """(row, what its tag column shows) for every row of the table, scrolled into view."""
    table = app.main.query_one(DiffTable)
    width = table.scrollable_content_region.width
    _, _, content, ids, tag = table._widths(width)
    start = width - tag
    out = []
    for position in range(table.row_count):
        table.cursor = position
        line = table.render_line(table.screen_line(position)).text
        out.append((table.row_at(position), line[start:].rstrip()))
    return out


@pytest.mark.parametrize("size", [(80, 24), (120, 35), (140, 40), (160, 50)])
@pytest.mark.parametrize("sample, view", [(SAMPLE, "3"), ("06-system-mid-conversation.json", "2"),
                                          ("11-known-limit-separated-result.json", "1")])
async def test_every_row_of_a_table_is_tagged_at_one_level(size, sample, view, running):
    """One formatter, one level for the whole table (the layout's choice): no row shortened
    differently from another, none cut, and the header's title is whole. (One app per
    sample, resized from test to test: the sizes are this test's subject, not its start.)"""
    app, pilot = await running.open(samples_dir() / sample, size)
    await pilot.press(view)
    await pilot.pause()
    assert (app.size.width, app.size.height) == size
    table = app.main.query_one(DiffTable)
    width = table.scrollable_content_region.width
    level = table.tag_level(width)
    tag = table._widths(width)[4]
    header = row_lines(app)[0]
    if tag:
        assert any(header.endswith(title) for title in tag_headers(level)), header   # no clause named where none is shown
    for row, shown in _tag_cells(app):
        assert shown == tag_text(row.events, table.rows.view, level, row.ghost), (row.origin, shown)
        assert "…" not in shown


async def test_sample_17_keeps_ids_whole_and_content_readable_from_120_columns(running):
    """The issue's figures: at 120 the tag lost its clause and cause and ids were cut; at 160
    the content was 13 cells wide. The content keeps CONTENT_WANT, or its lean floor where
    that lets the tag name every kind rather than count them (issue 35). (One app, resized.)"""
    for size in [(120, 35), (140, 40), (160, 50)]:
        app, pilot = await running.open(samples_dir() / SAMPLE, size)
        assert (app.size.width, app.size.height) == size
        await pilot.press("3")
        await pilot.pause()
        table = app.main.query_one(DiffTable)
        width = table.scrollable_content_region.width
        index, role, content, ids, tag = table._widths(width)
        level = table.tag_level(width)
        assert ids == table.rows.layout().longest_id, size
        lean = level == layout.EVERY_KIND and content >= layout.lean_floor(width - (2 + index + 1 + role + 1))
        assert content >= layout.CONTENT_WANT or lean, (size, content, level)
        assert content > 13, size
        shown = "\n".join(text for _, text in _tag_cells(app))
        clause = "" if layout.TAG_LEVELS[level] in ("every kind", "no clause") else "(3) "
        assert f"{clause}result-synthesized → #2" in shown and f"{clause}result-duplicate → #3" in shown, size


def _numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"#(\d+) ", text)]


async def test_the_split_view_shows_hoists_move_at_both_places():
    """Sample 06 at hoist: the before column lists the messages in the order hoist received
    them (the moved system message at its old place, a ghost), the after column in the
    order hoist gave them; the unified view shows the ghost too. Read from the engine's
    origins, never from the texts."""
    imported = import_history(parse_json(read_bytes(samples_dir() / MOVED), MOVED), MOVED)
    hoist = normalize(imported.messages).stage("hoist")
    moved = [e.origin for e in hoist.events if e.kind in MOVE_KINDS]
    assert moved
    async with opened(samples_dir() / MOVED, size=(120, 35)) as (app, pilot):
        await pilot.press("2")
        await pilot.pause()
        unified = row_lines(app)[1:]
        ghosts = [ln for ln in unified if ln.startswith(GHOST)]
        assert [_numbers(ln)[0] for ln in ghosts] == moved and all("moved from here" in ln for ln in ghosts)
        await pilot.press("s")
        await pilot.pause()
        table = app.main.query_one(DiffTable)
        half = table._split_widths(table.scrollable_content_region.width)[0]
        lines = [ln for ln in row_lines(app)[1:] if ln.strip()]
        left = [n for ln in lines for n in _numbers(ln[:2 + half])]
        right = [n for ln in lines for n in _numbers(ln[2 + half + 3:])]
        assert left == list(range(len(imported.messages)))     # the order hoist received
        assert right == list(hoist.origins)                     # the order hoist gave
        ghost_row = next(p for p in range(table.row_count) if table.row_at(p).ghost)
        assert table.row_at(ghost_row).origin == moved[0]
        # The ghost's style is the theme's muted one, not the move's colour.
        strip = table.render_line(table.screen_line(ghost_row))
        muted = component_style(table, "diff-table--ghost").color
        assert {seg.style.color for seg in strip if seg.text.strip() and seg.style and seg.style.color} <= {
            muted, component_style(table, "diff-table--dim").color}
        assert muted != component_style(table, "diff-table--move").color
        # Its details say it is the old place, and f/j read the same message.
        table.cursor = ghost_row
        await pilot.press("enter")
        await pilot.pause(0.2)
        details = " ".join(widget_text(app, "#details-body").split())
        assert "its place before the move" in details and "this is its old place" in details


def _footer(app) -> set[str]:
    """The footer's keys a user can see (not under the palette entry docked at its right)."""
    keys = {key.description: key.region for key in app.screen.query("FooterKey") if key.description}
    palette = keys.pop("palette", None)
    return {name for name, region in keys.items() if palette is None or region.right <= palette.x}


async def test_z_gives_the_table_the_whole_screen_and_back():
    """At 80x24 the diff had 7 lines under the side panel; z hides the panels (a toggle in the
    footer), a pane opened meanwhile shows maximized and escape comes back to the zoomed table."""
    async with opened(samples_dir() / SAMPLE, size=(80, 24)) as (app, pilot):
        main = app.main
        table = main.query_one(DiffTable)
        await pilot.press("3")
        before = await steady(pilot, lambda: table.scrollable_content_region.height)
        assert "Zoom" in _footer(app) and {"Help", "Quit"} <= _footer(app)
        await pilot.press("z")

        def zoomed() -> None:
            assert not main.query_one("#side").display or main.query_one("#side").region.height == 0
            assert table.scrollable_content_region.height >= 2 * before

        await settled(pilot, zoomed)
        await pilot.press("enter")

        def pane_maximized() -> None:
            assert main.maximized is main.query_one("#side") and main.query_one("#side").region.height > 10
            assert "Back" in _footer(app)  # the way back is on screen

        await settled(pilot, pane_maximized)
        await pilot.press("escape")

        def back_zoomed() -> None:
            assert main.maximized is None and main.focused is table
            assert table.scrollable_content_region.height >= 2 * before  # still zoomed

        await settled(pilot, back_zoomed)
        await pilot.press("z")

        def unzoomed() -> None:
            assert table.scrollable_content_region.height == before
            assert main.query_one("#side").region.height > 0

        await settled(pilot, unzoomed)


async def test_z_is_in_the_help():
    async with opened(samples_dir() / SAMPLE, size=(120, 35)) as (app, pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        assert "Zoom" in app.screen.markdown


@pytest.mark.parametrize("size", [(160, 50), (80, 24)])
async def test_details_show_long_ids_whole(size):
    """A 39-cell id in the details pane stands whole on a line (the indent gives way), never
    broken in the middle."""
    imported = import_history(parse_json(read_bytes(samples_dir() / SAMPLE), SAMPLE), SAMPLE)
    async with opened(samples_dir() / SAMPLE, size=size) as (app, pilot):
        await pilot.press("3")
        table = app.main.query_one(DiffTable)
        table.cursor = next(p for p in range(table.row_count) if table.row_at(p).origin == 7)
        await pilot.press("enter")
        await pilot.pause(0.2)
        text = widget_text(app, "#details-body")
        ids = {c.get("tool_call_id") or c.get("id") for m in imported.messages for c in m.get("tool_calls") or []}
        shown = [i for i in ids if i in "".join(text.split())]  # whole or folded
        assert shown
        for ident in shown:  # every mention on one line, none folded across two
            assert text.count(ident) == "".join(text.split()).count(ident), (ident, text)


def _luminance(color) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = color.get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(fg, bg) -> float:
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


async def test_header_chips_and_dim_rows_are_readable_in_every_theme():
    """textual-light drew the table's header and the stage chips not selected white on light
    grey: every colour a widget draws itself is the theme's, over that widget's background."""
    from textual.theme import BUILTIN_THEMES

    from inspector.tui.widgets.stage_bar import StageBar

    async with opened(samples_dir() / MOVED, size=(120, 35)) as (app, pilot):
        await pilot.press("2")
        table = app.main.query_one(DiffTable)
        bar = app.main.query_one(StageBar)
        for theme in sorted(BUILTIN_THEMES):
            app.theme = theme
            await pilot.pause()
            header = table.render_line(0)
            ghost = table.render_line(table.screen_line(next(
                p for p in range(table.row_count) if table.row_at(p).ghost)))
            strip = bar.render_lines(bar.region.reset_offset)[0]
            start, end = bar.chip_of(bar.current)  # the chips not selected (the current one is $primary's)
            chips = [*strip.crop(0, start), *strip.crop(end, bar.size.width)]
            for segment in [*header, *ghost, *chips]:
                style = segment.style
                if not segment.text.strip() or style is None or style.color is None:
                    continue
                bg = style.bgcolor or table.rich_style.bgcolor
                if style.color.is_default or bg.is_default:  # the terminal's own colours (textual-ansi)
                    continue
                # Muted text is the theme's own foreground at 60% (2.4:1 at worst, solarized-dark's
                # chips, whose foreground itself is 4.1:1); the white on light grey was 1.3:1.
                assert _contrast(style.color, bg) >= 2.0, (theme, segment.text, style)


async def test_a_moved_message_is_found_at_its_new_place_and_its_ghost_leads_there():
    """f, a filter or a stage switch put the cursor on a message's real row, never its ghost;
    from the ghost, another stage shows the message itself."""
    async with opened(samples_dir() / MOVED, size=(120, 35)) as (app, pilot):
        await pilot.press("2", "d")  # only changed rows: the moved row and its ghost
        await pilot.pause()
        table = app.main.query_one(DiffTable)
        rows = [table.row_at(p) for p in range(table.row_count)]
        moved = next(r for r in rows if not r.ghost)
        assert any(r.ghost for r in rows) and table.row_at(table.position_of(moved.origin)) == moved
        table.cursor = next(p for p, r in enumerate(rows) if r.ghost)
        await pilot.press("d", "3")
        await pilot.pause()
        assert table.current.origin == moved.origin and not table.current.ghost
        await pilot.press("2")
        await pilot.pause()
        assert table.current.origin == moved.origin and not table.current.ghost

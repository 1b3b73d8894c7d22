"""What a narrow screen shows after a pick in a side pane, and the zoom key: the table comes
back whatever the user reaches for, and can take the whole screen."""

from __future__ import annotations

from inspector.bundled import samples_dir
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import opened, row_lines

SAMPLE = "17-long-parallel-call-ids.json"


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
        table.focus()  # focus on the table while the pane still covers it
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert main.maximized is None and main.focused is table

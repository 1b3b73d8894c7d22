"""The input view says what an entry causes later, read from the events' cause, and f goes
to that stage and row; a session file's rows show their turn's text."""

from __future__ import annotations

from pathlib import Path

from inspector.pipeline import run_file
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import opened, row_lines, widget_text

SESSION = Path(__file__).resolve().parents[2] / "samples" / "21-claude-code-session.jsonl"


async def test_an_unanswered_call_says_where_it_is_repaired_and_f_goes_there():
    outcome = run_file(SESSION)
    caused = [e for e in outcome.result.events if e.cause is not None and e.origin is None]
    assert caused, "the sample has a synthesized result caused by a turn"
    event = caused[0]
    async with opened(SESSION, size=(160, 50)) as (app, pilot):
        table = app.main.query_one(DiffTable)
        line = next(ln for ln in row_lines(app)[1:] if ln[2:].split()[:1] == [f"#{event.cause}"])
        assert f"⇒ new {event.kind}" in line
        table.cursor = table.position_of(event.cause)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        details = " ".join(widget_text(app, "#details-body").split())
        assert "What it causes later" in details and event.tool_call_id in details
        await pilot.press("escape")
        await pilot.press("f")
        await pilot.pause()
        assert app.main.views[app.main.view] == event.stage
        row = table.current
        assert row.origin is None and row.events == [event]


async def test_session_rows_show_the_text_of_their_turn():
    outcome = run_file(SESSION)
    first = outcome.imported.messages[0]["content"]
    async with opened(SESSION, size=(160, 50)) as (app, pilot):
        line = next(ln for ln in row_lines(app)[1:] if ln[2:].split()[:1] == ["#0"])
        assert first[:15] in line

"""Reasoning in the TUI, from what the import and the pipeline report: a marker on the row of
a turn that carries signed reasoning, its facts in the details (which block, signed, what the
export does to it), and R (or the palette) switching --reasoning keep / strip, the pipeline
run again, the export the bytes `inspector normalize --reasoning strip` writes."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from inspector.pipeline import run_file
from inspector.tui.commands import entries
from inspector.tui.screens.export import ExportDialog
from inspector.tui.screenshots import settle
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import THINKING, finish_export, opened, widget_text

# A signed turn whose first call redeclares an id: the repair drops that call from the turn.
REDECLARED = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
    {"role": "user", "content": "go"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "again", "signature": "SIG-REDECLARED=="},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        {"type": "tool_use", "id": "t2", "name": "g", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "b"}]},
    {"role": "assistant", "content": "done"}]}


@pytest.fixture
def thinking_file(tmp_path):
    path = tmp_path / "thinking.json"
    path.write_text(json.dumps(THINKING))
    return path


def line_of(app, origin: int) -> str:
    table = app.main.query_one(DiffTable)
    position = next(p for p in range(table.row_count) if table.row_at(p).origin == origin)
    return table.render_line(table.screen_line(position)).text


def details_of(app, origin: int) -> str:
    table = app.main.query_one(DiffTable)
    table.cursor = next(p for p in range(table.row_count) if table.row_at(p).origin == origin)
    app.main.panes.show_row(table.current)
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.main.query_one("#details-body").content)
    return console.export_text()


async def test_the_signed_turn_is_marked_and_its_details_name_the_block(thinking_file):
    signed = run_file(thinking_file).imported.signed
    assert [r.row for r in signed] == [1]
    async with opened(thinking_file, size=(140, 40)) as (app, pilot):
        assert "«signed»" in line_of(app, 1)
        assert "«signed»" not in line_of(app, 0) and "«signed»" not in line_of(app, 2)
        details = details_of(app, 1)
        assert "Reasoning in this turn (1)" in details
        assert "thinking  signed  at messages[1].content[0]" in details
        assert signed[0].text in details and "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDOh4=" in details   # the block as read
        assert "(--reasoning keep)" in details and "written back as it was read" in details
        assert "reasoning keep" in widget_text(app, "#title")
        assert "Reasoning in this turn" not in details_of(app, 0)


async def test_a_repair_that_drops_a_call_from_a_signed_turn_shows_the_export_event(tmp_path):
    path = tmp_path / "redeclared.json"
    path.write_text(json.dumps(REDECLARED))
    notes = [e for e in run_file(path).export_events if e.kind == "signed-calls-dropped"]
    assert [e.origin for e in notes] == [3]
    async with opened(path, size=(140, 40)) as (app, pilot):
        await pilot.press("3")   # repair, where the call is dropped
        details = details_of(app, 3)
        assert "signed-calls-dropped" in details and notes[0].message.split(" (")[0] in details
        assert "before calls 0, 1" in details


async def test_r_switches_to_strip_and_the_export_writes_what_normalize_strip_writes(thinking_file, tmp_path):
    expected = run_file(thinking_file, reasoning="strip")
    stripped = [e for e in expected.export_events if e.kind == "reasoning-stripped"]
    assert len(stripped) == 1 and b"signature" not in expected.data
    async with opened(thinking_file, size=(140, 40)) as (app, pilot):
        main = app.main
        assert "reasoning: strip (now keep)" in [e.title for e in entries(main)]
        await pilot.press("R")
        for _ in range(200):
            await pilot.pause(0.02)
            if main.doc.reasoning == "strip" and main.loading_source is None:
                break
        assert main.doc.reasoning == "strip"
        assert "--reasoning strip" in app.notified[-1].message and "(1 removal)" in app.notified[-1].message
        assert "reasoning strip" in widget_text(app, "#status") and "the export removes 1" in widget_text(app, "#status")
        assert "reasoning strip" in widget_text(app, "#title")
        assert "1 reasoning-stripped event" in details_of(app, 1)
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, ExportDialog)
        await pilot.press("enter")
        await finish_export(app, pilot)
        written = thinking_file.with_name("thinking.normalized.json")
        assert written.read_bytes() == expected.data
        await pilot.press("R")   # and back
        for _ in range(200):
            await pilot.pause(0.02)
            if main.doc.reasoning == "keep" and main.loading_source is None:
                break
        assert main.doc.reasoning == "keep" and main.view == 0

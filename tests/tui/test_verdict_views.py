"""The TUI renders the one verdict: the reasoning policy reaches the provider checks (an
Anthropic body with thinking enabled, ``R`` strip: Anthropic's ``thinking-not-first`` shows, as
``check --reasoning strip --target anthropic`` says), and the export dialog warns before it
writes a history the provider refuses."""

from __future__ import annotations

import orjson
from textual.widgets import Button, Input

from inspector.tui.screens.export import ExportDialog

from .helpers import finish_export, opened, widget_text

THINK = {"type": "thinking", "thinking": "Look it up.", "signature": "EqQBCkYIBRgCKkBsig0001"}
USE = {"type": "tool_use", "id": "toolu_01A", "name": "lookup", "input": {"q": "x"}}
BODY = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": [{"role": "user", "content": "Find x"},
                     {"role": "assistant", "content": [THINK, USE]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A",
                                                   "content": "x=1"}]}]}


async def _strip(app, pilot) -> None:
    main = app.main
    await pilot.press("R")
    for _ in range(300):
        await pilot.pause(0.02)
        if main.doc.reasoning == "strip" and main.loading_source is None:
            break
    assert main.doc.reasoning == "strip"


async def _verdicts(app, pilot):
    for _ in range(300):
        await pilot.pause(0.02)
        v = app.main.verdicts
        if v is not None and v.complete and v.at("mem-5", "anthropic") is not None:
            return v
    raise AssertionError("no provider checks")


async def test_stripping_reasoning_shows_anthropics_refusal(tmp_path):
    path = tmp_path / "body.json"
    path.write_bytes(orjson.dumps(BODY))
    async with opened(path, size=(160, 50)) as (app, pilot):
        kept = await _verdicts(app, pilot)
        assert kept.at("mem-5", "anthropic").accepts
        await _strip(app, pilot)
        for _ in range(300):
            await pilot.pause(0.02)
            v = app.main.verdicts
            if v is not None and v.complete and not v.at("mem-5", "anthropic").accepts:
                break
        rules = {p.rule for p in app.main.verdicts.at("mem-5", "anthropic").problems}
        assert "thinking-not-first" in rules


async def test_the_export_dialog_warns_before_writing_a_history_the_provider_refuses(tmp_path):
    path = tmp_path / "body.json"
    path.write_bytes(orjson.dumps(BODY))
    out = tmp_path / "out.json"
    async with opened(path, size=(160, 50)) as (app, pilot):
        await _strip(app, pilot)
        await pilot.press("e")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        for _ in range(300):
            await pilot.pause(0.02)
            if dialog.refused.get(dialog.to):
                break
        assert "anthropic would refuse what this writes: thinking-not-first" in dialog.refused[dialog.to]
        assert "thinking-not-first" in widget_text(app, "#export-preview")
        dialog.query_one(Input).value = str(out)
        await pilot.press("enter")
        await finish_export(app, pilot)
        assert not out.exists() and isinstance(app.screen, ExportDialog)
        assert "thinking-not-first" in widget_text(app, "#export-note")
        assert str(dialog.query_one("#export", Button).label) == "Write anyway"
        await pilot.press("enter")          # the second enter writes it anyway
        await finish_export(app, pilot)
        assert out.exists() and not isinstance(app.screen, ExportDialog)

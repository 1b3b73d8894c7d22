"""Issue 35 in the TUI: a file of one message per line opens and steps through its stages
(item 8), and the export dialog, converting a request body, names the envelope fields the
target has no place for (item 6), as it lists every export event."""

from __future__ import annotations

import json

from textual.widgets import Select

from .helpers import opened, table_lines, widget_text

LINES = (b'{"role":"user","content":"go"}\n'
         b'{"role":"tool","tool_call_id":"x","content":"early"}\n'
         b'{"role":"assistant","content":"done"}\n')
BODY = {"model": "claude-sonnet-4-5", "max_tokens": 512, "thinking": {"type": "enabled", "budget_tokens": 1024},
        "metadata": {"user_id": "u1"},
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "yo"}]}]}


async def test_a_message_per_line_file_opens_with_its_stages(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(LINES)
    async with opened(path, size=(160, 50)) as (app, pilot):
        await pilot.press("3")
        text = "\n".join(table_lines(app))
        assert "-  #1  tool       early" in text and "(3) result-orpha" in text


async def test_the_export_dialog_names_the_envelope_a_conversion_leaves_behind(tmp_path):
    path = tmp_path / "claude.json"
    path.write_text(json.dumps(BODY))
    async with opened(path, size=(160, 50)) as (app, pilot):
        await pilot.press("e")
        dialog = app.screen
        dialog.query_one(Select).value = "gemini"
        for _ in range(100):                       # the preview is worked out in a thread
            await pilot.pause(0.05)
            preview = " ".join(widget_text(app, "#export-preview").split())
            if "Working out" not in preview:
                break
        assert "envelope" in preview and "thinking" in preview and "metadata" in preview, preview
        assert "model (gemini names the model in the URL" in preview, preview

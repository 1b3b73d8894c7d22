"""The TUI opens a file of one message per line (issue 35, item 8) and steps through its
stages like any history."""

from __future__ import annotations


from .helpers import opened, table_lines

LINES = (b'{"role":"user","content":"go"}\n'
         b'{"role":"tool","tool_call_id":"x","content":"early"}\n'
         b'{"role":"assistant","content":"done"}\n')


async def test_a_message_per_line_file_opens_with_its_stages(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(LINES)
    async with opened(path, size=(160, 50)) as (app, pilot):
        await pilot.press("3")
        text = "\n".join(table_lines(app))
        assert "-  #1  tool       early" in text and "(3) result-orpha" in text


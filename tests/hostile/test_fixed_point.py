"""``check`` accepts normalize's own output, in every format, with and without --strict
(issue 12, item 14): note-only import events are no change."""

from __future__ import annotations

import pytest

from .harness import run_every_command

CASES = {
    # A number as a system prompt in the Responses API's input: cast, noted, written back.
    "responses-number-system.json": ('{"input":[{"role":"system","content":5}]}', "auto"),
    # A role with spaces around it, read as OpenAI chat.
    "chat-role-with-spaces.json": ('{"messages":[{"role":" user ","content":"hi"}]}', "openai-chat"),
    "flat-role-with-spaces.json": ('[{"role":" user ","content":"hi"}]', "auto"),
    # Anthropic, and a falsy id that the flat sample keeps in every format.
    "anthropic-number-text.json": ('{"messages":[{"role":"user","content":[{"type":"text","text":5}]}]}', "auto"),
}


# Found by the hostile suite (HOSTILE_SCALE=10) after the formats' branches merged; the
# Responses format is not this branch's to change. Each mark goes when its fix lands.
OPEN = {
    # An item with "type": null but a call's fields: its result is dropped as an orphan,
    # and the output is dropped again on every later run.
    "responses-untyped-call.json": ('{"input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},'
                                    '{"type":null,"call_id":"c2","name":"f","arguments":"{}"},'
                                    '{"type":"function_call_output","call_id":"c2","output":"x"}]}', "auto"),
}
CASES.update(OPEN)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason="openai-responses: untyped call item", strict=True))
    if n in OPEN else n for n in sorted(CASES)])
def test_check_accepts_normalize_output(name, tmp_path):
    text, fmt = CASES[name]
    path = tmp_path / name
    path.write_text(text)
    run_every_command(path, "fixed point: known cases", fmt)


@pytest.mark.xfail(reason="openai-responses: a list as call_id raises TypeError (unhashable)", strict=True)
def test_a_list_as_a_result_id_is_no_crash():
    from inspector.io import InputError
    from inspector.pipeline import run

    doc = {"input": [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                     {"type": "function_call_output", "call_id": [], "output": "x"}]}
    try:
        run(doc, "api.json").data
    except InputError:
        pass

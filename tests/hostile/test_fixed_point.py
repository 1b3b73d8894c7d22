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


# Found by the hostile suite (HOSTILE_SCALE=10) after the formats' branches merged; both
# were Responses import defects, fixed at the root in formats/openai_responses.py.
CASES.update({
    # An item with "type": null but a call's fields: clause 1 drops it, so its result is an
    # orphan too (it was once carried as a built-in call's result, then dropped on the next run).
    "responses-untyped-call.json": ('{"input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},'
                                    '{"type":null,"call_id":"c2","name":"f","arguments":"{}"},'
                                    '{"type":"function_call_output","call_id":"c2","output":"x"}]}', "auto"),
})


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_accepts_normalize_output(name, tmp_path):
    text, fmt = CASES[name]
    path = tmp_path / name
    path.write_text(text)
    run_every_command(path, "fixed point: known cases", fmt)


def test_a_list_as_a_result_id_is_no_crash():
    from inspector.io import InputError
    from inspector.pipeline import run

    doc = {"input": [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                     {"type": "function_call_output", "call_id": [], "output": "x"}]}
    try:
        run(doc, "api.json").data
    except InputError:
        pass

"""Issue 31 item 5: what OpenAI refuses of a call's fields and of an image's place, named in
its own words by ``check --target openai-chat`` and repaired by ``--strict``, each an event."""

from __future__ import annotations

import copy
import json

import pytest

from inspector.pipeline import run
from inspector.targets import check, failed


def chat(*messages):
    return {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "read main.py"}, *messages,
                                                 {"role": "user", "content": "thanks"}]}


def call(function):
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": function}]}


RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "print(1)"}
AT = "messages[1].tool_calls[0].function"


@pytest.mark.parametrize("function,error", [
    ({"arguments": "{}"}, f"Missing required parameter: '{AT}.name'."),
    ({"name": 7, "arguments": "{}"}, f"Invalid type for '{AT}.name': expected a string, but got an integer instead."),
    ({"name": "read", "arguments": {"filepath": "main.py"}},        # aaif-goose/goose-mobile#20
     f"Invalid type for '{AT}.arguments': expected a string, but got an object instead."),
    ({"name": "read", "arguments": None}, f"Invalid type for '{AT}.arguments': expected a string, but got null instead."),
])
def test_call_fields_are_named_and_strict_writes_what_openai_requires(function, error):
    doc = chat(call(function), RESULT)
    out = run(copy.deepcopy(doc), "c.json", "openai-chat")
    assert [p.error for p in check(out, "openai-chat") if p.rule == "call-fields"] == [error]
    fixed = run(copy.deepcopy(doc), "c.json", "openai-chat", strict=True)
    fn = fixed.exported["messages"][1]["tool_calls"][0]["function"]
    assert isinstance(fn["name"], str) and fn["name"] and isinstance(fn["arguments"], str)
    args = function["arguments"]
    assert json.loads(fn["arguments"]) == (json.loads(args) if isinstance(args, str) else args or {})
    assert [e.kind for e in fixed.export_events] == ["call-fields-written"]
    assert not failed(check(fixed, "openai-chat")) and doc == chat(call(function), RESULT)


def test_a_tools_image_moves_into_a_user_message_after_the_tool_block():
    """OpenHands #7700: a browsing tool's screenshot in a tool message blocks every later turn."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    two = {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{n}", "type": "function", "function": {"name": "browse", "arguments": "{}"}} for n in (1, 2)]}
    doc = chat(two, {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "page"}, image]},
               {"role": "tool", "tool_call_id": "call_2", "content": "ok"})
    out = run(copy.deepcopy(doc), "c.json", "openai-chat")
    assert [p.where for p in check(out, "openai-chat") if p.rule == "image-outside-user"] == ["messages[2].content[1]"]
    fixed = run(copy.deepcopy(doc), "c.json", "openai-chat", strict=True)
    roles = [m["role"] for m in fixed.exported["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user", "user"]       # the tool block stays whole
    assert image in fixed.exported["messages"][4]["content"] and image not in fixed.exported["messages"][2]["content"]
    assert not failed(check(fixed, "openai-chat"))
    assert not run(fixed.data, "c2.json", "openai-chat", strict=True).changed

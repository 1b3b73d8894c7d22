"""Issue 31 item 4: the blank text Anthropic refuses, in its observed scope, reported with
the API's words and repaired by ``--strict``; the whitespace block Anthropic accepted is not
an error."""

from __future__ import annotations

import copy

from inspector.pipeline import run
from inspector.targets import check, failed

USE = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
USE2 = {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {"city": "Lyon"}}


def body(*messages):
    return {"model": "claude-haiku-4-5", "max_tokens": 256,
            "messages": [{"role": "user", "content": "Weather in Paris and Lyon?"}, *messages]}


def blank(outcome):
    return [p for p in check(outcome, "anthropic") if p.rule == "blank-text"]


def test_a_space_before_tool_use_blocks_is_accepted_not_an_error():
    """The shape of the recorded request issue 31 cites (HTTP 200, claude-haiku-4-5): an
    assistant text block of one space before two tool_use blocks."""
    doc = body({"role": "assistant", "content": [{"type": "text", "text": " "}, USE, USE2]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"},
                                            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "20C"}]})
    out = run(copy.deepcopy(doc), "b.json", "anthropic")
    assert blank(out) == [] and not failed(check(out, "anthropic"))


def test_an_empty_user_string_is_reported_and_strict_gives_it_a_placeholder():
    """anthropics/claude-code #6774: an empty user prompt in the history."""
    doc = body({"role": "assistant", "content": "Which unit?"}, {"role": "user", "content": ""},
               {"role": "assistant", "content": "Celsius, then."}, {"role": "user", "content": "ok"})
    out = run(copy.deepcopy(doc), "b.json", "anthropic")
    (p,) = blank(out)
    assert p.where == "messages[2]" and "all messages must have non-empty content" in p.error and p.strict
    fixed = run(copy.deepcopy(doc), "b.json", "anthropic", strict=True)
    assert [e.kind for e in fixed.export_events] == ["blank-text-replaced"]
    assert fixed.exported["messages"][2]["content"] == "(empty)"
    again = run(fixed.data, "b.json", "anthropic", strict=True)
    assert blank(again) == [] and not again.changed


def test_closing_a_call_whose_next_user_message_is_empty_leaves_no_empty_block_with_strict():
    doc = body({"role": "assistant", "content": [USE]}, {"role": "user", "content": [{"type": "text", "text": ""}]})
    out = run(copy.deepcopy(doc), "b.json", "anthropic")
    assert [p.error for p in blank(out)] == ["messages: text content blocks must be non-empty"]
    fixed = run(copy.deepcopy(doc), "b.json", "anthropic", strict=True)
    sent = fixed.exported["messages"][2]["content"]
    assert [b["type"] for b in sent] == ["tool_result"]
    assert "blank-text-dropped" in [e.kind for e in fixed.export_events]
    assert blank(fixed) == [] and not failed(check(fixed, "anthropic"))


def test_a_message_of_only_whitespace_blocks_is_an_error_and_strict_replaces_it():
    doc = body({"role": "assistant", "content": [{"type": "text", "text": " \n"}]}, {"role": "user", "content": "go"})
    out = run(copy.deepcopy(doc), "b.json", "anthropic")
    assert [p.error for p in blank(out)] == ["messages: text content blocks must contain non-whitespace text"]
    fixed = run(copy.deepcopy(doc), "b.json", "anthropic", strict=True)
    assert fixed.exported["messages"][1]["content"] == [{"type": "text", "text": "(empty)"}]
    assert blank(fixed) == [] and doc["messages"][1]["content"] == [{"type": "text", "text": " \n"}]

"""Converting a request body keeps its envelope where the target's body has a place for it
(tools converted, ``model`` kept where the body names the model, the sampling settings in the
target's spelling) and names every field left behind in one export event (issue 35, item 6).
Field names: the providers' request references cited in ``inspector/formats/envelope.py``."""

from __future__ import annotations

import pytest

from inspector.pipeline import run

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
ANTHROPIC = {
    "model": "claude-sonnet-4-5", "max_tokens": 1024, "temperature": 0.2, "system": "Be brief.",
    "thinking": {"type": "enabled", "budget_tokens": 2000},
    "tools": [{"name": "get_weather", "description": "Weather in a city", "input_schema": SCHEMA}],
    "tool_choice": {"type": "auto"}, "metadata": {"user_id": "u1"}, "stop_sequences": ["END"], "stream": False,
    "messages": [
        {"role": "user", "content": "Weather in Lyon?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                                           "input": {"city": "Lyon"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]},
    ],
}
LEFT = ["thinking", "tool_choice", "metadata", "stream"]


def _left(outcome) -> list[str]:
    return [e.message for e in outcome.export_events if e.kind == "envelope-left"]


def test_to_openai_chat_keeps_model_settings_and_tools_and_names_the_rest():
    out = run(ANTHROPIC, "body.json", to="openai-chat")
    doc = out.exported
    assert doc["model"] == "claude-sonnet-4-5" and doc["max_completion_tokens"] == 1024
    assert doc["temperature"] == 0.2 and doc["stop"] == ["END"]
    assert doc["tools"] == [{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city",
                                                              "parameters": SCHEMA}}]
    assert [m["role"] for m in doc["messages"]] == ["system", "user", "assistant", "tool"]
    [said] = _left(out)
    assert all(name in said for name in LEFT) and "model" not in said.split(";")[0]
    assert out.export.entries == 4          # the written body reads back as an openai-chat body


@pytest.mark.parametrize("target, tools_at, spelled", [
    ("gemini", ("tools", 0, "functionDeclarations", 0, "parameters"), ("generationConfig", "maxOutputTokens")),
    ("bedrock", ("toolConfig", "tools", 0, "toolSpec", "inputSchema", "json"), ("inferenceConfig", "maxTokens")),
    ("openai-responses", ("tools", 0, "parameters"), ("max_output_tokens",)),
])
def test_each_target_spells_the_settings_and_tools_its_own_way(target, tools_at, spelled):
    out = run(ANTHROPIC, "body.json", to=target)
    value = out.exported
    for key in tools_at:
        value = value[key]
    assert value == SCHEMA
    value = out.exported
    for key in spelled:
        value = value[key]
    assert value == 1024
    [said] = _left(out)
    assert ("model (" in said) == (target in ("gemini", "bedrock"))    # the URL names their model
    assert ("stop_sequences" in said.split(";")[0]) == (target == "openai-responses")


def test_a_round_trip_through_openai_chat_brings_the_envelope_back():
    there = run(ANTHROPIC, "body.json", to="openai-chat").exported
    back = run(there, "chat.json", to="anthropic").exported
    assert back["model"] == ANTHROPIC["model"] and back["max_tokens"] == 1024
    assert back["tools"] == ANTHROPIC["tools"] and back["stop_sequences"] == ["END"]


def test_a_tool_with_no_counterpart_is_named_by_its_position():
    body = dict(ANTHROPIC, tools=[*ANTHROPIC["tools"], {"type": "web_search_20250305", "name": "web_search"}])
    out = run(body, "body.json", to="openai-chat")
    assert len(out.exported["tools"]) == 1
    [said] = _left(out)
    assert "tools[1]" in said


def test_a_bare_history_converts_to_a_bare_history_without_an_event():
    out = run(ANTHROPIC["messages"], "h.json", "anthropic", to="openai-chat")
    assert isinstance(out.exported, list) and not _left(out)


def test_the_same_format_keeps_the_body_whole():
    out = run(ANTHROPIC, "body.json")
    assert out.exported == ANTHROPIC and not out.changed

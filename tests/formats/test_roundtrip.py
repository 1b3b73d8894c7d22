"""Import, normalize and export in each provider format: a clean history comes back
JSON-equal (prompt caches depend on it), an interrupted call is healed in the format's own
shape, orphan and duplicate results leave exactly the block they were in, and provenance
points at the right message and block."""

from __future__ import annotations

import pytest

from inspector.engine import normalize
from inspector.formats import FORMATS, export_history, import_history

from .fixtures import CLEAN, GEMINI_IDS, INTERRUPTED, clone


def roundtrip(doc, fmt="auto", to="same", strict=False):
    im = import_history(doc, "t.json", fmt)
    result = normalize(im.messages, extensions=("strict",) if strict else ())
    return im, result, export_history(im, result, to).document


@pytest.mark.parametrize("fmt", sorted(CLEAN))
def test_clean_history_is_detected_and_comes_back_json_equal(fmt):
    doc = clone(CLEAN[fmt])
    im, result, out = roundtrip(doc)
    assert im.format == fmt
    assert [e for e in result.events if e.drop] == []
    assert out == CLEAN[fmt]


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic", "gemini", "bedrock", "openai-responses"])
def test_strict_on_a_clean_history_also_changes_nothing(fmt):
    _, result, out = roundtrip(clone(CLEAN[fmt]), strict=True)
    assert result.stages[-1].name == "strict" and result.stages[-1].events == []
    assert out == CLEAN[fmt]


def test_kept_messages_are_the_original_objects():
    doc = clone(CLEAN["anthropic"])
    doc["messages"][2]["content"].append({"type": "tool_result", "tool_use_id": "toolu_zz", "content": "x"})
    _, _, out = roundtrip(doc)
    for i in (0, 1, 3, 4):
        assert out["messages"][i] is doc["messages"][i]
    assert out["messages"][2] is not doc["messages"][2]


# -- an interrupted call is healed natively -------------------------------------------------

def test_openai_chat_interrupted_call_gets_a_tool_message():
    doc = clone(CLEAN["openai-chat"])
    del doc["messages"][4]
    _, _, out = roundtrip(doc)
    assert out["messages"][3] == {"role": "tool", "tool_call_id": "call_def", "content": INTERRUPTED}
    assert out["messages"][4] is doc["messages"][3]
    assert out["tools"] == doc["tools"]


def test_responses_interrupted_call_gets_a_function_call_output():
    doc = clone(CLEAN["openai-responses"])
    del doc["input"][6]
    _, _, out = roundtrip(doc)
    types = [item.get("type") for item in out["input"]]
    assert types[2:7] == ["reasoning", "function_call", "function_call", "function_call_output",
                          "function_call_output"]
    assert out["input"][5] == {"type": "function_call_output", "call_id": "call_B", "output": INTERRUPTED}


def test_anthropic_interrupted_call_gets_an_error_tool_result_in_the_same_user_message():
    doc = clone(CLEAN["anthropic"])
    del doc["messages"][2]["content"][1]
    _, _, out = roundtrip(doc)
    assert len(out["messages"]) == 5
    assert out["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_01B", "content": INTERRUPTED, "is_error": True},
        {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "18C"},
    ]


def test_anthropic_call_answered_nowhere_gets_a_new_user_message_before_the_next_text():
    doc = clone(CLEAN["anthropic"])
    del doc["messages"][2:4]          # crash: no results, then the user spoke again
    _, _, out = roundtrip(doc)
    blocks = out["messages"][2]["content"]
    assert out["messages"][2]["role"] == "user" and len(out["messages"]) == 3
    assert [b.get("tool_use_id") for b in blocks[:2]] == ["toolu_01A", "toolu_01B"]
    assert all(b.get("is_error") for b in blocks[:2])
    assert blocks[2] == doc["messages"][2]["content"][0]     # the user's text follows the results


def test_gemini_interrupted_call_gets_a_function_response_without_a_made_up_id():
    doc = clone(CLEAN["gemini"])
    del doc["contents"][2]["parts"][1]
    im, _, out = roundtrip(doc)
    # Same-named calls without ids pair by order: Paris's response stays first, Rome's
    # interrupted one takes the second place.
    assert out["contents"][2]["parts"][0] == doc["contents"][2]["parts"][0]
    assert out["contents"][2]["parts"][1] == {
        "functionResponse": {"name": "get_weather", "response": {"error": INTERRUPTED}}}
    assert any(e.kind == "id-derived" for e in im.events)


def test_gemini_with_ids_writes_the_id_on_the_synthetic_response():
    doc = clone(GEMINI_IDS)
    del doc["contents"][2]["parts"][0]
    _, _, out = roundtrip(doc)
    assert out["contents"][2]["parts"][0]["functionResponse"]["id"] == "fc-1"


def test_bedrock_interrupted_call_gets_an_error_tool_result():
    doc = clone(CLEAN["bedrock"])
    del doc["messages"][2]["content"][0]
    _, _, out = roundtrip(doc)
    assert out["messages"][2]["content"][0] == {
        "toolResult": {"toolUseId": "tooluse_A1", "content": [{"text": INTERRUPTED}], "status": "error"}}
    assert out["modelId"] == doc["modelId"] and out["inferenceConfig"] == doc["inferenceConfig"]


# -- orphan and duplicate results leave exactly their block ---------------------------------

def test_openai_chat_orphan_and_duplicate_removed():
    doc = clone(CLEAN["openai-chat"])
    doc["messages"].insert(5, {"role": "tool", "tool_call_id": "call_abc", "content": "18C again"})
    doc["messages"].insert(6, {"role": "tool", "tool_call_id": "call_zzz", "content": "lost"})
    _, result, out = roundtrip(doc)
    assert [e.kind for e in result.events if e.drop] == ["result-duplicate", "result-orphan"]
    assert out == CLEAN["openai-chat"]


def test_responses_orphan_and_duplicate_removed():
    doc = clone(CLEAN["openai-responses"])
    doc["input"].insert(7, {"type": "function_call_output", "call_id": "call_A", "output": "again"})
    doc["input"].append({"type": "function_call_output", "call_id": "call_Q", "output": "lost"})
    _, _, out = roundtrip(doc)
    assert out == CLEAN["openai-responses"]


def test_anthropic_orphan_and_duplicate_removed_from_their_blocks():
    doc = clone(CLEAN["anthropic"])
    doc["messages"][2]["content"].append({"type": "tool_result", "tool_use_id": "toolu_01A", "content": "dup"})
    doc["messages"][4]["content"].insert(0, {"type": "tool_result", "tool_use_id": "toolu_99", "content": "?"})
    im, result, out = roundtrip(doc)
    drops = [(e.kind, im.where(e.origin)) for e in result.events if e.drop]
    assert drops == [("result-duplicate", "messages[2].content[2]"), ("result-orphan", "messages[4].content[0]")]
    assert out == CLEAN["anthropic"]


def test_gemini_orphan_and_duplicate_removed_from_their_parts():
    doc = clone(GEMINI_IDS)
    doc["contents"][2]["parts"].append({"functionResponse": {"id": "fc-2", "name": "get_weather", "response": {}}})
    doc["contents"][4]["parts"].append({"functionResponse": {"name": "get_time", "response": {"t": "noon"}}})
    im, result, out = roundtrip(doc)
    assert [e.kind for e in result.events if e.drop] == ["result-duplicate", "result-orphan"]
    assert out == GEMINI_IDS


def test_bedrock_orphan_and_duplicate_removed_from_their_blocks():
    doc = clone(CLEAN["bedrock"])
    doc["messages"][2]["content"].append({"toolResult": {"toolUseId": "tooluse_B2", "content": [{"text": "dup"}]}})
    doc["messages"][4]["content"].insert(0, {"toolResult": {"toolUseId": "tooluse_ZZ", "content": []}})
    _, _, out = roundtrip(doc)
    assert out == CLEAN["bedrock"]


def test_redeclared_call_is_removed_from_its_turn_with_its_reasoning():
    # The id again in the same model turn (after a complete pair it would be a call of its own: issue 30).
    doc = clone(CLEAN["openai-responses"])
    doc["input"][5:5] = [{"type": "reasoning", "id": "rs_2", "summary": []},
                         {"type": "function_call", "id": "fc_3", "call_id": "call_A", "name": "get_weather",
                          "arguments": "{}"}]
    _, result, out = roundtrip(doc)
    assert "call-redeclared" in [e.kind for e in result.events]
    assert out == CLEAN["openai-responses"]


def test_anthropic_redeclared_tool_use_block_is_removed_and_the_rest_kept():
    doc = clone(CLEAN["anthropic"])
    doc["messages"][1]["content"].append({"type": "tool_use", "id": "toolu_01A", "name": "again", "input": {}})
    _, _, out = roundtrip(doc)
    assert out == CLEAN["anthropic"]


def test_openai_chat_call_dropped_from_tool_calls_keeps_other_keys():
    doc = clone(CLEAN["openai-chat"])
    doc["messages"][2]["tool_calls"].append({"id": "", "type": "function", "function": {"name": "x", "arguments": ""}})
    _, _, out = roundtrip(doc)
    assert out == CLEAN["openai-chat"]


# -- provenance -----------------------------------------------------------------------------

def test_provenance_points_at_message_and_block():
    im = import_history(clone(CLEAN["anthropic"]), "t", "auto")
    assert [im.where(i) for i in range(len(im.messages))] == [
        "system", "messages[0]", "messages[1]", "messages[2].content[0]", "messages[2].content[1]",
        "messages[3]", "messages[4].content[0]"]
    assert [loc.describe(im.container) for loc in im.calls[2]] == ["messages[1].content[2]", "messages[1].content[3]"]
    assert im.original(4) is im.history[2]
    assert [m["role"] for m in im.messages] == ["system", "user", "assistant", "tool", "tool", "assistant", "user"]
    assert im.messages[2]["content"] == "I'll check both."         # thinking is not text


def test_provenance_for_responses_covers_every_item_of_a_model_turn():
    im = import_history(clone(CLEAN["openai-responses"]), "t")
    turn = im.sources[2]
    assert turn.items == (2, 3, 4) and im.where(2) == "input[2..4]"
    assert [c.message for c in im.calls[2]] == [3, 4]
    assert im.original(2) == CLEAN["openai-responses"]["input"][2:5]


def test_provenance_for_openai_calls_and_bedrock_system():
    im = import_history(clone(CLEAN["openai-chat"]), "t")
    assert [loc.describe(im.container) for loc in im.calls[2]] == [
        "messages[2].tool_calls[0]", "messages[2].tool_calls[1]"]
    bd = import_history(clone(CLEAN["bedrock"]), "t")
    assert bd.where(0) == "system" and bd.messages[0] == {"role": "system", "content": "You are a weather bot."}
    assert bd.messages[3] == {"role": "tool", "content": '{"temp":"18C"}', "tool_call_id": "tooluse_A1"}


def test_gemini_pairing_without_ids_is_by_name_and_order_and_said_in_events():
    im = import_history(clone(CLEAN["gemini"]), "t")
    calls = [c["tool_call_id"] for c in im.messages[2]["tool_calls"]]
    assert calls == ["get_weather-1-0", "get_weather-1-1"]
    assert [im.messages[i]["tool_call_id"] for i in (3, 4)] == calls
    assert sum(e.kind == "id-derived" for e in im.events) == 4 and im.notes


def test_gemini_response_with_no_matching_call_is_an_orphan():
    doc = clone(CLEAN["gemini"])
    doc["contents"][2]["parts"].append({"functionResponse": {"name": "get_weather", "response": {}}})
    im, result, out = roundtrip(doc)
    assert [e.kind for e in result.events if e.drop] == ["result-orphan"]
    assert out == CLEAN["gemini"]


def test_system_in_the_middle_of_anthropic_messages_is_folded_into_the_system_field():
    doc = clone(CLEAN["anthropic"])
    doc["messages"].insert(3, {"role": "system", "content": "Answer in French."})
    _, result, out = roundtrip(doc)
    assert result.moved == 1
    assert out["system"] == [{"type": "text", "text": "You are a weather bot."},
                             {"type": "text", "text": "Answer in French."}]
    assert out["messages"] == CLEAN["anthropic"]["messages"]


# -- exporting to another format ------------------------------------------------------------

@pytest.mark.parametrize("source", sorted(CLEAN))
@pytest.mark.parametrize("target", FORMATS)
def test_every_format_converts_to_every_other_and_reads_back_the_same_pairs(source, target):
    _, result, out = roundtrip(clone(CLEAN[source]), to=target)
    back = import_history(out, "back", target)
    again = normalize(back.messages)
    def pairs(msgs):
        calls = [c["tool_call_id"] for m in msgs for c in m.get("tool_calls") or ()]
        return calls, [m["tool_call_id"] for m in msgs if m["role"] == "tool"], [m["content"] for m in msgs]

    assert not [e for e in again.events if e.drop]
    calls, results, texts = pairs(again.messages)
    want_calls, want_results, want_texts = pairs(result.messages)
    assert calls == want_calls and results == want_results
    assert "Paris" in " ".join(texts) and len(calls) == len(want_calls) > 0


def test_strict_result_moved_next_to_its_call_in_anthropic_export():
    doc = clone(CLEAN["anthropic"])
    result_b = doc["messages"][2]["content"].pop(1)
    doc["messages"][4]["content"].insert(0, result_b)     # B's result turns up two messages late
    _, result, out = roundtrip(doc, strict=True)
    assert [e.clause for e in result.events if e.stage == "strict"] == ["strict:adjacent"]
    assert out == CLEAN["anthropic"]


def test_bedrock_results_and_the_next_user_text_share_one_message_so_roles_alternate():
    doc = clone(CLEAN["bedrock"])
    del doc["messages"][2:4]
    _, _, out = roundtrip(doc)
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "user"]
    blocks = out["messages"][2]["content"]
    assert [b["toolResult"]["status"] for b in blocks[:2]] == ["error", "error"]
    assert blocks[2] == {"text": "Thanks!"}


def test_openai_chat_empty_tool_calls_array_is_removed_and_nothing_else():
    doc = clone(CLEAN["openai-chat"])
    doc["messages"][5]["tool_calls"] = []
    _, result, out = roundtrip(doc)
    assert [e.kind for e in result.events] == ["field-discarded"]
    assert out == CLEAN["openai-chat"]


def test_gemini_synthetic_response_without_ids_takes_its_calls_place():
    """Without ids, order is the pairing: the interrupted response for the second of two
    same-named calls must come second, or the first call would read it as its own."""
    doc = {"contents": [
        {"role": "user", "parts": [{"text": "weather in Oslo and Rome"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "forecast", "args": {"city": "Oslo"}}},
                                    {"functionCall": {"name": "forecast", "args": {"city": "Rome"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "forecast", "response": {"city": "Oslo"}}}]},
    ]}
    im, result, out = roundtrip(clone(doc))
    assert result.synthesized == 1
    parts = out["contents"][2]["parts"]
    assert parts[0] == doc["contents"][2]["parts"][0]
    assert "error" in parts[1]["functionResponse"]["response"]
    # Read again, Oslo's call still gets Oslo's response.
    back = import_history(out, "t")
    oslo = next(m for m in back.messages if m.get("role") == "tool" and "Oslo" in m["content"])
    first_call = next(m for m in back.messages if m.get("tool_calls"))["tool_calls"][0]
    assert oslo["tool_call_id"] == first_call["tool_call_id"]
    # Another format writes the same order.
    again = export_history(import_history(out, "t"), normalize(import_history(out, "t").messages), "gemini").document
    assert again == out


def test_responses_heals_a_custom_call_with_a_numeric_id_with_its_own_output_type():
    """The synthetic output's type follows the engine's call, found by its resolved id."""
    doc = {"input": [{"type": "message", "role": "user", "content": "go"},
                     {"type": "custom_tool_call", "call_id": 5, "name": "grep", "input": "x"}]}
    im = import_history(doc, "h.json")
    out = export_history(im, normalize(im.messages)).document["input"][-1]
    assert out["type"] == "custom_tool_call_output" and out["call_id"] == "5"

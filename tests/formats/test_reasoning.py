"""Reasoning as a part of every provider format (issue 20, items 1, 2 and 5): what each
importer records, that a repair touching a signed turn says so, that conversions name each
block they cannot carry, and ``--reasoning strip``."""

from __future__ import annotations

import contextlib
import copy
import io
import json

import orjson
import pytest

from inspector import cli
from inspector.formats import Reasoning
from inspector.pipeline import run


def cli_run(*argv: str) -> tuple[int, bytes, str]:
    """``inspector ARGV`` in this process: exit status, standard output, standard error."""
    out, err = io.BytesIO(), io.StringIO()
    text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()

ANTHROPIC = {"model": "claude-sonnet-4-5", "thinking": {"type": "enabled", "budget_tokens": 2000}, "messages": [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "model": "claude-sonnet-4-5", "content": [
        {"type": "thinking", "thinking": "call it twice", "signature": "SIG1"},
        {"type": "tool_use", "id": "t1", "name": "w", "input": {}},
        {"type": "tool_use", "id": "t2", "name": "w", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sun"},
                                 {"type": "tool_result", "tool_use_id": "t2", "content": "rain"}]},
    {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "ENC"}, {"type": "text", "text": "done"}]},
    {"role": "user", "content": "thanks"}]}

BEDROCK = {"modelId": "anthropic.claude", "messages": [
    {"role": "user", "content": [{"text": "weather?"}]},
    {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "call", "signature": "SIG"}}},
        {"toolUse": {"toolUseId": "t1", "name": "w", "input": {}}}]},
    {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "sun"}]}}]},
    {"role": "assistant", "content": [{"reasoningContent": {"redactedContent": "ENC"}}, {"text": "done"}]}]}

GEMINI = {"contents": [
    {"role": "user", "parts": [{"text": "weather?"}]},
    {"role": "model", "parts": [{"text": "I will call", "thought": True},
                                {"functionCall": {"id": "t1", "name": "w", "args": {}}, "thoughtSignature": "SIGA"},
                                {"functionCall": {"id": "t2", "name": "w", "args": {}}}]},
    {"role": "user", "parts": [{"functionResponse": {"id": "t1", "name": "w", "response": {}}},
                               {"functionResponse": {"id": "t2", "name": "w", "response": {}}}]},
    {"role": "model", "parts": [{"text": "done", "thoughtSignature": "SIGB"}]}]}

RESPONSES = {"model": "o4-mini", "reasoning": {"effort": "low"}, "input": [
    {"role": "user", "content": "weather?"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "call"}],
     "encrypted_content": "ENC1"},
    {"type": "function_call", "id": "fc_1", "call_id": "t1", "name": "w", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "t1", "output": "sun"},
    {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "ENC2"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}]}

DEEPSEEK = {"model": "deepseek-reasoner", "messages": [
    {"role": "user", "content": "2+2?"},
    {"role": "assistant", "content": "4", "reasoning_content": "two and two"},
    {"role": "user", "content": "times 3?"}]}

DOCS = {"anthropic": ANTHROPIC, "bedrock": BEDROCK, "gemini": GEMINI, "openai-responses": RESPONSES,
        "openai-chat": DEEPSEEK}
# (kind, signed, row, calls it precedes) of each reasoning record, in document order.
EXPECTED = {
    "anthropic": [("thinking", True, 1, (0, 1)), ("redacted_thinking", True, 4, ())],
    "bedrock": [("reasoningContent", True, 1, (0,)), ("reasoningContent", True, 3, ())],
    "gemini": [("thought", False, 1, (0, 1)), ("thoughtSignature", True, 1, (0, 1)), ("thoughtSignature", True, 4, ())],
    "openai-responses": [("reasoning", True, 1, (0,)), ("reasoning", True, 3, ())],
    "openai-chat": [("reasoning_content", False, 1, ())],
}


@pytest.mark.parametrize("fmt", sorted(DOCS))
def test_each_importer_records_its_reasoning_with_its_turn(fmt):
    out = run(copy.deepcopy(DOCS[fmt]), "t.json")
    assert out.format == fmt
    got = [(r.kind, r.signed, r.row, r.before) for r in out.imported.reasoning]
    assert got == EXPECTED[fmt]
    assert all(isinstance(r, Reasoning) for r in out.imported.reasoning)
    first = out.imported.reasoning[0]
    assert out.imported.reasoning_of(first.row)[0] is first
    shown = [out.imported.block_of(r) for r in out.imported.reasoning]
    assert all(b is not None for b in shown) and shown[0] != DOCS[fmt]
    assert out.exported == DOCS[fmt] and not out.changed        # kept: written back identical


def test_the_model_that_wrote_a_turn_is_recorded_where_the_document_says_so():
    records = run(copy.deepcopy(ANTHROPIC), "t.json").imported.reasoning
    assert [r.model for r in records] == ["claude-sonnet-4-5", None]
    assert records[0].text == "call it twice" and records[1].encrypted and records[1].text == ""
    imported = run(copy.deepcopy(ANTHROPIC), "t.json").imported
    assert imported.block_of(imported.reasoning[1]) == {"type": "redacted_thinking", "data": "ENC"}
    responses = run(copy.deepcopy(RESPONSES), "t.json").imported
    assert responses.block_of(responses.reasoning[0])["id"] == "rs_1"


def _events(outcome, kind):
    return [e for e in outcome.export_events if e.kind == kind]


def test_a_repair_that_drops_a_call_of_a_signed_turn_says_what_the_provider_may_do():
    doc = copy.deepcopy(ANTHROPIC)
    doc["messages"][1]["content"][2]["id"] = "t1"          # t1 declared twice: clause 3 drops the second
    out = run(doc, "t.json")
    event, = _events(out, "signed-calls-dropped")
    assert event.origin == 1 and "messages[1].content[0]" in event.message and "may reject" in event.message
    assert out.exported["messages"][1]["content"][0] == ANTHROPIC["messages"][1]["content"][0]


def test_dropping_rows_from_the_middle_before_a_signed_turn_is_an_event():
    doc = copy.deepcopy(ANTHROPIC)
    doc["messages"][2]["content"].append({"type": "tool_result", "tool_use_id": "nobody", "content": "?"})
    out = run(doc, "t.json")
    cut, = _events(out, "signed-history-cut")
    assert cut.origin == 5 and "messages[2].content[2]" in cut.message
    assert not _events(run(copy.deepcopy(ANTHROPIC), "t.json"), "signed-history-cut")


def test_strict_moves_unsigned_blocks_only_and_never_a_signed_one():
    """Issue 31, item 8: thinking before the first tool_use keeps its index and bytes while
    the text after the tool_use moves ahead of it; signed thinking after the first tool_use
    would itself move, so that turn is written as it was, with a note that is no change."""
    doc = copy.deepcopy(ANTHROPIC)
    doc["messages"][1]["content"].append({"type": "text", "text": "late"})
    out = run(copy.deepcopy(doc), "t.json", strict=True)
    sent = out.exported["messages"][1]["content"]
    assert sent[0] == doc["messages"][1]["content"][0]                       # the signed block, in place
    assert [b["type"] for b in sent].index("text") < [b["type"] for b in sent].index("tool_use")
    assert _events(out, "text-after-tool-use") and not _events(out, "signed-kept-in-place")
    doc["messages"][1]["content"].append(doc["messages"][1]["content"].pop(0))     # thinking after the tool_use
    out = run(copy.deepcopy(doc), "t.json", strict=True)
    assert out.exported["messages"][1] == doc["messages"][1]
    assert len(_events(out, "signed-kept-in-place")) == 1 and not _events(out, "text-after-tool-use")
    assert not out.changed                                   # R3-28: a note that changes nothing is no change


@pytest.mark.parametrize("fmt", ["anthropic", "gemini", "openai-responses", "bedrock"])
def test_a_conversion_names_each_reasoning_block_it_cannot_carry(fmt):
    out = run(copy.deepcopy(DOCS[fmt]), "t.json", to="openai-chat")
    omitted = [e for e in out.export_events if e.kind == "export-omitted" and "reasoning" in e.message]
    assert len(omitted) == len(EXPECTED[fmt])
    enabled = "thinking" in DOCS[fmt] or "reasoning" in DOCS[fmt]
    assert all(("enables thinking" in e.message) == enabled for e in omitted)


STRIPPED = {"anthropic": 2, "bedrock": 2, "gemini": 3, "openai-responses": 2, "openai-chat": 1}


@pytest.mark.parametrize("fmt", sorted(DOCS))
def test_reasoning_strip_leaves_no_reasoning_and_lists_one_event_per_block(tmp_path, fmt):
    src = tmp_path / "in.json"
    src.write_bytes(orjson.dumps(DOCS[fmt]))
    code, out, err = cli_run("normalize", str(src), "--reasoning", "strip", "-q")
    assert code == 0, err
    text = out.decode()
    written = orjson.loads(out)
    for word in ('"signature"', "encrypted_content", '"redacted_thinking"', '"type":"thinking"', "reasoningContent",
                 '"thought":true', "reasoning_content", '"type":"reasoning"', "SIG"):
        assert word not in orjson.dumps(written).decode(), (word, text)
    code, out, err = cli_run("explain", str(src), "--reasoning", "strip", "--json")
    assert code == 0, err
    events = [e for e in json.loads(out)["export"]["events"] if e["kind"] == "reasoning-stripped"]
    assert len(events) == STRIPPED[fmt]
    assert json.loads(out)["changed"] is True
    code, out, _ = cli_run("check", str(src), "--reasoning", "strip")
    assert code == 1 and b"would change" in out


def test_strip_puts_googles_sentinel_on_the_first_call_of_a_turn():
    out = run(copy.deepcopy(GEMINI), "t.json", reasoning="strip")
    parts = out.exported["contents"][1]["parts"]
    assert parts[0] == {"functionCall": {"id": "t1", "name": "w", "args": {}},
                        "thoughtSignature": "skip_thought_signature_validator"}
    assert "thoughtSignature" not in out.exported["contents"][3]["parts"][0]
    assert any("skip_thought_signature_validator" in e.message for e in out.export_events)


def test_strip_drops_a_message_of_reasoning_alone_and_says_so():
    doc = copy.deepcopy(ANTHROPIC)
    doc["messages"][3]["content"].pop()                     # only the redacted_thinking block is left
    out = run(doc, "t.json", reasoning="strip")
    assert len(out.exported["messages"]) == len(doc["messages"]) - 1
    assert any("reasoning alone" in e.message for e in out.export_events)


def test_keep_is_the_default_and_an_unknown_policy_is_a_usage_error(tmp_path):
    src = tmp_path / "in.json"
    src.write_bytes(orjson.dumps(ANTHROPIC))
    code, out, _ = cli_run("normalize", str(src), "-q")
    assert code == 0 and orjson.loads(out) == ANTHROPIC
    code, _, err = cli_run("normalize", str(src), "--reasoning", "drop")
    assert code == 2 and "--reasoning" in err


def test_deepseek_reasoning_content_is_openai_chat_evidence_not_a_field_to_discard():
    out = run(copy.deepcopy(DEEPSEEK), "t.json")
    assert out.format == "openai-chat" and out.exported == DEEPSEEK

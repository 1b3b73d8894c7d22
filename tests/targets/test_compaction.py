"""Issue 31 item 2: server-side compaction. What comes before the last compaction block
(Anthropic) or item (Responses) is dropped by the provider: the import says so (every view
shows it as not sent), the target checks do not judge it, and the compaction itself is
written back byte for byte."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from inspector.pipeline import run
from inspector.targets import ERROR, check

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
# pydantic-ai tests/models/cassettes/test_anthropic/test_anthropic_compaction_round_trip.yaml @ a9e618f6 (HTTP 200)
ROUND_TRIP = CORPUS / "anthropic" / "7789cd58ff06e49a.json"
COMPACTION = {"type": "compaction", "content": "Summary: the user asked for the weather in Paris; it is 18C."}


def test_the_recorded_compaction_round_trip_comes_back_unchanged_and_accepted():
    data = ROUND_TRIP.read_bytes()
    out = run(data, "r.json")
    assert out.imported.format == "anthropic" and not out.changed
    assert not [p for p in check(out, "anthropic") if p.severity == ERROR]
    (note,) = [e for e in out.imported.events if e.kind == "compacted-before"]
    assert "messages[0..0]" in note.message and "not sent" in note.message
    assert out.exported["messages"][1]["content"][0] == json.loads(data)["messages"][1]["content"][0]


def test_what_comes_before_a_compaction_block_is_not_judged():
    blank_before = {"role": "assistant", "content": [{"type": "text", "text": ""}]}
    doc = {"model": "claude-sonnet-4-6", "max_tokens": 64, "context_management": {"edits": [{"type": "compact_20260112"}]},
           "messages": [{"role": "user", "content": "Weather in Paris?"}, blank_before,
                        {"role": "user", "content": "And now?"},
                        {"role": "assistant", "content": [COMPACTION, {"type": "text", "text": "18C."}]},
                        {"role": "user", "content": "Thanks"}]}
    out = run(copy.deepcopy(doc), "c.json", "anthropic")
    assert [p.rule for p in check(out, "anthropic")] == []
    doc["messages"][4] = {"role": "user", "content": [{"type": "text", "text": ""}]}      # after it: judged
    out = run(copy.deepcopy(doc), "c.json", "anthropic")
    assert [(p.rule, p.where) for p in check(out, "anthropic")] == [("blank-text", "messages[4].content[0]")]


def test_a_responses_compaction_item_is_carried_unchanged_and_earlier_items_not_judged():
    item = {"type": "compaction", "id": "cmp_68af0b5c", "encrypted_content": "gAAAAABo-compacted"}
    stray = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}    # no following item
    doc = {"model": "gpt-5", "input": [{"role": "user", "content": "Weather in Paris?"}, stray,
                                       {"role": "user", "content": "again?"}, item,
                                       {"role": "user", "content": "And Rome?"}]}
    out = run(json.dumps(doc).encode(), "r.json", "openai-responses")
    assert out.exported["input"][3] == item and not out.changed
    assert [p.rule for p in check(out, "openai-responses") if p.severity == ERROR] == []
    assert [e.kind for e in out.imported.events if e.kind == "compacted-before"] == ["compacted-before"]
    without = copy.deepcopy(doc)
    del without["input"][3]
    assert "reasoning-without-following" in {p.rule for p in check(run(without, "r.json", "openai-responses"),
                                                                    "openai-responses")}

"""The Cline-family fixtures and resume simulator agree with what each extension's source does
(docs/stores/cline.md): which folders each one resumes, which it refuses, and how."""

from __future__ import annotations

import json

import pytest

from . import cline_builder as b
from . import cline_simulate as sim

# What the Anthropic API does with each fixture on a resume, per extension (from the source).
REFUSED = {
    "clean": set(),
    "crash-trailing": set(),
    "crash-parallel-lost": {"roo", "kilo"},          # Cline answers it with "result missing"
    "crash-then-typed": {"roo", "kilo"},             # their placeholder comes after the user's text
    "duplicate-result": {"cline", "roo", "kilo"},    # v4's sanitizer collects one result per call
    "orphan-result": {"cline", "cline-v4", "roo", "kilo"},
    "condensed": set(),
    "truncated": set(),
    "reasoning": {"roo", "kilo"},
}


def folder(tmp_path, name, ext):
    return b.SCENARIOS[name](ext).write(tmp_path / b.EXTENSION_IDS[ext])


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("agent", sim.AGENTS)
def test_which_resumes_the_api_refuses(tmp_path, name, agent):
    found = sim.problems(folder(tmp_path, name, agent.split("-")[0]), agent)
    assert bool(found) == (agent in REFUSED[name]), found


def test_files_are_written_as_json_stringify(tmp_path):
    f = folder(tmp_path, "reasoning", "cline")
    data = (f / "api_conversation_history.json").read_bytes()
    assert data.startswith(b'[{"role":"user","content":[{"type":"text","text":"<task>')
    assert not data.endswith(b"\n") and b'": ' not in data[:200]
    assert (f / "task_metadata.json").read_bytes().startswith(b'{\n  "files_in_context": [')
    state = json.loads((f.parent.parent / "state" / "taskHistory.json").read_bytes())
    assert state[0]["id"] == f.name


@pytest.mark.parametrize("agent, text", [("cline", sim.CLINE_MISSING), ("cline-v4", sim.V4_MISSING),
                                         ("roo", sim.INTERRUPTED), ("kilo", sim.INTERRUPTED)])
def test_a_trailing_call_is_answered_by_the_extension(tmp_path, agent, text):
    sent = sim.messages_sent(folder(tmp_path, "crash-trailing", agent.split("-")[0]), agent)
    k = next(i for i, m in enumerate(sent) if any(c.get("id") == "toolu_01Suite" for c in sim.calls(m)))
    first = sim.blocks(sent[k + 1]["content"])[0]
    assert first == {"type": "tool_result", "tool_use_id": "toolu_01Suite", "content": text}


def test_cline_truncation_keeps_the_first_pair_and_strips_orphaned_results(tmp_path):
    f = folder(tmp_path, "condensed", "cline")
    history = json.loads((f / "api_conversation_history.json").read_bytes())
    sent = sim.messages_sent(f, "cline")
    assert sent[0]["content"] == history[0]["content"]
    assert [x["type"] for x in sent[2]["content"]] == ["tool_result", "text"]
    # The first call lost its result with the cut: Cline answers it, and drops the cut-off result.
    assert sent[2]["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_01Run", "content": "result missing"}
    assert "toolu_01Open" not in json.dumps(sent)


def test_roo_sends_from_the_last_summary_without_its_orphans(tmp_path):
    f = folder(tmp_path, "condensed", "roo")
    sent = sim.messages_sent(f, "roo")
    assert sent[0]["content"][0]["text"].startswith("## Conversation Summary")
    assert "toolu_01Edit" not in json.dumps(sent)            # its call was condensed away
    assert "toolu_01Run" not in json.dumps(sent)


def test_kilo_sends_the_first_message_summary_and_tail(tmp_path):
    f = folder(tmp_path, "condensed", "kilo")
    history = json.loads((f / "api_conversation_history.json").read_bytes())
    sent = sim.messages_sent(f, "kilo")
    summary = next(m for m in history if m.get("isSummary"))
    assert summary["role"] == "assistant"
    assert sent[0]["content"] == history[0]["content"] and sent[1]["content"] == summary["content"]
    # The stored file declares toolu_01Grep twice (condensed turn and summary); only one is sent.
    assert json.dumps(history).count('"id": "toolu_01Grep"') == 2
    assert json.dumps(sent).count('"id": "toolu_01Grep"') == 1


def test_roo_reasoning_blocks_sent_to_anthropic(tmp_path):
    sent = sim.messages_sent(folder(tmp_path, "reasoning", "roo"), "roo")
    kinds = [[x["type"] for x in sim.blocks(m["content"])] for m in sent if m["role"] == "assistant"]
    assert kinds[0][0] == "thinking" and kinds[0].count("tool_use") == 2
    assert all("reasoning" not in k for k in kinds)


def test_cline_drops_unsigned_thinking(tmp_path):
    sent = sim.messages_sent(folder(tmp_path, "reasoning", "cline"), "cline")
    thoughts = [x for m in sent for x in sim.blocks(m["content"]) if x.get("type") == "thinking"]
    assert len(thoughts) == 2 and all(t["signature"] for t in thoughts)


@pytest.mark.parametrize("ext", ("roo", "kilo"))
def test_a_sliding_window_hides_its_tagged_messages(tmp_path, ext):
    f = folder(tmp_path, "truncated", ext)
    history = json.loads((f / "api_conversation_history.json").read_bytes())
    assert [m.get("truncationParent") is not None for m in history].count(True) == 4
    sent = json.dumps(sim.messages_sent(f, ext))
    assert "toolu_01Old" not in sent and "Sliding window truncation" in sent

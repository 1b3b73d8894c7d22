"""Codex rollouts: broken, repaired, then resumed by a simulator that rebuilds the history as
codex-rs does (response items in order; a compaction's replacement_history replaces what came
before) and checks it against the Responses API's pairing rules."""

from __future__ import annotations

import orjson
import pytest

from inspector.formats import codex_rollout, openai_responses
from inspector.pipeline import run

from . import codex_builder, simulate
from .simulate import rejected

CASES = sorted(codex_builder.BROKEN.items())


def resume(data: bytes) -> list:
    history: list = []
    for line in data.splitlines():
        e = orjson.loads(line)
        if e["type"] == "response_item":
            history.append(e["payload"])
        elif e["type"] == "compacted":
            history = list(e["payload"]["replacement_history"])
    return history


def problems(data: bytes) -> list[str]:
    items = resume(data)
    found = rejected(openai_responses.import_(items, "<resume>").messages, "openai-responses")
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    if len(outputs) != len(set(outputs)):
        found.append("duplicate function_call_output")
    return found


@pytest.mark.parametrize("name, make", CASES, ids=[c[0] for c in CASES])
def test_broken_rollout_resumes_after_repair(name, make):
    data = make()
    assert problems(data)
    out = run(data, name)
    assert out.imported.format == "codex-rollout"
    assert problems(out.data) == []
    again = run(out.data, name)
    assert not again.result.events and again.data == out.data


@pytest.mark.parametrize("name, make", CASES, ids=[c[0] for c in CASES])
def test_lines_nothing_touches_are_byte_identical_in_order(name, make):
    data = make()
    out = run(data, name)
    before, after = data.splitlines(), out.data.splitlines()
    notes = simulate.export_notes(out)
    removed = {int(n[1].split()[1]) for n in notes if n[0] == "entry-removed"}
    added = sum(1 for n in notes if n[0] == "entry-added")
    kept = [line for k, line in enumerate(before, 1) if k not in removed]
    assert [line for line in after if line in set(kept)] == kept
    assert len(after) == len(before) - len(removed) + added


def test_synthesized_output_is_a_response_item_line_after_its_call():
    out = run(codex_builder.crash_missing_output(), "r")
    lines = [orjson.loads(x) for x in out.data.splitlines()]
    k = next(i for i, e in enumerate(lines) if e["type"] == "response_item"
             and e["payload"].get("type") == "function_call_output" and e["payload"]["call_id"] == "call_Qz81Lm")
    assert lines[k - 1]["payload"]["call_id"] == "call_Qz81Lm"
    assert lines[k - 1]["payload"]["type"] == "function_call"
    assert lines[k]["timestamp"] == lines[k - 1]["timestamp"]


def test_compaction_replaces_what_came_before():
    im = run(codex_builder.orphan_output_after_compaction(), "r").imported
    assert im.where(0) == "line 9, replacement_history[0]"
    assert len(im.messages) == 3


def test_clean_rollout_is_unchanged():
    data = codex_builder.clean()
    out = run(data, "r")
    assert not out.changed and out.data == data


def test_older_layout_with_bare_items():
    data = b"".join(orjson.dumps(e) + b"\n" for e in [
        {"id": "4f1c", "timestamp": "2025-07-01T10:00:00.000Z", "instructions": None},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]},
        {"record_type": "state"},
        {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "call_1"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello?"}]},
    ])
    assert codex_rollout.sniff(data)
    out = run(data, "old.jsonl")
    assert out.result.synthesized == 1
    lines = [orjson.loads(x) for x in out.data.splitlines()]
    assert lines[4] == {"type": "function_call_output", "call_id": "call_1",
                        "output": "Tool call was interrupted; no result."}


def test_sniff_does_not_claim_claude_code_or_json():
    from . import scenarios

    assert not codex_rollout.sniff(scenarios.crash_missing_result())
    assert not codex_rollout.sniff(b'{"input": []}')


def test_strict_moves_a_separated_output_line_next_to_its_call():
    r = codex_builder.Rollout()
    r.user("Run the suite.")
    r.call("call_Rt4u9X", "pytest -x")
    r.user("and lint after")
    r.output("call_Rt4u9X", "42 passed", 0)
    r.say("All pass.")
    data = r.data()
    out = run(data, "r", strict=True)
    assert out.result.moved == 1
    assert problems(out.data) == []
    assert sorted(out.data.splitlines()) == sorted(data.splitlines())   # same lines, one moved
    items = resume(out.data)
    assert [i.get("type") for i in items[1:3]] == ["function_call", "function_call_output"]


def test_the_verdict_says_codex_answers_an_unanswered_call_itself(tmp_path, capsys):
    """Issue 21: a rollout killed mid-command ends with a function_call and no output. Codex
    sends an "aborted" output for it itself (ensure_call_outputs_present, openai/codex
    codex-rs/core/src/context_manager/normalize.rs at 0803cc5), so the provider would not
    refuse it: the verdict says what Codex does, and the repair still writes an output."""
    from inspector.cli import main

    path = tmp_path / "rollout.jsonl"
    path.write_bytes(codex_builder.crash_missing_output())
    # Codex's own repair covers the one change MEM-5 makes: the resume works, exit 0 (issue 29).
    assert main(["check", str(path)]) == 0
    line = capsys.readouterr().out
    assert 'Codex answers a call left without output with "aborted" itself on resume: 1 case' in line
    assert "resume fails now" not in line and "would refuse" not in line
    out = run(path.read_bytes(), str(path))
    assert [e.kind for e in out.result.events] == ["result-synthesized"]


def test_the_verdict_says_codex_leaves_out_an_orphan_output_itself(tmp_path, capsys):
    """remove_orphan_outputs (same file): an output whose call a compaction dropped is not
    sent, so it is no refusal either; the repair still removes its line."""
    from inspector.cli import main

    path = tmp_path / "rollout.jsonl"
    path.write_bytes(codex_builder.orphan_output_after_compaction())
    assert main(["check", str(path)]) == 0           # Codex's own repair covers it (issue 29)
    line = capsys.readouterr().out
    assert "Codex leaves out an output that answers no call itself on resume: 1 case" in line
    assert "resume fails now" not in line and "would refuse" not in line

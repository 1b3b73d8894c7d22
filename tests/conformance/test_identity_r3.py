"""Round-3 hostile failures of issue 32 that identity work fixes (``../shared/hostile-round3``):

- R3-22: ``--strict`` on a Claude Code session whose user line holds one call's result and a text,
  with the other call's result on a later line: the strict output must resume (Anthropic takes it)
  and be a fixed point. (The reproducer's file, as it is.)
- R3-23: a Responses input ``[developer, early output, call, real output]`` converted ``--to``
  Anthropic, Gemini or Bedrock: in call order the early output answers nothing, so the real one
  answers the call, and the conversion is a fixed point of its target format.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from inspector.pipeline import run
from inspector.targets import check

HERE = Path(__file__).parent


def _errors(outcome, target):
    return [p for p in check(outcome, target) if p.severity == "error"]


def test_r3_22_strict_output_of_a_text_between_results_resumes():
    data = (HERE / "r3_22_claude_strict_text_between.jsonl").read_bytes()
    assert _errors(run(data, "s.jsonl"), "anthropic")                    # refused as it is
    out = run(data, "s.jsonl", strict=True)
    again = run(out.data, "s.jsonl")
    assert _errors(again, "anthropic") == []
    assert not again.changed and not run(out.data, "s.jsonl", strict=True).changed
    results = [b.get("tool_use_id") for line in out.data.splitlines()
               for e in [orjson.loads(line)] if e.get("type") == "user" and isinstance(e["message"]["content"], list)
               for b in e["message"]["content"] if b.get("type") == "tool_result"]
    assert sorted(results) == ["toolu_A", "toolu_B", "toolu_C"]        # every real result kept


R3_23 = {"model": "m", "input": [
    {"type": "message", "role": "developer", "content": "be brief"},
    {"type": "function_call_output", "call_id": "call_d", "output": "EARLY"},
    {"type": "function_call", "call_id": "call_d", "name": "f", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_d", "output": "REAL D"}]}


@pytest.mark.parametrize("target", ["anthropic", "gemini", "bedrock"])
def test_r3_23_an_early_output_answers_nothing_and_the_conversion_is_a_fixed_point(target):
    out = run(orjson.dumps(R3_23), "r.json", to=target)
    assert "result-early" in [e.kind for e in out.imported.events]
    assert b"REAL D" in out.data and b"EARLY" not in out.data
    back = run(out.data, "back.json", fmt=target)
    assert not back.changed and not back.result.events
    if target == "anthropic":
        assert _errors(back, "anthropic") == []

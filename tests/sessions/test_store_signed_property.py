"""Do no harm to what a provider signed, in the session stores (issue 20 item 2, as a property):
for generated Claude Code sessions (thinking streamed one block per line) and Codex rollouts
(encrypted reasoning items), damaged the ways MEM-5 repairs (lost, repeated, orphan and late
results), every signed line of the input is in the repaired file byte for byte, and what a
resume sends from it has each block in its own turn, ahead of the calls it preceded, with and
without ``--strict``."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.pipeline import run

from . import simulate
from .claude_builder import Session, text, tool
from .codex_builder import Rollout


@dataclass
class Turn:
    calls: int
    thoughts: int
    answered: list[bool]
    repeated: list[bool]
    late: bool
    words: bool


turns = st.lists(st.builds(Turn, st.integers(1, 3), st.integers(1, 2), st.lists(st.booleans(), min_size=3, max_size=3),
                           st.lists(st.booleans(), min_size=3, max_size=3), st.booleans(), st.booleans()),
                 min_size=1, max_size=4)


def _sig(t: int, k: int) -> str:
    return f"EqQBCkYIBRgCKkB{t}x{k}" + "Zm9v" * 6


def claude(history: list[Turn], orphan: bool) -> bytes:
    s = Session(version="2.1.90")
    for t, turn in enumerate(history):
        s.user(f"question {t}")
        blocks = [{"type": "thinking", "thinking": f"think {t}.{k}", "signature": _sig(t, k)} if k == 0
                  else {"type": "redacted_thinking", "data": _sig(t, k)} for k in range(turn.thoughts)]
        if turn.words:
            blocks.append(text(f"answer {t}"))
        blocks += [tool(f"toolu_{t}_{j}", f"cmd {j}") for j in range(turn.calls)]
        s.assistant(f"msg_{t:04d}", *blocks)
        if turn.late:
            s.user("meanwhile")
        for j in range(turn.calls):
            if turn.answered[j]:
                s.result(f"toolu_{t}_{j}", f"r{j}")
            if turn.repeated[j]:
                s.result(f"toolu_{t}_{j}", "again")
        if orphan:
            s.result(f"toolu_orphan{t}", "?")
    return s.data()


def _thinking(line: dict) -> bool:
    content = (line.get("message") or {}).get("content") if isinstance(line, dict) else None
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")
                                             for b in content)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=turns, orphan=st.booleans(), strict=st.booleans())
def test_claude_code_thinking_lines_come_back_byte_for_byte_and_ahead_of_their_calls(history, orphan, strict):
    data = claude(history, orphan)
    out = run(data, "gen.jsonl", strict=strict)
    before = data.split(b"\n")
    signed = [raw for raw, e in zip(before, simulate.entries(data)) if _thinking(e)]
    after = out.data.split(b"\n")
    assert all(after.count(raw) == 1 for raw in signed)            # each one, identical, once
    assert len(out.imported.signed) == sum(t.thoughts for t in history)
    request = simulate.request(out.data)
    for t, turn in enumerate(history):
        (home,) = [m for m in request["messages"] if m["role"] == "assistant"
                   and any(b.get("signature") == _sig(t, 0) for b in m["content"])]
        kinds = [b["type"] for b in home["content"]]
        first_call = kinds.index("tool_use")
        assert all(k < first_call for k, kind in enumerate(kinds) if kind in ("thinking", "redacted_thinking"))
        assert kinds.count("tool_use") == turn.calls                   # its calls kept, in their turn
    assert simulate.problems(out.data) == [] or not strict           # --strict leaves nothing to refuse


def codex(history: list[Turn], orphan: bool) -> bytes:
    r = Rollout()
    for t, turn in enumerate(history):
        r.user(f"question {t}")
        r.reasoning(f"**Step {t}**")
        r.lines[-1]["payload"]["encrypted_content"] = _sig(t, 0)
        for j in range(turn.calls):
            r.call(f"call_{t}_{j}", f"cmd {j}")
        if turn.late:
            r.user("meanwhile")
        for j in range(turn.calls):
            if turn.answered[j]:
                r.output(f"call_{t}_{j}", f"r{j}")
            if turn.repeated[j]:
                r.output(f"call_{t}_{j}", "again")
        if orphan:
            r.output(f"call_orphan{t}", "?")
    return r.data()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=turns, orphan=st.booleans(), strict=st.booleans())
def test_codex_reasoning_lines_come_back_byte_for_byte_before_their_calls(history, orphan, strict):
    data = codex(history, orphan)
    out = run(data, "rollout.jsonl", strict=strict)
    before = data.split(b"\n")
    signed = [raw for raw in before if b'"type":"reasoning"' in raw]
    after = out.data.split(b"\n")
    assert len(signed) == len(history) and all(after.count(raw) == 1 for raw in signed)
    # Among the items the repaired rollout sends, each reasoning item is right before its first call.
    items = [line for line in after if b'"type":"response_item"' in line]
    for t in range(len(history)):
        at = next(k for k, line in enumerate(items) if _sig(t, 0).encode() in line)
        assert f'"call_id":"call_{t}_0"'.encode() in items[at + 1] and b'"function_call"' in items[at + 1]

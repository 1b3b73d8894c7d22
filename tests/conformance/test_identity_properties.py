"""Issue 30, as properties over generated provider-format histories (Chat Completions bodies)
whose turns reuse a few id strings and leave some ids empty:

- no result whose call precedes it is dropped (each result here answers one call of the turn
  right before it, as a provider pairs them), and every output is a fixed point ``check`` accepts;
- ``--strict`` never moves a result onto a call other than the one it answered: the latest
  declaration of its id before it (flat lists and provider bodies alike).
"""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from inspector.engine import normalize
from inspector.pipeline import run

POOL = ("tool_0_bash", "call_1", "", "0")


@st.composite
def histories(draw, answer_all: bool = True):
    """A user prompt, then turns of 1-3 calls (ids from a small pool, distinct in a turn but for
    the empty ones), each followed by results for its calls in order (all of them, or a draw)."""
    messages = [{"role": "user", "content": "go"}]
    for t in range(draw(st.integers(1, 6))):
        ids = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=3))
        seen: set[str] = set()
        ids = [i for i in ids if i in ("", "0") or not (i in seen or seen.add(i))]
        calls = [{"id": i, "type": "function", "function": {"name": f"f{t}{j}", "arguments": "{}"}}
                 for j, i in enumerate(ids)]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        for j, i in enumerate(ids):
            if answer_all or draw(st.booleans()):
                messages.append({"role": "tool", "tool_call_id": i, "content": f"r{t}{j}"})
        if draw(st.booleans()):
            messages.append({"role": "user", "content": f"u{t}"})
    return messages


@given(histories())
def test_no_answered_result_is_dropped_and_the_output_is_a_fixed_point(messages):
    out = run(orjson.dumps({"messages": messages}), "h.json", fmt="openai-chat")
    rows = {i for i, m in enumerate(messages) if m["role"] == "tool"}
    dropped = {e.origin for e in out.result.events if e.drop}
    assert not rows & dropped, [e.message for e in out.result.events if e.origin in rows]
    assert not out.result.synthesized
    again = run(out.data, "again.json", fmt="openai-chat")
    assert not again.changed and not again.result.events


@given(histories(answer_all=False))
def test_every_output_is_a_fixed_point_check_accepts(messages):
    out = run(orjson.dumps({"messages": messages}), "h.json", fmt="openai-chat")
    again = run(out.data, "again.json", fmt="openai-chat")
    assert not again.changed and not again.result.events
    # what the provider pairs keeps its pair: a result in the block right after its turn stays
    for e in out.result.events:
        if e.drop and e.origin is not None and messages[e.origin]["role"] == "tool":
            cid = messages[e.origin]["tool_call_id"]
            before = messages[:e.origin]
            turn = max(k for k, m in enumerate(before) if m["role"] == "assistant")
            block = all(m["role"] == "tool" for m in messages[turn + 1:e.origin])
            same = [c["id"] for c in messages[turn]["tool_calls"]].count(cid)
            answered = [m["tool_call_id"] for m in messages[turn + 1:e.origin]].count(cid)
            assert not (block and cid not in ("", "0") and answered < same), e.message


def _owner(messages, q):
    """The call a result at ``q`` answers by position: the latest turn before it declaring its id."""
    cid = messages[q]["tool_call_id"]
    for k in range(q - 1, -1, -1):
        m = messages[k]
        if m["role"] == "assistant" and any(c.get("tool_call_id", c.get("id")) == cid for c in m.get("tool_calls") or ()):
            return k
    return None


@st.composite
def scattered(draw):
    """Turns reusing ids with results anywhere later (separated by prompts, before later turns)."""
    messages = draw(histories(answer_all=False))
    tools = [m for m in messages if m["role"] == "tool"]
    rest = [m for m in messages if m["role"] != "tool"]
    for m in tools:
        rest.insert(draw(st.integers(1, len(rest))), m)
    return rest


def _check_moves(messages, result):
    for e in result.events:
        if e.kind != "strict-moved":
            continue
        at = result.origins.index(e.origin)
        turn = at - 1
        while result.messages[turn]["role"] == "tool":
            turn -= 1
        assert result.origins[turn] == _owner(messages, e.origin), e.message


@given(scattered())
def test_strict_moves_a_result_only_next_to_the_call_it_answered(messages):
    flat = [{**m, "tool_calls": [{"tool_call_id": c["id"], "name": c["function"]["name"], "arguments": "{}"}
                                 for c in m["tool_calls"]]} if m.get("tool_calls") else m for m in messages]
    _check_moves(flat, normalize(flat, ("strict",)))
    out = run(orjson.dumps({"messages": messages}), "h.json", fmt="openai-chat", strict=True)
    _check_moves(messages, out.result)

"""Do no harm to what a provider signed (issue 20, item 2), as a property: for generated
histories with signed reasoning, in every format that carries it, every signed block of the
input is in the output, identical, in its own turn and ahead of the calls it preceded, with
and without ``--strict``. The damage is what MEM-5 repairs around a turn (lost, repeated,
orphan, late and leading results, a late system message); a repair that drops a call from a
signed turn is an event instead (``test_reasoning.py``)."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.pipeline import run


@dataclass
class Turn:
    calls: int
    thoughts: int            # signed blocks ahead of the calls
    answered: list[bool]
    repeated: list[bool]
    late: bool               # results after the next user message
    text_after: bool         # text after the calls (Anthropic --strict would move it)
    interleaved: bool        # one more signed block between the first call and the next


turns = st.lists(st.builds(
    Turn, st.integers(0, 3), st.integers(1, 2), st.lists(st.booleans(), min_size=3, max_size=3),
    st.lists(st.booleans(), min_size=3, max_size=3), st.booleans(), st.booleans(), st.booleans()),
    min_size=1, max_size=4)
extras = st.fixed_dictionaries({"orphan": st.booleans(), "leading": st.booleans(), "system": st.booleans()})


def _sig(t: int, k: int) -> str:
    return f"SIG-{t}-{k}-" + "Zm9v" * 3


def anthropic(history: list[Turn], extra: dict) -> dict:
    msgs: list = []
    if extra["leading"]:
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "gone", "content": "x"}]})
    for t, turn in enumerate(history):
        msgs.append({"role": "user", "content": f"question {t}"})
        blocks: list = [{"type": "thinking", "thinking": f"think {t}.{k}", "signature": _sig(t, k)} if k % 2 == 0
                        else {"type": "redacted_thinking", "data": _sig(t, k)} for k in range(turn.thoughts)]
        blocks += [{"type": "tool_use", "id": f"c{t}_{j}", "name": "f", "input": {"j": j}} for j in range(turn.calls)]
        if turn.interleaved and turn.calls:
            blocks.insert(turn.thoughts + 1, {"type": "thinking", "thinking": f"then {t}", "signature": _sig(t, 9)})
        if turn.text_after or not turn.calls:
            blocks.append({"type": "text", "text": f"answer {t}"})
        msgs.append({"role": "assistant", "content": blocks})
        results = []
        for j in range(turn.calls):
            if turn.answered[j]:
                results.append({"type": "tool_result", "tool_use_id": f"c{t}_{j}", "content": f"r{j}"})
            if turn.repeated[j]:
                results.append({"type": "tool_result", "tool_use_id": f"c{t}_{j}", "content": "again"})
        if extra["orphan"]:
            results.append({"type": "tool_result", "tool_use_id": f"orphan{t}", "content": "?"})
        if results:
            if turn.late:
                msgs.append({"role": "user", "content": "meanwhile"})
                msgs.append({"role": "assistant", "content": "ok"})
            msgs.append({"role": "user", "content": results})
        if extra["system"] and t == 0:
            msgs.append({"role": "system", "content": "late system"})
    return {"model": "claude-sonnet-4-5", "thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": msgs}


def bedrock(history: list[Turn], extra: dict) -> dict:
    def block(b: dict) -> dict:
        kind = b["type"]
        if kind == "thinking":
            return {"reasoningContent": {"reasoningText": {"text": b["thinking"], "signature": b["signature"]}}}
        if kind == "redacted_thinking":
            return {"reasoningContent": {"redactedContent": b["data"]}}
        if kind == "tool_use":
            return {"toolUse": {"toolUseId": b["id"], "name": b["name"], "input": b["input"]}}
        if kind == "tool_result":
            return {"toolResult": {"toolUseId": b["tool_use_id"], "content": [{"text": b["content"]}]}}
        return {"text": b["text"]}
    msgs = []
    for m in anthropic(history, extra)["messages"]:
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        msgs.append({"role": m["role"], "content": [block(b) for b in content]})
    return {"modelId": "anthropic.claude", "messages": msgs}


def gemini(history: list[Turn], extra: dict) -> dict:
    contents: list = []
    if extra["leading"]:
        contents.append({"role": "user", "parts": [{"functionResponse": {"id": "gone", "name": "f", "response": {}}}]})
    for t, turn in enumerate(history):
        contents.append({"role": "user", "parts": [{"text": f"question {t}"}]})
        parts: list = [{"text": f"think {t}", "thought": True, "thoughtSignature": _sig(t, 0)}]
        for j in range(turn.calls):
            part: dict = {"functionCall": {"id": f"c{t}_{j}", "name": "f", "args": {"j": j}}}
            if j == 0:
                part["thoughtSignature"] = _sig(t, 1)
            parts.append(part)
        if not turn.calls:
            parts.append({"text": f"answer {t}", "thoughtSignature": _sig(t, 2)})
        contents.append({"role": "model", "parts": parts})
        results = [{"functionResponse": {"id": f"c{t}_{j}", "name": "f", "response": {"r": j}}}
                   for j in range(turn.calls) if turn.answered[j]]
        results += [{"functionResponse": {"id": f"c{t}_{j}", "name": "f", "response": {}}}
                    for j in range(turn.calls) if turn.repeated[j]]
        if results:
            if turn.late:
                contents += [{"role": "user", "parts": [{"text": "meanwhile"}]}, {"role": "model", "parts": [{"text": "ok"}]}]
            contents.append({"role": "user", "parts": results})
    return {"contents": contents}


def responses(history: list[Turn], extra: dict) -> dict:
    items: list = []
    if extra["leading"]:
        items.append({"type": "function_call_output", "call_id": "gone", "output": "x"})
    for t, turn in enumerate(history):
        items.append({"role": "user", "content": f"question {t}"})
        items.append({"type": "reasoning", "id": f"rs_{t}", "summary": [], "encrypted_content": _sig(t, 0)})
        for j in range(turn.calls):
            items.append({"type": "function_call", "id": f"fc_{t}_{j}", "call_id": f"c{t}_{j}", "name": "f",
                          "arguments": "{}"})
        if not turn.calls or turn.text_after:
            items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a"}]})
        outs = [{"type": "function_call_output", "call_id": f"c{t}_{j}", "output": f"r{j}"}
                for j in range(turn.calls) if turn.answered[j]]
        outs += [{"type": "function_call_output", "call_id": f"c{t}_{j}", "output": "again"}
                 for j in range(turn.calls) if turn.repeated[j]]
        if extra["orphan"]:
            outs.append({"type": "function_call_output", "call_id": f"orphan{t}", "output": "?"})
        if outs and turn.late:
            items += [{"role": "user", "content": "meanwhile"}]
        items += outs
        if extra["system"] and t == 0:
            items.append({"role": "system", "content": "late system"})
    return {"model": "o4-mini", "reasoning": {"effort": "low"}, "input": items}


def _is_call(b) -> bool:
    return isinstance(b, dict) and (b.get("type") == "tool_use" or "toolUse" in b or "functionCall" in b)


def _signed(b) -> bool:
    if not isinstance(b, dict):
        return False
    return (b.get("type") in ("thinking", "redacted_thinking") or "reasoningContent" in b
            or "thoughtSignature" in b)


def _call_id(b) -> str:
    return b.get("id") or (b.get("toolUse") or {}).get("toolUseId") or (b.get("functionCall") or {}).get("id")


def check_blocks(doc: dict, out: dict, key: str, container: str) -> None:
    written = out[container]
    calls_out = {_call_id(b) for m in written if isinstance(m.get(key), list) for b in m[key] if _is_call(b)}
    for m in doc[container]:
        blocks = m.get(key)
        if not isinstance(blocks, list):
            continue
        for k, b in enumerate(blocks):
            if not _signed(b):
                continue
            homes = [(w, kk) for w in written if isinstance(w.get(key), list) for kk, bb in enumerate(w[key]) if bb == b]
            assert len(homes) == 1, (b, homes)                       # in the output, identical, once
            home, at = homes[0]
            assert home.get("role") == m.get("role")                 # in its own turn
            after = [_call_id(c) for c in blocks[k:] if _is_call(c) and _call_id(c) in calls_out]
            earlier = {_call_id(c) for c in blocks[:k] if _is_call(c)}
            mine = [_call_id(c) for c in home[key][at:] if _is_call(c)]
            assert after == [c for c in mine if c in after], (after, mine)    # ahead of its calls, in order
            assert set(after) <= set(mine)
            assert not earlier & set(mine), (earlier, mine)        # and still after the calls it followed


def check_items(doc: dict, out: dict) -> None:
    written = out["input"]
    for k, it in enumerate(doc["input"]):
        if it.get("type") != "reasoning":
            continue
        at = [p for p, w in enumerate(written) if w == it]
        assert len(at) == 1, it
        following = doc["input"][k + 1]
        if following in written:
            assert written[at[0] + 1] == following                   # its following item right after it


BUILDERS = {"anthropic": (anthropic, "content", "messages"), "bedrock": (bedrock, "content", "messages"),
            "gemini": (gemini, "parts", "contents"), "openai-responses": (responses, None, "input")}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=turns, extra=extras, strict=st.booleans(), fmt=st.sampled_from(sorted(BUILDERS)),
       detect=st.booleans())
def test_every_signed_block_comes_back_identical_in_its_turn_before_its_calls(history, extra, strict, fmt, detect):
    build, key, container = BUILDERS[fmt]
    doc = build(history, extra)
    data = orjson.dumps(doc)
    out = run(data, "gen.json", "auto" if detect else fmt, strict=strict)
    assert out.format == fmt
    written = out.exported
    assert orjson.loads(data) == doc                 # the input was not edited
    if key is None:
        check_items(doc, written)
    else:
        check_blocks(doc, written, key, container)
    # Read back, the output keeps them all again (a second pass changes nothing signed).
    again = run(orjson.dumps(written), "again.json", fmt, strict=strict)
    if key is None:
        check_items(written, again.exported)
    else:
        check_blocks(written, again.exported, key, container)

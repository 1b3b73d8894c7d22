"""The one tool-pairing repair procedure (MEM-5 clause 3); stage 4 calls it again.

Ids are matched as sets over the whole list, not by position: a result anywhere answers
a call declared anywhere. Three passes: declarations, results, heal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cast import WHITESPACE, is_unusable, to_id
from .model import Recorder

CLAUSE = "3"
INTERRUPTED = "Tool call was interrupted; no result."


def repair(
    messages: list[dict[str, Any]],
    origins: list[int | None],
    rec: Recorder,
    stage: str = "repair",
) -> tuple[list[dict[str, Any]], list[int | None]]:
    record = rec.record

    # A: declarations. The first declaration of an id owns the pairing.
    declared: set[str] = set()
    msgs_a: list[dict[str, Any]] = []
    orig_a: list[int | None] = []
    for msg, origin in zip(messages, origins):
        calls = msg.get("tool_calls") if msg["role"] == "assistant" else None
        if calls:
            kept = []
            lost = changed = False
            for j, call in enumerate(calls):
                if not isinstance(call, Mapping):
                    record(stage, CLAUSE, "call-malformed", True, origin,
                           f"Dropped call {j} of this turn: it is not an object, so it has no id to pair.",
                           call=j)
                    lost = True
                    continue
                raw = call.get("tool_call_id")
                if raw is None:
                    raw = call.get("id")
                cid = to_id(raw)
                if is_unusable(cid):
                    record(stage, CLAUSE, "call-unusable-id", True, origin,
                           f"Dropped call {j}: its id {cid!r} is empty or '0', which the runtime treats "
                           "as no id, so no result could ever be paired with it.",
                           call=j, tool_call_id=cid)
                    lost = True
                    continue
                if cid in declared:
                    record(stage, CLAUSE, "call-redeclared", True, origin,
                           f"Dropped call {j} ({cid!r}): that id was already declared earlier, and the "
                           "first declaration owns the pairing.",
                           call=j, tool_call_id=cid)
                    lost = True
                    continue
                declared.add(cid)
                if call.get("tool_call_id") != cid or type(call.get("tool_call_id")) is not str:
                    call = {**call, "tool_call_id": cid}
                    changed = True
                kept.append(call)
            if lost or changed:
                if kept:
                    msg = {"role": msg["role"], "content": msg["content"], "tool_calls": kept}
                elif msg["content"].strip(WHITESPACE):
                    msg = {"role": msg["role"], "content": msg["content"]}
                else:
                    record(stage, CLAUSE, "turn-emptied", True, origin,
                           "Dropped this assistant turn: it lost every call and has no text, "
                           "so nothing of it is left to send.")
                    continue
        msgs_a.append(msg)
        orig_a.append(origin)

    # B: results. Each declared id is answered once; the first result wins.
    answered: set[str] = set()
    msgs_b: list[dict[str, Any]] = []
    orig_b: list[int | None] = []
    for msg, origin in zip(msgs_a, orig_a):
        if msg["role"] == "tool":
            cid = msg["tool_call_id"]
            if is_unusable(cid):
                record(stage, CLAUSE, "result-unusable-id", True, origin,
                       f"Dropped this result: its id {cid!r} is empty or '0', so it can answer no call.",
                       tool_call_id=cid)
                continue
            if cid not in declared:
                record(stage, CLAUSE, "result-orphan", True, origin,
                       f"Dropped the result for call {cid!r}: no turn declares that id (orphan result).",
                       tool_call_id=cid)
                continue
            if cid in answered:
                record(stage, CLAUSE, "result-duplicate", True, origin,
                       f"Dropped this result for call {cid!r}: an earlier result already answers it "
                       "(duplicate; the first result wins).",
                       tool_call_id=cid)
                continue
            answered.add(cid)
        msgs_b.append(msg)
        orig_b.append(origin)

    # C: heal. An unanswered call gets a synthetic result right after its turn.
    if len(answered) == len(declared):
        return msgs_b, orig_b
    out: list[dict[str, Any]] = []
    orig: list[int | None] = []
    for msg, origin in zip(msgs_b, orig_b):
        out.append(msg)
        orig.append(origin)
        if msg["role"] == "assistant" and "tool_calls" in msg:
            for call in msg["tool_calls"]:
                cid = call["tool_call_id"]
                if cid not in answered:
                    out.append({"role": "tool", "content": INTERRUPTED, "tool_call_id": cid})
                    orig.append(None)
                    record(stage, CLAUSE, "result-synthesized", False, None,
                           f"Inserted an 'interrupted' result for call {cid!r} right after its turn: "
                           "no result answers it, and every call needs one.",
                           tool_call_id=cid)
    return out, orig

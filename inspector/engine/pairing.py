"""The one tool-pairing repair procedure (MEM-5 clause 3); stage 4 calls it again.

Ids are matched as sets over the whole list, not by position: a result anywhere answers
a call declared anywhere. Three passes: declarations, results, heal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cast import UNUSABLE, WHITESPACE, call_id
from .model import Recorder
from .rule import SIDE_EFFECTS_UNKNOWN

INTERRUPTED = "Tool call was interrupted; no result."


def repair(
    messages: list[dict[str, Any]],
    origins: list[int | None],
    rec: Recorder,
) -> tuple[list[dict[str, Any]], list[int | None]]:
    """Return new lists; message objects that need no change are shared, not copied.

    The passes only visit the rows they concern (tool rows, turns with calls) and record
    changes by position; the output is then spliced together from slices of the input,
    so a long, mostly healthy history costs one scan plus C-speed copying.
    """
    record = rec.record
    replaced: dict[int, dict[str, Any] | None] = {}  # position -> new message, or None if dropped
    tool_rows: list[int] = []
    tool_ids: list[Any] = []                        # each tool row's id, read while the row is at hand

    # A: declarations. The first declaration of an id owns the pairing; each id maps to
    # the position of the turn that declared it first (the cause of later events).
    declared: dict[str, int] = {}
    for pos, msg in enumerate(messages):
        role = msg["role"]
        if role == "tool":
            tool_rows.append(pos)
            tool_ids.append(msg["tool_call_id"])
            continue
        if role != "assistant":
            continue
        calls = msg.get("tool_calls")
        if not calls:
            continue
        # Fast path: calls that are plain objects with a fresh, usable string id need
        # nothing; only from the first call that does is the turn rebuilt.
        first = 0
        for call in calls:
            if type(call) is dict:
                cid = call.get("tool_call_id")
                if type(cid) is str and cid not in UNUSABLE and cid not in declared:
                    declared[cid] = pos
                    first += 1
                    continue
            break
        else:
            continue
        kept = calls[:first]
        lost = changed = False
        owner: int | None = None                    # the turn owning an id this one redeclared
        for j in range(first, len(calls)):
            call = calls[j]
            if type(call) is not dict and not isinstance(call, Mapping):
                record("call-malformed", origins[pos],
                       f"Dropped call {j} of this turn: it is not an object, so it has no id to pair.",
                       call=j)
                lost = True
                continue
            fresh = type(call.get("tool_call_id")) is not str  # the resolved id gets written in
            cid = call_id(call)
            if cid in UNUSABLE:
                record("call-unusable-id", origins[pos],
                       f"Dropped call {j}: its id {cid!r} is empty or '0', which the runtime treats "
                       "as no id, so no result could ever be paired with it.",
                       call=j, tool_call_id=cid)
                lost = True
                continue
            if cid in declared:
                owner = origins[declared[cid]]
                record("call-redeclared", origins[pos],
                       f"Dropped call {j} ({cid!r}): {_at(owner, 'that id was already declared')}, and "
                       "the first declaration owns the pairing.",
                       call=j, tool_call_id=cid, cause=owner)
                lost = True
                continue
            declared[cid] = pos
            if fresh:
                call = {**call, "tool_call_id": cid}
                changed = True
            kept.append(call)
        if kept:
            if lost or changed:
                replaced[pos] = {"role": role, "content": msg["content"], "tool_calls": kept}
        elif msg["content"].strip(WHITESPACE):
            replaced[pos] = {"role": role, "content": msg["content"]}
        else:
            record("turn-emptied", origins[pos],
                   "Dropped this assistant turn: it lost every call and has no text, "
                   "so nothing of it is left to send.", cause=owner)
            replaced[pos] = None

    # B: results. Each declared id is answered once; the first result wins.
    answered: dict[str, int] = {}                  # id -> position of its first result
    for pos, cid in zip(tool_rows, tool_ids):
        if cid in UNUSABLE:
            record("result-unusable-id", origins[pos],
                   f"Dropped this result: its id {cid!r} is empty or '0', so it can answer no call.",
                   tool_call_id=cid)
        elif cid not in declared:
            record("result-orphan", origins[pos],
                   f"Dropped the result for call {cid!r}: no turn declares that id (orphan result).",
                   tool_call_id=cid)
        elif cid in answered:
            first_result = origins[answered[cid]]
            record("result-duplicate", origins[pos],
                   f"Dropped this result for call {cid!r}: {_at(first_result, 'an earlier result already answers it')} "
                   "(duplicate; the first result wins).",
                   tool_call_id=cid, cause=first_result)
        else:
            answered[cid] = pos
            continue
        replaced[pos] = None

    # C: heal. An unanswered call gets a synthetic result right after its turn: only the
    # turns that declared an unanswered id are visited, in order, each call in its order.
    inserts: dict[int, list[dict[str, Any]]] = {}
    if len(answered) != len(declared):
        for pos in sorted({declared[cid] for cid in declared.keys() - answered.keys()}):
            msg = replaced.get(pos) or messages[pos]
            for call in msg["tool_calls"]:
                cid = call["tool_call_id"]
                if cid not in answered:
                    inserts.setdefault(pos, []).append(
                        {"role": "tool", "content": INTERRUPTED, "tool_call_id": cid})
                    turn = origins[pos]
                    record("result-synthesized", None,
                           f"Inserted an 'interrupted' result for call {cid!r} right after "
                           f"{_at(turn, 'its turn', 'the turn')}: no result answers it, and every call needs one. "
                           f"{SIDE_EFFECTS_UNKNOWN}",
                           tool_call_id=cid, cause=turn)

    if not replaced and not inserts:
        return list(messages), list(origins)
    out: list[dict[str, Any]] = []
    orig: list[int | None] = []
    prev = 0
    for pos in sorted(replaced.keys() | inserts.keys()):
        out += messages[prev:pos]
        orig += origins[prev:pos]
        msg = replaced[pos] if pos in replaced else messages[pos]
        if msg is not None:
            out.append(msg)
            orig.append(origins[pos])
        for synthetic in inserts.get(pos, ()):
            out.append(synthetic)
            orig.append(None)
        prev = pos + 1
    out += messages[prev:]
    orig += origins[prev:]
    return out, orig


def _at(origin: int | None, text: str, named: str | None = None) -> str:
    """``text`` with the input position it refers to, when there is one (``... at #3``)."""
    if origin is None:
        return text
    return f"{named or text} at #{origin}" if named else f"{text} at #{origin}"

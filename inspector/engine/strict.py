"""``--strict``: an extension beyond MEM-5 that repairs what the literal rule leaves.

MEM-5 (https://flowdrop.io/spec/rules/gr-mem/mem-5, clause 3) pairs ids as sets, so two
shapes survive normalization that providers reject (``semantics.md``, "Known limits"):
a result separated from its call by other rows, and a result placed before its call (not at
the front, where clause 4 already strips it). The ``strict`` stage runs after the four
MEM-5 stages and:

- moves a separated result up into the block of results right after its call's turn
  (``strict:adjacent``, not a drop);
- drops a result that comes before its call as an early result (``strict:early-result``,
  a drop), as if it were an orphan. The call it leaves unanswered gets the first later
  result that clause 3 had dropped as a duplicate of the early one, if there is one
  (``strict:restore``: that real answer is no longer a duplicate), else the same
  interrupted result MEM-5 uses (``strict:heal``).

Its clause names are not MEM-5 clause numbers: this stage is Inspector's, not the rule's.
Its events carry origins like every stage, and its drops count in ``dropped``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cast import call_id, to_id
from .model import Recorder, Stage
from .pairing import INTERRUPTED
from .rule import SIDE_EFFECTS_UNKNOWN


def strict_pass(messages: list[dict[str, Any]], origins: list[int | None], rec: Recorder,
                duplicates: dict[str, list[tuple[int, dict[str, Any]]]] | None = None,
                foreign: frozenset[int] = frozenset(),
                ) -> tuple[list[dict[str, Any]], list[int | None]]:
    """Make every result sit right after its call's turn. Expects MEM-5-normalized input.

    ``duplicates`` maps an id to the results clause 3 dropped as its duplicates, as
    ``(origin, message)`` in input order: candidates to answer a call whose early result
    this stage drops. ``foreign`` holds the origins of results that answered a declaration
    clause 3 dropped (a later declaration of their id): those are never moved onto the call
    that keeps the id; they are dropped, and that call is healed.
    """
    duplicates = duplicates or {}
    other: dict[int, set[str]] = {}          # turn -> ids whose only result answered another call
    declared: dict[str, int] = {}
    for p, m in enumerate(messages):
        if m["role"] == "assistant":
            for call in m.get("tool_calls") or ():
                declared.setdefault(call["tool_call_id"], p)
    placed: dict[int, list[int]] = {}
    early: dict[int, set[str]] = {}
    removed: set[int] = set()
    for q, m in enumerate(messages):
        if m["role"] != "tool" or m["tool_call_id"] not in declared:
            continue
        p = declared[m["tool_call_id"]]
        removed.add(q)
        if origins[q] in foreign:
            early.setdefault(p, set()).add(m["tool_call_id"])
            other.setdefault(p, set()).add(m["tool_call_id"])
            rec.record("strict-other-call", origins[q],
                       f"Dropped this result for call {m['tool_call_id']!r}: it answered a later declaration of "
                       "that id, which clause 3 dropped, and moving it next to the earlier call would hand that "
                       "call another call's result (strict, beyond MEM-5).",
                       tool_call_id=m["tool_call_id"], cause=origins[p])
        elif q < p:
            early.setdefault(p, set()).add(m["tool_call_id"])
            rec.record("strict-early-result", origins[q],
                       f"Dropped the result for call {m['tool_call_id']!r}: it comes before the turn that "
                       "makes the call, which no provider accepts (strict, beyond MEM-5).",
                       tool_call_id=m["tool_call_id"], cause=origins[p])
        else:
            placed.setdefault(p, []).append(q)
    out: list[dict[str, Any]] = []
    orig: list[int | None] = []
    for p, m in enumerate(messages):
        if p in removed:
            continue
        out.append(m)
        orig.append(origins[p])
        if p not in placed and p not in early:
            continue
        end = p + 1                      # the block of this turn's results already in place
        while end < len(messages) and messages[end]["role"] == "tool" \
                and declared.get(messages[end]["tool_call_id"]) == p:
            end += 1
        for q in placed.get(p, ()):
            out.append(messages[q])
            orig.append(origins[q])
            if q >= end:
                rec.record("strict-moved", origins[q],
                           f"Moved the result for call {messages[q]['tool_call_id']!r} up next to its call: "
                           "other messages separated them (strict, beyond MEM-5).",
                           tool_call_id=messages[q]["tool_call_id"], cause=origins[p])
        for call in m.get("tool_calls") or ():
            cid = call["tool_call_id"]
            if cid not in early.get(p, ()):
                continue
            turn = origins[p]
            late = None if cid in other.get(p, ()) else \
                next((d for d in duplicates.get(cid, ()) if turn is not None and d[0] > turn), None)
            if late is not None:
                out.append(late[1])
                orig.append(late[0])
                rec.record("strict-restored", late[0],
                           f"Kept this result for call {cid!r} after all: clause 3 dropped it as a duplicate of "
                           "the early result, which this stage dropped (strict, beyond MEM-5).",
                           tool_call_id=cid, cause=turn)
            else:
                out.append({"role": "tool", "content": INTERRUPTED, "tool_call_id": cid})
                orig.append(None)
                why = ("the only result with its id answered another call" if cid in other.get(p, ())
                       else "its only result came before it and was dropped")
                rec.record("strict-healed", None,
                           f"Inserted an 'interrupted' result for call {cid!r} right after its turn: {why} "
                           f"(strict, beyond MEM-5). {SIDE_EFFECTS_UNKNOWN}",
                           tool_call_id=cid, cause=turn)
    return out, orig


def run(messages: list[dict[str, Any]], origins: list[int | None], rec: Recorder,
        done: list[Stage]) -> tuple[list[dict[str, Any]], list[int | None]]:
    """The stage function: runs after the MEM-5 stages (``done``), on their output."""
    wanted = {e.origin: e.tool_call_id for e in rec.events
              if e.kind == "result-duplicate" and e.origin is not None}
    redeclared = {(e.origin, e.call) for e in rec.events if e.kind == "call-redeclared" and e.origin is not None}
    duplicates: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    hoisted = next((s for s in done if s.name == "hoist"), None) if wanted or redeclared else None
    if wanted and hoisted is not None:
        for msg, origin in zip(hoisted.messages, hoisted.origins):
            if origin in wanted:
                duplicates.setdefault(wanted[origin], []).append((origin, msg))
    foreign = _foreign(hoisted, redeclared) if redeclared and hoisted is not None else frozenset()
    return strict_pass(messages, origins, rec, duplicates, foreign)


def _foreign(hoisted: Stage, redeclared: set[tuple[int | None, int | None]]) -> frozenset[int]:
    """Origins of the results whose call, read by position (the latest declaration of their id
    before them), is a declaration clause 3 dropped in another turn than the one keeping the
    id (issue 30: the Amsterdam result must not answer the Mexico City call)."""
    first: dict[str, int | None] = {}
    latest: dict[str, tuple[int | None, int]] = {}
    out: set[int] = set()
    for msg, origin in zip(hoisted.messages, hoisted.origins):
        if type(msg) is not dict:
            continue
        role = msg.get("role")
        if role == "assistant" and isinstance(msg.get("tool_calls"), list):
            for j, call in enumerate(msg["tool_calls"]):
                if isinstance(call, Mapping):
                    cid = call_id(call)
                    first.setdefault(cid, origin)
                    latest[cid] = (origin, j)
        elif role == "tool" and origin is not None:
            cid = to_id(msg.get("tool_call_id"))
            at = latest.get(cid)
            if at is not None and at in redeclared and at[0] != first.get(cid):
                out.add(origin)
    return frozenset(out)


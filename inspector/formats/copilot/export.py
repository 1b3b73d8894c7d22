"""Writing a repaired Copilot CLI ``events.jsonl`` the way Copilot CLI writes its events.

Every line the repair does not touch goes out as its own bytes. What changes:

- a result the engine puts in for a call left without one is a new ``tool.execution_complete``
  line, written as Copilot CLI writes a failed tool run (``success: false`` and an ``error``
  with the ``message`` the model reads; github/copilot-sdk ``session-events.ts``
  ``ToolExecutionCompleteData``), with a new event ``id``, the ``parentId`` of the event
  before it and that event's ``timestamp``; it goes after the other results of its turn,
  before the line of the next message sent, so a resume reads it in its call's block;
- a result the engine moves is its own line, moved there (the fewest lines move: the longest
  run of sent messages still in their order stays);
- a message the engine drops loses its line; a call it drops from a turn is taken out of that
  line's ``toolRequests``, the rest of the line kept;
- a line that is not JSON (a record cut by a crash that no reading mends) is left out: Copilot
  CLI does not skip it but refuses the whole file ("Session file is corrupted (line N:
  SyntaxError ...)", github/copilot-cli #1864, #2649).

A compaction's line is never removed: the messages it stands for are not sent, and a
repair only touches messages after its cut, so ``preCompactionMessagesLength`` still counts
the same messages.
"""

from __future__ import annotations

import uuid
from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

import orjson

from ...engine import Result
from .. import session
from ..base import Decisions, Exported, Imported
from ..jsonl import Lines, dump_line
from .events import CopilotState, data_of, unread

NAME = "copilot-cli"


def _staying(origin: list[int | None]) -> set[int]:
    """Output positions whose original rows stay in place: the longest run of them in their
    original order (patience sorting), so that the fewest lines move."""
    tails: list[int] = []
    keys: list[int] = []
    back: dict[int, int | None] = {}
    for n, k in enumerate(origin):
        if k is None:
            continue
        at = bisect_left(keys, k)
        back[n] = tails[at - 1] if at else None
        if at == len(tails):
            tails.append(n)
            keys.append(k)
        else:
            tails[at], keys[at] = n, k
    stay: set[int] = set()
    node = tails[-1] if tails else None
    while node is not None:
        stay.add(node)
        node = back[node]
    return stay


def _result_event(call_id: Any, content: Any, before: Mapping | None, session_id: str | None) -> dict[str, Any]:
    """A ``tool.execution_complete`` for a call left without a result, in Copilot CLI's spelling."""
    key = f"inspector:{session_id or ''}:{call_id}"
    return {"type": "tool.execution_complete",
            "data": {"toolCallId": call_id, "success": False,
                     "error": {"message": content if isinstance(content, str) else str(content),
                               "code": "interrupted"}},
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, key)),
            "timestamp": before.get("timestamp") if isinstance(before, Mapping) else None,
            "parentId": before.get("id") if isinstance(before, Mapping) else None}


def export_same(im: Imported, result: Result, notes: Exported) -> Lines:
    doc: Lines = im.document
    state: CopilotState = im.state
    lines = state.lines
    d = Decisions.of(result)
    origin = [o for _, o in d.rows]
    stay = _staying(origin)
    kept = {o for o in origin if o is not None}
    removed: set[int] = set()
    rewrite: dict[int, Any] = {}
    cut = unread(doc)
    for i in cut:
        removed.add(i)
        notes.note("entry-removed", f"Line {i + 1} is not JSON: Copilot CLI refuses the whole file on resume for such "
                                    f"a line (\"Session file is corrupted\", github/copilot-cli #1864, #2649), so the "
                                    f"copy leaves it out.")
    for o, line in enumerate(lines):
        entry = doc.entries[line]
        if o not in kept:
            if o in state.summaries:
                continue            # a compaction line stays: what it replaced is still not sent
            removed.add(line)
            notes.note("entry-removed", f"Line {line + 1} ({entry.get('type')}) is removed: the engine dropped "
                                        f"its message.")
        elif d.dropped_calls.get(o) and o not in state.summaries:
            data = data_of(entry)
            requests = data.get("toolRequests")
            if isinstance(requests, list):
                keep = [requests[j] for j in d.kept_calls(o, len(requests))]
                rewrite[line] = {**entry, "data": {**data, "toolRequests": keep}}
                notes.note("entry-rewritten", f"Line {line + 1}: {len(requests) - len(keep)} of its toolRequests "
                                              f"dropped, the rest of the event kept.")
    # Rows not in the staying run go before the line of the next staying row (at the end of the
    # file when none follows); a new result goes after the other results of its block, before
    # the next staying message that is not a result: the call, its results, then what follows.
    before: dict[int, list[tuple[bytes | None, Any]]] = {}
    next_line: int | None = None
    next_turn: int | None = None
    placed: list[tuple[int | None, int]] = []
    for n in range(len(d.rows) - 1, -1, -1):
        msg, o = d.rows[n]
        if n in stay:
            next_line = lines[o] if o not in state.summaries else None
            if msg.get("role") != "tool":
                next_turn = next_line
            continue
        placed.append((next_turn if o is None and msg.get("role") == "tool" else next_line, n))
    last = len(doc.raw) - 1
    for anchor, n in reversed(placed):
        msg, o = d.rows[n]
        at = anchor if anchor is not None else len(doc.raw)
        if o is not None:
            removed.add(lines[o])
            line = lines[o]
            item: tuple[bytes | None, Any] = ((None, rewrite.pop(line)) if line in rewrite
                                              else (doc.raw[line], doc.entries[line]))
            notes.note("entry-moved", f"Line {lines[o] + 1} moves " +
                       (f"before line {at + 1}." if anchor is not None else "to the end of the file."))
        else:
            prev = _before(doc, before, at)
            item = (None, _result_event(msg.get("tool_call_id"), msg.get("content"), prev, state.session))
            notes.note("entry-added", "A new tool.execution_complete line " +
                       (f"before line {at + 1}" if anchor is not None else "at the end of the file") +
                       f" answers {msg.get('tool_call_id')} as interrupted (success: false).")
        before.setdefault(at, []).append(item)
    after = {k - 1: v for k, v in before.items() if k <= last}
    if len(doc.raw) in before:
        after.setdefault(last, []).extend(before[len(doc.raw)])
    out = session.rewrite_lines(doc, NAME, removed, rewrite, after, keep_cr=True)
    _drop_cut_pieces(doc, out, notes)
    if cut and cut[-1] == last:
        out.final_newline = True        # the cut last line is gone: what is left is whole lines
    return out


def _drop_cut_pieces(doc: Lines, out: Lines, notes: Exported) -> None:
    """A line of the reading that holds more than one line of the file (a mended reading keeps
    a cut record beside the whole one glued to it) loses the pieces that are not JSON: Copilot
    CLI refuses the file for them as for any other such line."""
    for i, line in enumerate(doc.raw):
        if b"\n" not in line.strip(b"\n"):
            continue
        pieces = line.split(b"\n")
        kept = [p for p in pieces if not p.strip(b" \t\r\x00") or _is_json(p)]
        if len(kept) == len(pieces):
            continue
        at = next((k for k, written in enumerate(out.raw) if written is line), None)
        if at is not None:
            out.raw[at] = b"\n".join(p for p in kept if p.strip(b" \t\r\x00"))
            notes.note("entry-rewritten", f"Line {i + 1}: {len(pieces) - len(kept)} cut record(s) beside the whole one "
                                          f"left out (not JSON: Copilot CLI refuses the whole file for such a line).")


def _is_json(piece: bytes) -> bool:
    try:
        orjson.loads(piece)
    except orjson.JSONDecodeError:
        return False
    return True


def _before(doc: Lines, placed: dict[int, list[tuple[bytes | None, Any]]], at: int) -> Mapping | None:
    """The event a new line at ``at`` follows: the last one already placed there, else the
    nearest event line above it."""
    if placed.get(at):
        entry = placed[at][-1][1]
        if isinstance(entry, Mapping):
            return entry
    for i in range(min(at, len(doc.entries)) - 1, -1, -1):
        if isinstance(doc.entries[i], Mapping):
            return doc.entries[i]
    return None


def export_new(im: Imported, result: Result, notes: Exported) -> Lines:
    """Another format's history written as a Copilot CLI session: one event per message."""
    out: list[Any] = []
    prev: str | None = None
    for n, msg in enumerate(result.messages):
        role = msg.get("role")
        if role == "assistant":
            kind = "assistant.message"
            data: dict[str, Any] = {"messageId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"inspector:message:{n}")),
                                    "content": msg.get("content") if isinstance(msg.get("content"), str) else "",
                                    "toolRequests": [{"toolCallId": c["tool_call_id"], "name": c.get("name") or "",
                                                      "arguments": c.get("arguments")}
                                                     for c in msg.get("tool_calls") or ()]}
        elif role == "tool":
            kind = "tool.execution_complete"
            data = {"toolCallId": msg.get("tool_call_id"), "success": True,
                    "result": {"content": msg.get("content") if isinstance(msg.get("content"), str) else ""}}
        else:
            kind = "user.message"
            data = {"content": msg.get("content") if isinstance(msg.get("content"), str) else "", "attachments": []}
        eid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"inspector:event:{n}"))
        out.append({"type": kind, "data": data, "id": eid, "timestamp": None, "parentId": prev})
        prev = eid
    return Lines(NAME, [dump_line(e) for e in out], out)

"""Export: the same task file with only the records an event touches rewritten (every other
record keeps its bytes), another format's history as a task, and ``--reasoning strip``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...engine import INTERRUPTED, Result
from .. import reasoning
from ..base import Decisions, Exported, Imported, args_object, call_args, call_name
from .importer import _thought
from .resume import _is_result
from .task import TaskFile, read_task, stringify

def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: every reasoning block of every record goes (``thinking``,
    ``redacted_thinking``, Roo's ``reasoning`` blocks), and so do Roo's reasoning records and
    ``reasoning_details``; a record left with nothing goes too. Every other record keeps its bytes."""
    plain = isinstance(document, list)
    task = read_task(stringify(document), "<export>", False) if plain else document
    if not isinstance(task, TaskFile):
        return document
    raw = list(task.pieces) if task.pieces is not None else (
        [task.data[a:b] for a, b in task.spans] if task.spans else None)
    out: list[Any] = []
    pieces: list[bytes] = []
    changed = False
    for k, rec in enumerate(task.records):
        new = rec
        if isinstance(rec, Mapping) and rec.get("type") == "reasoning" and "role" not in rec:
            reasoning.removed(notes, f"messages[{k}]", "a reasoning record")
            changed = True
            continue
        if isinstance(rec, Mapping):
            content = rec.get("content")
            if isinstance(content, list) and any(_thought(b) is not None for b in content):
                for b, block in enumerate(content):
                    if _thought(block) is not None:
                        reasoning.removed(notes, f"messages[{k}].content[{b}]", _thought(block)[0])
                new = {**rec, "content": [b for b in content if _thought(b) is None]}
            if "reasoning_details" in rec:
                reasoning.removed(notes, f"messages[{k}].reasoning_details", "reasoning details")
                new = {key: v for key, v in new.items() if key != "reasoning_details"}
            if new is not rec and isinstance(new.get("content"), list) and not new["content"]:
                reasoning.removed(notes, f"messages[{k}]", "a message of reasoning alone", ", so the message goes too")
                changed = True
                continue
        changed = changed or new is not rec
        out.append(new)
        pieces.append(raw[k] if new is rec and raw else stringify(new))
    if not changed:
        return document
    if plain:
        return out
    if not task.spans:
        return TaskFile(out, stringify(out), [], task.agent, task.why_agent, task.deleted_range, task.path)
    return TaskFile(out, task.data, task.spans, task.agent, task.why_agent, task.deleted_range, task.path, pieces)


# -- export --------------------------------------------------------------------------------

def _use_lost(recs: list[Any], lose: dict[int, set[int]], cid: Any, first: int) -> bool:
    """Whether the export removes a ``tool_use`` of id ``cid`` from a record other than
    ``first`` (its first declaration), and keeps that first one."""
    def uses(k: int, blocks: Any) -> bool:
        content = recs[k].get("content") if isinstance(recs[k], Mapping) else None
        return isinstance(content, list) and any(
            i < len(content) and isinstance(content[i], Mapping) and content[i].get("type") == "tool_use"
            and content[i].get("id") == cid for i in blocks)
    return any(uses(k, gone) for k, gone in lose.items() if k != first) and not uses(first, lose.get(first, ()))


def _renamed(im: Imported, recs: list[Any], lose: dict[int, set[int]]) -> dict[int, dict[int, Any]]:
    """The stored results the agent sends under another call's id (Roo's and Kilo's check of the
    message a resume writes gives a result for no call of the last turn that turn's call, by
    position), as blocks naming the id they are sent with, by record and block. The import read
    them under that id; once the export changes the task, the stored id is written out, since
    the change (a call taken out, a result put before it) can make the agent name it otherwise."""
    out: dict[int, dict[int, Any]] = {}
    for s in im.state.sent:
        for it in s.items:
            if it.record is None or it.index is None or it.placeholder is not None or not _is_result(it):
                continue
            stored = recs[it.record]["content"][it.index]
            if stored.get("tool_use_id") != it.block.get("tool_use_id") and it.index not in lose.get(it.record, ()):
                out.setdefault(it.record, {})[it.index] = {**stored, "tool_use_id": it.block.get("tool_use_id")}
    return out


def _as_text(im: Imported, recs: list[Any], order: list[int], lose: dict[int, set[int]], removed: set[int],
             resumed: int | None) -> list[tuple[str, str]]:
    """The calls whose kept result Roo Code would send as text once the export removes records:
    Roo writes the results of the message its resume rebuilds from the last record as text
    ("Tool result: ...") unless an assistant message comes right before it. The import read them
    as results because one did; when the export removes it and leaves another kind of message
    there, the result no longer answers its call, and the call is answered as interrupted."""
    if im.state.agent != "roo" or resumed is None or resumed in removed or resumed not in order:
        return []
    before = [k for k in order[:order.index(resumed)] if k != resumed]
    was = before[-1] if before else None
    now = next((k for k in reversed(before) if k not in removed), None)
    if was is None or was == now or recs[was].get("role") != "assistant" or \
            (now is not None and recs[now].get("role") == "assistant"):
        return []
    content = recs[resumed].get("content")
    out = []
    for s in im.state.sent:
        if s.record != resumed:
            continue
        for it in s.items:
            if it.index is not None and it.placeholder is None and _is_result(it) \
                    and it.index not in lose.get(resumed, ()) and isinstance(content, list):
                cid = it.block.get("tool_use_id")
                out.append((cid, f"messages[{resumed}].content[{it.index}] (the result for {cid}) is sent as text "
                                 f"on resume once messages[{was}] is removed: Roo Code writes the results of the "
                                 f"last message as text when no assistant message comes right before it."))
    return out


def export_same(im: Imported, result: Result, notes: Exported) -> TaskFile:
    task: TaskFile = im.document
    recs = task.records
    d = Decisions.of(result)
    kept = {o for o in result.origins if o is not None}
    lose: dict[int, set[int]] = {}
    for o, loc in enumerate(im.sources):
        if loc.key == "resume":
            continue
        if o not in kept and loc.blocks is not None:
            lose.setdefault(loc.message, set()).update(loc.blocks)
        elif o not in kept and im.messages[o]["role"] == "assistant":
            lose.setdefault(loc.message, set()).update(c.blocks[0] for c in im.calls[o])
        if o in kept:
            for j in d.dropped_calls.get(o, ()):
                c = im.calls[o][j]
                lose.setdefault(c.message, set()).add(c.blocks[0])
    # Synthesized results, grouped by the record of their call's turn, in the engine's order.
    where = {}
    for o, locs in enumerate(im.calls):
        for j, loc in enumerate(locs):
            where.setdefault(im.messages[o]["tool_calls"][j].get("tool_call_id"), loc.message)
    new_results: dict[int, list[dict[str, Any]]] = {}
    for msg, o in d.rows:
        if o is None and msg.get("role") == "tool" and msg.get("tool_call_id") in where:
            new_results.setdefault(where[msg["tool_call_id"]], []).append(
                {"type": "tool_result", "tool_use_id": msg["tool_call_id"], "content": msg["content"], "is_error": True})
    # A placeholder answers a call of the turn the agent resumes from. When the export takes
    # that call out (its id was declared before, and the engine paired the placeholder with
    # that declaration), the agent no longer writes it: the declaration gets a real result.
    for o, loc in enumerate(im.sources):
        cid = im.messages[o].get("tool_call_id")
        if loc.key == "resume" and o in kept and cid in where and _use_lost(recs, lose, cid, where[cid]):
            new_results.setdefault(where[cid], []).append(
                {"type": "tool_result", "tool_use_id": cid, "content": INTERRUPTED, "is_error": True})
    if not lose and not new_results:
        return task.records if task.plain else task
    order = [s.record for s in im.state.sent if s.record is not None]
    renamed = _renamed(im, recs, lose)
    content: dict[int, list[Any]] = {}
    removed: set[int] = set()
    for k, names in renamed.items():
        if k not in lose:
            content[k] = [names.get(i, b) for i, b in enumerate(recs[k]["content"])]
        for i, b in names.items():
            notes.note("entry-rewritten", f"messages[{k}].content[{i}] now names {b['tool_use_id']}, the call "
                                          f"the agent answers with it on resume (the stored "
                                          f"{recs[k]['content'][i].get('tool_use_id')!r} names no call there).")
    for k, gone in lose.items():
        blocks = recs[k]["content"] if isinstance(recs[k].get("content"), list) else []
        blocks = [renamed.get(k, {}).get(i, b) for i, b in enumerate(blocks)]
        left = [b for i, b in enumerate(blocks) if i not in gone]
        # A record left with blank text or reasoning alone goes whole, as a Claude Code line of
        # thinking alone does: reasoning without the turn it was issued with is sent to no one.
        if not any(not (isinstance(b, Mapping) and b.get("type") == "text" and not str(b.get("text", "")).strip())
                   and _thought(b) is None for b in left):
            removed.add(k)
            notes.note("entry-removed", f"messages[{k}] is removed: nothing of it is left to send.")
        else:
            content[k] = left
            notes.note("entry-rewritten", f"messages[{k}] loses content block{'s' if len(gone) > 1 else ''} "
                                              f"{', '.join(map(str, sorted(gone)))}; the rest of it stays.")
    inserted: dict[int, list[dict[str, Any]]] = {}
    resumed = next((s.record for s in im.state.sent if s.resumed and s.record is not None), None)
    reasons: dict[int, list[str]] = {}
    for cid, why in _as_text(im, recs, order, lose, removed, resumed):
        if cid in where and where[cid] not in removed:
            new_results.setdefault(where[cid], []).append(
                {"type": "tool_result", "tool_use_id": cid, "content": INTERRUPTED, "is_error": True})
            reasons.setdefault(where[cid], []).append(why)
    at = {r: n for n, r in reversed(list(enumerate(order)))}      # first place of each record, found once
    for k, blocks in new_results.items():
        pos = at.get(k, -1)
        nxt = next((order[j] for j in range(pos + 1, len(order)) if order[j] not in removed), None) \
            if pos >= 0 else None
        ids = ", ".join(b["tool_use_id"] for b in blocks)
        why = "".join(f" {r}" for r in reasons.get(k, ()))
        # The message a resume writes from the last record takes the results at its front,
        # whatever the record is: the agent's check of that message answers the last turn's
        # calls itself when they are not there, a second result for a call answered before.
        if nxt is not None and recs[nxt].get("role") == "user" and (nxt == resumed or (
                not recs[nxt].get("isSummary") and not recs[nxt].get("isTruncationMarker"))):
            base = content.get(nxt, recs[nxt]["content"])
            base = base if isinstance(base, list) else [{"type": "text", "text": base}]
            content[nxt] = [*blocks, *base]
            notes.note("entry-rewritten", f"messages[{nxt}] now opens with an interrupted result for {ids}.{why}")
        else:
            turn = recs[k]
            record: dict[str, Any] = {"role": "user", "content": blocks}
            if "ts" in turn:
                record["ts"] = turn["ts"]
            for key in ("condenseParent", "truncationParent"):
                if key in turn:
                    record[key] = turn[key]
            inserted.setdefault(k, []).append(record)
            notes.note("entry-added", f"A new user message after messages[{k}] answers {ids} as interrupted.{why}")
    pieces: list[bytes] = []
    out: list[Any] = []
    raw = [task.data[a:b] for a, b in task.spans] if task.spans else None
    for k, rec in enumerate(recs):
        if k not in removed:
            if k in content:
                rec = {**rec, "content": content[k]}
                pieces.append(stringify(rec))
            else:
                pieces.append(raw[k] if raw else stringify(rec))
            out.append(rec)
        for extra in inserted.get(k, ()):
            pieces.append(stringify(extra))
            out.append(extra)
    if task.plain:
        return out
    if not task.spans:
        data = stringify(out)
        return TaskFile(out, data, [], task.agent, task.why_agent, task.deleted_range, task.path)
    return TaskFile(out, task.data, task.spans, task.agent, task.why_agent, task.deleted_range, task.path, pieces)


def export_new(im: Imported, result: Result, notes: Exported) -> list[dict[str, Any]]:
    """A task history from another format's messages, as Roo Code writes one (``ts`` on each)."""
    out: list[dict[str, Any]] = []
    ts = 0
    for n, msg in enumerate(result.messages):
        ts += 1000
        role = msg["role"]
        if role == "assistant":
            blocks: list[Any] = [{"type": "text", "text": msg["content"]}] if msg["content"].strip() else []
            blocks += [{"type": "tool_use", "id": c["tool_call_id"], "name": call_name(c),
                        "input": args_object(call_args(c))} for c in msg.get("tool_calls") or ()]
            out.append({"role": "assistant", "content": blocks, "ts": ts})
            continue
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": msg["tool_call_id"], "content": msg["content"]}
            if result.origins[n] is None:
                block["is_error"] = True
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block], "ts": ts})
            continue
        text = msg["content"] if role == "user" else f"[{role}] {msg['content']}"
        out.append({"role": "user", "content": [{"type": "text", "text": text}], "ts": ts})
    return out

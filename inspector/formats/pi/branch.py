"""A repair written the way pi writes a change of history: a new branch of the session tree.

pi never edits an entry; it appends. ``branch(entryId)`` (``session-manager.ts`` @ 83378aad)
moves the leaf to an earlier entry and the next append becomes a child of it, so the file
keeps both branches and the last entry is the leaf a resume walks from. A repair does the
same: the path is kept up to the first entry the repair changes; from there every entry of
the path is appended again under a new id (``generateId``: 8 hex digits), parent after
parent, without what the engine dropped and with the results it synthesized after their
call's turn. Every line (or row) already in the store keeps its bytes, including every
signature; a copied entry is its own text with only ``id`` and ``parentId`` (and a
compaction's ``firstKeptEntryId`` or a label's ``targetId`` that points into the copied part)
spliced, and a part the engine dropped cut out of ``content``. The old branch stays in the
file, off the path: pi's ``/tree`` still shows it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...engine import Result
from ..base import Exported, Imported
from ..message_rows import edits, result_text
from ..store.jsontext import array_spans, key_at, value_end
from . import tree
from .importer import PiState


@dataclass(slots=True)
class Appended:
    """What a repair appends: each new entry's text and value, and where it came from (the
    record it copies, None for a synthesized result)."""

    texts: list[str] = field(default_factory=list)
    entries: list[Any] = field(default_factory=list)
    copies: list[int | None] = field(default_factory=list)


def _dump(value: Any) -> str:
    """JSON as ``JSON.stringify`` writes it: compact, keys in order, non-ASCII as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _new_id(old: str, taken: set[str]) -> str:
    n = 0
    while True:
        new = hashlib.sha256(f"{old}/repair/{n}".encode()).hexdigest()[:8]
        if new not in taken:
            taken.add(new)
            return new
        n += 1


def _splice(text: str, changes: list[tuple[tuple[str, ...], Any]], cut: set[int] | None) -> str:
    """``text`` with the values under each key path replaced, and the parts ``cut`` taken out
    of ``message.content``; every other character as it was."""
    edits_: list[tuple[int, int, str]] = []
    for path, value in changes:
        start = key_at(text, path)
        edits_.append((start, value_end(text, start), _dump(value)))
    if cut:
        start = key_at(text, ("message", "content"))
        _, end, spans = array_spans(text, start)
        kept = [text[a:b] for k, (a, b) in enumerate(spans) if k not in cut]
        edits_.append((start, end, "[" + ",".join(kept) + "]"))
    for a, b, new in sorted(edits_, reverse=True):
        text = text[:a] + new + text[b:]
    return text


def _keeps(entry: Mapping, cut: set[int]) -> bool:
    """Whether an entry with the parts ``cut`` still sends something."""
    if tree.role(entry) == "toolResult" or entry.get("type") != "message":
        return not cut
    content = entry["message"].get("content")
    left = [b for k, b in enumerate(content if isinstance(content, list) else [content]) if k not in cut]
    return any(not (isinstance(b, Mapping) and b.get("type") == "thinking" and not b.get("thinkingSignature")
                    and not str(b.get("thinking") or "").strip()) for b in left)


def plan(im: Imported, result: Result, notes: Exported, texts: list[str], where: str) -> Appended:
    """The entries a repair appends (empty: nothing to change). ``texts[i]`` is record ``i``'s
    JSON text; ``where`` names a record in a sentence (``line``, ``row``)."""
    state: PiState = im.state
    entries, w = state.entries, state.walk
    todo = edits(im, result)
    out = Appended()
    if not todo:
        return out
    if w.version is not None and w.version < 2:
        from ...io import InputError
        raise InputError("<input>", "pi: a version 1 session has no entry ids to branch from; open it once in pi "
                                    "(which migrates it to version 3), then repair it")
    pos = {i: p for p, i in enumerate(w.path)}
    cut = {k: v for k, v in todo.cut.items()}
    gone = {k for k, v in cut.items() if not _keeps(entries[k], v)}
    after: dict[int, list[tuple[Any, dict[str, Any], Any]]] = {}
    for b, msg, item in todo.new:
        p = pos[b.row]
        while p + 1 < len(w.path) and tree.role(entries[w.path[p + 1]]) == "toolResult" and w.path[p + 1] not in gone:
            p += 1
        after.setdefault(p, []).append((b, msg, item))
    fork = min([pos[k] for k in cut] + [p + 1 for p in after])
    moved = {id(item) for _, _, item in todo.new if item is not None}
    held = {id(state.rows[i].parts[0]): i for i in w.path if state.rows[i].parts and tree.role(entries[i]) == "toolResult"}
    taken = set(w.ids)
    parent = tree.entry_id(entries[w.path[fork - 1]]) if fork > 0 else None
    mapping: dict[str, str] = {}
    fresh: dict[int, str] = {i: _new_id(tree.entry_id(entries[i]) or str(i), taken) for i in w.path[fork:]}
    # An id the copy leaves out stands for the next entry copied (a compaction keeps from there).
    for p in range(len(w.path) - 1, fork - 1, -1):
        i = w.path[p]
        old = tree.entry_id(entries[i])
        if old is None:
            continue
        if i in gone or id(state.rows[i].parts[0] if state.rows[i].parts else None) in moved:
            nxt = next((fresh[j] for j in w.path[p + 1:] if j not in gone), None)
            if nxt is not None:
                mapping[old] = nxt
        else:
            mapping[old] = fresh[i]
    notes.note("entry-branched", f"The repaired history branches off after {where} {w.path[fork - 1] + 1 if fork else 0}"
                                 f" (pi's own tree): entries from {where} {w.path[fork] + 1 if fork < len(w.path) else '-'} "
                                 "on are appended again under new ids; the old branch stays in the file, off the path.")

    def copy(i: int, cuts: set[int] | None) -> None:
        nonlocal parent
        e = entries[i]
        changes: list[tuple[tuple[str, ...], Any]] = [(("id",), fresh[i]), (("parentId",), parent)]
        for key in ("firstKeptEntryId", "targetId"):
            if isinstance(e.get(key), str) and e[key] in mapping:
                changes.append(((key,), mapping[e[key]]))
        text = _splice(texts[i], changes, cuts)
        value = json.loads(text)
        out.texts.append(text)
        out.entries.append(value)
        out.copies.append(i)
        parent = fresh[i]

    def synth(b: Any, msg: dict[str, Any], item: Any, anchor: int) -> None:
        nonlocal parent
        if item is not None:
            i = held[id(item)]
            fresh_id = _new_id(tree.entry_id(entries[i]) or str(i), taken)
            text = _splice(texts[i], [(("id",), fresh_id), (("parentId",), parent)], None)
            out.texts.append(text)
            out.entries.append(json.loads(text))
            out.copies.append(i)
            notes.note("entry-moved", f"The toolResult of {where} {i + 1} for {b.body.get('id')} is appended again "
                                      f"right after its call's turn (its text as it was).")
            parent = fresh_id
            return
        e = entries[anchor]
        stamp = e.get("timestamp")
        mstamp = e["message"].get("timestamp") if isinstance(e.get("message"), Mapping) else None
        new = {"type": "message", "id": _new_id(f"{b.body.get('id')}/result", taken), "parentId": parent,
               "timestamp": stamp,
               "message": {"role": "toolResult", "toolCallId": b.body.get("id"), "toolName": b.body.get("name"),
                           "content": [{"type": "text", "text": result_text(msg)}], "isError": True,
                           "timestamp": mstamp}}
        out.texts.append(_dump(new))
        out.entries.append(new)
        out.copies.append(None)
        notes.note("entry-added", f"A new toolResult entry answers {b.body.get('id')} ({b.body.get('name')}) after "
                                  f"{where} {anchor + 1}.")
        parent = new["id"]

    for b, msg, item in after.get(fork - 1, ()):      # results answering the entry the branch grows from
        synth(b, msg, item, w.path[fork - 1])
    for p in range(fork, len(w.path)):
        i = w.path[p]
        if id(state.rows[i].parts[0] if state.rows[i].parts else None) in moved:
            pass                                   # appended after its call's turn (entry-moved)
        elif i in gone:
            notes.note("entry-removed", f"{where.capitalize()} {i + 1} is left off the repaired branch: the engine "
                                        "dropped everything it sends (it stays in the file, off the path).")
        else:
            copy(i, cut.get(i))
            if i in cut:
                notes.note("entry-rewritten", f"{where.capitalize()} {i + 1} is appended again without part(s) "
                                              f"{sorted(cut[i])} of its content; the rest as it was.")
            else:
                notes.note("entry-copied", f"{where.capitalize()} {i + 1} is appended again on the repaired branch, "
                                           "its text as it was but for its id and parent.")
        for b, msg, item in after.get(p, ()):
            synth(b, msg, item, w.path[p])
    return out


def strip(entries: list[Any], texts: list[str], notes: Exported, where: str) -> Appended:
    """``--reasoning strip``: the path appended again from the first assistant entry holding a
    ``thinking`` block, every ``thinking`` block cut out (an entry left with nothing goes), each
    removal an event; nothing before that entry, and no line already there, changes."""
    from .. import reasoning

    w = tree.walk(entries)
    out = Appended()
    cuts: dict[int, set[int]] = {}
    for i in w.path:
        if tree.role(entries[i]) == "assistant" and isinstance(entries[i]["message"].get("content"), list):
            found = {k for k, b in enumerate(entries[i]["message"]["content"])
                     if isinstance(b, Mapping) and b.get("type") == "thinking"}
            if found:
                cuts[i] = found
    if not cuts or (w.version is not None and w.version < 2):
        return out
    fork = min(w.path.index(i) for i in cuts)
    taken = set(w.ids)
    fresh = {i: _new_id(tree.entry_id(entries[i]) or str(i), taken) for i in w.path[fork:]}
    gone = {i for i, c in cuts.items() if not _keeps(entries[i], c) or len(c) == len(entries[i]["message"]["content"])}
    mapping: dict[str, str] = {}
    for p in range(len(w.path) - 1, fork - 1, -1):
        i, old = w.path[p], tree.entry_id(entries[w.path[p]])
        nxt = fresh[i] if i not in gone else next((fresh[j] for j in w.path[p + 1:] if j not in gone), None)
        if old is not None and nxt is not None:
            mapping[old] = nxt
    parent = tree.entry_id(entries[w.path[fork - 1]]) if fork > 0 else None
    notes.note("entry-branched", f"The history without its reasoning branches off after {where} "
                                 f"{w.path[fork - 1] + 1 if fork else 0}: entries from {where} {w.path[fork] + 1} on "
                                 "are appended again without their thinking blocks.")
    for i in w.path[fork:]:
        for k in sorted(cuts.get(i, ())):
            reasoning.removed(notes, f"{where} {i + 1}, content[{k}]", "thinking")
        if i in gone:
            continue
        e = entries[i]
        changes: list[tuple[tuple[str, ...], Any]] = [(("id",), fresh[i]), (("parentId",), parent)]
        for key in ("firstKeptEntryId", "targetId"):
            if isinstance(e.get(key), str) and e[key] in mapping:
                changes.append(((key,), mapping[e[key]]))
        text = _splice(texts[i], changes, cuts.get(i))
        out.texts.append(text)
        out.entries.append(json.loads(text))
        out.copies.append(i)
        parent = fresh[i]
    return out

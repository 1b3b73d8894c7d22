"""Export: the repaired copy OpenCode resumes (the database with the dropped parts' rows deleted
and rewritten ones updated, or an export whose untouched parts keep their bytes), another
format's history as a new session, and ``--reasoning strip``."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from ...engine import Result
from .. import reasoning
from ..base import Decisions, Exported, Imported, args_object, call_args, call_name
from ..store.jsontext import array_spans, key_at
from ..store.request import lost
from .importer import OpenCodeState
from .resume import DEFAULT_MODEL, _key, _pid
from .store import OpenCodeDB, OpenCodeExport, _connect, _parse, compact, pretty
from . import v2export

NO_RESULT = "Tool call was interrupted; no result."


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: every reasoning part of the session goes (its row deleted from
    the database, or cut out of the export text), every other row and byte as it was."""
    if isinstance(document, OpenCodeDB):
        if document.session is None:
            return document
        if document.is_v2(document.session):
            return v2export.strip(document, notes)
        messages = document.messages(document.session)
    elif isinstance(document, OpenCodeExport):
        messages = document.doc["messages"]
    else:
        return document
    removed: set[str] = set()
    for msg in messages:
        for part in msg["parts"]:
            if isinstance(part, Mapping) and part.get("type") == "reasoning":
                removed.add(_pid(part))
                reasoning.removed(notes, f"part {_pid(part)} of message {msg['info'].get('id')}", "a reasoning part")
    if not removed:
        return document
    if isinstance(document, OpenCodeDB):
        return _repair_db(document, removed, {})
    return _repair_export(document, removed, {})


# -- export -------------------------------------------------------------------------------------

def _changes(im: Imported, result: Result) -> tuple[set[tuple[int, int]], dict[tuple[int, int], dict[str, Any]]]:
    """The parts to remove and the parts to rewrite, as (sent message, part) pairs."""
    state: OpenCodeState = im.state
    req, inner = state.request, state.inner
    d = Decisions.of(result)
    kept_rows = {o for _, o in d.rows if o is not None}
    gone: set[tuple[int, int]] = {(b.row, b.part) for b in lost(req, inner, result)}
    # A turn the engine dropped takes its reasoning parts with it (a step of reasoning alone
    # would be sent as an assistant message of thinking alone).
    gone.update((r.loc.message, r.loc.blocks[0]) for r in im.reasoning
                if r.row is not None and r.row not in kept_rows and r.loc.blocks)
    rewrite: dict[tuple[int, int], dict[str, Any]] = {}
    calls = req.calls()
    for msg, o in d.rows:
        if o is None and msg.get("role") == "tool":
            cid = msg.get("tool_call_id")
            for b in calls.get(_key(cid), ()):
                if (b.row, b.part) not in gone:
                    part = req.history[b.row]["parts"][b.part]
                    st = part.get("state") if isinstance(part.get("state"), Mapping) else {}
                    new = dict(part)
                    new["state"] = {"status": "error", "input": st.get("input", {}), "error": NO_RESULT,
                                    "time": {"start": (st.get("time") or {}).get("start", 0),
                                             "end": (st.get("time") or {}).get("start", 0)}}
                    rewrite[(b.row, b.part)] = new
                    break
    return gone, rewrite


def export_same(im: Imported, result: Result, notes: Exported) -> Any:
    if im.state is None:                 # a store that holds no session
        return im.document
    gone, rewrite = _changes(im, result)
    document = im.document
    if not gone and not rewrite:
        return document
    sent = im.state.request.history
    if im.state.v2:
        return v2export.repair(document, sent, gone, set(rewrite), notes)
    removed = {_pid(sent[m]["parts"][k]) for m, k in gone}
    changed = {_pid(sent[m]["parts"][k]): part for (m, k), part in rewrite.items()}
    for (m, k) in sorted(gone):
        p = sent[m]["parts"][k]
        if p.get("type") == "reasoning":
            notes.note("entry-removed", f"Part {_pid(p)} (reasoning of message {sent[m]['info'].get('id')}) is "
                                        "removed: the engine dropped its turn, and the reasoning goes with it.")
            continue
        notes.note("entry-removed", f"Part {_pid(p)} (a {p.get('tool', p.get('type'))} call "
                                    f"{p.get('callID')!r} of message {sent[m]['info'].get('id')}) is removed: the "
                                    "engine dropped its call, and OpenCode keeps a call and its result in one part.")
    for pid in changed:
        notes.note("entry-rewritten", f"Part {pid} now holds the error result \"{NO_RESULT}\" for its call.")
    if isinstance(document, OpenCodeDB):
        return _repair_db(document, removed, changed)
    return _repair_export(document, removed, changed)


def _repair_db(db: OpenCodeDB, removed: set[str], changed: dict[str, dict[str, Any]]) -> OpenCodeDB:
    conn = _connect(db.data, "<memory>")
    try:
        conn.executemany("DELETE FROM part WHERE id = ?", [(pid,) for pid in sorted(removed)])
        conn.executemany("UPDATE part SET data = ? WHERE id = ?",
                         [(compact({k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}), pid)
                          for pid, part in changed.items()])
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    out = _parse(data, "<repaired>")
    out.session, out.mode = db.session, db.mode
    return out


def _repair_export(doc: OpenCodeExport, removed: set[str], changed: dict[str, dict[str, Any]]) -> OpenCodeExport:
    """The same export with the removed parts cut out of its text and rewritten ones replaced;
    every other byte stays (a tree session, or a document with no text, is printed anew)."""
    new = {"info": doc.doc["info"], "messages": [
        {**m, "parts": [changed.get(_pid(p), p) for p in m["parts"] if _pid(p) not in removed]}
        for m in doc.doc["messages"]]}
    for k, v in doc.doc.items():
        new.setdefault(k, v)
    if doc.text is None:
        return OpenCodeExport(new, None)
    try:
        text = _spliced(doc, removed, changed)
        if json.loads(text) != new:
            text = None
    except (ValueError, IndexError, AttributeError, TypeError):
        text = None
    # A text the scan cannot follow (duplicate keys...) is printed anew, as OpenCode prints.
    return OpenCodeExport(new, text, bom=doc.bom)


def _spliced(doc: OpenCodeExport, removed: set[str], changed: dict[str, dict[str, Any]]) -> str:
    text = doc.text
    edits: list[tuple[int, int, str]] = []
    messages = array_spans(text, key_at(text, ("messages",)))[2]
    for m, (mstart, _) in zip(doc.doc["messages"], messages):
        first, last, spans = array_spans(text, key_at(text, ("parts",), mstart))
        keep = [_pid(p) not in removed for p in m["parts"]]
        if spans and not any(keep):
            edits.append((first, last, "[]"))
            continue
        nxt_kept: list[int | None] = [None] * len(spans)   # the start of the next kept part, the end of the last
        prev_kept: list[int | None] = [None] * len(spans)
        for k in range(len(spans) - 2, -1, -1):
            nxt_kept[k] = spans[k + 1][0] if keep[k + 1] else nxt_kept[k + 1]
        for k in range(1, len(spans)):
            prev_kept[k] = spans[k - 1][1] if keep[k - 1] else prev_kept[k - 1]
        for k, (p, (a, b)) in enumerate(zip(m["parts"], spans)):
            if not keep[k]:
                nxt, prev = nxt_kept[k], prev_kept[k]
                edits.append((a, nxt, "") if nxt is not None else (prev, b, ""))
            elif _pid(p) in changed:
                indent = text[text.rfind("\n", 0, a) + 1:a]
                edits.append((a, b, pretty(changed[_pid(p)]).replace("\n", "\n" + indent)))
    # One pass over the text; cuts of neighbouring parts overlap and are joined.
    out: list[str] = []
    pos = 0
    for a, b, piece in sorted(edits):
        a = max(a, pos)
        out += (text[pos:a], piece)
        pos = max(pos, b)
    out.append(text[pos:])
    return "".join(out)


def _new_document(im: Imported, result: Result, notes: Exported) -> dict[str, Any]:
    """Another format's repaired history as one OpenCode session (an export document): a user
    message per user row, an assistant step per assistant row with a tool part per call holding
    the call's result (an error part for a synthesized one), system text on the first user
    message (OpenCode sends a user message's ``system`` with its own prompt)."""
    counter = iter(range(1, 1 << 30))

    def ident(prefix: str) -> str:
        return f"{prefix}_{next(counter):012x}inspector0000"

    sid = ident("ses")
    results = {m.get("tool_call_id"): (m, o) for m, o in zip(result.messages, result.origins)
               if m.get("role") == "tool"}
    system = [m["content"] for m in result.messages if m.get("role") == "system" and m.get("content")]
    messages: list[dict[str, Any]] = []
    user = None
    for t, m in enumerate(result.messages):
        role, when = m.get("role"), t * 1000
        if role == "user" or (role not in ("assistant", "tool", "system")):
            info: dict[str, Any] = {"id": ident("msg"), "sessionID": sid, "role": "user", "time": {"created": when},
                                    "agent": "build", "model": dict(DEFAULT_MODEL)}
            if system and user is None:
                info["system"] = "\n\n".join(system)
            user = info["id"]
            messages.append({"info": info, "parts": [{"id": ident("prt"), "sessionID": sid, "messageID": info["id"],
                                                      "type": "text", "text": m.get("content", "")}]})
        elif role == "assistant":
            mid = ident("msg")
            parts: list[dict[str, Any]] = [{"id": ident("prt"), "sessionID": sid, "messageID": mid, "type": "step-start"}]
            if m.get("content"):
                parts.append({"id": ident("prt"), "sessionID": sid, "messageID": mid, "type": "text", "text": m["content"]})
            for call in m.get("tool_calls") or ():
                cid = call["tool_call_id"]
                answer, origin = results.get(cid, ({}, None))
                args = args_object(call_args(call))
                state: dict[str, Any] = {"status": "completed", "input": args, "output": answer.get("content", ""),
                                         "title": call_name(call), "metadata": {}, "time": {"start": when, "end": when}}
                if origin is None:
                    state = {"status": "error", "input": args, "error": NO_RESULT, "time": {"start": when, "end": when}}
                parts.append({"id": ident("prt"), "sessionID": sid, "messageID": mid, "type": "tool", "callID": cid,
                              "tool": call_name(call), "state": state})
            finish = "tool-calls" if m.get("tool_calls") else "stop"
            parts.append({"id": ident("prt"), "sessionID": sid, "messageID": mid, "type": "step-finish",
                          "reason": finish, "cost": 0, "tokens": {"input": 0, "output": 0, "reasoning": 0,
                                                                  "cache": {"read": 0, "write": 0}}})
            messages.append({"info": {"id": mid, "sessionID": sid, "parentID": user or "", "role": "assistant",
                                      "mode": "build", "agent": "build", "path": {"cwd": "", "root": ""}, "cost": 0,
                                      "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                                      "modelID": DEFAULT_MODEL["modelID"], "providerID": DEFAULT_MODEL["providerID"],
                                      "time": {"created": when, "completed": when}, "finish": finish},
                             "parts": parts})
    if system and user is None:
        notes.note("export-omitted", "The history has system text but no user message to carry it; it is not written.")
    return {"info": {"id": sid, "slug": "inspector-import", "version": "inspector", "projectID": "global",
                     "directory": "", "title": f"{im.format} history", "time": {"created": 0, "updated": 0}},
            "messages": messages}


NEW_SCHEMA = """
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL,
  `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
"""


def export_new(im: Imported, result: Result, notes: Exported) -> OpenCodeDB:
    """Another format's history as a database holding one session, for Inspector's own reading:
    OpenCode runs its migrations on a database it opens, so hand it an export instead
    (``--to opencode-export``, then ``opencode import``)."""
    doc = _new_document(im, result, notes)
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(NEW_SCHEMA)
        info = doc["info"]
        conn.execute("INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, 0, 0)",
                     (info["id"], info["projectID"], info["slug"], info["directory"], info["title"], info["version"]))
        for m in doc["messages"]:
            i = m["info"]
            conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (i["id"], info["id"], i["time"]["created"],
                         i["time"]["created"], compact({k: v for k, v in i.items() if k not in ("id", "sessionID")})))
            conn.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", [
                (p["id"], i["id"], info["id"], i["time"]["created"], i["time"]["created"],
                 compact({k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")})) for p in m["parts"]])
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    return _parse(data, "<new>")


def export_new_document(im: Imported, result: Result, notes: Exported) -> OpenCodeExport:
    """Another format's history as an ``opencode export`` document, which ``opencode import`` reads."""
    return OpenCodeExport(_new_document(im, result, notes))

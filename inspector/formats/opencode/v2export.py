"""The repaired copy of an OpenCode 2.x session, written by rows as OpenCode 2 writes them: a
``session_message`` row whose assistant ``content`` lost an item (a call the engine dropped,
with its result, since OpenCode 2 keeps both in one tool item) or had one rewritten (a call
whose result the engine dropped now holds an error result) gets its ``data`` written again,
compact as drizzle writes it; every other row of every table keeps its bytes.

A rewritten tool item takes the ``error`` state OpenCode 2 itself gives a failed call
(``{status: "error", input, structured, content, error: {type, message}}``,
``session/message-updater.ts`` @ 03130971e20a847d77cd70e13faabca0de4f512d,
``session.tool.failed``), which ``toLLMMessages`` sends as an error result."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .. import reasoning
from ..base import Exported
from .store import OpenCodeDB, _connect, _parse, compact

NO_RESULT = "Tool call was interrupted; no result."


def _label(msg: Mapping, k: int) -> str:
    item = msg["parts"][k] if k < len(msg["parts"]) else {}
    kind = item.get("type") if isinstance(item, Mapping) else None
    if kind == "tool":
        return f"tool item {k} ({item.get('name')} call {item.get('id')!r}) of message {msg['info'].get('id')}"
    return f"{kind or 'item'} {k} of message {msg['info'].get('id')}"


def _failed(item: Mapping) -> dict[str, Any]:
    state = item.get("state") if isinstance(item.get("state"), Mapping) else {}
    args = state.get("input") if isinstance(state.get("input"), Mapping) else {}
    return {**item, "state": {"status": "error", "input": args, "structured": {}, "content": [],
                              "error": {"type": "unknown", "message": NO_RESULT}}}


def repair(db: OpenCodeDB, sent: list[dict[str, Any]], gone: set[tuple[int, int]],
           rewrite: set[tuple[int, int]], notes: Exported) -> OpenCodeDB:
    """The database with the items ``gone`` cut from their rows and those in ``rewrite`` given
    an error result, each change an export event."""
    edits: dict[int, dict[int, Any]] = {}          # row -> item -> None (cut) or its new body
    for m, k in sorted(gone | rewrite):
        if sent[m]["info"].get("type") != "assistant":
            notes.note("export-omitted", f"Message {sent[m]['info'].get('id')} ({sent[m]['info'].get('type')}) is "
                                         "not an assistant message; OpenCode 2 keeps it whole, and it is left "
                                         "as it is.")
            continue
        if (m, k) in gone:
            edits.setdefault(m, {})[k] = None
            why = ("the engine dropped its turn, and the reasoning goes with it"
                   if sent[m]["parts"][k].get("type") == "reasoning" else
                   "the engine dropped its call, and OpenCode 2 keeps a call and its result in one item")
            notes.note("entry-removed", f"The {_label(sent[m], k)} is removed: {why}.")
        else:
            edits.setdefault(m, {})[k] = _failed(sent[m]["parts"][k])
            notes.note("entry-rewritten", f"The {_label(sent[m], k)} now holds the error result \"{NO_RESULT}\".")
    return rewrite_rows(db, sent, edits)


def strip(db: OpenCodeDB, notes: Exported) -> OpenCodeDB:
    """``--reasoning strip`` on a 2.x session: every reasoning item cut from its row."""
    sent = db.messages(db.session) if db.session is not None else []
    edits: dict[int, dict[int, Any]] = {}
    for m, msg in enumerate(sent):
        if msg["info"].get("type") != "assistant":
            continue
        for k, item in enumerate(msg["parts"]):
            if isinstance(item, Mapping) and item.get("type") == "reasoning":
                edits.setdefault(m, {})[k] = None
                reasoning.removed(notes, _label(msg, k), "a reasoning item")
    return rewrite_rows(db, sent, edits) if edits else db


def rewrite_rows(db: OpenCodeDB, sent: list[dict[str, Any]], edits: dict[int, dict[int, Any]]) -> OpenCodeDB:
    """Each edited row's ``data`` written again with its content edited; the row's other keys
    keep their order and values, and no other row is touched."""
    texts = {mid: text for mid, _, _, text in db.v2.get(db.session or "", [])}
    updates: list[tuple[str, str]] = []
    for m, items in sorted(edits.items()):
        mid = sent[m]["info"]["id"]
        data = json.loads(texts[mid])
        content = data.get("content") if isinstance(data.get("content"), list) else []
        data["content"] = [items[k] if k in items else item for k, item in enumerate(content)
                           if not (k in items and items[k] is None)]
        updates.append((compact(data), mid))
    conn = _connect(db.data, "<memory>")
    try:
        conn.executemany("UPDATE session_message SET data = ? WHERE id = ?", updates)
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    out = _parse(data, "<repaired>")
    out.session, out.mode = db.session, db.mode
    return out

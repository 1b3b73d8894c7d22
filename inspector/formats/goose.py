"""Goose sessions: ``sessions/sessions.db`` under Goose's data folder (``$GOOSE_PATH_ROOT/data``,
``$XDG_DATA_HOME/goose``, ``~/.local/share/goose``), SQLite in WAL mode, and the ``.jsonl``
session files of builds before it.

The schema is ``SessionStorage::create_schema`` and its migrations (block/goose, now
aaif-goose/goose, ``crates/goose/src/session/session_manager.rs`` @
dbec1655c17720cb591291603f1337ed7856afbd, schema version 9): ``sessions(id, name, ...,
updated_at, provider_name, ...)`` and ``messages(id INTEGER PRIMARY KEY AUTOINCREMENT,
message_id, session_id, role, content_json, created_timestamp, timestamp, tokens,
metadata_json)``. ``content_json`` is the serde JSON of a message's content list
(``crates/goose/src/conversation/message.rs`` @ 6416fe74f076aa5779e877ef2161ec6826b27d08:
``{"type": "text" | "image" | "toolRequest" | "toolResponse" | "thinking" |
"redactedThinking" | "toolConfirmationRequest" | "actionRequired" | "frontendToolRequest" |
"systemNotification" | "jsonRenderSpec", ...}``, a call's ``toolCall`` and a result's
``toolResult`` as ``{"status": "success", "value"}`` or ``{"status": "error", "error"}``,
``tool_result_serde.rs`` @ b5a69495); ``metadata_json`` holds ``userVisible`` and
``agentVisible``. The ``.jsonl`` files (``session/legacy.rs`` @ decaa9d2) are a metadata line
and then one message per line (``{"role", "created", "content", "metadata"}``); Goose imports
them into a new ``sessions.db`` when it creates one.

What a resume sends: the rows ``ORDER BY timestamp`` (rowid breaks a tie), user and assistant
only (``get_conversation``), the agent-visible ones, through ``fix_conversation``
(``crates/goose/src/conversation/mod.rs`` @ bc55f6861a721fb224230ba86085ee97183533ce), which every
request goes through: empty messages out, and in ``fix_tool_calling`` a tool response whose
request came nowhere before it is dropped (an orphan, or the second response to one request),
a request that no later response answers is dropped, calls and thinking in user messages and
responses in assistant messages are dropped; then a leading assistant message is dropped. So
the import is what Goose sends (read with the Anthropic importer, as Goose's Anthropic format
spells it: ``thinking`` with its signature, ``redacted_thinking``), each thing Goose leaves out
an import note; provenance is the row and the part. What ``fix_conversation`` does not repair
is a response that comes after a later user message (``tool_call_ids did not have response
messages``, aaif-goose/goose #7914), which MEM-5 and the provider checks then see.

Goose speaks to many providers; the one a check names by default is OpenAI Chat Completions
(``provider``), whose refusal #7914 reports; ``check --target anthropic`` checks the other.

Export is a repaired copy: for the database, rows edited as ``message_rows.py`` says (a new
result row is a ``user`` message with one ``toolResponse`` of status ``error``); for a
``.jsonl`` file, the lines touched rewritten and every other line byte for byte. Nothing to
change: the input's own bytes. Resume the database with Goose closed: keep a copy of
``sessions.db``, put the repaired one in its place (removing ``sessions.db-wal``/``-shm``),
``goose session --resume --name <id>``; a repaired ``.jsonl`` is read when Goose creates a
new database (point ``GOOSE_PATH_ROOT`` at a folder holding it under ``data/sessions/``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from ..engine import EXPORT_CLAUSE, Kind, Result, declare
from ..io import InputError
from . import anthropic, message_rows, reasoning, session
from .store.sqlite import schema_head
from .base import Exported, Imported, as_text
from .format import Agent, Format, OnResume, SESSION, SelfRepair, SessionInfo, Source
from . import identity
from .jsonl import LineFormat, Lines
from .message_rows import Block, Request, Row, RowsDB, Store

NAME = "goose"
JSONL = "goose-jsonl"
SOURCE = "aaif-goose/goose crates/goose/src/conversation/mod.rs @ bc55f686 (fix_conversation, fix_tool_calling)"
SELF_REPAIRS = (
    SelfRepair("call-dropped-on-resume", None, "leaves out a tool request that no response answers", "", SOURCE),
    SelfRepair("result-dropped-on-resume", None, "leaves out a tool response whose request did not come before it",
               "", SOURCE),
)
VISIBLE = '{"userVisible":true,"agentVisible":true}'
OPENING = "(The conversation continues.)"

EMITS = declare(
    Kind("opening-added", EXPORT_CLAUSE, False, "opening prompt added",
         "Goose drops an assistant message that opens a session (and the results of its calls would then answer "
         "nothing), so a user message saying the conversation continues opens the written session.", "change"),
)


def _written(im: Imported, result: Result, notes: Exported) -> list[dict[str, Any]]:
    """The flat messages another format's export writes into Goose, in Goose's roles; one that
    would open with an assistant message gets a user message before it, noted."""
    out = [m for m in result.messages if m.get("role") in ("user", "assistant", "tool")]
    if any(m.get("role") == "system" for m in result.messages):
        notes.note("export-omitted", "Goose keeps no system message in a session; the system text is not written.")
    # Goose's first message is the first with something in it (it removes empty ones).
    first = next((m for m in out if not _empty(list(enumerate(_content(m))))), None)
    if first is not None and first.get("role") == "assistant":
        notes.note("opening-added", f"The history opens with an assistant message, which Goose drops; the written "
                                    f"session opens with the user message {OPENING!r}.")
        out.insert(0, {"role": "user", "content": OPENING})
    return out


# -- reading the database -------------------------------------------------------------------------

def sniff(data: bytes, name: str = "<input>") -> bool:
    if not message_rows.is_sqlite(data):
        return False
    head = schema_head(data, name)
    return (b"content_json" in head and b"created_timestamp" in head) or b'"agentVisible":' in head \
        or os.path.basename(name) == "sessions.db" and b"schema_version" in head


def _read(conn: sqlite3.Connection, name: str) -> tuple[dict[str, list[Row]], dict[str, dict[str, Any]]]:
    """Every session's rows in the agent's order, and what the sessions table says of each."""
    names = [c[0] for c in message_rows.columns(conn, "messages")]
    if not {"session_id", "role", "content_json"} <= set(names):
        raise InputError(name, f"{NAME}: no messages table with session_id, role and content_json; not a Goose "
                               "database")
    scols = {c[0] for c in message_rows.columns(conn, "sessions")}
    facts: dict[str, dict[str, Any]] = {}
    if "id" in scols:
        title = "name" if "name" in scols else ("description" if "description" in scols else "''")
        updated = "updated_at" if "updated_at" in scols else "NULL"
        for sid, t, upd in conn.execute(f"SELECT id, {title}, {updated} FROM sessions ORDER BY rowid"):
            facts[str(sid)] = {"title": t or "", "updated": upd}
    order = "timestamp, rowid" if "timestamp" in names else "rowid"
    sessions: dict[str, list[Row]] = {sid: [] for sid in facts}
    for values in conn.execute(f"SELECT rowid, * FROM messages ORDER BY {order}"):
        row = dict(zip(names, values[1:]))
        sid = str(row["session_id"])
        parts, spans = message_rows.parts_of(row["content_json"])
        mid = row.get("message_id") or f"row {values[0]}"
        sessions.setdefault(sid, []).append(Row(values[0], str(mid), str(row["role"]), row["content_json"], parts,
                                                spans, row.get("timestamp"), row))
        facts.setdefault(sid, {"title": "", "updated": None})
    return sessions, facts


def parse(data: bytes, name: str = "<input>", **options: Any) -> RowsDB:
    return message_rows.parse_store(data, name, NAME, _read)


def _metadata(row: Row) -> Mapping:
    raw = row.columns.get("metadata_json", row.columns.get("metadata"))
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = None
    return raw if isinstance(raw, Mapping) else {}


# -- what Goose sends --------------------------------------------------------------------------------

def _type(item: Any) -> str | None:
    return item.get("type") if isinstance(item, Mapping) and isinstance(item.get("type"), str) else None


def _empty(items: list[tuple[int, Any]]) -> bool:
    """``remove_empty_messages``: every item is a text item with no text (or there are none)."""
    return all(_type(p) == "text" and not p.get("text") for _, p in items)


def _tool_text(item: Mapping) -> tuple[str, bool]:
    """A response's text and whether it is an error, as Goose's Anthropic format sends it."""
    result = item.get("toolResult") if isinstance(item.get("toolResult"), Mapping) else {}
    if result.get("status") != "success":
        return as_text(result.get("error")), True
    value = result.get("value")
    content = value.get("content") if isinstance(value, Mapping) else value
    texts = [c.get("text") for c in content or () if isinstance(c, Mapping) and isinstance(c.get("text"), str)] \
        if isinstance(content, list) else []
    error = isinstance(value, Mapping) and value.get("isError") is True
    return "\n".join(texts), error


def request(rows: list[Row]) -> Request:
    """``get_conversation``, the agent-visible messages, ``fix_conversation`` and the Anthropic
    format, with each block's row and part (see the module docstring)."""
    req = Request()
    msgs: list[list[Any]] = []          # [row index, role, [(part index, item)]]
    hidden = 0
    for k, r in enumerate(rows):
        if r.role not in ("user", "assistant"):
            req.notes.append(("entry-not-sent", f"Message {r.id} has role {r.role!r}; Goose skips it.", None))
            continue
        if r.parts is None:
            req.notes.append(("entry-skipped", f"Message {r.id}: its content is not a JSON array; Goose cannot load "
                                               "the session with it either, and it is kept as it is.", None))
            continue
        if _metadata(r).get("agentVisible", True) is False:
            hidden += 1
            continue
        msgs.append([k, r.role, [(j, p) for j, p in enumerate(r.parts) if _type(p) != "conversationCompacted"]])
    if hidden:
        req.notes.append(("entry-not-sent", f"{hidden} message(s) are not agent-visible (compacted away or shown "
                                            "to the user only); Goose does not send them.", None))

    def drop_empty() -> None:
        for m in [m for m in msgs if _empty(m[2])]:
            req.notes.append(("entry-not-sent", f"Message {rows[m[0]].id} has nothing to send; Goose removes it.",
                              None))
        msgs[:] = [m for m in msgs if not _empty(m[2])]

    drop_empty()
    pending: dict[str, None] = {}
    first: dict[str, tuple[int, int]] = {}      # call id -> (row, part) of the response that answered it
    for m in msgs:
        keep = []
        for j, p in m[2]:
            t, rid = _type(p), rows[m[0]].id
            if m[1] == "user":
                if t in ("toolRequest", "toolConfirmationRequest", "thinking", "redactedThinking"):
                    req.notes.append(("entry-not-sent", f"Message {rid}: a {t} in a user message; Goose removes it.",
                                      None))
                    continue
                if t == "toolResponse":
                    cid = str(p.get("id"))
                    if cid in pending:
                        del pending[cid]
                        first[cid] = (m[0], j)
                    else:
                        if cid in first:           # a second response: left out because the first answered
                            req.shadows.setdefault(first[cid], []).append((m[0], j))
                        req.notes.append(("result-dropped-on-resume", f"Message {rid}: the tool response {cid} has "
                                          "no request before it (an orphan, or a second response); Goose leaves it "
                                          "out of every request.", cid))
                        continue
            else:
                if t in ("toolResponse", "frontendToolRequest"):
                    req.notes.append(("entry-not-sent", f"Message {rid}: a {t} in an assistant message; Goose "
                                                        "removes it.", None))
                    continue
                if t == "toolRequest":
                    pending[str(p.get("id"))] = None
            keep.append((j, p))
        m[2] = keep
    for m in msgs:
        if m[1] == "assistant":
            for j, p in m[2]:
                if _type(p) == "toolRequest" and str(p.get("id")) in pending:
                    name = ((p.get("toolCall") or {}).get("value") or {}).get("name", "") \
                        if isinstance(p.get("toolCall"), Mapping) else ""
                    req.notes.append(("call-dropped-on-resume", f"Message {rows[m[0]].id}: the {name} request "
                                      f"{p.get('id')} has no response (Goose stopped during the call); Goose leaves "
                                      "the request out of every request it sends, so the model never sees it.",
                                      str(p.get("id"))))
            m[2] = [(j, p) for j, p in m[2] if not (_type(p) == "toolRequest" and str(p.get("id")) in pending)]
    drop_empty()
    if msgs and msgs[0][1] == "assistant":
        req.notes.append(("entry-not-sent", f"Message {rows[msgs[0][0]].id} is an assistant message at the start; "
                                            "Goose removes it.", None))
        msgs.pop(0)
    for k, role, items in msgs:
        req.add(role, [b for j, p in items for b in _blocks(p, k, j, role)])
    return req


def _blocks(p: Mapping, k: int, j: int, role: str) -> list[Block]:
    t = _type(p)
    if t == "text":
        text = str(p.get("text", ""))
        text = text.rstrip() if role == "assistant" else text
        return [Block({"type": "text", "text": text}, k, j, "text")] if text else []
    if t == "image":
        return [Block({"type": "image", "source": {"type": "base64", "media_type": str(p.get("mimeType", "")),
                                                   "data": str(p.get("data", ""))}}, k, j, "file")]
    if t == "toolRequest":
        call = p.get("toolCall") if isinstance(p.get("toolCall"), Mapping) else {}
        value = call.get("value") if isinstance(call.get("value"), Mapping) else {}
        args = value.get("arguments")
        return [Block({"type": "tool_use", "id": str(p.get("id")), "name": str(value.get("name", "")),
                       "input": args if isinstance(args, Mapping) else {}}, k, j, "call")]
    if t == "toolResponse":
        text, error = _tool_text(p)
        body: dict[str, Any] = {"type": "tool_result", "tool_use_id": str(p.get("id")), "content": text}
        if error:
            body["is_error"] = True
        return [Block(body, k, j, "result")]
    if t == "thinking":
        return [Block({"type": "thinking", "thinking": str(p.get("thinking", "")),
                       "signature": str(p.get("signature", ""))}, k, j, "reasoning")]
    if t == "redactedThinking":
        return [Block({"type": "redacted_thinking", "data": str(p.get("data", ""))}, k, j, "reasoning")]
    return []


def listing(db: RowsDB) -> list[SessionInfo]:
    def first_user(rows: list[Row]) -> str:
        for r in rows:
            if r.role == "user":
                for p in r.parts or ():
                    if _type(p) == "text" and p.get("text"):
                        return str(p["text"])
        return ""

    order = sorted(db.sessions, key=lambda s: str(db.facts.get(s, {}).get("updated") or ""), reverse=True)
    return [SessionInfo(s, len(db.sessions[s]), first_user(db.sessions[s]),
                        str(db.facts[s]["updated"]) if db.facts.get(s, {}).get("updated") else None) for s in order]


def import_(document: Any, name: str = "<input>") -> Imported:
    if isinstance(document, (bytes, bytearray)):
        document = parse(bytes(document), name) if message_rows.is_sqlite(bytes(document)) \
            else parse_jsonl(bytes(document), name)
    if isinstance(document, Lines):
        return _import_lines(document, name)
    document = session.open_store(document, name, NAME, parse, RowsDB, "a Goose sessions database")
    if not document.sessions:
        return session.empty_store(NAME, document)
    rows = message_rows.need_session(document, name, listing)
    im = message_rows.imported(NAME, document, rows, request(rows), name)
    im.notes.append(f"session {document.session!r}: {len(rows)} messages; {len(document.sessions) - 1} other "
                    "session(s) left as they are" + ("; the WAL was read from a copy" if document.original is None
                                                     else ""))
    return im


def on_resume(im: Imported) -> OnResume:
    """What Goose does itself before every request; the store records no Goose version."""
    return OnResume.of("Goose", None, SELF_REPAIRS, im.events)


# -- writing the database ------------------------------------------------------------------------

def _error_response(cid: str, text: str) -> dict[str, Any]:
    return {"type": "toolResponse", "id": cid, "toolResult": {"status": "error", "error": text}}


def _new_row(anchor: Row, call: dict[str, Any], flat: dict[str, Any], item: Any) -> dict[str, Any]:
    """A result row as ``add_message`` writes a user message holding one tool response (the
    stored one when a result is moved)."""
    cid = str(call.get("id", ""))
    sid = str(anchor.columns["session_id"])
    content = message_rows.compact_json([item if item is not None else _error_response(cid, message_rows.result_text(flat))])
    return {"message_id": f"msg_{sid}_{uuid.uuid5(uuid.NAMESPACE_URL, f'inspector:goose:{sid}:{cid}')}",
            "session_id": sid, "role": "user", "content_json": content,
            "created_timestamp": anchor.columns.get("created_timestamp", 0), "timestamp": anchor.columns.get("timestamp"),
            "tokens": None, "metadata_json": VISIBLE}


def _answers(row: Row) -> bool:
    return row.role == "user" and bool(row.parts) and all(_type(p) == "toolResponse" for p in row.parts or ())


REASONING = ("thinking", "redactedThinking")
STORE = Store("messages", "content_json", "timestamp", lambda row, left: bool(left), _answers, _new_row,
              reasoning=lambda item: _type(item) in REASONING)


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: every ``thinking`` and ``redactedThinking`` item goes (from the
    rows of a database, or the lines of a ``.jsonl`` session)."""
    if isinstance(document, Lines):
        return _strip_lines(document, notes)
    return message_rows.strip(document, STORE, notes, parse)


def replace(path: str, before: RowsDB, after: RowsDB, keep: Any) -> str:
    """``--in-place``: the repair written into the live database in one transaction."""
    return message_rows.replace(path, before, after, keep, lambda conn: _read(conn, path)[0])


def export_same(im: Imported, result: Result, notes: Exported) -> Any:
    if isinstance(im.document, Lines):
        return _export_lines(im, result, notes)
    return message_rows.export_same(im, result, notes, STORE, parse)


SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version, applied_at) VALUES (9, '1970-01-01 00:00:00');
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
  tenant_id TEXT, user_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
  session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL,
  created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,
  metadata_json TEXT);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
"""


def _content(m: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A flat message as Goose's content list."""
    role = m.get("role")
    if role == "tool":
        return [{"type": "toolResponse", "id": m.get("tool_call_id"), "toolResult": {"status": "success", "value": {
            "content": [{"type": "text", "text": message_rows.result_text(m)}], "isError": False}}}]
    out: list[dict[str, Any]] = []
    if m.get("content"):
        out.append({"type": "text", "text": message_rows.result_text(m)})
    for c in m.get("tool_calls") or ():
        args = c.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                args = {"arguments": args}
        out.append({"type": "toolRequest", "id": c.get("tool_call_id"),
                    "toolCall": {"status": "success", "value": {"name": c.get("name", ""), "arguments": args or {}}}})
    return out


def _clock(t: int) -> str:
    """The t-th second after the epoch, as SQLite's CURRENT_TIMESTAMP spells it: a new
    database is the same bytes on every run, and Goose's order by timestamp is the order
    written, however many messages there are."""
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def export_new(im: Imported, result: Result, notes: Exported) -> RowsDB:
    """Another format's repaired history as a Goose database holding one session (results are
    user messages holding tool responses, as Goose keeps them)."""
    sid = "20260101_1"
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO sessions (id, name, working_dir, created_at, updated_at) VALUES "
                     "(?, ?, '', '1970-01-01 00:00:00', '1970-01-01 00:00:00')", (sid, f"{im.format} history"))
        for t, m in enumerate(_written(im, result, notes)):
            role = "assistant" if m.get("role") == "assistant" else "user"
            conn.execute("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, "
                         "timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (f"msg_{sid}_{t:06d}", sid, role, message_rows.compact_json(_content(m)), t,
                          _clock(t), VISIBLE))
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    return parse(data, "<new>")


# -- the .jsonl files of builds before the database -----------------------------------------------

def _claims(entry: Mapping) -> bool:
    return ("working_dir" in entry and ("description" in entry or "message_count" in entry)) or (
        entry.get("role") in ("user", "assistant") and "created" in entry and isinstance(entry.get("content"), list)
        and any(_type(c) in ("toolRequest", "toolResponse") for c in entry["content"]))


LINES = LineFormat(JSONL, _claims, "a Goose session metadata line, then one message per line")


def parse_jsonl(data: bytes, name: str = "<input>", **options: Any) -> Lines:
    return LINES.parse(data, name)


def _line_rows(doc: Lines) -> list[Row]:
    """Every message line (after the metadata line) as a row; ``rowid`` is the line index."""
    rows = []
    for i, entry in enumerate(doc.entries):
        if i == 0 or not isinstance(entry, Mapping) or "role" not in entry:
            continue
        content = entry.get("content")
        parts = list(content) if isinstance(content, list) else None
        meta = entry.get("metadata")
        rows.append(Row(i, str(entry.get("id") or f"line {i + 1}"), str(entry.get("role")), content, parts, [],
                        entry.get("created"), {"metadata": meta if isinstance(meta, Mapping) else None}))
    return rows


def _import_lines(doc: Lines, name: str) -> Imported:
    rows = _line_rows(doc)
    im = message_rows.imported(JSONL, doc, rows, request(rows), name)
    session.skipped_lines(im, doc, "Goose skips it")
    return im


def _export_lines(im: Imported, result: Result, notes: Exported) -> Lines:
    doc: Lines = im.document
    rows: list[Row] = im.state.rows
    plan = message_rows.edits(im, result)
    if not plan:
        return doc
    removed: set[int] = set()
    rewrite: dict[int, Any] = {}
    for k, gone in plan.cut.items():
        row = rows[k]
        left = [p for j, p in enumerate(row.parts or []) if j not in gone]
        if left:
            rewrite[row.rowid] = {**doc.entries[row.rowid], "content": left}
            notes.note("entry-rewritten", f"Line {row.rowid + 1}: {len(gone)} item(s) cut out of its content."
                       + message_rows.promoted(plan, k))
        else:
            removed.add(row.rowid)
            notes.note("entry-removed", f"Line {row.rowid + 1} is removed: nothing of it is left to send."
                       + message_rows.promoted(plan, k))
    after: dict[int, list[tuple[bytes | None, Any]]] = {}
    for b, flat, item in plan.new:
        anchor = b.row
        while anchor + 1 < len(rows) and _answers(rows[anchor + 1]) and rows[anchor + 1].rowid not in removed:
            anchor += 1
        base = rows[anchor]
        cid = str(b.body.get("id", ""))
        entry = {"role": "user", "created": base.order,
                 "content": [item if item is not None else _error_response(cid, message_rows.result_text(flat))],
                 "metadata": {"userVisible": True, "agentVisible": True}}
        after.setdefault(base.rowid, []).append((None, entry))
        notes.note("entry-moved" if item is not None else "entry-added",
                   f"A new line after line {base.rowid + 1} holds the result for {cid}.")
    return session.rewrite_lines(doc, JSONL, removed, rewrite, after)


def _strip_lines(doc: Lines, notes: Exported) -> Lines:
    removed: set[int] = set()
    rewrite: dict[int, Any] = {}
    for row in _line_rows(doc):
        gone = [j for j, p in enumerate(row.parts or []) if _type(p) in REASONING]
        for j in gone:
            reasoning.removed(notes, f"line {row.rowid + 1} content[{j}]", str(_type((row.parts or [])[j])))
        if gone:
            left = [p for j, p in enumerate(row.parts or []) if j not in gone]
            if left:
                rewrite[row.rowid] = {**doc.entries[row.rowid], "content": left}
            else:
                removed.add(row.rowid)
    return session.rewrite_lines(doc, JSONL, removed, rewrite, {}) if removed or rewrite else doc


def describe_part(block: Any) -> str:
    if isinstance(block, Mapping) and "parts" in block and "role" in block:
        return f"{block.get('role')} {block.get('id', '')}".rstrip()
    t = _type(block)
    if t in ("toolRequest", "toolResponse"):
        return f"{t} {block.get('id', '')}".rstrip()
    if t in ("text", "thinking"):
        return f"{t} {str(block.get('text') or block.get('thinking') or '')[:80]}".rstrip()
    return t or "item"


def evidence(document: Any) -> list[str]:
    return ["an SQLite database with Goose's sessions and messages(content_json) tables"] \
        if isinstance(document, RowsDB) and document.format == NAME else []


def dump(document: Any, compact: bool = False) -> bytes:
    return document.to_bytes()


KINDS = EMITS + message_rows.shared_kinds() + session.EMITS + anthropic.FORMAT.kinds

# The agent whose store this is (the doctor's table of agents reads it here).
AGENT = Agent("goose", "Goose",
              "quit Goose, keep a copy of sessions.db, put the repaired database in its place (and remove "
              "sessions.db-wal and sessions.db-shm: the copy already holds their commits, and a stale -wal would "
              "undo the repair), then `goose session --resume --session-id <session id>`",
              # `--session-id` names a session by its id (20251108_1), `--name` by its human name
              # (block/goose documentation/docs/guides/goose-cli-commands.md v1.50.0, "Flag Naming
              # Conventions"; "goose session --resume --session-id 20251108_2").
              command="goose session --resume --session-id {session}", database=True,
              versions="sessions.db (schema version 9) and the older .jsonl files",
              built_from=(
                  Source("aaif-goose/goose", "dbec1655c177", ("crates/goose/src/session/session_manager.rs",),
                         "the schema (the repository was block/goose)"),
                  Source("aaif-goose/goose", "bc55f6861a72", ("crates/goose/src/conversation/mod.rs",),
                         "fix_conversation: what a resume sends"),
                  Source("aaif-goose/goose", "6416fe74f076", ("crates/goose/src/conversation/message.rs",),
                         "the content items"),
                  Source("aaif-goose/goose", "b5a69495", ("tool_result_serde.rs",), "a result's status"),
                  Source("aaif-goose/goose", "decaa9d2", ("session/legacy.rs",), "the .jsonl files"),
                  Source("block/goose", "0780e228ca96", ("crates/goose/src/config/paths.rs",), "the data folder"),
              ))

FORMAT = Format(
    NAME, "a Goose sessions database", "Goose's session database (sessions/sessions.db; --session ID picks a "
    "session)", evidence, import_, export_same, export_new, describe_block=describe_part, sniff=sniff, parse=parse,
    dump=dump, kind=SESSION, suffixes=(".db",), provider="openai-chat", whole_file=True,
    sessions=listing, select=message_rows.select, chosen=message_rows.chosen, kinds=KINDS, on_resume=on_resume,
    replace=replace, strip_reasoning=strip_reasoning, repairs=SELF_REPAIRS,
    pairing=identity.ADJACENT,
    agent=AGENT,
)

JSONL_FORMAT = Format(
    JSONL, "a Goose session file (.jsonl)", "a Goose session file of builds before sessions.db (JSON Lines)",
    LINES.evidence, import_, export_same, lambda im, result, notes: _lines_new(im, result, notes),
    describe_block=describe_part, sniff=LINES.sniff, parse=parse_jsonl, dump=LINES.dump, kind=SESSION,
    suffixes=(".jsonl",), provider="openai-chat", whole_file=True, kinds=KINDS, on_resume=on_resume,
    strip_reasoning=strip_reasoning, repairs=SELF_REPAIRS,
    pairing=identity.ADJACENT,
    agent=AGENT,
)


def _lines_new(im: Imported, result: Result, notes: Exported) -> Lines:
    """Another format's repaired history as a Goose ``.jsonl`` session."""
    meta = {"working_dir": "", "description": f"{im.format} history", "message_count": 0}
    entries: list[Any] = [meta]
    for t, m in enumerate(_written(im, result, notes)):
        entries.append({"role": "assistant" if m.get("role") == "assistant" else "user", "created": t,
                        "content": _content(m), "metadata": {"userVisible": True, "agentVisible": True}})
    meta["message_count"] = len(entries) - 1
    raw = [message_rows.compact_json(e).encode() for e in entries]
    return Lines(JSONL, raw, entries)

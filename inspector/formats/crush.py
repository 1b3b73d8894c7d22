"""Crush sessions: ``.crush/crush.db`` in a project (or the ``data_dir`` its project registry
names), SQLite in WAL mode.

The schema is Crush's migrations (charmbracelet/crush ``internal/db/migrations/*.sql`` @
37f36e93824e5c4f892e4a817f7f628e2682fe14): ``sessions(id, title, message_count,
summary_message_id, ...)`` and ``messages(id, session_id, role, parts, model, provider,
created_at, updated_at, finished_at, is_summary_message)``, with triggers that count a
session's messages and stamp ``updated_at``. ``parts`` is a JSON array of ``{"type", "data"}``
(``text``, ``reasoning``, ``image_url``, ``binary``, ``tool_call``, ``tool_result``, ``finish``,
``shell_command``), written by Go's ``json.Marshal`` (``internal/message/message.go``,
``marshalParts``); an assistant row holds the calls, each result is a ``tool`` row of its own.

What a resume sends, after ``internal/agent/agent.go`` (``getSessionMessages``,
``preparePrompt``) and ``internal/message/content.go`` (``ToAIMessage``): the rows ``ORDER BY
created_at`` (rowid breaks a tie, as the index does); from the ``summary_message_id`` on, that
row sent as a user message; rows without parts and assistant rows with no text, reasoning or
call (cancelled before anything came) are left out; an assistant row sends its text, its
first reasoning part (with its Anthropic signature) and its calls; a ``tool`` row its results
(an error result as ``is_error``). The Anthropic request is fantasy's (charmbracelet/fantasy
``providers/anthropic/anthropic.go`` @ f6d4d1e3022229bd6e77717416336bf50e1693ad, ``groupIntoBlocks``,
``toPrompt``): user and tool messages in a row are one user turn, each message's parts in
``ToAIMessage``'s order (text, then reasoning, then calls), reasoning only with its signature
(``redacted_thinking`` with its data), an empty message left out. It is read with the
Anthropic importer; provenance is the row and the part (``messages[3].parts[1]``).

What Crush repairs itself (:func:`on_resume`): since 0.57.0 a result whose call is not in the
session is left out (``filterOrphanedToolResults``, c41a1a0e), since 0.59.0 a call without a
result is sent with the error result "tool call was interrupted ..." of its own
(``syntheticToolResultsForOrphanedCalls``, PR #2622, 1528c82f). A cancel writes the results
itself ("Error: user cancelled assistant tool calling"), so it is a crash (the process
killed mid-call) that leaves a call unanswered. The store records no Crush version, so the
verdict says what older versions do and since when Crush repairs it.

Export is a repaired copy of the database: a dropped part is cut out of its row's JSON text
(a row left with nothing to send is deleted), a synthesized result is a new ``tool`` row after
the call's turn spelled as Crush's ``Create`` writes one, the session's ``message_count`` kept
right; every other row keeps every column (``message_rows.py``). Nothing to change: the
input's own bytes. Resume it with Crush closed: keep a copy of ``.crush/crush.db``, put the
repaired file in its place (removing the old ``crush.db-wal``/``-shm``), run ``crush``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from ..engine import Result
from ..io import InputError
from . import anthropic, message_rows, session
from .store.sqlite import schema_head
from .base import Exported, Imported, args_object
from .format import Agent, Format, OnResume, SESSION, SelfRepair, SessionInfo, Source
from . import identity
from .message_rows import Block, Request, Row, RowsDB, Store

NAME = "crush"
SOURCE = "charmbracelet/crush internal/agent/agent.go @ 37f36e93 (preparePrompt)"
SELF_REPAIRS = (
    SelfRepair("call-answered-on-resume", "0.59.0",
               "answers a call left without a result with an error result",
               "sends the call without a result, and the provider refuses it",
               SOURCE + ", syntheticToolResultsForOrphanedCalls (PR #2622)", rule="tool-use-without-result",
               lossless=False),
    SelfRepair("result-dropped-on-resume", "0.57.0", "leaves out a result that answers no call",
               "sends it, and the provider refuses it", SOURCE + ", filterOrphanedToolResults",
               rule="result-without-tool-use"),
)
PART_TYPES = frozenset({"reasoning", "text", "image_url", "binary", "tool_call", "tool_result", "finish",
                        "shell_command"})
SENT = PART_TYPES - {"finish"}


def go_json(value: Any) -> str:
    """``json.Marshal``'s spelling: compact, UTF-8, with ``<``, ``>``, ``&`` and the line
    separators escaped as Go escapes them."""
    text = message_rows.compact_json(value)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


# -- reading ------------------------------------------------------------------------------------

def sniff(data: bytes, name: str = "<input>") -> bool:
    if not message_rows.is_sqlite(data):
        return False
    # Crush's schema sits in pages that may lie past the head of a grown database: its trigger,
    # the parts it writes first in every message (a finish part), or the file's own name tell it.
    head = schema_head(data, name)
    return b"update_session_message_count_on_insert" in head or b'{"type":"finish","data":{"reason":' in head \
        or os.path.basename(name) == "crush.db"


def _read(conn: sqlite3.Connection, name: str) -> tuple[dict[str, list[Row]], dict[str, dict[str, Any]]]:
    """Every session's rows in the agent's order, and what the sessions table says of each."""
    mcols = {c[0] for c in message_rows.columns(conn, "messages")}
    if not {"id", "session_id", "role", "parts", "created_at"} <= mcols:
        raise InputError(name, f"{NAME}: no messages table with id, session_id, role, parts and created_at; "
                               "not a Crush database")
    scols = {c[0] for c in message_rows.columns(conn, "sessions")}
    facts: dict[str, dict[str, Any]] = {}
    if {"id", "title"} <= scols:
        summary = "summary_message_id" if "summary_message_id" in scols else "NULL"
        updated = "updated_at" if "updated_at" in scols else "NULL"
        parent = "parent_session_id" if "parent_session_id" in scols else "NULL"
        for sid, title, summ, upd, par in conn.execute(
                f"SELECT id, title, {summary}, {updated}, {parent} FROM sessions ORDER BY rowid"):
            facts[str(sid)] = {"title": title or "", "summary": summ, "updated": upd, "parent": par}
    names = [c[0] for c in message_rows.columns(conn, "messages")]
    sessions: dict[str, list[Row]] = {sid: [] for sid in facts}
    cur = conn.execute("SELECT rowid, * FROM messages ORDER BY created_at, rowid")
    for values in cur:
        row = dict(zip(names, values[1:]))
        sid = str(row["session_id"])
        parts, spans = message_rows.parts_of(row["parts"])
        sessions.setdefault(sid, []).append(Row(values[0], str(row["id"]), str(row["role"]), row["parts"],
                                                parts, spans, row["created_at"], row))
        facts.setdefault(sid, {"title": "", "summary": None, "updated": None, "parent": None})
    return sessions, facts


def parse(data: bytes, name: str = "<input>", **options: Any) -> RowsDB:
    return message_rows.parse_store(data, name, NAME, _read)


def _typed(part: Any) -> tuple[str | None, Mapping]:
    if isinstance(part, Mapping) and isinstance(part.get("type"), str):
        data = part.get("data")
        return part["type"], data if isinstance(data, Mapping) else {}
    return None, {}


def _first(parts: list[Any], kind: str) -> tuple[int | None, Mapping]:
    for k, p in enumerate(parts):
        t, d = _typed(p)
        if t == kind:
            return k, d
    return None, {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def request(db: RowsDB) -> Request:
    """What ``preparePrompt`` sends for the chosen session (see the module docstring)."""
    rows = db.rows()
    req = Request()
    start = 0
    summary = db.facts.get(db.session, {}).get("summary")
    if summary:
        at = next((k for k, r in enumerate(rows) if r.id == summary), None)
        if at is not None:
            start = at
            if at:
                req.notes.append(("entry-not-sent", f"{at} message(s) before the summary {summary} are not sent; "
                                                    "Crush sends the summary as a user message instead.", None))
    sent = list(range(start, len(rows)))
    known_calls: set[str] = set()
    known_results: set[str] = set()
    for k in sent:
        r = rows[k]
        for p in r.parts or []:
            t, d = _typed(p)
            if r.role == "assistant" and t == "tool_call":
                known_calls.add(_str(d.get("id")))
            elif r.role == "tool" and t == "tool_result":
                known_results.add(_str(d.get("tool_call_id")))
    for k in sent:
        r = rows[k]
        role = "user" if k == start and summary and rows[start].id == summary else r.role
        if r.parts is None:
            req.notes.append(("entry-skipped", f"Message {r.id}: its parts are not a JSON array; Crush cannot load "
                                               "the session with it either, and it is kept as it is.", None))
            continue
        unknown = [str(_typed(p)[0]) for p in r.parts if _typed(p)[0] not in PART_TYPES]
        if unknown:
            req.notes.append(("entry-skipped", f"Message {r.id}: part type(s) {', '.join(unknown)} that Crush "
                                               "cannot read; it cannot load the session either, and the row is "
                                               "kept as it is.", None))
            continue
        if not r.parts:
            continue
        if role == "assistant":
            _assistant(req, r, k, known_results)
        elif role == "tool":
            blocks = []
            for j, p in enumerate(r.parts):
                t, d = _typed(p)
                if t != "tool_result":
                    continue
                cid = _str(d.get("tool_call_id"))
                body: dict[str, Any] = {"type": "tool_result", "tool_use_id": cid, "content": _str(d.get("content"))}
                if d.get("is_error") is True:
                    body["is_error"] = True
                elif _str(d.get("data")):
                    body["content"] = "[media result]"
                blocks.append(Block(body, k, j, "result"))
                if cid not in known_calls:
                    req.notes.append(("result-dropped-on-resume", f"Message {r.id}: the result for {cid} answers no "
                                      "call of the session; Crush since 0.57.0 leaves it out when it resumes, older "
                                      "versions send it.", cid))
            req.add("tool", blocks)
        elif role == "user":
            req.add("user", _user(r, k))
        else:
            req.notes.append(("entry-not-sent", f"Message {r.id} has role {role!r}; Crush sends no such message.",
                              None))
    return req


def _user(r: Row, k: int) -> list[Block]:
    parts = r.parts or []
    at, text_part = _first(parts, "text")
    text = _str(text_part.get("text")).strip()
    for j, p in enumerate(parts):
        t, d = _typed(p)
        if t == "binary" and _str(d.get("MIMEType")).startswith("text/"):
            text += f"\n<file path='{_str(d.get('Path'))}'>\n\n(attached file)\n</file>\n"
        elif t == "shell_command":
            shell = f"$ {_str(d.get('command'))}\n{_str(d.get('output'))}\n(exit code {d.get('exit_code', 0)})"
            text = f"{text}\n\n{shell}" if text else shell
    blocks = []
    if text:
        blocks.append(Block({"type": "text", "text": text}, k, at if at is not None else 0, "text"))
    for j, p in enumerate(parts):
        t, d = _typed(p)
        if t == "binary" and not _str(d.get("MIMEType")).startswith("text/"):
            blocks.append(Block({"type": "image", "source": {"type": "base64", "media_type": _str(d.get("MIMEType")),
                                                             "data": _str(d.get("Data"))}}, k, j, "file"))
    return blocks


def _assistant(req: Request, r: Row, k: int, known_results: set[str]) -> None:
    parts = r.parts or []
    calls = [(j, d) for j, p in enumerate(parts) for t, d in [_typed(p)] if t == "tool_call"]
    at, text_part = _first(parts, "text")
    rat, reasoning = _first(parts, "reasoning")
    text = _str(text_part.get("text")).strip()
    thinking = _str(reasoning.get("thinking"))
    if not calls and not _str(text_part.get("text")) and not thinking:
        req.notes.append(("entry-not-sent", f"Message {r.id}: an assistant message with no text, reasoning or call "
                                            "(cancelled before anything came); Crush does not send it.", None))
        return
    blocks: list[Block] = []
    if text:
        blocks.append(Block({"type": "text", "text": text}, k, at, "text"))
    if thinking:
        if _str(reasoning.get("signature")):
            blocks.append(Block({"type": "thinking", "thinking": thinking, "signature": reasoning["signature"]},
                                k, rat, "reasoning"))
        else:
            req.notes.append(("entry-not-sent", f"Message {r.id}: its reasoning carries no Anthropic signature, so "
                                                "the Anthropic request has no thinking block for it.", None))
    for j, d in calls:
        cid = _str(d.get("id"))
        blocks.append(Block({"type": "tool_use", "id": cid, "name": _str(d.get("name")),
                             "input": args_object(_str(d.get("input")) or "{}")}, k, j, "call"))
        if cid not in known_results:
            req.notes.append(("call-answered-on-resume", f"Message {r.id}: the {_str(d.get('name'))} call {cid} has no "
                              "result (Crush was stopped during the call); Crush since 0.59.0 sends an error result "
                              "of its own for it on resume, older versions send it unanswered.", cid))
    req.add("assistant", blocks)


def listing(db: RowsDB) -> list[SessionInfo]:
    """Every session, newest first: id, messages, first prompt, last update."""
    def first_user(rows: list[Row]) -> str:
        for r in rows:
            if r.role == "user" and r.parts:
                return _str(_first(r.parts, "text")[1].get("text"))
        return ""

    def when(sid: str) -> tuple[float, str | None]:
        value = db.facts.get(sid, {}).get("updated")
        if not isinstance(value, (int, float)) or not value:
            return 0.0, None
        secs = value / 1000 if value > 1e11 else value       # Crush's triggers stamp seconds, its code ms
        try:
            return secs, datetime.fromtimestamp(secs, tz=timezone.utc).isoformat(timespec="seconds")
        except (OverflowError, OSError, ValueError):
            return secs, None

    order = sorted(db.sessions, key=lambda s: when(s)[0], reverse=True)
    return [SessionInfo(s, len(db.sessions[s]), first_user(db.sessions[s]), when(s)[1]) for s in order]


def import_(document: Any, name: str = "<input>") -> Imported:
    document = session.open_store(document, name, NAME, parse, RowsDB, "a Crush database")
    if not document.sessions:
        return session.empty_store(NAME, document)
    rows = message_rows.need_session(document, name, listing)
    im = message_rows.imported(NAME, document, rows, request(document), name)
    im.notes.append(f"session {document.session!r}: {len(rows)} messages; {len(document.sessions) - 1} other "
                    "session(s) left as they are" + ("; the WAL was read from a copy" if document.original is None
                                                     else ""))
    return im


def ran_on(im: Imported) -> list[tuple[str | None, str | None]]:
    """The provider and model Crush records on each message (``messages.provider``, ``model``)."""
    return [(r.columns.get("provider"), r.columns.get("model")) for r in im.state.rows]


def on_resume(im: Imported) -> OnResume:
    """What Crush does itself on resume; the store records no Crush version."""
    return OnResume.of("Crush", None, SELF_REPAIRS, im.events)


# -- writing --------------------------------------------------------------------------------

def _keeps(row: Row, left: list[Any]) -> bool:
    return any(_typed(p)[0] in SENT for p in left)


def _new_row(anchor: Row, call: dict[str, Any], flat: dict[str, Any], item: Any) -> dict[str, Any]:
    """A result row as Crush's ``Create`` writes one: a ``tool_result`` part (the stored one
    when a result is moved) and the ``finish`` part ``Create`` adds to every message that is
    not the assistant's."""
    cid = str(call.get("id", ""))
    result = {"tool_call_id": cid, "name": str(call.get("name", "")), "content": message_rows.result_text(flat),
              "data": "", "mime_type": "", "metadata": "", "is_error": True}
    parts = [item if item is not None else {"type": "tool_result", "data": result},
             {"type": "finish", "data": {"reason": "stop", "time": 0}}]
    sid = anchor.columns["session_id"]
    return {"id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"inspector:crush:{sid}:{cid}:{item is not None}")),
            "session_id": sid,
            "role": "tool", "parts": go_json(parts), "model": "", "provider": None,
            "created_at": anchor.columns["created_at"], "updated_at": anchor.columns["created_at"],
            "finished_at": None, "is_summary_message": 0}


def _count(conn: sqlite3.Connection, sid: str, added: int) -> None:
    """``message_count`` as Crush's insert and delete triggers would leave it."""
    if added and {"message_count"} <= {c[0] for c in message_rows.columns(conn, "sessions")}:
        conn.execute("UPDATE sessions SET message_count = message_count + ? WHERE id = ?", (added, sid))


STORE = Store("messages", "parts", "created_at", _keeps, lambda r: r.role == "tool", _new_row, _count,
              lambda part: _typed(part)[0] == "reasoning")


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: every ``reasoning`` part of the session's rows goes."""
    return message_rows.strip(document, STORE, notes, parse)


def replace(path: str, before: RowsDB, after: RowsDB, keep: Any) -> str:
    """``--in-place``: the repair written into the live database in one transaction."""
    return message_rows.replace(path, before, after, keep, lambda conn: _read(conn, path)[0])


def export_same(im: Imported, result: Result, notes: Exported) -> RowsDB:
    return message_rows.export_same(im, result, notes, STORE, parse)


SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
  prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
  completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0),
  cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0), updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL,
  summary_message_id TEXT, todos TEXT);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
  parts TEXT NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE);
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE INDEX idx_messages_created_at ON messages (created_at);
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages BEGIN
UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
CREATE TRIGGER update_session_message_count_on_delete AFTER DELETE ON messages BEGIN
UPDATE sessions SET message_count = message_count - 1 WHERE id = old.session_id; END;
"""


def export_new(im: Imported, result: Result, notes: Exported) -> RowsDB:
    """Another format's repaired history as a Crush database holding one session, in the
    migrations' schema: a row per flat message, calls as ``tool_call`` parts, each result a
    ``tool`` row."""
    sid = "inspector-import"
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO sessions (id, title, updated_at, created_at) VALUES (?, ?, 0, 0)",
                     (sid, f"{im.format} history"))
        system = [m.get("content") for m in result.messages if m.get("role") == "system" and m.get("content")]
        if system:
            notes.note("export-omitted", "Crush keeps no system message in a session; the system text is not written.")
        for t, m in enumerate(result.messages):
            role = m.get("role")
            if role == "assistant":
                parts = [{"type": "text", "data": {"text": m.get("content") or ""}}] if m.get("content") else []
                parts += [{"type": "tool_call", "data": {"id": c.get("tool_call_id"), "name": c.get("name", ""),
                                                         "input": c.get("arguments") if isinstance(c.get("arguments"), str)
                                                         else json.dumps(c.get("arguments") or {}),
                                                         "provider_executed": False, "finished": True}}
                          for c in m.get("tool_calls") or ()]
                parts.append({"type": "finish", "data": {"reason": "tool_use" if m.get("tool_calls") else "end_turn",
                                                         "time": 0}})
            elif role == "tool":
                parts = [{"type": "tool_result", "data": {"tool_call_id": m.get("tool_call_id"), "name": "",
                                                          "content": message_rows.result_text(m), "data": "",
                                                          "mime_type": "", "metadata": "", "is_error": False}},
                         {"type": "finish", "data": {"reason": "stop", "time": 0}}]
            elif role == "user":
                parts = [{"type": "text", "data": {"text": message_rows.result_text(m)}},
                         {"type": "finish", "data": {"reason": "stop", "time": 0}}]
            else:
                continue
            conn.execute("INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) "
                         "VALUES (?, ?, ?, ?, '', ?, ?)", (f"inspector-{t:06d}", sid, role, go_json(parts), t, t))
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    return parse(data, "<new>")


def describe_part(block: Any) -> str:
    """A part by its type, and a call or result by its id and name."""
    if isinstance(block, Mapping) and "parts" in block and "role" in block:
        return f"{block.get('role')} {block.get('id', '')}".rstrip()
    t, d = _typed(block)
    if t == "tool_call":
        return f"tool_call {_str(d.get('id'))} {_str(d.get('name'))}".rstrip()
    if t == "tool_result":
        return f"tool_result {_str(d.get('tool_call_id'))}".rstrip()
    if t in ("text", "reasoning"):
        return f"{t} {_str(d.get('text') if t == 'text' else d.get('thinking'))[:80]}".rstrip()
    return t or "part"


def evidence(document: Any) -> list[str]:
    return ["an SQLite database with Crush's sessions and messages(parts) tables"] \
        if isinstance(document, RowsDB) and document.format == NAME else []


def dump(document: Any, compact: bool = False) -> bytes:
    return document.to_bytes()


# The agent whose store this is (the doctor's table of agents reads it here).
AGENT = Agent("crush", "Crush",
              "quit Crush, keep a copy of .crush/crush.db, put the repaired database in its place "
              "(and remove crush.db-wal and crush.db-shm: the copy already holds their commits, and a stale -wal "
              "would undo the repair), then run `crush`",
              # Crush's interactive command takes no session id (tldr-pages pages/common/crush.md; the
              # root.go the index holds for charmbracelet/crush at 04500aa has no such flag): it opens
              # on its session list, where the session is chosen.
              command="crush", database=True,
              versions="not pinned (the database records none); the Go OpenCode's database too",
              built_from=(
                  Source("charmbracelet/crush", "37f36e93824e",
                         ("internal/db/migrations/*.sql", "internal/agent/agent.go", "internal/message/content.go",
                          "internal/message/message.go"), "the schema and what a resume sends"),
                  Source("charmbracelet/crush", "127ce367ca62", ("internal/projects/projects.go",),
                         "the project registry"),
                  Source("charmbracelet/fantasy", "f6d4d1e30222", ("providers/anthropic/anthropic.go",),
                         "the Anthropic request"),
              ))

FORMAT = Format(
    NAME, "a Crush database", "Crush's session database (.crush/crush.db; --session ID picks a session)",
    evidence, import_, export_same, export_new, describe_block=describe_part, sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".db",), provider="anthropic", whole_file=True,
    sessions=listing, select=message_rows.select, chosen=message_rows.chosen,
    kinds=message_rows.shared_kinds() + session.EMITS + anthropic.FORMAT.kinds, on_resume=on_resume,
    replace=replace, strip_reasoning=strip_reasoning, repairs=SELF_REPAIRS,
    pairing=identity.ADJACENT,
    agent=AGENT, ran_on=ran_on,
)

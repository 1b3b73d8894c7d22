"""OpenClaw 2026.9.2 and later: the pi session records as rows of one database per agent,
``~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite``.

The schema is OpenClaw's (openclaw/openclaw ``src/state/openclaw-agent-db-contract.ts`` @
040e1a765488, schema 19, and the generated agent schema it opens): ``sessions(session_id,
session_key, ..., model_provider, model, ...)``, ``transcript_events(session_id, seq,
event_json, created_at)`` with one pi record (the header, then the entries) per row in ``seq``
order, and ``transcript_event_identities(session_id, event_id, seq, event_type, has_parent,
parent_id, message_idempotency_key, created_at)`` indexing them (the tail is the highest
``seq`` with a parent). The rows are read and repaired exactly as the lines of a pi file
(:mod:`.importer`, :mod:`.branch`): a repair appends rows after the last ``seq`` (and their
identity rows), every row already there keeps every column; ``--in-place`` writes the same rows
into the live file in one write transaction under the shared policy (``store/sqlite.py``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...engine import Result
from ...io import InputError
from .. import session
from ..base import Exported, Imported, Loc
from ..format import SessionInfo
from ..jsonl import describe_line
from ..store.sqlite import (CHANGED, HEADER, intact, live_transaction, open_checked, read_live, schema_head,
                            triggers_aside, with_mode)
from . import branch, importer, tree

NAME = "openclaw-agent-db"
ACTIVE = "session_transcript_active_events"


@dataclass(slots=True, eq=False)
class AgentDB:
    """An OpenClaw agent database read into memory: per session its rows (seq, event_json,
    created_at) in ``seq`` order; ``session`` the one chosen; ``plan`` the rows a repair
    appends (session, rows), for ``--in-place``."""

    data: bytes
    sessions: dict[str, list[tuple[int, str, int]]]
    facts: dict[str, dict[str, Any]]
    original: bytes | None = None
    mode: bytes = b""
    session: str | None = None
    plan: list[tuple[int, str, int]] = field(default_factory=list)

    def to_bytes(self) -> bytes:
        return self.original if self.original is not None else with_mode(self.data, self.mode)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentDB) and self.sessions == other.sessions

    __hash__ = None  # type: ignore[assignment]


class EventLoc(Loc):
    """A place in the chosen session's rows: ``event 4, content[1]`` (the 1-based position in
    ``seq`` order)."""

    __slots__ = ()

    def describe(self, container: str | None = None) -> str:
        if self.items and len(self.items) > 1:
            return "events " + ", ".join(str(i + 1) for i in self.items)
        if not isinstance(self.message, int):
            return str(self.message)
        return "event" + describe_line(self.message, self.key, self.blocks)[len("line"):]


def sniff(data: bytes, name: str = "<input>") -> bool:
    if not data.startswith(HEADER):
        return False
    head = schema_head(data, name)
    return b"transcript_events" in head and b"event_json" in head


def _read(conn: sqlite3.Connection) -> tuple[dict[str, list[tuple[int, str, int]]], dict[str, dict[str, Any]]]:
    sessions: dict[str, list[tuple[int, str, int]]] = {}
    for sid, seq, text, created in conn.execute(
            "SELECT session_id, seq, event_json, created_at FROM transcript_events ORDER BY session_id, seq"):
        sessions.setdefault(str(sid), []).append((seq, text if isinstance(text, str) else "", created))
    facts: dict[str, dict[str, Any]] = {}
    names = {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}
    if {"session_id", "model_provider", "model"} <= names:
        for sid, provider, model in conn.execute("SELECT session_id, model_provider, model FROM sessions"):
            facts[str(sid)] = {"provider": provider, "model": model}
    return sessions, facts


def parse(data: bytes, name: str = "<input>", **options: Any) -> AgentDB:
    image, original = read_live(data, name, NAME)
    conn = open_checked(image, name, NAME)
    try:
        sessions, facts = _read(conn)
        out = conn.serialize()
    except sqlite3.Error as exc:
        raise InputError(name, f"{NAME}: cannot read transcript_events ({exc})") from None
    finally:
        conn.close()
    db = AgentDB(out, sessions, facts, original, bytes(data[18:20]))
    if len(sessions) == 1:
        db.session = next(iter(sessions))
    return db


def listing(db: AgentDB) -> list[SessionInfo]:
    out = []
    for sid, rows in db.sessions.items():
        first = ""
        for _, text, _ in rows:
            try:
                e = json.loads(text)
            except ValueError:
                continue
            if tree.role(e) == "user" if isinstance(e, Mapping) else False:
                c = e["message"].get("content")
                first = c if isinstance(c, str) else next((b.get("text", "") for b in c or [] if
                                                            isinstance(b, Mapping) and b.get("type") == "text"), "")
                break
        out.append(SessionInfo(sid, len(rows), first[:80], str(rows[-1][2]) if rows else None))
    return out


def select(db: AgentDB, sid: str, name: str = "<input>") -> AgentDB:
    return session.selected(db, sid, db.sessions, name, NAME)


def chosen(db: AgentDB) -> str | None:
    return db.session


def _entries(rows: list[tuple[int, str, int]]) -> list[Any]:
    out = []
    for _, text, _ in rows:
        try:
            out.append(json.loads(text))
        except ValueError:
            out.append(None)
    return out


def _where(i: int, key: str | None, parts: tuple[int, ...] | None, items: tuple[int, ...] | None) -> EventLoc:
    if items:
        return EventLoc(items[0], None, None, items)
    return EventLoc(i, key, parts if parts is not None else ()) if key else EventLoc(i)


def import_(document: Any, name: str = "<input>") -> Imported:
    db = session.open_store(document, name, NAME, parse, AgentDB, "an OpenClaw agent database")
    if not db.sessions:
        return session.empty_store(NAME, db)
    if db.session is None:
        shown = ", ".join(f"{s.id} ({s.first_user[:40]!r})" for s in listing(db)[:10])
        raise session.must_choose(NAME, len(db.sessions), shown, name)
    rows = db.sessions[db.session]
    entries = _entries(rows)
    im = importer.read(NAME, db, [t for _, t, _ in rows], entries, name, _where, openclaw=True, word="event")
    for k, e in enumerate(entries):
        if e is None:
            im.note(None, "entry-skipped", f"Event {k + 1} (seq {rows[k][0]}) is not JSON; OpenClaw skips it too, "
                                           "and it is kept as it is.")
    return im


def _append(conn: sqlite3.Connection, sid: str, rows: list[tuple[int, str, int]]) -> None:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    with triggers_aside(conn):
        for seq, text, created in rows:
            conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
                         (sid, seq, text, created))
            if "transcript_event_identities" in tables:
                e = json.loads(text)
                conn.execute("INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, "
                             "has_parent, parent_id, message_idempotency_key, created_at) VALUES (?, ?, ?, ?, ?, ?, "
                             "NULL, ?)", (sid, e.get("id"), seq, e.get("type"), int(e.get("parentId") is not None),
                                          e.get("parentId"), created))


def export_same(im: Imported, result: Result, notes: Exported) -> AgentDB:
    db: AgentDB = im.document
    if im.state is None:
        return db
    rows = db.sessions[db.session or ""]
    added = branch.plan(im, result, notes, [t for _, t, _ in rows], "event")
    if not added.texts:
        return db
    conn = open_checked(db.data, "<memory>", NAME)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (ACTIVE,)).fetchone():
            raise InputError("<input>", f"{NAME}: this database keeps materialized active paths ({ACTIVE}), which "
                                        "Inspector does not write; nothing was written")
        last = max(seq for seq, _, _ in rows)
        stamp = rows[-1][2]
        plan = [(last + k + 1, text, stamp) for k, text in enumerate(added.texts)]
        notes.note("entry-branched", f"The appended events are rows seq {plan[0][0]} to {plan[-1][0]} of "
                                     "transcript_events (with their transcript_event_identities rows); every row "
                                     "already there keeps every column.")
        _append(conn, db.session or "", plan)
        intact(conn, "<repaired>", NAME)
        conn.commit()
        data = conn.serialize()
    except sqlite3.Error as exc:
        raise InputError("<repaired>", f"{NAME}: cannot write the repaired rows ({exc})") from None
    finally:
        conn.close()
    out = select(parse(data, "<repaired>"), db.session or "")
    out.original, out.mode, out.plan = None, db.mode, list(db.plan) + plan
    return out


def replace(path: str, before: AgentDB, after: AgentDB, keep: Any) -> str:
    """``--in-place``: the session's rows must still be the ones read; the whole database is
    kept through ``keep``; the repair's rows are appended and read back before the commit."""
    name = str(path)
    sid = before.session or ""
    with live_transaction(name, NAME) as conn:
        now = [tuple(r) for r in conn.execute("SELECT seq, event_json, created_at FROM transcript_events WHERE "
                                              "session_id = ? ORDER BY seq", (sid,))]
        if now != [tuple(r) for r in before.sessions.get(sid, [])]:
            raise InputError(name, CHANGED)
        backup = keep(conn.serialize())
        _append(conn, sid, after.plan)
        written = [tuple(r) for r in conn.execute("SELECT seq, event_json, created_at FROM transcript_events WHERE "
                                                  "session_id = ? ORDER BY seq", (sid,))]
        if written != [tuple(r) for r in after.sessions.get(sid, [])]:
            raise InputError(name, f"{NAME}: the rows written are not the repair's; nothing was written")
        intact(conn, name, NAME)
        return backup


def evidence(document: Any) -> list[str]:
    return ["an SQLite database with OpenClaw's transcript_events"] if isinstance(document, AgentDB) else []


def dump(document: Any, compact: bool = False) -> bytes:
    return document.to_bytes()


def ran_on(im: Imported) -> list[tuple[str | None, str | None]]:
    if im.state is None:
        return []
    out = importer.ran_on(im.state.entries, im.state.walk)
    if not out:
        fact = im.document.facts.get(im.document.session or "", {})
        if fact.get("provider"):
            out.append((fact["provider"], fact.get("model")))
    return out


# The tables a new database needs, in the columns of OpenClaw's agent schema (schema 19).
SCHEMA = """
CREATE TABLE sessions (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL,
  session_scope TEXT NOT NULL DEFAULT 'conversation', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  started_at INTEGER, ended_at INTEGER, status TEXT, chat_type TEXT, channel TEXT, account_id TEXT,
  primary_conversation_id TEXT, model_provider TEXT, model TEXT, agent_harness_id TEXT, parent_session_key TEXT,
  spawned_by TEXT, display_name TEXT);
CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL,
  created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES sessions(session_id) ON DELETE CASCADE);
CREATE TABLE transcript_event_identities (session_id TEXT NOT NULL, event_id TEXT NOT NULL, seq INTEGER NOT NULL,
  event_type TEXT, has_parent INTEGER NOT NULL DEFAULT 0, parent_id TEXT, message_idempotency_key TEXT,
  created_at INTEGER NOT NULL, PRIMARY KEY (session_id, event_id),
  FOREIGN KEY (session_id, seq) REFERENCES transcript_events(session_id, seq) ON DELETE CASCADE);
"""


def export_new(im: Imported, result: Result, notes: Exported) -> AgentDB:
    """Another format's history as a new OpenClaw agent database holding one session (its
    records those of a new pi session file, one per row)."""
    from . import export_new as as_file

    lines = as_file(im, result, notes)
    sid = "inspector-export"
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO sessions (session_id, session_key, created_at, updated_at) VALUES (?, ?, 0, 0)",
                     (sid, f"agent:main:{sid}"))
        conn.execute("INSERT INTO transcript_events VALUES (?, 1, ?, 0)", (sid, lines.raw[0].decode()))
        _append(conn, sid, [(k + 2, raw.decode(), 0) for k, raw in enumerate(lines.raw[1:])])
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    out = parse(data, "<new>")
    out.original = None
    return out

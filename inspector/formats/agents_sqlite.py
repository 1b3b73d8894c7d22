"""OpenAI Agents SDK ``SQLiteSession`` databases.

The SDK keeps sessions in two tables (names configurable, ``agent_sessions`` and
``agent_messages`` by default): ``agent_messages(id, session_id, message_data, created_at)``
holds one Responses input item per row as JSON text, read back ``ORDER BY created_at`` (ties
in insertion order) and sent as the next run's input. One orphan ``function_call_output``
there makes every later run fail ("No tool call found for function call output").

The database is read from its bytes in memory (stdlib ``sqlite3``, ``deserialize``): the
file is never opened for writing, and a ``-wal`` file beside it is read from a copy. A
database holds many sessions; one is chosen (``--session ID``, or the only one there is).
Its items are read with the Responses importer; provenance is the row id (``row 12``).

Export is a new database: every other session and table as it was, and the chosen
session's rows rewritten in order: kept items with their original JSON text and time, a
synthesized ``function_call_output`` after its call's turn, dropped rows gone.
"""

from __future__ import annotations

import copy

import json
import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from typing import Any

from ..engine import Result
from ..io import InputError
from . import openai_responses, session
from .base import Exported, Imported, Loc
from .format import SESSION, Format, SessionInfo

NAME = "agents-sqlite"
SUMMARY = "an OpenAI Agents SDK SQLiteSession database (--session ID picks a session)"
HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True, slots=True)
class Row:
    id: int
    created_at: Any
    data: str


@dataclass(slots=True, eq=False)
class AgentsDB:
    """A SQLiteSession database read into memory; ``session`` is the one being repaired."""

    data: bytes
    messages_table: str
    sessions_table: str | None
    sessions: dict[str, list[Row]]
    session: str | None = None
    format: str = NAME
    notes: list[str] = field(default_factory=list)

    def to_bytes(self) -> bytes:
        return self.data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentsDB) and self.sessions == other.sessions

    __hash__ = None  # type: ignore[assignment]

    def rows(self) -> list[Row]:
        if self.session is None:
            raise ValueError("no session chosen")
        return self.sessions[self.session]

    def select(self, session: str, name: str = "<input>") -> "AgentsDB":
        """The database with the session to repair chosen (``--session ID``): a shallow copy,
        so the database given keeps its own choice."""
        if session not in self.sessions:
            raise InputError(name, f"{NAME}: no session {session!r}; sessions: " + (", ".join(self.sessions) or "none"))
        picked = copy.copy(self)
        picked.session = session
        return picked

    def listing(self) -> str:
        return ", ".join(f"{sid} ({len(rows)} item{'s' if len(rows) != 1 else ''})" for sid, rows in self.sessions.items())


@dataclass(slots=True)
class AgentsState:
    """What export needs of a session's import: the Responses import of its items, the row
    id of each item, and the rows the SDK cannot read (kept, after the rest)."""

    inner: Imported
    ids: list[int]
    skipped: list[int]


class RowLoc(Loc):
    """``message`` is an item's position in the session; ``key`` carries the row ids."""

    __slots__ = ()

    def describe(self, container: str | None = None) -> str:
        ids = self.blocks or ()
        if len(ids) > 1:
            return f"rows {', '.join(map(str, ids))}"
        return f"row {ids[0]}" if ids else f"item {self.message}"


def sniff(data: bytes, name: str = "<input>") -> bool:
    return data.startswith(HEADER) and b"message_data" in data[:1 << 20]


def dump(document: AgentsDB, compact: bool = False) -> bytes:
    return document.to_bytes()


def evidence(document: Any) -> list[str]:
    return ["an SQLite database with a message_data table (Agents SDK SQLiteSession)"] \
        if isinstance(document, AgentsDB) else []




def _open(data: bytes, name: str) -> sqlite3.Connection:
    """An in-memory copy of the database; a ``-wal`` beside a real file is applied from a copy."""
    wal = f"{name}-wal"
    if os.path.isfile(name) and os.path.isfile(wal) and os.path.getsize(wal) > 0:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "copy.db")
            with open(copy, "wb") as handle:
                handle.write(data)
            shutil.copyfile(wal, copy + "-wal")
            disk = sqlite3.connect(copy)
            try:
                disk.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                disk.execute("PRAGMA journal_mode=DELETE")
                data = disk.serialize()
            finally:
                disk.close()
    if len(data) > 19 and data[18:20] == b"\x02\x02":
        data = data[:18] + b"\x01\x01" + data[20:]      # WAL mode is a file property; memory has none
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise InputError(name, f"{NAME}: not a readable SQLite database ({exc})") from None
    return conn


def _tables(conn: sqlite3.Connection) -> tuple[str | None, str | None]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    messages = sessions = None
    for t in names:
        cols = {r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')}
        if {"session_id", "message_data"} <= cols:
            if messages is None or t == "agent_messages":
                messages = t
        elif {"session_id", "updated_at"} <= cols:
            if sessions is None or t == "agent_sessions":
                sessions = t
    return messages, sessions


def parse(data: bytes, name: str = "<input>", **options: Any) -> AgentsDB:
    conn = _open(data, name)
    try:
        messages, sessions_table = _tables(conn)
        if messages is None:
            raise InputError(name, f"{NAME}: no table with session_id and message_data columns; "
                                   f"not an Agents SDK session database")
        found: dict[str, list[Row]] = {}
        if sessions_table:
            for (sid,) in conn.execute(f'SELECT session_id FROM "{sessions_table}" ORDER BY created_at, rowid'):
                found.setdefault(str(sid), [])
        for rid, sid, text, created in conn.execute(
                f'SELECT id, session_id, message_data, created_at FROM "{messages}" ORDER BY created_at, id'):
            found.setdefault(str(sid), []).append(Row(rid, created, text))
        data = conn.serialize()
    finally:
        conn.close()
    db = AgentsDB(data, messages, sessions_table, found)
    if len(found) == 1:
        db.session = next(iter(found))
    return db


def import_(document: Any, name: str = "<input>") -> Imported:
    document = session.open_store(document, name, NAME, parse, AgentsDB, "an SQLite session database")
    if document.session is None:
        raise InputError(name, f"{NAME}: the database holds {len(document.sessions)} sessions; choose one with "
                               f"--session ID: {document.listing()}")
    rows = document.rows()
    items: list[Any] = []
    ids: list[int] = []
    skipped: list[int] = []
    for row in rows:
        try:
            items.append(json.loads(row.data))
            ids.append(row.id)
        except (TypeError, ValueError):
            skipped.append(row.id)         # the SDK skips a row it cannot read, and so does a resume
    inner = openai_responses.import_(items, name)
    im = Imported(NAME, inner.messages, document, container=None, history=items)
    im.events.extend(inner.events)
    for rid in skipped:
        im.note(None, "entry-skipped", f"Row {rid} is not JSON; the SDK skips it, and it is kept as it is.")
    for src, calls in zip(inner.sources, inner.calls):
        span = src.items or (src.message,)
        im.sources.append(RowLoc(span[0], None, tuple(ids[k] for k in span), tuple(span) if len(span) > 1 else None))
        im.calls.append([RowLoc(c.message, None, (ids[c.message],)) for c in calls])
    im.state = AgentsState(inner, ids, skipped)
    im.notes.append(f"session {document.session!r}: {len(rows)} rows in {document.messages_table}; "
                    f"{len(document.sessions) - 1} other session{'s' if len(document.sessions) != 2 else ''} "
                    f"left as they are")
    return im


def export_same(im: Imported, result: Result, notes: Exported) -> AgentsDB:
    db: AgentsDB = im.document
    state: AgentsState = im.state
    ids = state.ids
    out = openai_responses.export_same(state.inner, result, notes)
    if session.unchanged(im.history, out):
        return db
    rows = {r.id: r for r in db.rows()}
    new_rows: list[tuple[Any, str]] = []
    kept: set[int] = set()
    last_time: Any = db.rows()[0].created_at if db.rows() else None
    previous = None
    for item, k in zip(out, session.origins(im.history, out)):
        if k is not None:
            row = rows[ids[k]]
            new_rows.append((row.created_at, row.data))
            kept.add(ids[k])
            last_time, previous = row.created_at, row.id
        else:
            new_rows.append((last_time, json.dumps(item)))
            notes.note("entry-added", f"A new row after row {previous} holds a {item.get('type')} for "
                                         f"{item.get('call_id')}.")
    for rid in ids:
        if rid not in kept:
            notes.note("entry-removed", f"Row {rid} is removed: the engine dropped its item.")
    # Rows the SDK could not read stay, after the rest.
    for rid in state.skipped:
        new_rows.append((rows[rid].created_at, rows[rid].data))
    conn = _open(db.data, "<memory>")
    try:
        table = db.messages_table
        conn.execute(f'DELETE FROM "{table}" WHERE session_id = ?', (db.session,))
        conn.executemany(f'INSERT INTO "{table}" (session_id, message_data, created_at) VALUES (?, ?, ?)',
                         [(db.session, text, created) for created, text in new_rows])
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    return parse(data, "<repaired>").select(db.session)


SCHEMA = """
CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                             updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
                             message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                             FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE);
CREATE INDEX idx_agent_messages_session_id ON agent_messages (session_id, created_at);
"""


def export_new(im: Imported, result: Result, notes: Exported) -> AgentsDB:
    """A new database with the SDK's schema holding one session (named after the input)."""
    items = openai_responses.export_new(im, result, notes)
    session = "imported"
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO agent_sessions (session_id) VALUES (?)", (session,))
        conn.executemany("INSERT INTO agent_messages (session_id, message_data, created_at) VALUES (?, ?, ?)",
                         [(session, json.dumps(item), "1970-01-01 00:00:00") for item in items])
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    return parse(data, "<new>")


def _first_user(rows: list[Row]) -> str:
    for row in rows:
        try:
            item = json.loads(row.data)
        except (TypeError, ValueError):
            continue
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, list):
                content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content if isinstance(content, str) else ""
    return ""


def listing(db: AgentsDB) -> list[SessionInfo]:
    """Every session of the database: id, item count, first user message, last activity."""
    return [SessionInfo(sid, len(rows), _first_user(rows),
                        str(max(r.created_at for r in rows)) if rows else None)
            for sid, rows in db.sessions.items()]


def select(db: AgentsDB, session: str, name: str = "<input>") -> AgentsDB:
    return db.select(session, name)


def chosen(db: AgentsDB) -> str | None:
    return db.session


# -- registration --------------------------------------------------------------------------

FORMAT = Format(
    NAME, "an Agents SDK SQLite session", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=openai_responses.FORMAT.describe_block, sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".db", ".sqlite", ".sqlite3"), provider="openai-responses", whole_file=True,
    sessions=listing, select=select, chosen=chosen,
    kinds=session.EMITS + openai_responses.FORMAT.kinds,
)

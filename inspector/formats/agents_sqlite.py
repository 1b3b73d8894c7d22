"""OpenAI Agents SDK ``SQLiteSession`` databases.

The SDK keeps sessions in two tables (names configurable, ``agent_sessions`` and
``agent_messages`` by default): ``agent_messages(id, session_id, message_data, created_at)``
holds one Responses input item per row as JSON text, read back ``ORDER BY id`` and sent as
the next run's input (openai/openai-agents-python ``src/agents/memory/sqlite_session.py`` at
7f7a44f8, ``get_items``; it turns on WAL mode). One orphan ``function_call_output`` there
makes every later run fail ("No tool call found for function call output").

Reading never writes: the file's bytes are the database, unless a ``-wal`` beside it holds
commits not merged yet; then SQLite itself reads the pair (``store/sqlite.py``). The image is
checked whole (SQLite's integrity check) before anything is read from it. A row is known by its
rowid (an ``id`` column need not be unique); a database holds many sessions, one is chosen
(``--session ID``, or the only one there is). Items are read with the Responses importer;
provenance is the row (``row 12``). ``OpenAIChatCompletionsModel`` writes ``"call_id": ""``
on every call and output of an endpoint that sends no ids (``chatcmpl_stream_handler.py``):
those are paired by position, an import event each, and the names are never written back; an
output synthesized for such a call is written inside the call's run, where the position pairs it
with that call again (:func:`_in_run`).

A repair is SQL (:class:`Plan`): the session's rows deleted by rowid and written again in
order, each row whole (kept rows with every column as it was, a synthesized output copying
the row before it). ``-o`` applies it to a copy, which keeps the input's journal mode;
``--in-place`` applies it to the live file in one write transaction (:func:`replace`), so the
next open sees it, and the backup is the whole database as SQLite read it. Nothing to
change: the input's own bytes.

Reasoning items (Responses ``reasoning``, stored by the SDK like any other item) are recorded by
row; ``--reasoning strip`` removes their rows by the same SQL a repair is, so ``--in-place``
applies it to the live file.
"""

from __future__ import annotations

import dataclasses
import json

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine import Result
from ..io import InputError
from . import gemini, openai_responses, reasoning, session
from .session import selected
from .base import Exported, Imported, Loc
from .format import Agent, Format, SESSION, SessionInfo, Source
from . import identity
from .store.sqlite import (CHANGED, HEADER, damage, live_transaction, open_checked, quoted, read_live, schema_head,
                           triggers_aside, with_mode)

NAME = "agents-sqlite"
SUMMARY = "an OpenAI Agents SDK SQLiteSession database (--session ID picks a session)"


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a session: ``id`` is its rowid (the one identity SQLite guarantees: the
    ``id`` column need not be unique in a table the SDK did not create)."""

    id: int
    created_at: Any
    data: Any


@dataclass(frozen=True, slots=True)
class Plan:
    """A repair as SQL: the session's rows deleted by rowid, then ``rows`` inserted in order
    (each with every column of ``columns``). Applied to a copy for ``-o``, and to the live
    file itself, inside one write transaction, by ``--in-place``."""

    table: str
    columns: tuple[str, ...]
    delete: tuple[int, ...]
    rows: tuple[tuple[Any, ...], ...]
    # AdvancedSQLiteSession's message_structure: its columns, and per new row the structure
    # rows it gets (copies of its own, or of the row before it for a new row), in order.
    structure: tuple[str, ...] = ()
    places: tuple[tuple[tuple[Any, ...], ...], ...] = ()


@dataclass(slots=True, eq=False)
class AgentsDB:
    """A SQLiteSession database read into memory; ``session`` is the one being repaired.

    ``data`` is the database image SQLite reads in memory; ``original`` the file's own bytes
    when they are the whole database (no ``-wal`` beside it), given back as they are when
    nothing changes; ``mode`` the header's journal-mode bytes, which a repaired copy keeps;
    ``plan`` the SQL a repair is (None: nothing to write)."""

    data: bytes
    messages_table: str
    sessions_table: str | None
    sessions: dict[str, list[Row]]
    session: str | None = None
    format: str = NAME
    notes: list[str] = field(default_factory=list)
    original: bytes | None = None
    mode: bytes = b""
    plan: Plan | None = None
    source: bytes | None = None      # the image ``plan`` applies to (the input's), for --reasoning strip

    def to_bytes(self) -> bytes:
        if self.original is not None:
            return self.original
        return with_mode(self.data, self.mode)

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
        return selected(self, session, self.sessions, name, NAME)

    def listing(self) -> str:
        return ", ".join(f"{sid} ({len(rows)} item{'s' if len(rows) != 1 else ''})" for sid, rows in self.sessions.items())


@dataclass(slots=True)
class AgentsState:
    """What export needs of a session's import: the Responses import of its items, the row
    id of each item, and the rows the SDK cannot read (kept, after the rest)."""

    inner: Imported
    ids: list[int]
    skipped: list[int]
    sent: list[Any] = field(default_factory=list)      # the items as read, ids derived where empty
    derived: set[str] = field(default_factory=set)


DERIVED = "inspector-position-"


def _positional(items: list[Any], ids: list[int]) -> tuple[list[Any], list[tuple[int, str, str]]]:
    """Calls and outputs with ``"call_id": ""``, paired by position. The SDK's
    ``OpenAIChatCompletionsModel`` stores every ``function_call`` and
    ``function_call_output`` of an OpenAI-compatible endpoint that way (and ``"id":
    "__fake_id__"``), and the endpoint pairs a turn's tool messages with its calls in order.
    Each such call gets a derived name; the next empty output before any other item takes
    the oldest unanswered one. Returns the items to read (copies where named) and what was
    derived (item index, name, "call" or "output")."""
    sent = list(items)
    derived: list[tuple[int, str, str]] = []
    pending: list[str] = []
    for k, item in enumerate(items):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind not in ("function_call", "function_call_output"):
            pending.clear()            # a message or reasoning ends the turn's run of calls
            continue
        if item.get("call_id") != "":
            continue
        if kind == "function_call":
            cid = f"{DERIVED}{ids[k]}"
            pending.append(cid)
            derived.append((k, cid, "call"))
        elif pending:
            cid = pending.pop(0)
            derived.append((k, cid, "output"))
        else:
            continue
        sent[k] = {**item, "call_id": cid}
    return sent, derived


class RowLoc(Loc):
    """``message`` is an item's position in the session; ``key`` carries the row ids."""

    __slots__ = ()

    def describe(self, container: str | None = None) -> str:
        ids = self.blocks or ()
        if len(ids) > 1:
            return f"rows {', '.join(map(str, ids))}"
        return f"row {ids[0]}" if ids else f"item {self.message}"


def sniff(data: bytes, name: str = "<input>") -> bool:
    return data.startswith(HEADER) and b"message_data" in schema_head(data, name)


def dump(document: AgentsDB, compact: bool = False) -> bytes:
    return document.to_bytes()


def evidence(document: Any) -> list[str]:
    return ["an SQLite database with a message_data table (Agents SDK SQLiteSession)"] \
        if isinstance(document, AgentsDB) else []


def _failed(name: str, exc: sqlite3.Error) -> InputError:
    return InputError(name, f"{NAME}: cannot read the database ({exc})")


def _open(data: bytes, name: str) -> sqlite3.Connection:
    """An in-memory copy of the database image, checked whole: a damaged page is refused
    here, naming what SQLite found, rather than read in part or written back damaged."""
    return open_checked(data, name, NAME)


def _intact(conn: sqlite3.Connection, name: str, what: str = "the database is damaged") -> None:
    found = damage(conn)
    if found is not None:
        raise InputError(name, f"{NAME}: {what} (SQLite integrity check: {found})")


def _columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, str, int]]:
    """(name, declared type, primary-key position) of each column."""
    return [(r[1], str(r[2] or ""), int(r[5])) for r in conn.execute(f"PRAGMA table_info({quoted(table)})")]


def _tables(conn: sqlite3.Connection) -> tuple[str | None, str | None]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    messages = sessions = None
    for t in names:
        cols = {c[0] for c in _columns(conn, t)}
        if {"session_id", "message_data"} <= cols:
            if messages is None or t == "agent_messages":
                messages = t
        elif {"session_id", "updated_at"} <= cols:
            if sessions is None or t == "agent_sessions":
                sessions = t
    return messages, sessions


def _read(conn: sqlite3.Connection, name: str) -> tuple[str, str | None, dict[str, list[Row]]]:
    """The sessions of an open database, each in the order the SDK's ``get_items`` reads
    them (``ORDER BY id``; rowid breaks ties and stands in where there is no ``id``)."""
    messages, sessions_table = _tables(conn)
    if messages is None:
        raise InputError(name, f"{NAME}: no table with session_id and message_data columns; "
                               f"not an Agents SDK session database")
    cols = {c[0] for c in _columns(conn, messages)}
    found: dict[str, list[Row]] = {}
    if sessions_table:
        order = "created_at, rowid" if "created_at" in {c[0] for c in _columns(conn, sessions_table)} else "rowid"
        for (sid,) in conn.execute(f"SELECT session_id FROM {quoted(sessions_table)} ORDER BY {order}"):
            found.setdefault(str(sid), [])
    created = quoted("created_at") if "created_at" in cols else "NULL"
    order = f"{quoted('id')}, rowid" if "id" in cols else "rowid"
    for rid, sid, text, when in conn.execute(
            f"SELECT rowid, session_id, message_data, {created} FROM {quoted(messages)} ORDER BY {order}"):
        found.setdefault(str(sid), []).append(Row(rid, when, text))
    return messages, sessions_table, found


def parse(data: bytes, name: str = "<input>", **options: Any) -> AgentsDB:
    """A database from its bytes; for a file with a ``-wal`` beside it, from SQLite's own
    read of the pair (the main file alone lacks the newest commits)."""
    data, original = read_live(data, name, NAME)
    conn = _open(data, name)
    try:
        messages, sessions_table, found = _read(conn, name)
        image = conn.serialize()
    except sqlite3.Error as exc:
        raise _failed(name, exc) from None
    finally:
        conn.close()
    db = AgentsDB(image, messages, sessions_table, found, original=original, mode=bytes(data[18:20]))
    if len(found) == 1:
        db.session = next(iter(found))
    return db


def import_(document: Any, name: str = "<input>") -> Imported:
    document = session.open_store(document, name, NAME, parse, AgentsDB, "an SQLite session database")
    if not document.sessions:
        return session.empty_store(NAME, document)
    if document.session is None:
        raise session.must_choose(NAME, len(document.sessions), document.listing(), name)
    rows = document.rows()
    items: list[Any] = []
    ids: list[int] = []
    skipped: list[int] = []
    for row in rows:
        try:
            items.append(json.loads(row.data))
            ids.append(row.id)
        except (TypeError, ValueError, RecursionError):   # not JSON, or nested deeper than it reads
            skipped.append(row.id)         # the SDK skips a row it cannot read, and so does a resume
    sent, derived = _positional(items, ids)
    inner = openai_responses.import_(sent, name)
    im = Imported(NAME, inner.messages, document, container=None, history=items)
    for k, cid, what in derived:
        im.note(None, "id-derived", f"Row {ids[k]}: a {what} with an empty call_id (as OpenAIChatCompletionsModel "
                                    f"writes them); paired by position, as the endpoint read them, under the "
                                    f"name {cid!r}, which is never written back.", tool_call_id=cid)
    im.events.extend(inner.events)
    for rid in skipped:
        im.note(None, "entry-skipped", f"Row {rid} is not JSON; the SDK skips it, and it is kept as it is.")
    for src, calls in zip(inner.sources, inner.calls):
        span = src.items or (src.message,)
        im.sources.append(RowLoc(span[0], None, tuple(ids[k] for k in span), tuple(span) if len(span) > 1 else None))
        im.calls.append([RowLoc(c.message, None, (ids[c.message],)) for c in calls])
    im.state = AgentsState(inner, ids, skipped, sent, {cid for _, cid, _ in derived})
    for r in inner.reasoning:           # items carry no model: the SDK keeps none per row
        im.reasoning.append(dataclasses.replace(r, loc=RowLoc(r.loc.message, None, (ids[r.loc.message],))))
    im.notes.append(f"session {document.session!r}: {len(rows)} rows in {document.messages_table}; "
                    f"{len(document.sessions) - 1} other session{'s' if len(document.sessions) != 2 else ''} "
                    f"left as they are")
    return im


def export_same(im: Imported, result: Result, notes: Exported) -> AgentsDB:
    db: AgentsDB = im.document
    state: AgentsState = im.state
    if state is None:                    # a store that holds no session
        return db
    out = openai_responses.export_same(state.inner, result, notes)
    if session.unchanged(state.sent, out):
        return db
    out, origin = _in_run(out, session.origins(state.sent, out), state.derived)
    conn = _open(db.data, "<memory>")
    try:
        plan = _plan(conn, db, state, out, origin, notes)
        data = _written(conn, plan, "<repaired>", "the repaired database does not pass SQLite's check")
    except sqlite3.Error as exc:
        raise InputError("<repaired>", f"{NAME}: cannot write the repaired rows ({exc})") from None
    finally:
        conn.close()
    return _reread(data, "<repaired>", db, plan, db.data)


def _kind(item: Any) -> Any:
    return item.get("type") if isinstance(item, dict) else None


def _in_run(out: list[Any], origin: list[int | None], derived: set[str]) -> tuple[list[Any], list[int | None]]:
    """Each new output for a call paired by position (:func:`_positional`), moved to where the
    store's pairing reads it as that call's: inside the run of calls and outputs that holds the
    call (any other item ends the run, so an output after the turn's message answers nothing),
    after the call, the run's later calls and the outputs of its earlier calls, before the
    outputs of its later ones. Kept items keep their order."""
    calls_run = ("function_call", "function_call_output")
    new = [item for item, o in zip(out, origin) if o is None and _kind(item) == "function_call_output"
           and isinstance(item, dict) and item.get("call_id") in derived]
    if not new:
        return out, origin
    out, origin = list(out), list(origin)
    for item in new:
        k = next(i for i, x in enumerate(out) if x is item)
        del out[k], origin[k]
        cid = item["call_id"]
        at = next((i for i, x in enumerate(out) if _kind(x) == "function_call" and x.get("call_id") == cid), None)
        if at is None:
            out.insert(k, item)
            origin.insert(k, None)
            continue
        earlier, i = set(), at - 1
        while i >= 0 and _kind(out[i]) in calls_run:
            if _kind(out[i]) == "function_call":
                earlier.add(out[i].get("call_id"))
            i -= 1
        place, i = at, at + 1
        while i < len(out) and _kind(out[i]) in calls_run:
            if _kind(out[i]) == "function_call" or out[i].get("call_id") in earlier:
                place = i
            elif out[i].get("call_id") in derived:
                break                      # the output of a later call: this one goes before it
            i += 1
        out.insert(place + 1, item)
        origin.insert(place + 1, None)
    return out, origin


def _reasoning_item(data: Any) -> str | None:
    """What ``--reasoning strip`` removes: a row holding a reasoning item, or any item with
    ``encrypted_content``."""
    try:
        item = json.loads(data)
    except (TypeError, ValueError):
        return None
    if isinstance(item, dict) and (item.get("type") == "reasoning" or item.get("encrypted_content")):
        return f"a {item.get('type')} item" + (f" {item['id']}" if isinstance(item.get("id"), str) else "")
    return None


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip`` on a session: its reasoning rows go, by the same SQL a repair is
    (the session's rows written again in order, each whole, ``message_structure`` with them),
    so ``--in-place`` applies it to the live file as it applies a repair; every other row,
    and every other session, is as it was."""
    if not isinstance(document, AgentsDB) or document.session is None:
        return document
    base = document.source if document.plan is not None and document.source is not None else document.data
    conn = _open(base, "<memory>")
    try:
        plan = document.plan
        if plan is None:
            columns = _columns(conn, document.messages_table)
            alias = [c[0] for c in columns if c[2] == 1 and c[1].upper() == "INTEGER"]
            alias = alias if sum(1 for c in columns if c[2]) == 1 else []
            keep = tuple(c[0] for c in columns if c[0] not in alias)
            select = f"SELECT {', '.join(map(quoted, keep))} FROM {quoted(document.messages_table)} WHERE rowid = ?"
            ids = [r.id for r in document.rows()]
            rows = [conn.execute(select, (rid,)).fetchone() for rid in ids]
            structure, places = _structure(conn, alias, keep, rows, list(ids))
            plan = Plan(document.messages_table, keep, tuple(ids), tuple(rows), structure, places)
        at = plan.columns.index("message_data")
        names = [r.id for r in document.rows()]
        kept, kept_places = [], []
        for n, row in enumerate(plan.rows):
            what = _reasoning_item(row[at]) if row else None
            if what is None:
                kept.append(row)
                if plan.places:
                    kept_places.append(plan.places[n])
                continue
            reasoning.removed(notes, f"row {names[n]}" if n < len(names) else f"row #{n + 1}", what)
        if len(kept) == len(plan.rows):
            return document
        plan = dataclasses.replace(plan, rows=tuple(kept), places=tuple(kept_places) if plan.places else ())
        data = _written(conn, plan, "<stripped>", "the database without its reasoning rows does not pass SQLite's check")
    except sqlite3.Error as exc:
        raise InputError("<stripped>", f"{NAME}: cannot write the rows without their reasoning ({exc})") from None
    finally:
        conn.close()
    return _reread(data, "<stripped>", document, plan, base)


def _written(conn: sqlite3.Connection, plan: Any, where: str, broken: str) -> bytes:
    """The plan applied, the result checked whole, and the database's new image."""
    _check_written(conn, plan, _apply(conn, plan), where)
    _intact(conn, where, broken)
    conn.commit()
    return conn.serialize()


def _reread(data: bytes, where: str, before: Any, plan: Any, source: bytes) -> Any:
    """The written image read back as the same session, remembering what it was made from
    (``--in-place`` replays ``plan`` on the live file; ``source`` is the image it came from)."""
    out = parse(data, where).select(before.session)
    out.mode, out.plan, out.original, out.source = before.mode, plan, None, source
    return out


def _plan(conn: sqlite3.Connection, db: AgentsDB, state: AgentsState, out: list[Any],
          origin: list[int | None], notes: Exported) -> Plan:
    """The session's rows in their new order, each row whole: a kept row with every column
    as it was (the session value keeps its own type, an extra column its value); a new row
    copies the row before it (or the first), with the synthesized item as its message_data."""
    table = db.messages_table
    columns = _columns(conn, table)
    alias = [c[0] for c in columns if c[2] == 1 and c[1].upper() == "INTEGER"]
    alias = alias if sum(1 for c in columns if c[2]) == 1 else []   # the rowid's own name, renumbered
    keep = tuple(c[0] for c in columns if c[0] not in alias)
    select = f"SELECT {', '.join(map(quoted, keep))} FROM {quoted(table)} WHERE rowid = ?"
    whole = {r.id: conn.execute(select, (r.id,)).fetchone() for r in db.rows()}
    at = keep.index("message_data")
    rows: list[tuple[Any, ...]] = []
    sources: list[int | None] = []           # per written row: the rowid it was, None for a new one
    kept: set[int] = set()
    ids = state.ids
    first = previous = ids[0] if ids else None
    for item, k in zip(out, origin):
        if k is not None:
            previous = ids[k]
            rows.append(whole[previous])
            sources.append(previous)
            kept.add(previous)
        else:
            base = whole.get(previous, whole.get(first))
            answers = item.get("call_id") if isinstance(item, dict) else None
            if answers in state.derived:
                item = {**item, "call_id": ""}    # the store's own spelling: paired by position again
            text = json.dumps(item)
            rows.append(tuple(text if n == at else v for n, v in enumerate(base)) if base is not None else ())
            sources.append(None)
            notes.note("entry-added", f"A new row after row {previous} holds a {item.get('type')} for "
                                      f"{answers}.")
    for rid in ids:
        if rid not in kept:
            notes.note("entry-removed", f"Row {rid} is removed: the engine dropped its item.")
    for rid in state.skipped:                  # rows the SDK could not read stay, after the rest
        rows.append(whole[rid])
        sources.append(rid)
    structure, places = _structure(conn, alias, keep, rows, sources)
    return Plan(table, keep, tuple(r.id for r in db.rows()), tuple(rows), structure, places)


STRUCTURE = "message_structure"


def _structure(conn: sqlite3.Connection, alias: list[str], keep: tuple[str, ...], rows: list[tuple[Any, ...]],
               sources: list[int | None]) -> tuple[tuple[str, ...], tuple]:
    """``AdvancedSQLiteSession`` reads a session through ``message_structure`` (``JOIN ... ON
    m.id = s.message_id ORDER BY s.sequence_number``) and hides, then deletes, a row without
    an entry there (openai/openai-agents-python #4729;
    ``src/agents/extensions/memory/advanced_sqlite_session.py`` at 7f7a44f8). So when the table
    exists, each written row gets the entries its original row had (a new row: those of the
    row before it, typed as the SDK types it), renumbered in the new order."""
    if alias != ["id"] or not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                           (STRUCTURE,)).fetchone():
        return (), ()
    columns = tuple(c[0] for c in _columns(conn, STRUCTURE) if c[0] != "id")
    if not {"message_id", "sequence_number"} <= set(columns):
        return (), ()
    by_row = {rid: conn.execute(f"SELECT {', '.join(map(quoted, columns))} FROM {quoted(STRUCTURE)} "
                                f"WHERE message_id = ? ORDER BY sequence_number, rowid", (rid,)).fetchall()
              for rid in sources if rid is not None}
    data_at = keep.index("message_data")
    places: list[tuple[tuple[Any, ...], ...]] = []
    last: list[tuple[Any, ...]] = []
    for row, rid in zip(rows, sources):
        if rid is not None:
            last = by_row[rid]
            places.append(tuple(last))
            continue
        try:
            item = json.loads(row[data_at])
        except (TypeError, ValueError, RecursionError):
            item = None
        places.append(tuple(_typed(columns, entry, item) for entry in last))
    return columns, tuple(places)


def _typed(columns: tuple[str, ...], entry: tuple[Any, ...], item: Any) -> tuple[Any, ...]:
    """A structure entry copied for a new row, with the SDK's ``message_type`` for its item."""
    kind = "other"
    if isinstance(item, dict):
        kind = item.get("role") if item.get("role") in ("user", "assistant") else str(item.get("type") or "other")
    return tuple(kind if c == "message_type" else v for c, v in zip(columns, entry))


def _apply(conn: sqlite3.Connection, plan: Plan) -> list[int]:
    """The plan as SQL, the database's triggers set aside (an audit trigger must not rewrite
    the rows written); returns the rowids of the rows inserted, in order."""
    with triggers_aside(conn):
        return _insert(conn, plan)


def _insert(conn: sqlite3.Connection, plan: Plan) -> list[int]:
    table = quoted(plan.table)
    conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(rid,) for rid in plan.delete])
    insert = f"INSERT INTO {table} ({', '.join(map(quoted, plan.columns))}) VALUES ({', '.join('?' * len(plan.columns))})"
    new_ids = [conn.execute(insert, row).lastrowid for row in plan.rows]
    if not plan.structure:
        return new_ids
    conn.executemany(f"DELETE FROM {quoted(STRUCTURE)} WHERE message_id = ?", [(rid,) for rid in plan.delete])
    at, seq = plan.structure.index("message_id"), plan.structure.index("sequence_number")
    entries = []
    for n, (new_id, place) in enumerate(zip(new_ids, plan.places)):
        for entry in place:
            values = list(entry)
            values[at], values[seq] = new_id, len(entries) + 1
            entries.append(values)
    conn.executemany(f"INSERT INTO {quoted(STRUCTURE)} ({', '.join(map(quoted, plan.structure))}) "
                     f"VALUES ({', '.join('?' * len(plan.structure))})", entries)
    return new_ids


def replace(path: str, before: AgentsDB, after: AgentsDB, keep: Callable[[bytes], str]) -> str:
    """``--in-place`` for a live database (``store.sqlite.live_transaction``, its one policy):
    the session's rows must still be the ones repaired (the agent may have written other
    sessions meanwhile); the whole database is kept through ``keep``, the plan applied with
    the table's triggers set aside, and the session's rows read back must be the plan's
    before the commit. Returns the backup's name."""
    name = str(path)
    with live_transaction(name, NAME) as conn:
        _, _, now = _read(conn, name)
        if now.get(before.session or "") != before.sessions.get(before.session or ""):
            raise InputError(name, CHANGED)
        backup = keep(conn.serialize())
        if after.plan is not None:
            _check_written(conn, after.plan, _apply(conn, after.plan), name)
            _intact(conn, name, "the repaired database does not pass SQLite's check; nothing was written")
        return backup


def _check_written(conn: sqlite3.Connection, plan: Plan, written: list[int], name: str) -> None:
    """The rows just written, read back, must be the plan's (a trigger or a default the
    writer did not see would make them differ)."""
    cols = ", ".join(map(quoted, plan.columns))
    query = f"SELECT {cols} FROM {quoted(plan.table)} WHERE rowid = ?"
    got = [conn.execute(query, (rid,)).fetchone() for rid in written]
    if [tuple(r) if r is not None else None for r in got] != [tuple(r) for r in plan.rows]:
        raise InputError(name, f"{NAME}: the rows written are not the repair's (a trigger or a default changed "
                               "them); nothing was written")


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
        except (TypeError, ValueError, RecursionError):
            continue
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, list):
                content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content if isinstance(content, str) else ""
    return ""


def listing(db: AgentsDB) -> list[SessionInfo]:
    """Every session of the database: id, item count, first user message, last activity."""
    def last(rows: list[Row]) -> str | None:
        times = [r.created_at for r in rows if r.created_at is not None]
        return str(max(times, key=lambda t: (type(t).__name__, t))) if times else None

    return [SessionInfo(sid, len(rows), _first_user(rows), last(rows)) for sid, rows in db.sessions.items()]


def select(db: AgentsDB, session: str, name: str = "<input>") -> AgentsDB:
    return db.select(session, name)


def chosen(db: AgentsDB) -> str | None:
    return db.session


# -- registration --------------------------------------------------------------------------

# The agent whose store this is (the doctor's table of agents reads it here).
AGENT = Agent("agents-sdk", "OpenAI Agents SDK",
              "stop the program, move the database and its -wal and -shm aside (keep them: they are the "
              "original), put the repaired database in its place with no -wal or -shm beside it (the copy "
              "already holds the -wal's commits; a stale one would undo the repair), open the same session "
              "id again",
              # A program of one's own resumes it (SQLiteSession(session_id, db_path)): no command.
              reopen="run your program again with the same session id (SQLiteSession(session_id, db_path))",
              database=True,
              versions="not pinned: SQLiteSession and AdvancedSQLiteSession databases",
              built_from=(
                  Source("openai/openai-agents-python", "7f7a44f8",
                         ("src/agents/memory/sqlite_session.py",
                          "src/agents/extensions/memory/advanced_sqlite_session.py"),
                         "the tables, the order rows are read in, WAL mode"),
              ))

FORMAT = Format(
    NAME, "an Agents SDK SQLite session", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=openai_responses.FORMAT.describe_block, sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".db", ".sqlite", ".sqlite3"), provider="openai-responses", whole_file=True,
    sessions=listing, select=select, chosen=chosen,
    kinds=session.EMITS + openai_responses.FORMAT.kinds + gemini.EMITS, replace=replace,
    strip_reasoning=strip_reasoning,
    pairing=identity.CALL_ORDER,
    agent=AGENT,
)

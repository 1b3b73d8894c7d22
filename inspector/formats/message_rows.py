"""What the SQLite stores that keep one message per row with a JSON array of parts share
(Crush's ``messages.parts``, Goose's ``messages.content_json``): reading the database as the
agent would see it, the request a resume builds with each block's row and part, and writing
a repair back as the fewest row edits.

Reading never writes next to the store: a database with a ``-wal`` beside it is copied with
its sidecars (until two reads agree) and the copy read, anything else from its own bytes, and
the image is checked whole before a row is read. Each row's parts keep their text spans, so a
rewritten row is the agent's own text with the dropped parts cut out (both agents write
compact JSON, which a splice keeps compact), and every row not edited keeps every column.

A repair is row edits on a copy: parts cut out of a row (a row left with nothing to send is
deleted), and new rows after the row of the call they answer. A new row takes the ordering
value of the row it follows, and the rows that share that value after it are written again
after it (same columns, new rowid), so the agent's ``ORDER BY`` reads them in the repaired
order. Triggers are set aside while the edits run and put back as they were, so nothing the
agent did not write changes (a trigger stamping ``now`` would make two repairs differ). The
same edits go into a copy (``-o``) or, for ``--in-place``, into the live file inside one write
transaction (:func:`replace`).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine import IMPORT_CLAUSE, Kind, Result, declare
from ..io import InputError, JSONWriteError
from . import anthropic, reasoning, session
from .base import Decisions, Exported, Imported, Reasoning, as_text
from .store.jsontext import items
from .store.request import Block, Request, lost
from .store.sqlite import CHANGED, HEADER, intact, live_transaction, open_checked, quoted, read_live, triggers_aside, with_mode

# Kinds the two stores share (declared once; "entry-not-sent" is OpenCode's, reused).
EMITS = declare(
    Kind("call-answered-on-resume", IMPORT_CLAUSE, False, "agent answers it on resume",
         "The call has no result in the store; current versions of the agent send an error result of their "
         "own for it on resume (the real result is lost; the tool may have run).", "note", "call"),
    Kind("result-dropped-on-resume", IMPORT_CLAUSE, False, "agent drops it on resume",
         "The result answers no call in the store; current versions of the agent leave it out of what they "
         "send on resume.", "note"),
    Kind("call-dropped-on-resume", IMPORT_CLAUSE, False, "agent drops the call",
         "The call has no result anywhere in the store; the agent leaves the call out of what it sends "
         "(the model never sees it was made).", "note", "call"),
)


_SURROGATE = re.compile("[\ud800-\udfff]")


def compact_json(value: Any) -> str:
    """Compact JSON with non-ASCII text as it is (how Go's ``json.Marshal`` and serde_json
    write), nested as deep as Python allows; a lone surrogate (which UTF-8 cannot hold) is
    written as its ``\\u`` escape, so the text can go into the database."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (RecursionError, TypeError, ValueError) as exc:
        raise JSONWriteError(f"cannot write the value as JSON ({exc})") from None
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def shared_kinds() -> tuple[Kind, ...]:
    return EMITS + (session.NOT_SENT, session.MOVED)


@dataclass(slots=True, eq=False)
class Row:
    """One stored message: ``rowid`` (SQLite's identity), the agent's message ``id``, its
    ``role``, the JSON column as stored (``text``), the parts decoded (None: not a JSON array)
    with each part's span in ``text``, the ordering value, and the whole row by column."""

    rowid: int
    id: str
    role: str
    text: Any
    parts: list[Any] | None
    spans: list[tuple[int, int]]
    order: Any
    columns: dict[str, Any]


def parts_of(text: Any) -> tuple[list[Any] | None, list[tuple[int, int]]]:
    """A JSON array's items and each item's (start, end) in ``text``; (None, []) otherwise."""
    return items(text)


@dataclass(slots=True, eq=False)
class RowsDB:
    """A store's database read into memory; ``session`` is the one being repaired.

    ``data`` is the image SQLite reads in memory, ``original`` the file's own bytes when they
    are the whole database (no ``-wal`` beside it: given back as they are when nothing
    changes), ``mode`` the header's journal-mode bytes a repaired copy keeps. ``sessions``
    maps each session id to its rows in the agent's order; ``facts`` holds what the store
    keeps per session (Crush's ``summary_message_id``, titles, times)."""

    format: str
    data: bytes
    sessions: dict[str, list[Row]]
    facts: dict[str, dict[str, Any]]
    original: bytes | None = None
    mode: bytes = b""
    session: str | None = None
    # What was done to the input, step by step, for --in-place: ("edits", rows, Edits, Store)
    # for a repair, ("strip", Store) for --reasoning strip
    plan: tuple[Any, ...] = ()

    def to_bytes(self) -> bytes:
        return self.original if self.original is not None else with_mode(self.data, self.mode)

    def rows(self) -> list[Row]:
        return self.sessions[self.session] if self.session is not None else []

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RowsDB) and {s: [r.text for r in rows] for s, rows in self.sessions.items()} == \
            {s: [r.text for r in rows] for s, rows in other.sessions.items()}

    __hash__ = None  # type: ignore[assignment]


def parse_store(data: bytes, name: str, fmt: str, read: Callable[[sqlite3.Connection, str], tuple]) -> "RowsDB":
    """A store's database read by its own ``read(conn, name)`` (its sessions and their facts),
    on a checked in-memory image; the one session is chosen when there is only one."""
    image_, original = read_live(data, name, fmt)
    conn = open_checked(image_, name, fmt)
    try:
        sessions, facts = read(conn, name)
        out = conn.serialize()
    except sqlite3.Error as exc:
        raise InputError(name, f"{fmt}: cannot read the database ({exc})") from None
    finally:
        conn.close()
    db = RowsDB(fmt, out, sessions, facts, original, bytes(data[18:20]))
    if len(sessions) == 1:
        db.session = next(iter(sessions))
    return db


def connect(data: bytes, name: str, fmt: str) -> sqlite3.Connection:
    """An in-memory copy of the image, checked whole (a damaged page is refused here)."""
    return open_checked(data, name, fmt)


def columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, str, int]]:
    return [(r[1], str(r[2] or ""), int(r[5])) for r in conn.execute(f"PRAGMA table_info({quoted(table)})")]


def is_sqlite(data: bytes) -> bool:
    return data.startswith(HEADER)


def select(db: RowsDB, sid: str, name: str = "<input>") -> RowsDB:
    return session.selected(db, sid, db.sessions, name, db.format)


def chosen(db: RowsDB) -> str | None:
    return db.session


def need_session(db: RowsDB, name: str, listing: Callable[[RowsDB], list]) -> list[Row]:
    if db.session is None:
        shown = ", ".join(f"{s.id} ({s.first_user[:40]!r})" for s in listing(db)[:10])
        raise session.must_choose(db.format, len(db.sessions), shown, name)
    return db.rows()


# -- the request a resume sends ----------------------------------------------------------------

@dataclass(slots=True)
class RowsState:
    """What export needs: the request, its Anthropic import, and the rows as read."""

    request: Request
    inner: Imported
    rows: list[Row]


def _key(value: Any) -> Any:
    """An id as a dict key (one that is not text still compares, and never raises)."""
    return value if isinstance(value, (str, int, float, type(None))) else repr(value)


def imported(fmt: str, document: Any, rows: list[Row], req: Request, name: str) -> Imported:
    """The request read with the Anthropic importer, its provenance turned into rows and parts."""
    inner = anthropic.import_({"messages": req.messages}, name)
    history = [{"id": r.id, "role": r.role, "parts": r.parts if r.parts is not None else r.text} for r in rows]
    im = Imported(fmt, inner.messages, document, container="messages", history=history)
    im.events.extend(inner.events)
    for src, calls in zip(inner.sources, inner.calls):
        im.sources.append(req.loc(src))
        im.calls.append([req.loc(c) for c in calls])
    for r in inner.reasoning:
        loc = req.loc(r.loc)
        # The model that wrote it: its stored message's ``model`` column where the store keeps
        # one (Crush's ``messages.model``; Crush sends a signature whatever model it resumes
        # on: charmbracelet/crush @ 37f36e93824e, internal/message/content.go ToAIMessage).
        column = rows[loc.message].columns.get("model") if isinstance(loc.message, int) and \
            0 <= loc.message < len(rows) else None
        model = r.model or (column if isinstance(column, str) and column.strip() else None)
        im.reasoning.append(Reasoning(r.row, loc, r.kind, r.signed, r.encrypted, model, r.before, r.text))
    # Where each call id is asked for and answered, found in one pass (not one per note).
    asked: dict[Any, int] = {}
    answered: dict[Any, int] = {}
    for i, m in enumerate(inner.messages):
        for c in m.get("tool_calls") or ():
            asked.setdefault(_key(c.get("tool_call_id")), i)
        if m.get("role") == "tool":
            answered.setdefault(_key(m.get("tool_call_id")), i)
    for kind, sentence, cid in req.notes:
        where = None
        if cid is not None:
            where = asked.get(_key(cid))
            if kind == "result-dropped-on-resume":
                where = answered.get(_key(cid), where)
        im.note(where, kind, sentence, tool_call_id=cid)
    im.state = RowsState(req, inner, rows)
    return im


# -- the repair as row edits -----------------------------------------------------------------------

@dataclass(slots=True)
class Edits:
    """Row edits: ``cut`` parts per row index, and new results (call block, flat result) to
    write after the call's turn."""

    cut: dict[int, set[int]] = field(default_factory=dict)
    # (call block, flat result, stored item): a synthesized result (item None), or a stored
    # result moved next to its call (``--strict``), written as its own item again
    new: list[tuple[Block, dict[str, Any], Any]] = field(default_factory=list)
    # the cut parts (per row index) that are second answers the agent would promote
    shadows: dict[int, set[int]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.cut or self.new)


def edits(im: Imported, result: Result) -> Edits:
    """The parts the engine's decisions remove, and the results it synthesized, read from
    provenance only (rows kept, calls dropped, rows without an origin)."""
    state: RowsState = im.state
    req, inner = state.request, state.inner
    d = Decisions.of(result)
    out = Edits()
    blocks_of = req.blocks_of

    def cut(blocks: list[Block]) -> None:
        for b in blocks:
            out.cut.setdefault(b.row, set()).add(b.part)

    gone = lost(req, inner, result)
    cut(gone)
    # A result cut whose call the agent would then pair with a later stored result (one it left
    # out as a second answer): that one goes too, or the next read would send it in its place.
    for b in gone:
        for row, part in req.shadows.get((b.row, b.part), ()):
            if part not in out.cut.get(row, ()):
                out.cut.setdefault(row, set()).add(part)
                out.shadows.setdefault(row, set()).add(part)
    # Each id's declarations in request order: a result answers the first one still standing
    # (clause 3 keeps the first of two; a lookup by id alone found the last, perhaps cut).
    calls: dict[Any, list[Block]] = {}
    for b in req.blocks.values():
        if b.role == "call":
            calls.setdefault(b.body.get("id"), []).append(b)
    moved = {e.origin for e in result.events if e.kind == "strict-moved" and e.origin is not None}
    rows = state.rows
    for msg, o in d.rows:
        standing = [c for c in calls.get(msg.get("tool_call_id"), ()) if c.part not in out.cut.get(c.row, ())] \
            if msg.get("role") == "tool" else []
        if not standing:
            continue
        b = standing[0]
        if o is None:
            out.new.append((b, msg, None))
        elif o in moved:
            for r in blocks_of(inner.sources[o]):
                cut([r])
                out.new.append((b, msg, (rows[r.row].parts or [])[r.part]))
    return out


def promoted(plan: Edits, k: int) -> str:
    """What a row's cut says of the second answers in it (see :func:`edits`)."""
    n = len(plan.shadows.get(k, ()))
    return (f" Cut with it: {'a second answer' if n == 1 else f'{n} second answers'} to a call whose first answer "
            "the repair cut (left in, the agent would send it instead).") if n else ""


def spliced(row: Row, gone: set[int]) -> str:
    """The row's JSON text with the parts ``gone`` cut out, every other byte as stored."""
    text = row.text
    kept = [text[a:b] for k, (a, b) in enumerate(row.spans) if k not in gone]
    start, end = row.spans[0][0], row.spans[-1][1]
    return text[:text.rfind("[", 0, start) + 1] + ",".join(kept) + text[text.find("]", end):]


@dataclass(frozen=True, slots=True)
class Store:
    """What a store module tells the writer: its messages ``table``, the JSON column, the
    ordering column, whether a row left with ``parts`` still sends something (``keeps``),
    whether a row holds only results (``answers``), and how a new result row is spelled
    (``new_row(anchor, call_body, flat_result, item)`` -> column values; ``item`` is the stored
    result a ``--strict`` move carries, None for a synthesized one)."""

    table: str
    parts: str
    order: str
    keeps: Callable[[Row, list[Any]], bool]
    answers: Callable[[Row], bool]
    new_row: Callable[[Row, dict[str, Any], dict[str, Any], Any], dict[str, Any]]
    after: Callable[[sqlite3.Connection, str, int], None] | None = None     # (conn, session, rows added)
    reasoning: Callable[[Any], bool] | None = None                          # a part that is reasoning


def _apply(conn: sqlite3.Connection, session: str | None, rows: list[Row], plan: Edits, store: Store,
           notes: Exported) -> None:
    """``plan`` as SQL on ``conn`` (a copy in memory, or the live file inside its own write
    transaction), triggers set aside and put back as they were."""
    with triggers_aside(conn):
        _edit(conn, session, rows, plan, store, notes)


def _edit(conn: sqlite3.Connection, session: str | None, rows: list[Row], plan: Edits, store: Store,
          notes: Exported) -> None:
    added = 0
    table = quoted(store.table)
    for k, gone in sorted(plan.cut.items()):
        row = rows[k]
        left = [p for j, p in enumerate(row.parts or []) if j not in gone]
        if store.keeps(row, left):
            conn.execute(f"UPDATE {table} SET {quoted(store.parts)} = ? WHERE rowid = ?",
                         (spliced(row, gone), row.rowid))
            notes.note("entry-rewritten", f"Message {row.id}: {len(gone)} part(s) cut out; the rest of the row "
                                          "is as it was." + promoted(plan, k))
        else:
            conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (row.rowid,))
            notes.note("entry-removed", f"Message {row.id} is removed: nothing of it is left to send."
                       + promoted(plan, k))
            added -= 1
    cols = columns(conn, store.table)
    alias = [c[0] for c in cols if c[2] == 1 and c[1].upper() == "INTEGER"]
    alias = alias if sum(1 for c in cols if c[2]) == 1 else []
    keep = [c[0] for c in cols if c[0] not in alias]
    deleted = {k for k, g in plan.cut.items()
               if not store.keeps(rows[k], [p for j, p in enumerate(rows[k].parts or []) if j not in g])}
    gone_rows = {rows[k].rowid for k in deleted}
    by_anchor: dict[int, list[tuple[Block, dict[str, Any], Any]]] = {}
    for b, msg, item in plan.new:
        # After the call's row and the rows of results that follow it (the turn's answers).
        anchor = b.row
        while anchor + 1 < len(rows) and store.answers(rows[anchor + 1]) and anchor + 1 not in deleted:
            anchor += 1
        by_anchor.setdefault(anchor, []).append((b, msg, item))
    for anchor in sorted(by_anchor):
        base = rows[anchor]
        for b, msg, item in by_anchor[anchor]:
            values = store.new_row(base, b.body, msg, item)
            names = [c for c in keep if c in values]
            conn.execute(f"INSERT INTO {table} ({', '.join(map(quoted, names))}) VALUES "
                         f"({', '.join('?' * len(names))})", [values[c] for c in names])
            added += 1
            notes.note("entry-moved" if item is not None else "entry-added",
                       f"A new message after {base.id} holds the result for {b.body.get('id')}"
                       + (", moved there from the message that held it." if item is not None else "."))
        # Rows after the anchor that share its ordering value are written again after the new ones.
        for r in [r for r in rows[anchor + 1:] if r.order == base.order and r.rowid not in gone_rows]:
            whole = conn.execute(f"SELECT {', '.join(map(quoted, keep))} FROM {table} WHERE rowid = ?",
                                 (r.rowid,)).fetchone()
            conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (r.rowid,))
            conn.execute(f"INSERT INTO {table} ({', '.join(map(quoted, keep))}) VALUES "
                         f"({', '.join('?' * len(keep))})", whole)
    if store.after is not None:
        store.after(conn, session, added)


def _intact(conn: sqlite3.Connection, name: str, fmt: str) -> None:
    intact(conn, name, fmt)


def write(db: RowsDB, rows: list[Row], plan: Edits, store: Store, notes: Exported,
          parse: Callable[[bytes, str], RowsDB], step: tuple[Any, ...] | None = None) -> RowsDB:
    """The repaired database: ``plan`` applied to a copy of the image, the session chosen again;
    the step rides along for ``--in-place`` (:func:`replace`)."""
    conn = connect(db.data, "<memory>", db.format)
    try:
        _apply(conn, db.session, rows, plan, store, notes)
        _intact(conn, "<repaired>", db.format)
        conn.commit()
        data = conn.serialize()
    except sqlite3.Error as exc:
        raise InputError("<repaired>", f"{db.format}: cannot write the repaired rows ({exc})") from None
    finally:
        conn.close()
    out = select(parse(data, "<repaired>"), db.session)
    out.original, out.mode = None, db.mode
    out.plan = db.plan + (step or ("edits", rows, plan, store),)
    return out


def replace(path: str, before: RowsDB, after: RowsDB, keep: Callable[[bytes], str],
            read: Callable[[sqlite3.Connection], dict[str, list[Row]]]) -> str:
    """``--in-place`` for a live database (:func:`store.sqlite.live_transaction`, its one
    policy): the session's rows must still be the ones repaired (other sessions may have
    moved on); the whole database is kept through ``keep``, the repair's steps are applied
    again, and the session's rows read back must be the repaired copy's before the commit."""
    name = str(path)
    with live_transaction(name, before.format) as conn:
        now = read(conn).get(before.session or "", [])
        if [(r.rowid, r.text) for r in now] != [(r.rowid, r.text) for r in before.rows()]:
            raise InputError(name, CHANGED)
        backup = keep(conn.serialize())
        for step in after.plan:
            if step[0] == "edits":
                _apply(conn, before.session, step[1], step[2], step[3], Exported())
            else:
                now = read(conn).get(before.session or "", [])
                _apply(conn, before.session, now, reasoning_cuts(now, step[1]), step[1], Exported())
        if after.plan:
            written = [r.text for r in read(conn).get(before.session or "", [])]
            if written != [r.text for r in after.rows()]:
                raise InputError(name, f"{before.format}: the rows written are not the repair's; nothing was "
                                       "written")
            _intact(conn, name, before.format)
        return backup


def reasoning_cuts(rows: list[Row], store: Store) -> Edits:
    """The reasoning parts of every row, as cuts."""
    out = Edits()
    for k, r in enumerate(rows):
        gone = {j for j, p in enumerate(r.parts or []) if store.reasoning is not None and store.reasoning(p)}
        if gone:
            out.cut[k] = gone
    return out


def strip(db: Any, store: Store, notes: Exported, parse: Callable[[bytes, str], RowsDB]) -> Any:
    """``--reasoning strip`` on a written database: every reasoning part of the session cut out
    of its row (a row left with nothing to send goes), one event per part; every other row,
    and every other session, as it was."""
    if not isinstance(db, RowsDB) or db.session is None:
        return db
    rows = db.rows()
    cuts = reasoning_cuts(rows, store)
    if not cuts:
        return db
    for k, gone in sorted(cuts.cut.items()):
        for j in sorted(gone):
            kind = (rows[k].parts or [])[j].get("type", "reasoning")
            reasoning.removed(notes, f"message {rows[k].id} part {j}", str(kind))
    return write(db, rows, cuts, store, Exported(), parse, ("strip", store))


def export_same(im: Imported, result: Result, notes: Exported, store: Store,
                parse: Callable[[bytes, str], RowsDB]) -> RowsDB:
    if im.state is None:                 # a store that holds no session
        return im.document
    plan = edits(im, result)
    if not plan:
        return im.document
    return write(im.document, im.state.rows, plan, store, notes, parse)


def result_text(msg: Mapping[str, Any]) -> str:
    """A synthesized flat result's text (the engine writes it as a string)."""
    return as_text(msg.get("content"))

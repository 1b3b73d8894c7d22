"""OpenCode's three containers as read and written whole: the database (its sessions' rows,
read live through its WAL), an ``opencode export`` document and a session of the legacy storage
tree; and the sessions a database holds (listing, choosing one, ``--in-place``)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from ...io import InputError, parse_json
from .. import session
from ..base import kind_of
from ..format import SessionInfo
from ..store.side import files, read_regular
from ..store.sqlite import open_checked, read_live, replace_rows, schema_head, with_mode
from . import v2 as opencode2

NAME = "opencode"
EXPORT = "opencode-export"
HEADER = b"SQLite format 3\x00"


def pretty(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``, OpenCode's spelling of an export."""
    return json.dumps(value, ensure_ascii=False, indent=2)


def compact(value: Any) -> str:
    """``JSON.stringify(value)``: what drizzle writes into a ``data`` column."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- the three containers ---------------------------------------------------------------------

Row = tuple[str, str, list[tuple[str, str, str]]]      # message id, data, [(part id, session id, data)]


@dataclass(slots=True, eq=False)
class OpenCodeDB:
    """An OpenCode database read from a copy; ``session`` is the one being repaired.

    ``data`` is a consistent image (the WAL applied), ``original`` the file's own bytes (what
    goes out when nothing changed and no WAL was pending); ``rows`` maps a session id to its
    message rows in ``(time_created, id)`` order, each with its parts in id order, as text:
    a session's JSON is decoded when it is read (a database holds hundreds). ``v2`` holds the
    sessions OpenCode 2.x keeps in ``session_message`` (``v2.py``); a session found in both is
    read from there, where OpenCode 2 continues it."""

    data: bytes
    original: bytes
    titles: dict[str, tuple[str, int]]
    rows: dict[str, list[Row]]
    session: str | None = None
    v2: dict[str, list[opencode2.V2Row]] = field(default_factory=dict)   # 2.x sessions' session_message rows
    v2info: dict[str, dict[str, Any]] = field(default_factory=dict)  # their session rows: title, model, version
    wal: bool = False
    mode: bytes = b""              # the file's journal-mode header bytes, which a repaired copy keeps
    format: str = NAME
    _decoded: dict[str, tuple[list[dict[str, Any]], list[str]]] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        return with_mode(self.data if self.wal else self.original, self.mode)

    def sessions(self) -> list[str]:
        """Every session the database holds, V1 and 2.x."""
        return list(dict.fromkeys([*self.rows, *self.v2]))

    def is_v2(self, sid: str | None) -> bool:
        return sid is not None and sid in self.v2

    def messages(self, sid: str) -> list[dict[str, Any]]:
        """The session's messages as OpenCode hydrates them: ``{"info", "parts"}``."""
        return self._decode(sid)[0]

    def skipped(self, sid: str) -> list[str]:
        """Rows of the session that are not JSON objects (OpenCode cannot read them either)."""
        return self._decode(sid)[1]

    def _decode(self, sid: str) -> tuple[list[dict[str, Any]], list[str]]:
        if sid not in self._decoded and sid in self.v2:
            self._decoded[sid] = opencode2.decode(self.v2[sid])
        if sid not in self._decoded:
            out: list[dict[str, Any]] = []
            bad: list[str] = []
            for mid, text, parts in self.rows.get(sid, []):
                info = _object(text)
                if info is None:
                    bad.append(f"message {mid}")
                    continue
                decoded = []
                for pid, psid, ptext in parts:
                    body = _object(ptext)
                    if body is None:
                        bad.append(f"part {pid}")
                        continue
                    decoded.append({**body, "id": pid, "sessionID": psid, "messageID": mid})
                out.append({"info": {**info, "id": mid, "sessionID": sid}, "parts": decoded})
            self._decoded[sid] = (out, bad)
        return self._decoded[sid]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpenCodeDB) and self.rows == other.rows and self.v2 == other.v2

    __hash__ = None  # type: ignore[assignment]


def _object(text: Any) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):    # not JSON, or nested deeper than it reads
        return None
    return value if isinstance(value, dict) else None


@dataclass(slots=True, eq=False)
class OpenCodeExport:
    """One session as an ``opencode export`` document; ``text`` is the file as read (None for a
    tree session or a document handed over already parsed), ``tree`` the storage folder a
    legacy session was read from."""

    doc: dict[str, Any]
    text: str | None = None
    tree: str | None = None
    bom: bool = False
    format: str = EXPORT

    def to_bytes(self) -> bytes:
        text = (self.text if self.text is not None else pretty(self.doc) + "\n").encode()
        return b"\xef\xbb\xbf" + text if self.bom else text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpenCodeExport) and self.doc == other.doc

    __hash__ = None  # type: ignore[assignment]


# -- reading the database -------------------------------------------------------------------

def _connect(data: bytes, name: str) -> sqlite3.Connection:
    """The image in memory (WAL is a property of a file; memory has none), checked whole."""
    return open_checked(data, name, NAME)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}


def sniff(data: bytes, name: str = "<input>") -> bool:
    """OpenCode's schema in the head of an SQLite file, or its file name (a grown schema can
    sit in pages far into a large database)."""
    if not data.startswith(HEADER):
        return False
    head = schema_head(data, name)
    if b"update_session_message_count_on_insert" in head and b"CREATE TABLE `part`" not in head:
        return False        # Crush's schema: the Go OpenCode's opencode.db, which Crush reads
    return b"message_session_time_created_id_idx" in head or b"CREATE TABLE `part`" in head \
        or b"session_message_session_seq_idx" in head \
        or re.fullmatch(r"opencode(-[A-Za-z0-9._-]+)?\.db", os.path.basename(name)) is not None


def parse(data: bytes, name: str = "<input>", **options: Any) -> OpenCodeDB:
    """The database as OpenCode's next open reads it (``store.sqlite.read_live``): its
    sessions' rows as text, each session decoded when it is read."""
    image, original = read_live(data, name, NAME)
    conn = _connect(image, name)
    try:
        db = _read_rows(conn, image, data, original is None, name)
    except sqlite3.Error as exc:
        raise InputError(name, f"{NAME}: cannot read the database ({exc})") from None
    finally:
        conn.close()
    db.mode = bytes(data[18:20])
    return db


_parse = parse


def _read_rows(conn: sqlite3.Connection, image: bytes, data: bytes, wal: bool, name: str) -> OpenCodeDB:
    """The sessions' message and part rows, as text (decoded per session when asked)."""
    v1 = {"id", "session_id", "time_created", "data"} <= _columns(conn, "message") \
        and {"id", "message_id", "data"} <= _columns(conn, "part")
    if not v1 and not opencode2.has_v2(conn):
        raise InputError(name, f"{NAME}: no message and part tables, nor session_message, with data columns; "
                               "not an OpenCode database")
    titles: dict[str, tuple[str, int]] = {}
    if {"id", "title", "time_updated"} <= _columns(conn, "session"):
        for sid, title, updated in conn.execute("SELECT id, title, time_updated FROM session "
                                                "ORDER BY time_updated DESC, id"):
            titles[str(sid)] = (title or "", updated or 0)
    later, info = opencode2.read(conn)
    parts: dict[str, list[tuple[str, str, str]]] = {}
    rows: dict[str, list[Row]] = {sid: [] for sid in titles if sid not in later}
    if v1:
        for pid, mid, sid, text in conn.execute("SELECT id, message_id, session_id, data FROM part "
                                                "ORDER BY message_id, id"):
            parts.setdefault(mid, []).append((pid, sid, text))
        for mid, sid, text in conn.execute("SELECT id, session_id, data FROM message ORDER BY session_id, "
                                           "time_created, id"):
            if str(sid) not in later:       # a session OpenCode 2 copied over is read where it continues
                rows.setdefault(str(sid), []).append((mid, text, parts.get(mid, [])))
                titles.setdefault(str(sid), ("", 0))
    for sid, found in info.items():
        titles[sid] = (str(found.get("title") or ""), int(found.get("time_updated") or 0))
    db = OpenCodeDB(image, data, titles, rows, wal=wal, v2=later, v2info=info)
    if len(db.sessions()) == 1:
        db.session = db.sessions()[0]
    return db


def dump(document: Any, compact: bool = False) -> bytes:
    """A database as its bytes; an export as OpenCode prints it (its own text when it has one),
    or on one line when asked (a record of a JSON Lines batch)."""
    if isinstance(document, OpenCodeDB):
        return document.to_bytes()
    doc = document.doc if isinstance(document, OpenCodeExport) else document
    if compact:
        return orjson.dumps(doc, option=orjson.OPT_APPEND_NEWLINE)
    return document.to_bytes() if isinstance(document, OpenCodeExport) else (pretty(doc) + "\n").encode()


# -- reading an export or a tree ----------------------------------------------------------------

def _is_export(doc: Any) -> bool:
    if not (isinstance(doc, Mapping) and isinstance(doc.get("info"), Mapping) and isinstance(doc.get("messages"), list)):
        return False
    msgs = doc["messages"]
    return all(isinstance(m, Mapping) and isinstance(m.get("info"), Mapping) and isinstance(m.get("parts"), list)
               for m in msgs) and any(m["info"].get("role") in ("user", "assistant") for m in msgs) \
        or (not msgs and str(doc["info"].get("id", "")).startswith("ses_"))


def _is_tree_session(doc: Any) -> bool:
    return isinstance(doc, Mapping) and str(doc.get("id", "")).startswith("ses_") and "messages" not in doc \
        and isinstance(doc.get("time"), Mapping) and ("projectID" in doc or "directory" in doc) and "title" in doc


def sniff_export(data: bytes, name: str = "<input>") -> bool:
    head = data[:1 << 16].removeprefix(b"\xef\xbb\xbf").lstrip()
    return head.startswith(b"{") and head[1:].lstrip().startswith(b'"info"') and b'"ses_' in head \
        and b'"messages"' in data and b'"parts"' in data


def parse_export(data: bytes, name: str = "<input>", **options: Any) -> OpenCodeExport:
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data[3 if bom else 0:].decode("utf-8")
        doc = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        parse_json(data, name)          # the one JSON error: FILE:LINE:COLUMN and what is wrong there
        reason = "nested too deeply to read" if isinstance(exc, RecursionError) else f"not JSON ({exc})"
        raise InputError(name, f"{EXPORT}: {reason}") from None
    if not _is_export(doc):
        raise InputError(name, f"{EXPORT}: expected an opencode export document ({{info, messages}})")
    return OpenCodeExport(doc, text, bom=bom)


def _read_tree(info: Mapping, name: str) -> OpenCodeExport:
    """The session of a legacy tree, from its session file ``storage/session/<project>/<id>.json``."""
    path = Path(name)
    root = path.parent.parent.parent if len(path.parents) >= 3 else None
    sid = str(info.get("id") or path.stem)
    folder = root / "message" / sid if root else None
    try:
        names = sorted(n for n in files().listdir(folder) if n.endswith(".json")) if folder is not None else None
    except (OSError, InputError):
        names = None
    if folder is None or names is None:
        raise InputError(name, f"{EXPORT}: a legacy session file, but its messages are not in "
                               f"{folder or 'storage/message/' + sid}")
    messages = []
    for mname in names:
        mfile = folder / mname
        try:
            minfo = json.loads(read_regular(mfile).decode("utf-8"))
            pfolder = root / "part" / mfile.stem
            try:
                pnames = sorted(n for n in files().listdir(pfolder) if n.endswith(".json"))
            except FileNotFoundError:
                pnames = []
            parts = [json.loads(read_regular(pfolder / p).decode("utf-8")) for p in pnames]
        except (OSError, ValueError) as exc:      # UnicodeDecodeError is a ValueError
            raise InputError(str(mfile), f"{EXPORT}: unreadable tree file ({exc})") from None
        if not isinstance(minfo, dict):
            raise InputError(str(mfile), f"{EXPORT}: a message file holds {kind_of(minfo)}, not a message")
        parts = [p for p in parts if isinstance(p, dict)]
        messages.append({"info": minfo, "parts": sorted(parts, key=lambda p: str(p.get("id", "")))})
    messages.sort(key=lambda m: str(m["info"].get("id", "")))
    return OpenCodeExport({"info": dict(info), "messages": messages}, None, str(root))



# -- sessions of a database ----------------------------------------------------------------------

def _first_user(messages: list[dict[str, Any]]) -> str:
    for m in messages:
        if m["info"].get("role") == "user":
            for p in m["parts"]:
                if isinstance(p, Mapping) and p.get("type") == "text" and isinstance(p.get("text"), str):
                    return p["text"]
    return ""


def listing(db: OpenCodeDB) -> list[SessionInfo]:
    """Every session of the database, newest first: id, messages, first prompt, last update."""
    return [SessionInfo(sid, len(db.v2[sid] if db.is_v2(sid) else db.rows[sid]),
                        (opencode2.first_user if db.is_v2(sid) else _first_user)(db.messages(sid)),
                        _when(db.titles.get(sid, ("", 0))[1]))
            for sid in sorted(db.sessions(), key=lambda s: db.titles.get(s, ("", 0))[1], reverse=True)]


def _when(ms: Any) -> str | None:
    try:
        return datetime.fromtimestamp(int(ms) / 1000, tz=timezone.utc).isoformat(timespec="seconds") if ms else None
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def select(db: OpenCodeDB, sid: str, name: str = "<input>") -> OpenCodeDB:
    """The database with ``sid`` chosen (``--session ID``): a shallow copy, so the database
    given keeps its own choice."""
    return session.selected(db, sid, db.sessions(), name, NAME)


def chosen(db: OpenCodeDB) -> str | None:
    return db.session


def replace(path: str, before: OpenCodeDB, after: OpenCodeDB, keep: Any) -> str:
    """``--in-place`` on the live database: the repaired rows written into it through SQLite, in
    one write transaction (a file swapped in would meet the old ``-wal`` on the next open)."""
    sid = before.session
    scope = {"session": ("id = ?", (sid,)), "message": ("session_id = ?", (sid,)),
             "part": ("session_id = ?", (sid,)), "session_v2": ("id = ?", (sid,)),
             "session_message": ("session_id = ?", (sid,))}
    return replace_rows(path, before.data, after.data, keep, NAME, scope if sid is not None else None)

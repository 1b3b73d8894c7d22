"""The SQLite toolkit every database store reads and writes through (Crush, Goose, OpenCode,
the Agents SDK): one live read, one checked open, one write transaction with one policy for
an agent that writes meanwhile.

- **Live read** (:func:`read_live`). A database in WAL mode keeps its newest commits in
  ``NAME-wal`` until a checkpoint; one whose writer died mid-transaction (or spilled pages
  before its commit) has uncommitted pages in ``NAME`` and their old content in a hot
  ``NAME-journal``. Either way the main file alone is not what the agent reads next. So the
  three files are copied to a private folder (until two looks agree that nothing moved) and
  SQLite reads the copy, rolling a hot journal back or reading the WAL's commits, as the
  agent's next open would. Nothing is written next to the store and none of the agent's locks
  is taken. The sidecars belong to the main file beside them: bytes that are not that file
  (a repair's output read again under the store's name) are read alone.
- **Checked open** (:func:`open_checked`): an image in memory, checked whole by SQLite's
  integrity check before a row is read, so a damaged page is refused by name.
- **Writing into the live file** (:func:`live_transaction`, :func:`triggers_aside`,
  :func:`replace_rows`): one write transaction (``BEGIN IMMEDIATE``; the agent waits for the
  lock, as for any writer). The one policy: only the repaired session's rows must still be
  the ones read; the agent may go on writing other sessions. Triggers are set aside while the
  repair's rows are written and put back as they were; the rows written are read back and
  compared with the plan, and the database is checked whole, before the commit. SQLite writes
  its own journal or WAL, so a kill at any point leaves the original or the repair, and the
  file keeps its journal mode.

Every side file (sidecar, task file, legacy tree) is opened through ``store.side.files()``,
which served mode confines to the served folder.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from ...io import InputError
from .side import files, read_regular

HEADER = b"SQLite format 3\x00"
WAL_MODE = b"\x02\x02"        # file format version bytes 18-19: 1 rollback journal, 2 WAL
JOURNAL_MODE = b"\x01\x01"


SIDECARS = ("-wal", "-journal")


def has_wal(path: str) -> bool:
    """Whether ``path`` is a file with a non-empty ``-wal`` or ``-journal`` beside it: the
    main file alone is then not the database (commits not merged, or pages not committed)."""
    if files().stat(path) is None:
        return False
    for suffix in SIDECARS:
        st = files().stat(path + suffix)
        if st is not None and st.st_size > 0:
            return True
    return False


def schema_head(data: bytes, name: str, size: int = 1 << 20) -> bytes:
    """What a sniffer looks for a store's schema in: the head of the main file, and the head of
    its ``-wal`` beside it (a database the agent has not checkpointed yet keeps its schema and
    rows there; the main file may hold only its first page)."""
    head = data[:size]
    if name == "<input>" or not data.startswith(HEADER) or files().stat(name + "-wal") is None:
        return head
    try:
        return head + read_regular(name + "-wal", size)
    except (OSError, InputError):
        return head


def stable_copy(path: str, tries: int = 5) -> dict[str, bytes]:
    """The main file and its sidecars as bytes, read until two looks at their sizes and
    times agree (a writer that commits meanwhile would tear a single read). A sidecar that
    is not a regular file (a FIFO, a device) is no part of the database and is not opened."""
    names = ["", *SIDECARS]

    def look() -> list[tuple[int, int] | None]:
        out = []
        for suffix in names:
            st = files().stat(path + suffix)
            out.append(None if st is None else (st.st_size, st.st_mtime_ns))
        return out

    for _ in range(tries):
        before = look()
        copies = {}
        for suffix, seen in zip(names, before):
            if seen is not None:
                try:
                    copies[suffix] = read_regular(path + suffix)
                except (OSError, InputError):     # a checkpoint removed it meanwhile
                    break
        if look() == before and "" in copies:
            return copies
    raise sqlite3.OperationalError("the database kept changing while it was copied (is the agent writing it?)")


def copied(name: str, fmt: str) -> dict[str, bytes]:
    """The database and its sidecars, copied whole while the agent may be writing them."""
    try:
        return stable_copy(name)
    except (OSError, sqlite3.OperationalError) as exc:
        raise InputError(name, f"{fmt}: {exc}; try again") from None


def _live(data: bytes, path: str) -> bytes | None:
    """SQLite's committed state of the file ``path`` whose main-file bytes are ``data``, or
    None when ``data`` alone is the database (nothing beside it, or ``data`` is not the file
    beside those sidecars: a repair's output read again under the store's name, which the
    store's ``-wal`` does not belong to). Raises OSError or sqlite3.Error."""
    if path == "<input>" or not has_wal(path):
        return None
    copies = stable_copy(path)
    if copies[""] != data:
        return None
    with tempfile.TemporaryDirectory(prefix="inspector-sqlite-") as tmp:
        target = os.path.join(tmp, "store.db")
        for suffix, blob in copies.items():
            with open(target + suffix, "wb") as handle:
                handle.write(blob)
        # Opened read-write in the private folder: SQLite rolls a hot journal back, or
        # reads the -wal's commits, exactly as the agent's next open of the store would.
        return _read(target)


def read_live(data: bytes, name: str, fmt: str) -> tuple[bytes, bytes | None]:
    """The one live read of a store: (the database image as SQLite's next open of ``name``
    sees it, the file's own bytes when they are that database, else None). A non-empty
    ``-wal`` (commits not yet merged) or ``-journal`` (a writer died mid-transaction: its
    pages in the main file are not committed) makes the main file alone wrong, so the three
    files are copied to a private folder (until two looks agree) and SQLite reads the copy;
    nothing is written next to the store, and no lock of the agent's is taken."""
    try:
        live = _live(data, name)
    except (OSError, sqlite3.Error) as exc:
        raise InputError(name, f"{fmt}: cannot read the database with its -wal or -journal ({exc})") from None
    return (data, data) if live is None else (live, None)


def snapshot(path: str) -> bytes | None:
    """The database as the next open of ``path`` sees it, or None when the file's own bytes
    are the database (see :func:`read_live`)."""
    if not has_wal(path):
        return None
    return _live(read_regular(path), path)


def whole_database(path: str, data: bytes) -> bytes:
    """A file's bytes as a store reader needs them: ``data`` as read, or, for an SQLite
    database with a ``-wal`` or ``-journal`` beside it, SQLite's own read (a batch record)."""
    if data.startswith(HEADER):
        return _live(data, path) or data
    return data


def _read(target: str, uri: bool = False) -> bytes:
    source = sqlite3.connect(target, uri=uri, timeout=5)
    try:
        memory = sqlite3.connect(":memory:")
        try:
            source.backup(memory)
            return memory.serialize()
        finally:
            memory.close()
    finally:
        source.close()


def open_image(data: bytes, name: str, fmt: str) -> sqlite3.Connection:
    """An in-memory database from an image, checked whole first: a damaged page is refused
    here, naming what SQLite found, rather than read in part, met as an error halfway
    through a query, or written back damaged."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(in_memory(data))
        found = damage(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise InputError(name, f"{fmt}: not a readable SQLite database ({exc})") from None
    if found is not None:
        conn.close()
        raise InputError(name, f"{fmt}: the database is damaged (SQLite integrity check: {found})")
    return conn


open_checked = open_image


def intact(conn: sqlite3.Connection, name: str, fmt: str,
           what: str = "the repaired database does not pass SQLite's check; nothing was written") -> None:
    """Refuse (InputError) a database that SQLite's integrity check finds damaged."""
    found = damage(conn)
    if found is not None:
        raise InputError(name, f"{fmt}: {what} (SQLite integrity check: {found})")


def damage(conn: sqlite3.Connection, schema: str = "main") -> str | None:
    """What SQLite's integrity check finds wrong (its first few findings, on one line), or None."""
    found = [str(r[0]) for r in conn.execute(f"PRAGMA {schema}.integrity_check(5)")]
    if found == ["ok"]:
        return None
    return "; ".join(part.strip() for f in found for part in f.splitlines() if part.strip())


def in_memory(data: bytes) -> bytes:
    """``data`` with its header saying rollback journal: an in-memory database has no WAL."""
    if len(data) > 19 and data[18:20] == WAL_MODE:
        return data[:18] + JOURNAL_MODE + data[20:]
    return data


def with_mode(data: bytes, mode: bytes) -> bytes:
    """A serialized database given back the journal mode bytes of the file it came from."""
    if len(data) > 19 and mode in (WAL_MODE, JOURNAL_MODE):
        return data[:18] + mode + data[20:]
    return data


def quoted(name: str) -> str:
    """An SQL identifier, quoted whatever it holds (a table name with ``"`` in it)."""
    return '"' + name.replace('"', '""') + '"'


# -- writing a repair into the live file --------------------------------------------------
#
# The one policy for an agent that writes while a repair is made: inside one write
# transaction on the live file (the agent waits for SQLite's lock, as for any writer), only
# the repaired session's rows must still be the ones read; the agent may have written other
# sessions meanwhile, and those rows are neither checked nor touched. Triggers are set aside
# while the repair's rows are written (nothing the agent did not write changes), and the
# rows written are read back and compared with the plan before the commit.

CHANGED = ("the database changed while it was being repaired (is the agent still writing it?); "
           "nothing was written")


@contextmanager
def live_transaction(path: str, fmt: str) -> Iterator[sqlite3.Connection]:
    """The live file opened and held in one write transaction (``BEGIN IMMEDIATE``): committed
    when the block ends, rolled back on any error, which is then named as "nothing was written"."""
    name = str(path)
    try:
        conn = sqlite3.connect(name, timeout=10, isolation_level=None)
    except sqlite3.Error as exc:
        raise InputError(name, f"{fmt}: cannot open the database ({exc})") from None
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield conn
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        raise InputError(name, f"{fmt}: cannot write the repair; nothing was written ({exc})") from None
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()


@contextmanager
def triggers_aside(conn: sqlite3.Connection) -> Iterator[None]:
    """Every trigger dropped for the block and created again as it was after it (inside the
    caller's transaction: a failure rolls the drop back too)."""
    triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL "
                            "ORDER BY rowid").fetchall()
    for n, _ in triggers:
        conn.execute(f"DROP TRIGGER {quoted(n)}")
    yield
    for _, sql in triggers:
        conn.execute(sql)


def _tables(conn: sqlite3.Connection, schema: str) -> dict[str, str | None]:
    return {name: sql for name, sql in conn.execute(
        f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}


def _rowid(conn: sqlite3.Connection, schema: str, table: str) -> bool:
    try:
        conn.execute(f"SELECT rowid FROM {schema}.{quoted(table)} LIMIT 0")
        return True
    except sqlite3.OperationalError:        # WITHOUT ROWID, or a virtual table
        return False


Scope = Mapping[str, tuple[str, tuple[Any, ...]]]


def _where(scope: Scope | None, table: str) -> tuple[str, tuple[Any, ...]]:
    if scope is None:
        return "", ()
    if table not in scope:
        return " WHERE 0", ()
    pred, params = scope[table]
    return f" WHERE {pred}", params


def _differs(conn: sqlite3.Connection, a: str, b: str, table: str, key: str, scope: Scope | None = None) -> bool:
    """Whether ``a.table`` and ``b.table`` hold other rows (with their rowids: a row moved is
    a change), among the rows ``scope`` gives the table (all of them without one)."""
    t = quoted(table)
    where, params = _where(scope, table)
    both = f"SELECT {key}, * FROM {a}.{t}{where} EXCEPT SELECT {key}, * FROM {b}.{t}{where}"
    back = f"SELECT {key}, * FROM {b}.{t}{where} EXCEPT SELECT {key}, * FROM {a}.{t}{where}"
    return conn.execute(f"SELECT EXISTS ({both}) OR EXISTS ({back})", params * 4).fetchone()[0] == 1


def replace_rows(path: str, before: bytes, after: bytes, keep: Callable[[bytes], str], fmt: str,
                 scope: Scope | None = None) -> str:
    """``--in-place`` on a live database from two images: in one write transaction on
    ``path`` itself, check the rows of the repaired session (``scope``: per table, the SQL
    condition that picks them; a table it does not name belongs to no session and must not
    change) are still those of ``before``, keep the whole database as SQLite sees it
    (``-wal`` included) through ``keep``, make those rows the ones of ``after`` (rows deleted,
    and written again by rowid, only where they differ), triggers aside, read them back, check
    integrity and commit. Without ``scope`` every row is the session's. SQLite writes its own
    journal or WAL, so a kill at any point leaves the original or the repair, and the file
    keeps its journal mode. Returns the backup's name."""
    name = str(path)
    with live_transaction(name, fmt) as conn:
        for schema, image in (("before", before), ("after", after)):
            conn.execute(f"ATTACH DATABASE ':memory:' AS {schema}")
            conn.deserialize(in_memory(image), name=schema)
        tables = _tables(conn, "main")
        if tables != _tables(conn, "before") or any(
                _differs(conn, "main", "before", t, "rowid" if _rowid(conn, "main", t) else "NULL", scope)
                for t in tables):
            raise InputError(name, CHANGED)
        backup = keep(conn.serialize(name="main"))
        if _tables(conn, "after") != tables:
            raise InputError(name, f"{fmt}: the repair changes the schema; nothing was written")
        if scope is not None and any(_differs(conn, "before", "after", t, "rowid", {
                t: (f"NOT ({scope[t][0]})", scope[t][1])} if t in scope else None) for t in tables
                if _rowid(conn, "main", t)):
            raise InputError(name, f"{fmt}: the repair changes rows of another session; nothing was written")
        with triggers_aside(conn):
            for table in tables:
                keyed = _rowid(conn, "main", table)
                if not _differs(conn, "main", "after", table, "rowid" if keyed else "NULL", scope):
                    continue
                if not keyed:
                    raise InputError(name, f"{fmt}: the repair changes table {table!r}, which has no rowid; "
                                           f"nothing was written")
                _write_table(conn, table, scope)
                if _differs(conn, "main", "after", table, "rowid", scope):
                    raise InputError(name, f"{fmt}: the rows written into {table!r} are not the repair's "
                                           f"(a trigger or a constraint changed them); nothing was written")
        intact(conn, name, fmt)
        return backup


def _write_table(conn: sqlite3.Connection, table: str, scope: Scope | None = None) -> None:
    """``main.table`` made to hold ``after.table``'s rows (those ``scope`` picks): the rows
    that differ (or are gone) deleted by rowid, the changed and new ones inserted with their rowids."""
    t = quoted(table)
    where, params = _where(scope, table)
    info = list(conn.execute(f"PRAGMA main.table_info({t})"))
    alias = [r[1] for r in info if r[5] == 1 and str(r[2]).upper() == "INTEGER"] \
        if sum(1 for r in info if r[5]) == 1 else []      # a column that is the rowid under its own name
    cols = ", ".join(quoted(r[1]) for r in info)
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS inspector_changed (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.inspector_changed")
    conn.execute(f"INSERT OR IGNORE INTO temp.inspector_changed SELECT rowid FROM "
                 f"(SELECT rowid, {cols} FROM main.{t}{where} EXCEPT SELECT rowid, {cols} FROM after.{t}{where})",
                 params * 2)
    conn.execute(f"INSERT OR IGNORE INTO temp.inspector_changed SELECT rowid FROM "
                 f"(SELECT rowid, {cols} FROM after.{t}{where} EXCEPT SELECT rowid, {cols} FROM main.{t}{where})",
                 params * 2)
    if scope is not None and conn.execute(
            f"SELECT EXISTS (SELECT 1 FROM main.{t} WHERE rowid IN (SELECT id FROM temp.inspector_changed) "
            f"AND NOT ({scope[table][0]}))", scope[table][1]).fetchone()[0]:
        raise sqlite3.IntegrityError("a row the agent wrote meanwhile holds a rowid the repair needs")
    conn.execute(f"DELETE FROM main.{t} WHERE rowid IN (SELECT id FROM temp.inspector_changed)")
    written = cols if alias else f"rowid, {cols}"
    conn.execute(f"INSERT INTO main.{t} ({written}) SELECT {written} FROM after.{t} "
                 f"WHERE rowid IN (SELECT id FROM temp.inspector_changed) ORDER BY rowid")

"""An SQLite store on disk that its agent may have open: read it as SQLite itself would, and
write a repair into it the way its agent writes, through SQLite.

A database in WAL mode keeps its newest commits in ``NAME-wal`` until a checkpoint copies
them into ``NAME``; a database in rollback mode whose writer died mid-transaction (or spilled
pages before its commit) has pages in ``NAME`` that are not committed, their old content in
``NAME-journal``. Either way the main file alone is not what the agent reads next. So a store
with a ``-wal`` or a ``-journal`` beside it is read through SQLite, read-only, into memory (its
backup API takes a consistent snapshot even while the agent writes); where a read-only open
cannot work (a ``-wal`` without its ``-shm``, a hot journal to roll back), the files are copied
to a private folder, until two looks agree that nothing moved, and read there. Reading never
writes next to the store.

:func:`replace_rows` is ``--in-place`` for such a store: the repair is applied to the live file
as SQL, row by row, in one write transaction, so the agent (waiting for the lock) and the next
open both see it, and the file keeps its journal mode.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Callable
from urllib.parse import quote

from ..io import InputError

HEADER = b"SQLite format 3\x00"
WAL_MODE = b"\x02\x02"        # file format version bytes 18-19: 1 rollback journal, 2 WAL
JOURNAL_MODE = b"\x01\x01"


SIDECARS = ("-wal", "-journal")


def has_wal(path: str) -> bool:
    """Whether ``path`` is a file with a non-empty ``-wal`` or ``-journal`` beside it: the
    main file alone is then not the database (commits not merged, or pages not committed)."""
    try:
        if not os.path.isfile(path):
            return False
    except OSError:
        return False
    for suffix in SIDECARS:
        try:
            if os.path.getsize(path + suffix) > 0:
                return True
        except OSError:
            continue
    return False


def snapshot(path: str) -> bytes | None:
    """The database as the next open of ``path`` sees it, as one image (the header still
    says WAL mode for a WAL database), or None when nothing is beside it: the file's own
    bytes are the database."""
    if not has_wal(path):
        return None
    try:
        return _read(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
    except sqlite3.Error:
        pass
    with tempfile.TemporaryDirectory(prefix="inspector-sqlite-") as tmp:
        copy = os.path.join(tmp, "copy.db")
        for suffix, data in stable_copy(path).items():
            with open(copy + suffix, "wb") as handle:
                handle.write(data)
        return _read(copy)


def stable_copy(path: str, tries: int = 5) -> dict[str, bytes]:
    """The main file and its sidecars as bytes, read until two looks at their sizes and
    times agree (a writer that commits meanwhile would tear a single read)."""
    names = ["", *SIDECARS]

    def look() -> list[tuple[int, int] | None]:
        out = []
        for suffix in names:
            try:
                st = os.stat(path + suffix)
                out.append((st.st_size, st.st_mtime_ns))
            except FileNotFoundError:
                out.append(None)
        return out

    for _ in range(tries):
        before = look()
        copies = {}
        for suffix, seen in zip(names, before):
            if seen is not None:
                try:
                    with open(path + suffix, "rb") as handle:
                        copies[suffix] = handle.read()
                except FileNotFoundError:     # a checkpoint removed it meanwhile
                    break
        if look() == before and "" in copies:
            return copies
    raise sqlite3.OperationalError("the database kept changing while it was copied (is the agent writing it?)")


def copied(name: str, fmt: str) -> dict[str, bytes]:
    """The database and its sidecars, copied whole while the agent may be writing them."""
    try:
        return stable_copy(name)
    except sqlite3.OperationalError as exc:
        raise InputError(name, f"{fmt}: {exc}; try again") from None


def whole_database(path: str, data: bytes) -> bytes:
    """A file's bytes as a store reader needs them: ``data`` as read, or, for an SQLite
    database with a ``-wal`` or ``-journal`` beside it, SQLite's own read (a batch record)."""
    if data.startswith(HEADER):
        return snapshot(path) or data
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

def _tables(conn: sqlite3.Connection, schema: str) -> dict[str, str | None]:
    return {name: sql for name, sql in conn.execute(
        f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}


def _rowid(conn: sqlite3.Connection, schema: str, table: str) -> bool:
    try:
        conn.execute(f"SELECT rowid FROM {schema}.{quoted(table)} LIMIT 0")
        return True
    except sqlite3.OperationalError:        # WITHOUT ROWID, or a virtual table
        return False


def _differs(conn: sqlite3.Connection, a: str, b: str, table: str, key: str) -> bool:
    """Whether ``a.table`` and ``b.table`` hold other rows (with their rowids: a row moved is a change)."""
    t = quoted(table)
    both = f"SELECT {key}, * FROM {a}.{t} EXCEPT SELECT {key}, * FROM {b}.{t}"
    back = f"SELECT {key}, * FROM {b}.{t} EXCEPT SELECT {key}, * FROM {a}.{t}"
    return conn.execute(f"SELECT EXISTS ({both}) OR EXISTS ({back})").fetchone()[0] == 1


def replace_rows(path: str, before: bytes, after: bytes, keep: Callable[[bytes], str], fmt: str) -> str:
    """``--in-place`` on a live database: in one write transaction on ``path`` itself (the
    agent waits for it, as for any writer), check it still holds what was read (``before``,
    an image), keep the whole database as SQLite sees it (``-wal`` included) through
    ``keep``, then make each changed table hold the rows of ``after`` (rows deleted, and
    written again by rowid, only where they differ), check integrity and commit. SQLite
    writes its own journal or WAL, so a kill at any point leaves the original or the repair.
    Returns the backup's name."""
    name = str(path)

    def failed(exc: sqlite3.Error) -> InputError:
        return InputError(name, f"{fmt}: cannot write the repair; nothing was written ({exc})")

    try:
        conn = sqlite3.connect(name, timeout=10, isolation_level=None)
    except sqlite3.Error as exc:
        raise failed(exc) from None
    try:
        for schema, image in (("before", before), ("after", after)):
            conn.execute(f"ATTACH DATABASE ':memory:' AS {schema}")
            conn.deserialize(in_memory(image), name=schema)
        conn.execute("BEGIN IMMEDIATE")
        tables = _tables(conn, "main")
        if tables != _tables(conn, "before") or any(
                _differs(conn, "main", "before", t, "rowid" if _rowid(conn, "main", t) else "NULL") for t in tables):
            raise InputError(name, "the database changed while it was being repaired (is the agent still "
                                   "writing it?); nothing was written")
        backup = keep(conn.serialize(name="main"))
        if _tables(conn, "after") != tables:
            raise InputError(name, f"{fmt}: the repair changes the schema; nothing was written")
        for table in tables:
            keyed = _rowid(conn, "main", table)
            if not _differs(conn, "main", "after", table, "rowid" if keyed else "NULL"):
                continue
            if not keyed:
                raise InputError(name, f"{fmt}: the repair changes table {table!r}, which has no rowid; "
                                       f"nothing was written")
            _write_table(conn, table)
        found = damage(conn)
        if found is not None:
            raise InputError(name, f"{fmt}: the repaired database does not pass SQLite's check; nothing was "
                                   f"written ({found})")
        conn.execute("COMMIT")
        return backup
    except sqlite3.Error as exc:
        raise failed(exc) from None
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()


def _write_table(conn: sqlite3.Connection, table: str) -> None:
    """``main.table`` made to hold ``after.table``'s rows: the rows that differ (or are gone)
    deleted by rowid, the changed and new ones inserted with their rowids."""
    t = quoted(table)
    info = list(conn.execute(f"PRAGMA main.table_info({t})"))
    alias = [r[1] for r in info if r[5] == 1 and str(r[2]).upper() == "INTEGER"] \
        if sum(1 for r in info if r[5]) == 1 else []      # a column that is the rowid under its own name
    cols = ", ".join(quoted(r[1]) for r in info)
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS inspector_changed (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.inspector_changed")
    conn.execute(f"INSERT OR IGNORE INTO temp.inspector_changed SELECT rowid FROM "
                 f"(SELECT rowid, {cols} FROM main.{t} EXCEPT SELECT rowid, {cols} FROM after.{t})")
    conn.execute(f"INSERT OR IGNORE INTO temp.inspector_changed SELECT rowid FROM "
                 f"(SELECT rowid, {cols} FROM after.{t} EXCEPT SELECT rowid, {cols} FROM main.{t})")
    conn.execute(f"DELETE FROM main.{t} WHERE rowid IN (SELECT id FROM temp.inspector_changed)")
    written = cols if alias else f"rowid, {cols}"
    conn.execute(f"INSERT INTO main.{t} ({written}) SELECT {written} FROM after.{t} "
                 f"WHERE rowid IN (SELECT id FROM temp.inspector_changed) ORDER BY rowid")

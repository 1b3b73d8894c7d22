"""An SQLite store on disk that its agent may have open: read it as SQLite itself would.

A database in WAL mode keeps its newest commits in ``NAME-wal`` until a checkpoint copies
them into ``NAME``; the main file alone then lacks rows the agent reads (and a copy of it,
or a file put in its place, meets the old ``-wal`` on the next open). So a store with a
``-wal`` beside it is read through SQLite, read-only, into memory (its backup API takes a
consistent snapshot even while the agent writes); where a read-only open cannot work (a
``-wal`` without its ``-shm``), the pair is copied to a private folder and read there.
Nothing here writes next to the store.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from urllib.parse import quote

HEADER = b"SQLite format 3\x00"
WAL_MODE = b"\x02\x02"        # file format version bytes 18-19: 1 rollback journal, 2 WAL
JOURNAL_MODE = b"\x01\x01"


def has_wal(path: str) -> bool:
    """Whether ``path`` is a file with a non-empty ``-wal`` beside it (commits not merged yet)."""
    try:
        return os.path.isfile(path) and os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False


def snapshot(path: str) -> bytes | None:
    """The database as the next open of ``path`` sees it, as one image (the header still
    says WAL mode), or None when there is no ``-wal``: the file's own bytes are the database."""
    if not has_wal(path):
        return None
    try:
        return _read(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
    except sqlite3.Error:
        pass
    with tempfile.TemporaryDirectory(prefix="inspector-sqlite-") as tmp:
        copy = os.path.join(tmp, "copy.db")
        shutil.copyfile(f"{path}-wal", copy + "-wal")
        shutil.copyfile(path, copy)
        return _read(copy)


def whole_database(path: str, data: bytes) -> bytes:
    """A file's bytes as a store reader needs them: ``data`` as read, or, for an SQLite
    database with a ``-wal`` beside it, SQLite's own read of the pair (a batch record)."""
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

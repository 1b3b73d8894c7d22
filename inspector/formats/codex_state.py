"""Codex's thread index, ``state_5.sqlite``: which rollout file each thread's row points at.

Codex keeps one row per thread in the ``threads`` table of ``state_5.sqlite`` in
``$CODEX_SQLITE_HOME``, else ``$CODEX_HOME`` (openai/codex ``codex-rs/state/src/lib.rs``
``STATE_DB_FILENAME``, ``SQLITE_HOME_ENV``; ``codex-rs/state/migrations/0001_threads.sql`` at
864b3ff5194d: ``id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL``, ``title``, ``archived``).
``codex resume`` finds a thread's file through that row; a row whose path no longer holds the
rollout (moved, archived by hand, a home copied elsewhere: openai/codex issues #47002, #40426)
is a session Codex lists and cannot open. The row's file counts as present in either form,
plain or ``.zst`` (``existing_rollout_path``, ``codex_zst``).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..io import InputError
from . import codex_zst
from .store.sqlite import open_image, read_live
from .store.side import read_regular

FILENAME = "state_5.sqlite"
WHAT = "Codex's thread index (state_5.sqlite)"


@dataclass(frozen=True, slots=True)
class Thread:
    id: str
    rollout_path: str
    title: str
    archived: bool

    @property
    def present(self) -> bool:
        """Whether the rollout is on disk in the form Codex opens (plain, else ``.zst``)."""
        plain = codex_zst.plain_path(self.rollout_path)
        return os.path.isfile(plain) or os.path.isfile(plain + codex_zst.SUFFIX)


def database(env: dict[str, str] | os._Environ, codex_home: Path) -> Path:
    """Where Codex keeps ``state_5.sqlite``: ``$CODEX_SQLITE_HOME``, else the Codex home."""
    home = env.get("CODEX_SQLITE_HOME")
    return (Path(home) if home else codex_home) / FILENAME


def threads(path: str | os.PathLike) -> list[Thread]:
    """Every thread row, read through the one live read (the ``-wal`` Codex keeps beside it
    included). Raises InputError naming the file when it is not Codex's thread index."""
    name = str(path)
    try:
        data = read_regular(name)
    except OSError as exc:
        raise InputError(name, f"{WHAT}: cannot read it ({exc.strerror or exc})") from None
    image, _ = read_live(data, name, WHAT)
    conn = open_image(image, name, WHAT)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(threads)")}
        if not {"id", "rollout_path"} <= columns:
            raise InputError(name, f"{WHAT}: no threads table with id and rollout_path columns")
        title = "title" if "title" in columns else "''"
        archived = "archived" if "archived" in columns else "0"
        rows = conn.execute(f"SELECT id, rollout_path, {title}, {archived} FROM threads ORDER BY id").fetchall()
    except sqlite3.Error as exc:
        raise InputError(name, f"{WHAT}: {exc}") from None
    finally:
        conn.close()
    return [Thread(str(i), str(p), t if isinstance(t, str) else "", bool(a)) for i, p, t, a in rows
            if isinstance(p, str)]

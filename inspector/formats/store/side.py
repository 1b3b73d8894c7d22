"""The files beside a store's main file that its reader opens itself (a database's ``-wal``
and ``-journal``, a Cline task's ``ui_messages.json`` and ``state/taskHistory.json``,
OpenCode's legacy ``storage/`` tree).

Every such read goes through one :class:`Files`: by default the local disk, opened without
blocking and read only when a regular file (a FIFO or a device planted under such a name is
named, never waited on or read forever). A view that must keep a reader inside a folder (the
served app) runs the read inside :func:`reading_through` with its own ``Files``, which opens
each name through its confinement and holds the descriptor it checked; the stores then reach
no file but through it. The choice is a context variable, so two loads in two threads (two
served apps) each keep their own.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class Files(Protocol):
    def read(self, path: str | os.PathLike, limit: int = -1) -> bytes:
        """A regular file's bytes (its first ``limit`` when not -1); OSError (or InputError)
        when it is missing, not regular or refused."""

    def stat(self, path: str | os.PathLike) -> os.stat_result | None:
        """A regular file's status; None when it is missing, not regular or refused."""

    def listdir(self, path: str | os.PathLike) -> list[str]:
        """The names in a folder; OSError (or InputError) when it cannot be listed or is refused."""


class LocalFiles:
    """The local disk, as the terminal app and the CLI read it."""

    def read(self, path: str | os.PathLike, limit: int = -1) -> bytes:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
            with open(fd, "rb", closefd=False) as handle:
                return handle.read(limit)
        finally:
            os.close(fd)

    def stat(self, path: str | os.PathLike) -> os.stat_result | None:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        return st if stat.S_ISREG(st.st_mode) else None

    def listdir(self, path: str | os.PathLike) -> list[str]:
        return os.listdir(path)


_FILES: ContextVar[Files] = ContextVar("inspector_store_files", default=LocalFiles())


def files() -> Files:
    """The ``Files`` the store readers go through in this context."""
    return _FILES.get()


@contextmanager
def reading_through(chosen: Files) -> Iterator[None]:
    """Every side-file read of the stores in this block goes through ``chosen``."""
    token = _FILES.set(chosen)
    try:
        yield
    finally:
        _FILES.reset(token)


def read_regular(path: str | os.PathLike, limit: int = -1) -> bytes:
    """A side file's bytes (its first ``limit``), through the context's ``Files``."""
    return files().read(path, limit)

"""The files beside a store's main file that its reader opens itself (a database's ``-wal``,
a Cline task's ``ui_messages.json`` and ``state/taskHistory.json``, OpenCode's legacy
``storage/`` tree): opened without blocking and read only when they are regular files, so a
FIFO or a device planted under such a name is named, never waited on or read forever."""

from __future__ import annotations

import errno
import os
import stat


def read_regular(path: str | os.PathLike) -> bytes:
    """A file's bytes; OSError when it is not a regular file (or cannot be read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        with open(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)

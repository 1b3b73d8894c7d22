"""``inspector FILE --watch``: read the file again when it changes on disk (an agent writing
its session), and say what changed since the last load.

A thread worker polls the file's size and modification time, and hashes its bytes when
either moves, so a rewrite with the same content (a touch, an editor's save) reads nothing
again. What changed is told from the two loads' counts (entries, and each stage's drops and
additions, from the engine's events): never by comparing texts.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.worker import Worker, get_current_worker

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from .loader import Document

INTERVAL = 0.5  # seconds between looks at the file


class FileChanged(Message):
    """The watched file's bytes changed."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path


def stamp(path: str) -> tuple[int, int] | None:
    """Size and modification time of ``path`` when it is a regular file (through links);
    None for anything else: a FIFO or a device put in its place is nothing to read (R3-10)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_size, st.st_mtime_ns


def digest(path: str) -> bytes | None:
    """A hash of the file's bytes, or None when it is not a regular file. Opened without
    blocking (a FIFO swapped in after :func:`stamp` looked would block ``open`` until a
    writer came) and checked on the descriptor before a byte is read (``/dev/zero`` never
    ends)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        handle = os.fdopen(fd, "rb")
    except OSError:
        os.close(fd)
        return None
    try:
        with handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return hashlib.file_digest(handle, "blake2b").digest()
    except OSError:
        return None


def start(node: DOMNode, path: str, interval: float = INTERVAL) -> Worker[None]:
    """Watch ``path`` in a thread worker of ``node`` (one watch at a time: a new one cancels
    the last), posting :class:`FileChanged` each time its bytes change."""

    def run() -> None:
        worker = get_current_worker()
        wake = threading.Event()
        last, seen = stamp(path), digest(path)
        while not worker.is_cancelled:
            wake.wait(interval)
            now = stamp(path)
            if now is None or now == last:
                continue
            last = now
            content = digest(path)
            if content is not None and content != seen:
                seen = content
                if not worker.is_cancelled:
                    node.post_message(FileChanged(path))

    return node.run_worker(run, thread=True, exclusive=True, group="watch", description=f"watch {path}")


def _entries(n: int) -> str:
    return f"{n:,} {'entry' if n == 1 else 'entries'}"


def changes(before: Document, after: Document) -> str:
    """One sentence: entries added or removed, and each stage whose drops or additions moved
    (``2 entries added; repair now drops 1 (was 0)``)."""
    parts: list[str] = []
    grown = len(after.raw) - len(before.raw)
    if grown:
        parts.append(f"{_entries(abs(grown))} {'added' if grown > 0 else 'removed'}")
    old_views = {name: v for v, name in enumerate(before.model.views)}
    for v, name in enumerate(after.model.views):
        if v == 0:
            continue
        now = after.model.stage_counts(v)
        was: dict[str, Any] = before.model.stage_counts(old_views[name]) if name in old_views else {}
        for key, verb in (("dropped", "drops"), ("synthesized", "adds"), ("moved", "moves")):
            if now.get(key, 0) != was.get(key, 0):
                parts.append(f"{name} now {verb} {now.get(key, 0)} (was {was.get(key, 0)})")
    if not parts:
        parts.append(f"the same counts as before ({_entries(len(after.raw))})")
    return "; ".join(parts) + "."

"""Agent session files from the command line: where a repaired session is written, the
``--in-place`` swap with its backup, and the session files in a folder.

A session file is the agent's own record, so it is never written over by default: the repair
goes beside it (``NAME.repaired.jsonl``), and ``--in-place`` first keeps the original as
``NAME.bak`` (``NAME.bak.1``... when that exists) and refuses if the agent wrote to the file
meanwhile.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Iterator

from . import formats
from .io import (InputError, NotAHistory, OutputError, atomic_stream, atomic_write, describe_os_error, display_name,
                 read_bytes, write_new)
from .pipeline import Session, parse as parse_bytes, select_session, sessions as pipeline_sessions


def is_session(outcome: Any) -> bool:
    return formats.is_session_format(outcome.imported.format)


def repaired_name(path: str | os.PathLike) -> str:
    p = Path(formats.written_name(str(path)))    # a compressed Codex rollout's repair is plain JSONL
    return str(p.with_name(f"{p.stem}.repaired{p.suffix or '.jsonl'}"))


def session_output(path: str, outcome: Any) -> str | None:
    """Where ``normalize`` writes by default: beside a session file, stdout for anything else."""
    if str(path) == "-" or not formats.writes_whole_file(outcome.imported.format) \
            or outcome.to not in ("same", outcome.imported.format):
        return None
    return repaired_name(path)


def in_place(path: str, outcome: Any) -> str:
    """Replace ``path`` by the repair atomically, keeping the original; returns the backup's name.

    A store that is a live database writes the repair into itself (its format's ``replace``,
    in one transaction under SQLite's own lock). A session file is swapped: the repaired
    copy is written and synced, the file is checked again right before the rename, and the
    inode replaced is checked once more after it; an agent line written meanwhile means
    the original (with that line) stays or is put back, and nothing is replaced."""
    name = display_name(path)
    if not is_session(outcome):
        raise InputError(name, "--in-place is for agent session files; write other formats with -o")
    p = Path(path)
    before = p.stat()
    mode = stat.S_IMODE(before.st_mode)
    document = outcome.imported.document
    replace = formats.get(outcome.imported.format).replace
    if replace is not None:      # a store that writes itself; None: swapped as any session file
        done = replace(str(p), document, outcome.exported, lambda data: _backup(p, data, mode))
        if done is not None:
            return done
    with open(p, "rb") as old:    # the inode the rename replaces, held to see a write into it
        original = old.read()
        if _moved(os.fstat(old.fileno()), before):
            raise InputError(name, _CHANGED + "; nothing was written")
        now = parse_bytes(original, name, outcome.format)
        if formats.chosen_session(document) is not None:
            now = select_session(now, formats.chosen_session(document), name)
        if now != document:
            raise InputError(name, _CHANGED + "; nothing was written")
        backup = _backup(p, original, mode)
        with atomic_stream(p) as handle:
            try:
                handle.write(outcome.data)
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as exc:   # a full disk names the session, not standard output
                raise OutputError(name, f"cannot write the repair: {describe_os_error(exc)}; "
                                        f"nothing was replaced (the copy {backup} is kept)") from None
            if _moved(p.stat(), before):    # the last look before the rename: a failure here removes the copy
                raise InputError(name, f"{_CHANGED}; nothing was replaced (the copy {backup} is kept)")
        late = os.fstat(old.fileno())
        if _moved(late, before, inode=False):
            old.seek(0)
            atomic_write(p, old.read())   # the agent wrote into the old file during the rename: put it back
            raise InputError(name, f"{_CHANGED}; the original, with what the agent wrote, is back in place "
                                   f"and nothing was replaced (the copy {backup} is kept)")
    return str(backup)


_CHANGED = "the file changed while it was being repaired (is the agent still writing it?)"


def _moved(now: os.stat_result, before: os.stat_result, inode: bool = True) -> bool:
    """Whether a file is not the one read: another size or modification time (or inode)."""
    return (now.st_size, now.st_mtime_ns) != (before.st_size, before.st_mtime_ns) \
        or (inode and (now.st_ino, now.st_dev) != (before.st_ino, before.st_dev))


def _backup(p: Path, data: bytes, mode: int) -> str:
    """``data`` at the first free ``NAME.bak[.N]``: a name taken by anything, a dangling link
    too, is skipped (never followed)."""
    n = 0
    while True:
        backup = p.with_name(p.name + (f".bak.{n}" if n else ".bak"))
        try:
            write_new(backup, data, mode)
            return str(backup)
        except FileExistsError:
            n += 1


# What ``check``, ``doctor`` and the folder browser say of a folder's file that holds no history.
PASSED_OVER = "not a conversation history (named alone, the file is an error that says why)"


class Walked(str):
    """A path found by walking a folder, not named by the user: one that holds no history
    (``io.NotAHistory``) is passed over and named, where a file named alone is an error."""


def expand(paths: list[str]) -> Iterator[str]:
    """Files as given; a folder gives its history and session files (``formats.folder_files``,
    the TUI browser's list: recursively, sorted), each a :class:`Walked` path."""
    for path in paths:
        if path != "-" and Path(path).is_dir():
            found = [Walked(f) for f in formats.folder_files(path)]
            if not found:
                yield path              # read as a file: "is a directory", exit 2
            yield from found
        else:
            yield path


def passed_over(path: str, error: BaseException) -> bool:
    """Whether a file met while walking a folder is passed over: it holds no history."""
    return isinstance(path, Walked) and isinstance(error, NotAHistory)


def each_session(paths: Iterator[str], session: str | None, fmt: str = "auto") -> Iterator[tuple[str, Session]]:
    """(path, session) per session to check: each file read and parsed once, a database
    holding several sessions giving one per session when no --session is given. A file that
    cannot be read or parsed gives one session whose ``read`` raises that error, so it is
    reported where the others are checked."""
    for path in paths:
        name = display_name(path)
        try:
            document = parse_bytes(read_bytes(path), name, fmt)
        except (OSError, InputError, RecursionError, MemoryError) as exc:
            yield path, Session(session, None, name, fmt, error=exc)
            continue
        for one in pipeline_sessions(document, name, fmt, session):
            yield path, one



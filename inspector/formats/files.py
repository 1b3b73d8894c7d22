"""Which files a format reads: the suffixes every format declares, and whether a file on
disk is an agent session some session format claims. ``inspector check FOLDER`` and
``inspector batch FOLDER`` both walk folders by :func:`skip_folder` and :func:`skip_file` and
ask :func:`is_session_file`, so they find the same files; ``check FOLDER``, ``doctor FOLDER``
and the TUI's folder browser list :func:`folder_files`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from ..io import InputError, parse_json, read_head
from . import codex_zst
from .registry import REGISTRY

HEAD = 1 << 16          # what a session format sees of a file to claim it
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__"})


def skip_folder(name: str) -> bool:
    """Folders no agent keeps sessions in (version control, dependencies, caches). A hidden
    folder is searched: agents keep their homes in them (``~/.claude``, ``~/.codex``)."""
    return name in SKIP_DIRS


def skip_file(name: str) -> bool:
    """Files that are never inputs: hidden ones (editors' swap files, the temporaries of an
    atomic write) and the repaired copies Inspector writes beside a session."""
    return name.startswith(".") or ".repaired." in name


def suffixes(kind: str | None = None) -> tuple[str, ...]:
    """The file suffixes the registered formats read (``kind``: of that kind only), in order."""
    found = (s for f in REGISTRY.values() if kind is None or f.kind == kind for s in f.suffixes)
    return tuple(dict.fromkeys(found))


def whole_file_suffixes() -> tuple[str, ...]:
    """Suffixes of files read as one whole session each (JSONL, databases), not one JSON document."""
    return tuple(dict.fromkeys(s for f in REGISTRY.values() if f.is_session and f.whole_file
                               for s in f.suffixes))


def claims(head: bytes, name: str) -> bool:
    """Whether a session format claims a file by its first bytes (JSONL or SQLite; the JSON
    session formats are told by their content, see :func:`is_session_file`)."""
    return any(f.sniff(head, name) for f in REGISTRY.values() if f.is_session)


def may_hold_sessions(head: bytes, name: str) -> bool:
    """Whether a format whose files hold several sessions claims these first bytes."""
    return any(f.sniff(head, name) for f in REGISTRY.values() if f.sessions is not None)


def shadowed(path: str | os.PathLike) -> bool:
    """A file the agent does not read because another form of it is beside it (a Codex
    ``.jsonl.zst`` whose plain ``.jsonl`` exists): listed once, as the form that is read."""
    return codex_zst.shadowed(path)


def is_session_file(path: str | os.PathLike) -> bool:
    """Whether a session format claims the file: a whole-file session by its first bytes (read
    at least to the end of the first line, so a session whose first prompt is long still
    starts with one whole record), a JSON one by its content (read whole: they are small). A
    file with a session suffix that cannot be read is listed, to fail by name where it is read."""
    name = str(path)
    if not name.endswith(suffixes("session")) or skip_file(Path(name).name) or shadowed(name):
        return False
    try:
        head = read_head(path, HEAD)
    except OSError:
        return True
    if not name.endswith(".json") or claims(head, name):   # a JSON session may be told by its name
        return claims(head, name)
    if not head.lstrip().startswith(b"{"):
        return False
    try:
        with open(path, "rb") as handle:
            document = parse_json(handle.read(), name)
    except (OSError, InputError):
        return False
    return any(f.evidence(document) for f in REGISTRY.values() if f.is_session and not f.whole_file)


def session_files(root: str | os.PathLike) -> Iterator[str]:
    """The session files under a folder, recursively, in sorted order."""
    found = []
    unreadable: list[str] = []

    def named(exc: OSError) -> None:
        # A subfolder that cannot be listed is given as it is: reading it fails by its name
        # (a session may be inside), where os.walk alone would skip it without a word.
        if exc.filename is not None and os.fspath(exc.filename) != os.fspath(root):
            unreadable.append(os.fspath(exc.filename))

    for folder, dirs, files in os.walk(root, onerror=named):
        dirs[:] = sorted(d for d in dirs if not skip_folder(d))
        found += [os.path.join(folder, f) for f in files if not skip_file(f)]
    for path in sorted(found + unreadable):
        if path in unreadable or is_session_file(path):
            yield path


def folder_files(root: str | os.PathLike) -> Iterator[str]:
    """Every history and session file under ``root``, recursively, sorted: the session files a
    session format claims (:func:`session_files`) and the files with a history format's
    suffix outside hidden folders. Whether one of the latter holds a history is known once it
    is read (``io.NotAHistory``): every view that walks a folder passes over those the same way."""
    found = set(session_files(root))
    history = suffixes("history")
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not skip_folder(d) and not d.startswith("."))
        found.update(os.path.join(folder, f) for f in files if f.endswith(history) and not skip_file(f))
    yield from sorted(found)

"""What the TUI asks of the format registry: the provider a format speaks, which files it can
open, and the sessions of a file that holds several. Each answer is the formats' own declared
fact; the TUI keeps no list of format names, suffixes or providers of its own."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import formats, sessions, targets

SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__"})


@dataclass(frozen=True, slots=True)
class SessionEntry:
    """One session of a file that holds several, as the picker lists it."""

    id: str
    items: int
    first_user: str = ""
    last_activity: str | None = None


def provider_of(fmt: str) -> str | None:
    """The provider API a format speaks (its resume target), None for a flat history."""
    spoken = sessions.RESUME_TARGET.get(fmt)
    if spoken is None and fmt in targets.REGISTRY:   # a request body speaks its own API
        spoken = fmt
    return spoken


def openable_suffixes() -> tuple[str, ...]:
    """Every file suffix some registered format reads."""
    return tuple(dict.fromkeys((".json", *sessions.SESSION_SUFFIXES)))


def session_entries(document: Any) -> list[SessionEntry]:
    """The sessions of a parsed file that holds several (empty for any other document)."""
    held = getattr(document, "sessions", None)
    if not isinstance(held, dict) or len(held) < 2 or not callable(getattr(document, "select", None)):
        return []
    return [SessionEntry(str(sid), len(rows)) for sid, rows in held.items()]


def chosen_session(document: Any) -> str | None:
    """The session chosen in a parsed file that holds several (None: not such a file)."""
    held = getattr(document, "sessions", None)
    return getattr(document, "session", None) if isinstance(held, dict) and len(held) > 1 else None


def _session_files(root: Path, deep: bool = True) -> Iterator[str]:
    for found in sessions.expand([str(root)]):
        if found != str(root) and (deep or Path(found).parent == root):
            yield found


def files_under(root: str | os.PathLike) -> Iterator[str]:
    """Every history and session file under ``root``, recursively, sorted: the session files
    a session format claims, and the JSON files (whether one is a history is known only once
    it is read, which the folder browser does lazily)."""
    root = Path(root)
    claimed = set(_session_files(root))
    found = set(claimed)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for f in files:
            if f.endswith(".json") and not f.startswith(".") and ".repaired." not in f:
                found.add(os.path.join(folder, f))
    yield from sorted(found)


def is_session_format(fmt: str) -> bool:
    """Whether a format is an agent's own session record (a line or row per entry)."""
    return fmt in sessions.SESSION_FORMATS

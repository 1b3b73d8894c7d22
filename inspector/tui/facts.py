"""What the TUI asks of the format registry: the provider a format speaks, which files it can
open, and the sessions of a file that holds several. Each answer is the formats' own declared
fact (``inspector.formats``); the TUI keeps no list of format names, suffixes or providers."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from .. import formats, pipeline
from ..formats import SessionInfo

__all__ = ["SessionInfo", "chosen_session", "files_under", "is_session_format", "openable_suffixes", "resume_command",
           "provider_of", "session_entries", "written_suffix"]


def provider_of(fmt: str) -> str | None:
    """The provider API a format speaks (its resume target), None for a flat history."""
    return formats.provider(fmt)


def is_session_format(fmt: str) -> bool:
    """Whether a format is an agent's own session record (a line or row per entry)."""
    return formats.is_session_format(fmt)


def openable_suffixes() -> tuple[str, ...]:
    """Every file suffix some registered format reads."""
    return formats.suffixes()


def written_suffix(fmt: str) -> str:
    """The file suffix a format writes (``.json``, ``.jsonl``, ``.db``): its first declared one."""
    return formats.get(fmt).suffixes[0]


def session_entries(document: Any) -> list[SessionInfo]:
    """The sessions of a parsed file that holds several, when none is chosen yet (empty for
    any other document, and for a file holding one session only)."""
    return pipeline.held_sessions(document)


def chosen_session(document: Any) -> str | None:
    """The session chosen in a parsed file that holds several (None: not such a file)."""
    return pipeline.chosen_session(document)


def files_under(root: str | os.PathLike) -> Iterator[str]:
    """Every history and session file under ``root``, as ``check`` and ``doctor`` walk it."""
    return formats.folder_files(root)


def resume_command(imported: Any, name: str, session: str | None = None) -> str | None:
    """The agent's own command that resumes the open session (the verdict's, rendered in one
    place: ``formats.resume_command``); None where the agent has none or no id is known."""
    return formats.resume_command(imported, name, session)

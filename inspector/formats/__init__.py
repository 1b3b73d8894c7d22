"""Provider formats in and out. Importers turn a parsed document into the flat messages the
engine consumes, recording where each message, block and call came from; exporters apply
the engine's decisions back to the original objects through that provenance.

Entry points (the CLI, the TUI and batch use these):
- ``import_history(document, name, fmt="auto") -> Imported``
- ``export_history(imported, result, to="same") -> document``
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Any

from ..engine import Result
from ..io import InputError
from . import agents_sqlite, anthropic, bedrock, claude_code, codex_rollout, flat, gemini, gemini_cli, openai_chat, openai_responses
from .base import Imported, Loc
from .detect import detect

MODULES = {m.NAME: m for m in (flat, openai_chat, openai_responses, anthropic, gemini, bedrock)}
# Session files (JSON Lines, SQLite): claimed from their raw bytes by ``sniff``.
SESSIONS = {m.NAME: m for m in (claude_code, codex_rollout, agents_sqlite)}
FORMATS = tuple(MODULES)
TARGETS = ("same", *FORMATS)
# Session files that are one JSON document: chosen by their own evidence before detection.
JSON_SESSIONS = {m.NAME: m for m in (gemini_cli,)}
SESSION_FORMATS = (*SESSIONS, *JSON_SESSIONS)   # read by --from; written back in their own format
MODULES.update(SESSIONS)
MODULES.update(JSON_SESSIONS)

__all__ = ["FORMATS", "TARGETS", "Imported", "Loc", "dump_document", "export_history", "import_history",
           "parse_bytes"]


def import_history(document: Any, name: str = "<input>", fmt: str = "auto") -> Imported:
    if fmt not in ("auto", *FORMATS, *SESSION_FORMATS):
        raise InputError(name, f"unknown format {fmt!r}; known: {', '.join((*FORMATS, *SESSION_FORMATS))}")
    if fmt == "auto":
        fmt = _session_format(document) or detect(document, name)
    with _no_gc():
        return MODULES[fmt].import_(document, name)


def export_history(imported: Imported, result: Result, to: str = "same") -> Any:
    """The repaired history as a document in format ``to`` (``same``: the input's format).

    ``result`` must come from normalizing ``imported.messages`` (``normalize`` or
    ``normalize_strict``). In the input's own format, every message the engine kept is the
    original object; changed ones keep their other keys and lose only what was dropped.
    """
    if to not in TARGETS:
        raise ValueError(f"unknown export format {to!r}; known: {', '.join(TARGETS)}")
    with _no_gc():
        if to in ("same", imported.format):
            return MODULES[imported.format].export_same(imported, result)
        return MODULES[to].export_new(imported, result)


def _session_format(document: Any) -> str | None:
    if getattr(document, "format", None) in SESSIONS:
        return document.format             # bytes a session format claimed and parsed
    return next((n for n, m in JSON_SESSIONS.items() if m.evidence(document)), None)


def parse_bytes(data: bytes, name: str = "<input>", fmt: str = "auto") -> Any:
    """Raw bytes as a document: a session file its own format claims, else JSON.
    (Adapter until the format registry's sniff/parse hooks land.)"""
    from ..io import parse_json

    if fmt in SESSIONS:
        return SESSIONS[fmt].parse(data, name)
    if fmt == "json":
        return parse_json(data, name)
    if fmt == "auto":
        for module in SESSIONS.values():
            if module.sniff(data, name):
                return module.parse(data, name)
    return parse_json(data, name)


def dump_document(document: Any, compact: bool = False) -> bytes:
    """The bytes of an exported document (a session file writes its own lines)."""
    from ..io import dump_messages

    if getattr(document, "format", None) in SESSIONS and not isinstance(document, (dict, list)):
        return SESSIONS[document.format].dump(document, compact)
    return dump_messages(document, compact=compact)


@contextmanager
def _no_gc():
    """Many small acyclic objects: the cyclic collector only costs time (as in the engine)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()

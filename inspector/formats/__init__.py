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
from . import anthropic, bedrock, flat, gemini, openai_chat, openai_responses
from .base import Imported, Loc
from .detect import detect

MODULES = {m.NAME: m for m in (flat, openai_chat, openai_responses, anthropic, gemini, bedrock)}
FORMATS = tuple(MODULES)
TARGETS = ("same", *FORMATS)

__all__ = ["FORMATS", "TARGETS", "Imported", "Loc", "export_history", "import_history"]


def import_history(document: Any, name: str = "<input>", fmt: str = "auto") -> Imported:
    if fmt not in ("auto", *FORMATS):
        raise InputError(name, f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if fmt == "auto":
        fmt = detect(document, name)
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
    imported.export_events.clear()       # each export records its own changes
    with _no_gc():
        if to in ("same", imported.format):
            return MODULES[imported.format].export_same(imported, result)
        return MODULES[to].export_new(imported, result)


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

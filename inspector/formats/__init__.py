"""Provider formats in and out. Importers turn a parsed document into the flat messages the
engine consumes, recording where each message, block and call came from; exporters apply
the engine's decisions back to the original objects through that provenance.

Every format is a :class:`Format` in :data:`REGISTRY` (``formats/registry.py``). Entry
points (the pipeline, and through it the CLI, the TUI and batch):
- ``import_history(document, name, fmt="auto") -> Imported``
- ``export_history(imported, result, to="same") -> document``
"""

from __future__ import annotations

from typing import Any

from ..engine import Result, gc_paused
from ..io import InputError
from .base import Imported, Loc, kind_of
from .detect import detect, evidence
from .registry import REGISTRY, Format, get

FORMATS: tuple[str, ...] = tuple(REGISTRY)
EXPORT_CHOICES: tuple[str, ...] = ("same", *FORMATS)
TARGETS = EXPORT_CHOICES  # the old name, until the TUI's export dialog reads EXPORT_CHOICES

__all__ = ["EXPORT_CHOICES", "FORMATS", "REGISTRY", "Format", "Imported", "Loc", "detect", "evidence",
           "export_history", "get", "import_history", "kind_of"]


def import_history(document: Any, name: str = "<input>", fmt: str = "auto") -> Imported:
    if fmt != "auto" and fmt not in REGISTRY:
        raise InputError(name, f"unknown format {fmt!r}; known: {', '.join(REGISTRY)}")
    if fmt == "auto":
        fmt = detect(document, name)
    with gc_paused():
        return REGISTRY[fmt].import_(document, name)


def export_history(imported: Imported, result: Result, to: str = "same") -> Any:
    """The repaired history as a document in format ``to`` (``same``: the input's format).

    ``result`` must come from normalizing ``imported.messages``. In the input's own format,
    every message the engine kept is the original object; changed ones keep their other keys
    and lose only what was dropped. What the export itself changes is recorded in
    ``imported.export_events`` (reset here, for this export).
    """
    if to != "same" and to not in REGISTRY:
        raise ValueError(f"unknown export format {to!r}; known: {', '.join(('same', *REGISTRY))}")
    imported.export_events = []
    with gc_paused():
        if to in ("same", imported.format):
            return REGISTRY[imported.format].export_same(imported, result)
        return REGISTRY[to].export_new(imported, result)

"""The TUI's own readings of the core's tables: whether a stage is an extension beyond
MEM-5, the strict stage's kinds and clauses, a format's label and how the import view
names an original block.

The seam between the TUI and the core is the core's public faces: TUI modules import
``inspector.engine``, ``inspector.formats``, ``inspector.pipeline`` and ``inspector.targets``
(and ``inspector.io``, ``inspector.sessions``, ``inspector.bundled``) by their package names
and nothing below them; ``tests/tui/test_seam.py`` holds the TUI to it. This module only
derives; it re-exports nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import formats
from ..engine import KINDS, STAGE_BY_NAME, STRICT_CLAUSES, STRICT_KINDS, STRICT_STAGE, Kind

STRICT = STRICT_STAGE  # the one extension the TUI offers (t, --strict): the engine names it


def is_extension(stage: str) -> bool:
    """Whether a stage is Inspector's own, beyond MEM-5: the stage table says."""
    spec = STAGE_BY_NAME.get(stage)
    return spec is not None and spec.extension


def extension_kinds() -> list[Kind]:
    """Kinds whose clause belongs to an extension stage (the strict stage's own)."""
    return [KINDS[name] for name in STRICT_KINDS]


def extension_clauses() -> Mapping[str, str]:
    """The strict stage's clause names and what each repairs (Inspector's words, not MEM-5's)."""
    return STRICT_CLAUSES


# -- formats ----------------------------------------------------------------------------
def format_label(name: str) -> str:
    found = formats.REGISTRY.get(name)
    return found.label if found is not None else name


def export_labels() -> dict[str, str]:
    """Every export choice (``formats.EXPORT_CHOICES``: ``same`` first, the default) with
    its label: the one list the export dialog and the palette offer."""
    return {name: "the input's own format" if name == "same" else format_label(name)
            for name in formats.EXPORT_CHOICES}


DESCRIBE_DEPTH = 4   # lists within lists read this far; deeper ones are summed up (R3-17)


def describe_block(fmt: str, original: Any, _depth: int = 0) -> str | None:
    """How the import view reads an original: one block by the format's own ``describe_block``;
    a message as its blocks (its list of objects), a run of items one by one. None for a
    message with no blocks at all (a role and a text): the flat form's text says it. A list
    nested deeper than :data:`DESCRIBE_DEPTH` is named, not walked (600 levels would exhaust
    the recursion limit while the table renders)."""
    describe = formats.get(fmt).describe_block
    if isinstance(original, list):
        if _depth >= DESCRIBE_DEPTH:
            return f"a list of {len(original):,} nested {DESCRIBE_DEPTH}+ deep"
        return " · ".join(describe_block(fmt, item, _depth + 1) or _safe(describe, item) for item in original[:20])
    if isinstance(original, Mapping) and "type" not in original:
        for inner in original.values():
            if isinstance(inner, list) and inner and all(isinstance(b, Mapping) for b in inner[:20]):
                return " · ".join(describe(b) for b in inner[:20])
        if len(original) != 1:
            return None
    return _safe(describe, original)


def _safe(describe: Any, item: Any) -> str:
    """A format's own description of one block; a block too deep for it is named instead."""
    try:
        return describe(item)
    except RecursionError:
        return "a block nested too deeply to describe"

"""Every fact the TUI reads from the engine's stage and kind tables, the format registry
and the pipeline, in one small module, through their public names only
(``inspector.engine``, ``inspector.formats``, ``inspector.pipeline``).

Views ask the stage table whether a stage is an extension beyond MEM-5 (never count views),
find a stage's clause by its name, and take every label and block reading from the format
registry; the rest of the TUI imports these names from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import formats, pipeline
from ..engine import (  # noqa: F401 - re-exported for the rows, the rule panel and the help
    CLAUSE_BY_STAGE, DROP_COUNT_NOTE, KINDS, MEM5_STAGES, RULE_SPEC, RULE_TITLE, STAGE_BY_NAME,
    STRICT_CLAUSES, STRICT_KINDS, Clause, Kind, Result, call_id, kind_of, normalize as _normalize, to_id,
)

STRICT = "strict"  # the one extension the TUI offers (t, --strict)


def is_extension(stage: str) -> bool:
    """Whether a stage is Inspector's own, beyond MEM-5: the stage table says."""
    spec = STAGE_BY_NAME.get(stage)
    return spec is not None and spec.extension


def all_kinds() -> Mapping[str, Kind]:
    """Every event kind with its meaning: MEM-5's, the strict stage's, import and export kinds."""
    return KINDS


def kind_info(kind: str) -> Kind | None:
    return KINDS.get(kind)


def extension_kinds() -> list[Kind]:
    """Kinds whose clause belongs to an extension stage (the strict stage's own)."""
    return [KINDS[name] for name in STRICT_KINDS]


def extension_clauses() -> Mapping[str, str]:
    """The strict stage's clause names and what each repairs (Inspector's words, not MEM-5's)."""
    return STRICT_CLAUSES


def normalize(messages: list[Any], strict: bool = False) -> Result:
    """The engine's zero-copy mode: the TUI owns its imported messages and edits neither
    them nor the result (exports run the pipeline again on the imported document)."""
    return _normalize(messages, extensions=(STRICT,) if strict else (), copy=False)


# -- formats ----------------------------------------------------------------------------
def format_names() -> tuple[str, ...]:
    return tuple(formats.REGISTRY)


def format_label(name: str) -> str:
    found = formats.REGISTRY.get(name)
    return found.label if found is not None else name


def describe_block(fmt: str, original: Any) -> str | None:
    """How the import view reads an original: one block by the format's own ``describe_block``;
    a message as its blocks (its list of objects), a run of items one by one. None for a
    message with no blocks at all (a role and a text): the flat form's text says it."""
    describe = formats.get(fmt).describe_block
    if isinstance(original, list):
        return " · ".join(describe_block(fmt, item) or describe(item) for item in original[:20])
    if isinstance(original, Mapping) and "type" not in original:
        for inner in original.values():
            if isinstance(inner, list) and inner and all(isinstance(b, Mapping) for b in inner[:20]):
                return " · ".join(describe(b) for b in inner[:20])
        if len(original) != 1:
            return None
    return describe(original)


# -- export -----------------------------------------------------------------------------
def export(imported: Any, name: str, to: str = "same", strict: bool = False) -> tuple[bytes, str, int]:
    """The bytes ``inspector normalize FILE --to TO`` writes (the pipeline's own), the format
    written, and how many entries the written history holds in that format."""
    outcome = pipeline.run(imported.document, name, fmt=imported.format, to=to, strict=strict)
    written = imported.format if to == "same" else to
    again = formats.import_history(outcome.exported, "<export>", written)
    return outcome.data, written, len(again.history)

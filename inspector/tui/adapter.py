"""Every fact the TUI reads from the engine's stage and kind tables, the format registry
and the pipeline, behind one small set of functions.

The shared contract (API.md) is landing on main in steps: ``engine.STAGES`` as stage specs
with ``.extension``, ``KINDS`` holding every kind, ``normalize(..., extensions=)``,
``formats.REGISTRY`` with ``label`` and ``describe_block``. Each function below asks the
new name first and falls back to what main has today, so switching is this one module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import engine, formats, pipeline
from ..engine import KINDS, Result
# Until inspector.engine exports them (core): the engine's own tables and id readers. After
# the switch these come from ``inspector.engine`` and this block goes.
from ..engine.cast import call_id, to_id  # noqa: F401 - re-exported for the rows
from ..engine.rule import (  # noqa: F401 - re-exported for the rule panel and the help
    CLAUSE_BY_STAGE, DROP_COUNT_NOTE, RULE_SPEC, RULE_TITLE, Clause, Kind,
)

try:  # until KINDS holds every kind and normalize takes extensions
    from ..engine import strict as _strict
except ImportError:  # pragma: no cover - after the switch
    _strict = None  # type: ignore[assignment]

try:
    from ..formats.base import kind_of as _kind_of
except ImportError:  # pragma: no cover
    _kind_of = None  # type: ignore[assignment]

STRICT = "strict"  # the one extension beyond MEM-5 the TUI offers (t, --strict)


def _stage_name(spec: Any) -> str:
    return spec if isinstance(spec, str) else spec.name


def stage_names() -> tuple[str, ...]:
    """Every stage the engine can run, in order, extensions included."""
    names = tuple(_stage_name(s) for s in engine.STAGES)
    return names if STRICT in names else (*names, STRICT)


def is_extension(stage: str) -> bool:
    """Whether a stage is Inspector's own, beyond MEM-5: the stage table says."""
    for spec in engine.STAGES:
        if _stage_name(spec) == stage:
            return bool(getattr(spec, "extension", False))
    return stage == STRICT


MEM5_STAGES: tuple[str, ...] = tuple(s for s in stage_names() if not is_extension(s))


def all_kinds() -> Mapping[str, Kind]:
    """Every event kind with its meaning: MEM-5's, the strict stage's, import and export kinds."""
    if _strict is not None and hasattr(_strict, "ALL_KINDS"):
        return {**_strict.ALL_KINDS, **KINDS}
    return KINDS


def kind_info(kind: str) -> Kind | None:
    return all_kinds().get(kind)


def extension_kinds() -> list[Kind]:
    """Kinds whose clause belongs to an extension stage (the strict stage's own)."""
    return [k for k in all_kinds().values() if k.clause.startswith(f"{STRICT}:")]


def extension_clauses() -> Mapping[str, str]:
    """The strict stage's clause names and what each repairs (Inspector's words, not MEM-5's)."""
    for spec in engine.STAGES:
        if _stage_name(spec) == STRICT and getattr(spec, "clauses", None):
            return spec.clauses
    return getattr(_strict, "STRICT_CLAUSES", {})


def normalize(messages: list[Any], strict: bool = False) -> Result:
    if not strict:
        return engine.normalize(messages)
    if _strict is not None and hasattr(_strict, "normalize_strict"):
        return _strict.normalize_strict(messages)
    return engine.normalize(messages, extensions=(STRICT,))  # type: ignore[call-arg]


# -- formats ----------------------------------------------------------------------------
_LABELS = {"flat": "FlowDrop flat messages", "openai-chat": "OpenAI Chat Completions messages",
           "openai-responses": "OpenAI Responses input items", "anthropic": "an Anthropic Messages request",
           "gemini": "Gemini contents", "bedrock": "Bedrock Converse messages"}


def format_names() -> tuple[str, ...]:
    registry = getattr(formats, "REGISTRY", None)
    return tuple(registry) if registry is not None else tuple(formats.FORMATS)


def format_label(name: str) -> str:
    registry = getattr(formats, "REGISTRY", None)
    if registry is not None and name in registry:
        return registry[name].label
    return _LABELS.get(name, name)


def describe_block(fmt: str, block: Any) -> str:
    """How the import view names one original message, block or run of items."""
    registry = getattr(formats, "REGISTRY", None)
    if registry is not None and fmt in registry and hasattr(registry[fmt], "describe_block"):
        return registry[fmt].describe_block(block)
    from .text import describe_original  # the TUI's reading until formats own it
    return describe_original(block)


def kind_of(value: Any) -> str:
    """`an object`, `an array`, `null`: one wording for value types, the formats' own."""
    if _kind_of is not None:
        return _kind_of(value)
    return type(value).__name__  # pragma: no cover


# -- export -----------------------------------------------------------------------------
def export(imported: Any, name: str, to: str = "same", strict: bool = False) -> tuple[bytes, str, int]:
    """The bytes ``inspector normalize FILE --to TO`` writes (the pipeline's own), the format
    written, and how many entries the written history holds in that format."""
    outcome = pipeline.run(imported.document, name, fmt=imported.format, to=to, strict=strict)
    written = imported.format if to == "same" else to
    again = formats.import_history(outcome.exported, "<export>", written)
    return outcome.data, written, len(again.history)

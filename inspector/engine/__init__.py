"""The MEM-5 normalization engine: pure Python, no UI imports, the only place a rule lives.

``normalize(messages)`` runs the stages of :data:`STAGES` that MEM-5 defines (coerce, hoist,
repair, strip) in order, then any extension asked for (``extensions=("strict",)``), and
returns a :class:`Result` with the final messages, the drop count the passes recorded, the
ordered events, and every stage's output with each message's origin (its input index).

The public names are those in ``__all__``; views import them from here, never from the
modules behind them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import strict
from .cast import call_id, kind_of, to_id
from .coerce import coerce
from .gcpause import gc_paused
from .hoist import hoist
from .model import Event, Recorder, Result, Stage, summary
from .pairing import INTERRUPTED, repair
from .rule import (
    CLAUSE_BY_STAGE, CLAUSE_STAGES, CLAUSES, DROP_COUNT_NOTE, EXPORT_CLAUSE, KNOWN_LIMITS, KNOWN_LIMITS_FIX, IMPORT_CLAUSE, KINDS,
    REASONING_CLAUSES, RULE_ID, RULE_SOURCE, RULE_SPEC, RULE_TITLE, SIDE_EFFECTS_UNKNOWN, STRICT_CLAUSES, STRICT_EXPORT_CLAUSES, STRICT_STAGE, Clause, Kind,
    KindSet, declare, kind, kinds_of, kinds_with,
)
from .strip import strip

__all__ = [
    "CLAUSES", "CLAUSE_BY_STAGE", "CLAUSE_STAGES", "DROP_COUNT_NOTE", "EXPORT_CLAUSE", "EXTENSIONS", "KNOWN_LIMITS", "KNOWN_LIMITS_FIX",
    "IMPORT_CLAUSE", "INTERRUPTED", "KINDS", "MEM5_STAGES", "REASONING_CLAUSES", "RULE_ID", "RULE_SOURCE", "RULE_SPEC", "RULE_TITLE",
    "SIDE_EFFECTS_UNKNOWN", "STAGES", "STAGE_BY_NAME", "STRICT_CLAUSES", "STRICT_EXPORT_CLAUSES", "STRICT_KINDS", "STRICT_STAGE",
    "Clause", "Event", "Kind", "KindSet", "Result", "Stage", "StageSpec", "call_id", "declare", "gc_paused",
    "kind", "kind_of", "kinds_of", "kinds_with", "normalize", "summary", "to_id",
]

# The kinds the strict stage records: what a view lists as the extension's own.
STRICT_KINDS: KindSet = kinds_of(STRICT_STAGE)

StageFunction = Callable[[list[Any], list[Any], Recorder, list[Stage]], tuple[list[Any], list[Any]]]


@dataclass(frozen=True, slots=True)
class StageSpec:
    """One stage of the pipeline. ``extension`` is True for Inspector's own stages beyond
    MEM-5, which run only when asked for; views ask this, never count stages."""

    name: str
    clause: str          # the MEM-5 clause number, or the extension's name
    title: str
    summary: str
    function: StageFunction
    extension: bool = False


def _mem5(name: str, function: StageFunction) -> StageSpec:
    clause = CLAUSE_BY_STAGE[name]
    return StageSpec(name, clause.number, clause.title, clause.summary, function)


STAGES: tuple[StageSpec, ...] = (
    _mem5("coerce", lambda msgs, origins, rec, done: coerce(msgs, rec)),
    _mem5("hoist", lambda msgs, origins, rec, done: hoist(msgs, origins, rec)),
    _mem5("repair", lambda msgs, origins, rec, done: repair(msgs, origins, rec)),
    _mem5("strip", lambda msgs, origins, rec, done: strip(msgs, origins, rec)),
    StageSpec(STRICT_STAGE, STRICT_STAGE, "Inspector's extension beyond MEM-5: results right after their calls",
              "Moves a result that other messages separate from its call next to it, and drops a result "
              "that comes before its call (restoring a later real result, or the interrupted one). "
              "Its clauses are Inspector's own: " + ", ".join(STRICT_CLAUSES) + ".",
              strict.run, extension=True),
)
STAGE_BY_NAME: dict[str, StageSpec] = {s.name: s for s in STAGES}
MEM5_STAGES: tuple[str, ...] = tuple(s.name for s in STAGES if not s.extension)
EXTENSIONS: tuple[str, ...] = tuple(s.name for s in STAGES if s.extension)
_KNOWN_EXTENSIONS = frozenset(EXTENSIONS)
_NONE: frozenset[str] = frozenset()


def normalize(messages: list[Any], extensions: Iterable[str] = (), *, copy: bool = True) -> Result:
    """Run MEM-5's stages, then the named extensions (in table order) on their output.

    By default the result's messages are objects of its own, and so are its calls with every
    list and dict inside them (``cast.fresh``; a call that is another kind of mapping is
    kept as it is). ``copy=False`` is the zero-copy mode for a caller that hands
    ``messages`` over and edits neither side (the pipeline, on bytes it parsed itself): the
    result then keeps the input's own objects, every message already in the flat shape and
    every call. Neither mode ever edits ``messages``."""
    if not isinstance(messages, list):
        raise TypeError(
            f"normalize() expects a list of messages (a parsed JSON array), "
            f"got {type(messages).__name__}"
        )
    wanted = set(extensions) if extensions else _NONE
    if not wanted <= _KNOWN_EXTENSIONS:
        raise ValueError(f"unknown extension(s) {sorted(wanted - _KNOWN_EXTENSIONS)}; known: {', '.join(EXTENSIONS)}")
    rec = Recorder(copy=copy)
    stages: list[Stage] = []
    msgs: list[Any] = messages
    origins: list[Any] = []
    with gc_paused():
        for spec in STAGES:
            if spec.extension and spec.name not in wanted:
                continue
            mark = len(rec.events)
            rec.stage = spec.name
            msgs, origins = spec.function(msgs, origins, rec, stages)
            stages.append(Stage(spec.name, msgs, origins, rec.events[mark:]))
    return Result(msgs, rec.dropped, rec.events, stages)

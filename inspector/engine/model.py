"""The engine's result types: what every view (CLI, TUI, export, batch) reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .rule import KINDS, kind


@dataclass(frozen=True, slots=True)
class Event:
    """One thing a stage did, with enough context to explain it to a learner.

    ``origin`` is the message's index in the input list (None for a synthesized
    row); ``call`` is the call's index inside its turn's original ``tool_calls``.
    ``cause`` is the input index of the message that made this event necessary, where
    there is one: the first declaration of a redeclared id, the first result of a
    duplicate, the turn whose call a synthesized result answers.
    """

    stage: str
    clause: str
    kind: str
    drop: bool
    origin: int | None
    call: int | None
    tool_call_id: str | None
    message: str
    cause: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "clause": self.clause,
            "kind": self.kind,
            "drop": self.drop,
            "origin": self.origin,
            "call": self.call,
            "tool_call_id": self.tool_call_id,
            "message": self.message,
            "cause": self.cause,
        }


@dataclass(frozen=True, slots=True)
class Stage:
    """A stage's output. Message objects are shared with neighbouring stages, never copied."""

    name: str
    messages: list[dict[str, Any]]
    origins: list[int | None]
    events: list[Event]


@dataclass(frozen=True, slots=True)
class Result:
    messages: list[dict[str, Any]]
    dropped: int
    events: list[Event]
    stages: list[Stage]

    @property
    def origins(self) -> list[int | None]:
        return self.stages[-1].origins if self.stages else []

    def count(self, effect: str) -> int:
        """How many events have this effect on a row (``rule.Kind.effect``)."""
        return sum(1 for e in self.events if kind(e.kind).effect == effect)

    @property
    def synthesized(self) -> int:
        return self.count("add")

    @property
    def moved(self) -> int:
        return self.count("move")

    def dropped_calls(self) -> dict[int, frozenset[int]]:
        """The calls each turn lost: input index of the turn -> positions in its original
        ``tool_calls`` that a call-scoped drop removed (the one rule every exporter and
        target reads)."""
        lost: dict[int, set[int]] = {}
        for e in self.events:
            if e.drop and e.origin is not None and e.call is not None and kind(e.kind).scope == "call":
                lost.setdefault(e.origin, set()).add(e.call)
        return {origin: frozenset(calls) for origin, calls in lost.items()}

    def summary(self, sep: str = ", ") -> str:
        """The one wording of what changed, for every view's one-line summary."""
        return summary(self.dropped, self.synthesized, self.moved, sep)

    def stage(self, name: str) -> Stage:
        for s in self.stages:
            if s.name == name:
                return s
        raise KeyError(name)


def summary(dropped: int, synthesized: int, moved: int, sep: str = ", ") -> str:
    """``dropped 2, synthesized 1, moved 0`` (the TUI joins with `` · ``): one wording for one
    history and for totals that views add up (a batch)."""
    return sep.join((f"dropped {dropped:,}", f"synthesized {synthesized:,}", f"moved {moved:,}"))


@dataclass(slots=True)
class Recorder:
    """Collects events as the passes work; the drop count is kept here, by the passes.
    ``copy`` is the run's ownership of its input: True (the default) gives the output call
    objects of its own; False (``normalize(..., copy=False)``) shares them with the input.
    ``stage`` is the stage running (set by ``normalize``), so that a procedure one stage
    reruns for another (strip reruns repair) records its events under the stage that ran it."""

    events: list[Event] = field(default_factory=list)
    dropped: int = 0
    copy: bool = True
    stage: str | None = None

    def record(
        self,
        name: str,
        origin: int | None,
        message: str,
        call: int | None = None,
        tool_call_id: str | None = None,
        cause: int | None = None,
    ) -> None:
        """Record one event of kind ``name``: its clause, stage and whether it drops are the
        kind table's (``rule.KINDS``), never the caller's."""
        k = KINDS[name]
        if k.drop:
            self.dropped += 1
        self.events.append(Event(self.stage or k.stage, k.clause, name, k.drop, origin, call, tool_call_id,
                                 message, cause))

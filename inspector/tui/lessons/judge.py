"""A level's goal and a learner's provider prediction, judged by the project's own checker.

:func:`verdicts` is the one place a level asks "would these providers take this history?":
``inspector.targets.check`` on the pipeline's outcome (after MEM-5's repair, as
``inspector check --target`` does), or on the messages the import read (as given, as the
main screen's view 0 checks them). Everything else here arranges its answer: which goal is
met, which prediction missed, each miss in one sentence that names it. No textual, no rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ... import pipeline, targets
from ..rows import call_ids
from .levels import AFTER_MEM5, AS_GIVEN, Level


@dataclass(frozen=True, slots=True)
class Said:
    """One provider's answer: whether it refuses, the rules it refuses by, its first error."""

    target: str
    refuses: bool
    rules: tuple[str, ...] = ()
    first: str = ""

    def short(self) -> str:
        return f"refuses ({', '.join(self.rules)})" if self.refuses else "accepts"


@dataclass(frozen=True, slots=True)
class Judged:
    """What the checker said of one history at one moment, and what the engine did."""

    said: dict[str, Said]
    kinds: frozenset[str]            # the kinds of the engine's events
    results: frozenset[str]          # the call ids with a real result in the checked history
    count: int                       # messages the import read


def verdicts(data: bytes, name: str, when: str, names: Iterable[str], fmt: str = "auto") -> Judged:
    """The checker's answer for each provider in ``names`` on a history's bytes, ``when`` as
    given or after MEM-5 (the one function to switch to ``inspector.verdict`` later)."""
    imported = pipeline.load(data, name, fmt)
    outcome = pipeline.outcome(imported, name)
    if when == AS_GIVEN:
        subject: Any = list(imported.messages)
        messages, origins = subject, list(range(len(subject)))
    else:
        subject = outcome
        messages, origins = outcome.result.messages, outcome.result.origins
    said = {}
    for t in names:
        problems = targets.check(subject, t, identity=imported.identity)
        errors = [p for p in problems if p.severity == targets.ERROR]
        said[t] = Said(t, bool(errors), tuple(dict.fromkeys(p.rule for p in errors)),
                       errors[0].error if errors else "")
    results = frozenset(ident for m, o in zip(messages, origins) if o is not None
                        for ident, j in call_ids(m) if j is None)
    return Judged(said, frozenset(e.kind for e in outcome.result.events), results, len(imported.messages))


# -- goal levels --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GoalResult:
    met: bool
    edits: int
    reference: int
    misses: tuple[str, ...]       # one sentence per miss (empty: full marks)
    judged: Judged

    @property
    def points(self) -> tuple[int, int]:
        """Two points: the goal met, and met in no more edits than the reference."""
        return int(self.met) + int(self.met and self.edits <= self.reference), 2


def judge_goal(level: Level, data: bytes, edits: int, name: str | None = None) -> GoalResult:
    """A goal level's verdict on the learner's history (its bytes) after ``edits`` edits."""
    goal = level.goal
    when = goal.get("when", AFTER_MEM5)
    accept = list(goal.get("accept", []))
    judged = verdicts(data, name or level.name, when, accept)
    misses = [f"{s.target} still refuses it {when}: {', '.join(s.rules)} ({s.first})"
              for s in judged.said.values() if s.refuses]
    misses += [f"the engine shows no {kind} event yet" for kind in goal.get("events", []) if kind not in judged.kinds]
    if goal.get("keep_results"):
        start = verdicts(level.start_bytes(), level.name, AS_GIVEN, ())
        lost = sorted(start.results - judged.results)
        if lost:
            misses.append(f"a real result is lost: the answer to {', '.join(lost)}")
    reference = len(level.solution or ())
    met = not misses
    if met and edits > reference:
        misses.append(f"goal met in {edits} edits; the reference solution takes {reference}")
    return GoalResult(met, edits, reference, tuple(misses), judged)


# -- provider predictions -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Prediction:
    right: int
    total: int
    misses: tuple[str, ...]
    judged: Judged


def judge_prediction(level: Level, data: bytes, refuse: Iterable[str], name: str | None = None) -> Prediction:
    """The learner said ``refuse`` (the providers that refuse; the others accept): one point per
    provider the level asks about, each miss named with the checker's rule and first error."""
    names = list(level.ask["targets"])
    judged = verdicts(data, name or level.name, level.ask.get("when", AS_GIVEN), names)
    said = set(refuse)
    misses = []
    for t in names:
        truth = judged.said[t]
        if truth.refuses and t not in said:
            misses.append(f"{t} refuses it, you said it accepts: {', '.join(truth.rules)} ({truth.first})")
        elif not truth.refuses and t in said:
            misses.append(f"{t} accepts it, you said it refuses")
    return Prediction(len(names) - len(misses), len(names), tuple(misses), judged)


def changes(before: Judged, after: Judged) -> list[str]:
    """Every provider whose answer changed between two histories, in one line each."""
    out = []
    for t, now in after.said.items():
        was = before.said.get(t)
        if was is None or was.refuses != now.refuses or was.rules != now.rules:
            out.append(f"{t}: {was.short() if was else '?'} → {now.short()}")
    return out


def refusers(judged: Judged) -> list[str]:
    return [t for t, s in judged.said.items() if s.refuses]


__all__ = ["GoalResult", "Judged", "Prediction", "Said", "changes", "judge_goal", "judge_prediction", "refusers",
           "verdicts"]


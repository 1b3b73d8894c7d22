"""A learner's prediction for one stage, set against what the engine did: pure, no textual.

The learner marks each message entering the stage (in the order it enters) as kept,
dropped, moved or changed, and says whether the stage adds a row after it. The engine's
answer is read from the stage's rows (:class:`inspector.tui.rows.StageRows`: origins and
events, never texts), and every difference gets one line: the engine's own sentence for
what the learner missed, and what the stage left alone for what it did not do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..rows import ADD, CHANGE, DROP, MARK_NAMES, MOVE, SAME, StageRows

MARKS = (SAME, DROP, MOVE, CHANGE)  # what a learner can say of one entering message


@dataclass(frozen=True, slots=True)
class Guess:
    mark: str = SAME
    adds_after: bool = False


@dataclass(frozen=True, slots=True)
class Entering:
    """One message entering the stage, as the lesson lists it, with the engine's answer."""

    position: int          # in the stage's input
    origin: int | None     # the input entry it came from
    message: Any
    mark: str              # what the stage did to it (SAME, DROP, MOVE, CHANGE)
    adds_after: bool       # whether the stage adds a row right after it
    events: tuple[Any, ...]
    added: tuple[Any, ...]  # the events of the rows added after it


@dataclass(frozen=True, slots=True)
class RowMark:
    entering: Entering
    guess: Guess
    right: bool
    reasons: tuple[str, ...]  # one line per difference


def entering(rows: StageRows) -> list[Entering]:
    """The stage's input, in input order, each with what the stage did to it."""
    assert rows.before is not None
    origins: list[int | None] = [None] * len(rows.before)
    at: dict[int, int] = {}
    added: dict[int, list[Any]] = {}
    last = -1
    for r in range(len(rows)):
        s = rows.src[r]
        if r in rows.ghosts:  # a moved message's old place ("moved from here"): the move is its real row's
            continue
        if s >= 0:
            at[s] = r
            origins[s] = rows.origins[r]
            last = s
        else:  # a row the stage made: after the last input row shown before it
            row = rows.row(r)
            added.setdefault(last, []).extend(row.events)
    out = []
    for s, message in enumerate(rows.before):
        r = at.get(s)
        mark = rows.mark(r) if r is not None else SAME
        if mark == ADD:  # a row brought back (strict's restore) reads as changed here
            mark = CHANGE
        events = tuple(rows.row(r).events) if r is not None else ()
        out.append(Entering(s, origins[s], message, mark, s in added, events, tuple(added.get(s, ()))))
    return out


def judge(rows: StageRows, guesses: Mapping[int, Guess]) -> list[RowMark]:
    """Every entering message's verdict; ``guesses`` by position (absent: kept, nothing added)."""
    out = []
    for item in entering(rows):
        guess = guesses.get(item.position, Guess())
        reasons: list[str] = []
        where = f"#{item.origin}" if item.origin is not None else f"row {item.position}"
        if guess.mark != item.mark:
            if item.mark == SAME:
                reasons.append(f"{where} is {MARK_NAMES[guess.mark]} by no event of this stage: it goes through "
                               "unchanged.")
            else:
                said = next((e.message for e in item.events), "")
                reasons.append(f"{where} is {MARK_NAMES[item.mark]}, not {MARK_NAMES[guess.mark]}: {said}".rstrip(": "))
        if guess.adds_after != item.adds_after:
            if item.adds_after:
                said = next((e.message for e in item.added), "")
                reasons.append(f"a row is added after {where}: {said}".rstrip(": "))
            else:
                reasons.append(f"no row is added after {where}.")
        out.append(RowMark(item, guess, not reasons, tuple(reasons)))
    return out


def score(verdicts: list[RowMark]) -> tuple[int, int]:
    """(right, total): one point per entering message judged right."""
    return sum(v.right for v in verdicts), len(verdicts)

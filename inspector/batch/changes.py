"""What happened to one row, read once off the pipeline's events: the change log's line and
the health report's counts come from this one tally, so they cannot disagree.

``--changes FILE`` writes a JSON Lines file with one line per row that changed (and, with
``--target``, per row the provider would still reject): where the row is (its source and
row number or line, the ``--id-column`` value), every event kind with its clause and count
(import notes, the stages' events and what the export changed on its own, as the health
report counts them), the engine's own dropped / synthesized / moved counts, and the
provider problems left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..pipeline import Outcome


@dataclass(slots=True)
class RowChange:
    """One row's tally. ``kinds`` maps (clause, kind) to its events, in order of first
    event; ``problems`` are what ``--target`` would still reject or warn about."""

    changed: bool
    dropped: int
    kinds: dict[tuple[str, str], int] = field(default_factory=dict)
    problems: list[Any] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list, repr=False)

    @property
    def logged(self) -> bool:
        """Whether the row has a line in the change log."""
        return self.changed or bool(self.problems)

    # Counted from the engine's results when a line is written, not for every row.
    @property
    def synthesized(self) -> int:
        return sum(o.result.synthesized for o in self.outcomes)

    @property
    def moved(self) -> int:
        return sum(o.result.moved for o in self.outcomes)


def tally(outcomes: list[Outcome], target: str | None = None) -> RowChange:
    """Count a row's events (every outcome of it: a database of sessions has several) and,
    with ``target``, check every outcome against that provider (each session of a database
    is one outcome, and each can leave problems of its own)."""
    kinds: dict[tuple[str, str], int] = {}
    for outcome in outcomes:
        for event in outcome.events:   # import, engine and export events, in order
            key = (event.clause, event.kind)
            kinds[key] = kinds.get(key, 0) + 1
    change = RowChange(any(o.changed for o in outcomes), sum(o.result.dropped for o in outcomes), kinds,
                       outcomes=outcomes)
    if target is not None and outcomes:
        from ..targets import check

        change.problems = [problem for outcome in outcomes for problem in check(outcome, target)]
    return change


def change_entry(change: RowChange, where: dict[str, Any]) -> dict[str, Any]:
    """The change log's object for one row: ``where`` first (source, row or line, id)."""
    entry = dict(where)
    entry["changed"] = change.changed
    entry["kinds"] = [{"clause": clause, "kind": kind, "events": n} for (clause, kind), n in change.kinds.items()]
    entry["dropped"] = change.dropped
    entry["synthesized"] = change.synthesized
    entry["moved"] = change.moved
    if change.problems:
        entry["problems"] = [p.to_dict() for p in change.problems]
    return entry


def entry_line(entry: dict[str, Any]) -> bytes:
    """One line of the change log. An id of a type JSON lacks (a date, a decimal, bytes) is
    written as its text."""
    return orjson.dumps(entry, default=str, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS)


def change_line(change: RowChange, where: dict[str, Any]) -> bytes:
    return entry_line(change_entry(change, where))

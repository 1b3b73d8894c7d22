"""Causes, not only consequences: what an input entry makes a later stage do.

An event that another entry made necessary names it as its ``cause`` (the turn whose call a
synthesized result answers, the first declaration of a redeclared id). Read backwards, the
same provenance tells the input view what each entry will cause: "call ``toolu_01…``: result
synthesized at repair, clause 3". Nothing is worked out here; the events say it all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..engine import KINDS, Event


def caused(events: Iterable[Event]) -> dict[int, list[Event]]:
    """Input entry -> the events it made necessary, in the order the stages recorded them."""
    out: dict[int, list[Event]] = {}
    for e in events:
        if e.cause is not None:
            out.setdefault(e.cause, []).append(e)
    return out


def sentence(e: Event) -> str:
    """`call toolu_01GitLog: result synthesized at repair, clause 3`."""
    kind = KINDS.get(e.kind)
    what = kind.label if kind is not None else e.kind
    where = f"at {e.stage}, clause {e.clause}" if e.clause != e.stage else f"at {e.stage}"
    return (f"call {e.tool_call_id}: " if e.tool_call_id else "") + f"{what} {where}"


def tag(events: Sequence[Event]) -> str:
    """The input view's fate column for an entry that goes through unchanged but causes a
    later change: `⇒ new result-synthesized` (it makes the repair add a row), `⇒ #7
    call-redeclared` (it makes the repair drop #7's call); the details give clause and stage."""
    e = events[0]
    more = f" +{len(events) - 1}" if len(events) > 1 else ""
    target = f"#{e.origin}" if e.origin is not None else "new"     # "new": the table's name for an added row
    return f"⇒ {target} {e.kind}{more}"   # the clause and the call are in the details

"""The selected row before and after its stage, and every event on it with its clause.

Each event is explained once: its own sentence from the engine (what happened to this
message). What a kind means in general belongs to the help and the summary. An event that
another message made necessary names it as a jump, `→ #1`, which f follows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...engine import KINDS, Event
from ..adapter import is_extension
from ..causes import sentence
from ..rows import MARK_NAMES, VIEWS, Row, original_part
from ..text import indented, inert, json_block, pretty_json

CAUSE_KEY = "f"


def cause_text(e: Event) -> str:
    return f"→ #{e.cause}" if e.cause is not None else ""


def event_lines(e: Event, indent: int = 2, stage: bool = False) -> list[RenderableType]:
    """One event: clause, kind and its short label, call and id, the cause as a jump; then
    the engine's sentence, wrapped under itself."""
    head = Text()
    if stage:
        head.append(e.stage, "underline").append(" ")
    head.append(f"({e.clause}) {e.kind}", "bold")
    kind = KINDS.get(e.kind)
    if kind is not None:
        head.append(f"  {kind.label}", "italic")
    if e.call is not None:
        head.append(f"  call {e.call}")
    if e.tool_call_id:
        head.append("  id ")
        head.append(inert(repr(e.tool_call_id)))
    if e.cause is not None:
        head.append(f"  {cause_text(e)}", "bold")
        head.append(f" ({CAUSE_KEY} goes there)", "dim")
    return [indented(head, indent), indented(Text(inert(e.message)), indent + 2)]


def details_text(row: Row | None, view: int, name: str | None = None, imported: Any = None,
                 import_at: Mapping[int, list[Event]] | None = None, later: Sequence[Event] = ()) -> Group:
    """``imported`` (view 0 of a provider format) adds where the row came from, its import
    events and the original object above its flat form."""
    if row is None:
        return Group(Text("No row selected.", "dim"))
    name = name or VIEWS[view]
    where = f"#{row.origin}" if row.origin is not None else "synthesized row"
    parts: list[RenderableType] = [
        Text(f"{where} · {name} · {MARK_NAMES[row.mark] if view else 'as given'}", "bold")]
    if view and is_extension(name):
        parts.append(Text("An extension beyond MEM-5: Inspector's strict stage, not the rule.", "italic"))
    if view == 0 and imported is not None and row.origin is not None:
        return _import_details(parts, row, imported, (import_at or {}).get(row.origin, []), later)
    parts.append(Text("\nEverything the stages will do to it:" if view == 0 else "\nEvents in this stage:", "bold"))
    if row.events:
        for e in row.events:
            parts += event_lines(e, stage=view == 0)
    else:
        parts.append(indented(Text("none: the stage left it as it was" if view else "none: it goes through unchanged",
                                   "dim"), 2))
    if view == 0:
        parts += later_lines(later)
        parts += [Text("\nAs given:", "bold"), json_block(pretty_json(row.after))]
        return Group(*parts)
    parts += [Text(f"\nBefore {name}:", "bold"),
              json_block(pretty_json(row.before)) if row.entered
              else Text("(not there: created by this stage)"),
              Text(f"\nAfter {name}:", "bold"),
              json_block(pretty_json(row.after)) if row.left else Text("(dropped by this stage)")]
    return Group(*parts)


def later_lines(later: Sequence[Event]) -> list[RenderableType]:
    """What the entry makes a later stage do (the events that name it as their cause)."""
    if not later:
        return []
    out: list[RenderableType] = [Text.assemble(("\nWhat it causes later:", "bold"),
                                               (f" ({CAUSE_KEY} goes to the first)", "dim"))]
    for e in later:
        out.append(indented(Text(inert(sentence(e)), "bold"), 2))
        out.append(indented(Text(inert(e.message)), 4))
    return out


def _import_details(parts: list[RenderableType], row: Row, imported: Any, events: list[Event],
                    later: Sequence[Event] = ()) -> Group:
    i = row.origin
    assert i is not None
    parts.append(Text.assemble(("From ", "bold"), inert(imported.where(i)), f" ({imported.format})"))
    parts.append(Text("\nImport events:", "bold"))
    if events:
        for e in events:
            parts += event_lines(e)
    else:
        parts.append(indented(Text("none: a direct mapping", "dim"), 2))
    parts.append(Text("\nEverything the stages will do to it:", "bold"))
    if row.events:
        for e in row.events:
            parts += event_lines(e, stage=True)
    else:
        parts.append(indented(Text("none: it goes through unchanged", "dim"), 2))
    parts += later_lines(later)
    whole = imported.original(i)
    part = original_part(imported, i)
    parts += [Text(f"\nOriginal ({imported.format}, {inert(imported.where(i))}):", "bold"),
              json_block(pretty_json(part)),
              Text("\nFlat form (what MEM-5 reads):", "bold"), json_block(pretty_json(row.after))]
    if part is not whole:  # a block of a larger message: show the message it sits in too
        parts += [Text("\nThe whole original message:", "bold"), json_block(pretty_json(whole))]
    return Group(*parts)


class Details(VerticalScroll, can_focus=True):
    def compose(self):
        yield Static(id="details-body")

    def show(self, row: Row | None, view: int, name: str | None = None, imported: Any = None,
             import_at: Mapping[int, list[Event]] | None = None, later: Sequence[Event] = (),
             extra: Sequence[RenderableType] = ()) -> None:
        """``extra`` (the reasoning of the row's turn) goes right after the row's title line."""
        body = details_text(row, view, name, imported, import_at, later)
        if extra:
            parts = list(body.renderables)
            body = Group(*parts[:1], *extra, *parts[1:])
        self.query_one("#details-body", Static).update(body)
        self.scroll_home(animate=False)

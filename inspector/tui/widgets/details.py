"""The selected row before and after its stage, and every event on it with its clause."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from collections.abc import Mapping
from typing import Any

from ...engine import Event
from ..rows import MARK_NAMES, VIEWS, Row, kind_info, original_part
from ..text import inert, pretty_json


def event_text(text: Text, e: Event, indent: str = "  ") -> None:
    """One event: clause, kind, its plain label, then the engine's own explanation."""
    kind = kind_info(e.kind)
    text.append(f"{indent}({e.clause}) {e.kind}", "bold")
    if kind is not None:
        text.append(f"  {kind.label}", "italic")
    if e.call is not None:
        text.append(f"  call {e.call}")
    if e.tool_call_id:
        text.append("  id ")
        text.append(inert(repr(e.tool_call_id)))
    text.append("\n")
    text.append(f"{indent}  {inert(e.message)}\n")
    if kind is not None:
        text.append(f"{indent}  {kind.meaning}\n", "dim")


def details_text(row: Row | None, view: int, name: str | None = None, imported: Any = None,
                 import_at: Mapping[int, list[Event]] | None = None) -> Text:
    """``imported`` (view 0 of a provider format) adds where the row came from, its import
    events and the original object above its flat form."""
    text = Text()
    if row is None:
        text.append("No row selected.", "dim")
        return text
    name = name or VIEWS[view]
    where = f"#{row.origin}" if row.origin is not None else "synthesized row"
    text.append(f"{where} · {name} · {MARK_NAMES[row.mark] if view else 'as given'}\n", "bold")
    if view >= len(VIEWS):
        text.append("An extension beyond MEM-5: Inspector's strict stage, not the rule.\n", "italic")
    if view == 0 and imported is not None and row.origin is not None:
        return _import_details(text, row, imported, (import_at or {}).get(row.origin, []))
    if view == 0:
        text.append("\nEverything the four stages will do to it:\n", "bold")
    else:
        text.append("\nEvents in this stage:\n", "bold")
    if row.events:
        for e in row.events:
            if view == 0:
                text.append("  ").append(e.stage, "underline").append("\n")
            event_text(text, e)
    else:
        text.append("  none: the stage left it as it was\n" if view else "  none: it goes through unchanged\n",
                    "dim")
    if view == 0:
        text.append("\nAs given:\n", "bold")
        text.append(pretty_json(row.after))
        return text
    text.append(f"\nBefore {name}:\n", "bold")
    text.append(pretty_json(row.before) if row.before is not None else "(not there: created by this stage)")
    text.append(f"\n\nAfter {name}:\n", "bold")
    text.append(pretty_json(row.after) if row.after is not None else "(dropped by this stage)")
    return text


def _import_details(text: Text, row: Row, imported: Any, events: list[Event]) -> Text:
    i = row.origin
    assert i is not None
    text.append("From ", "bold")
    text.append(inert(imported.where(i)))
    text.append(f" ({imported.format})\n")
    text.append("\nImport events:\n", "bold")
    if events:
        for e in events:
            event_text(text, e)
    else:
        text.append("  none: a direct mapping\n", "dim")
    text.append("\nEverything the stages will do to it:\n", "bold")
    if row.events:
        for e in row.events:
            text.append("  ").append(e.stage, "underline").append("\n")
            event_text(text, e)
    else:
        text.append("  none: it goes through unchanged\n", "dim")
    whole = imported.original(i)
    part = original_part(imported, i)
    text.append(f"\nOriginal ({imported.format}, {inert(imported.where(i))}):\n", "bold")
    text.append(pretty_json(part))
    text.append("\n\nFlat form (what MEM-5 reads):\n", "bold")
    text.append(pretty_json(row.after))
    if part is not whole:  # a block of a larger message: show the message it sits in too
        text.append("\n\nThe whole original message:\n", "bold")
        text.append(pretty_json(whole))
    return text


class Details(VerticalScroll, can_focus=True):
    def compose(self):
        yield Static(id="details-body")

    def show(self, row: Row | None, view: int, name: str | None = None, imported: Any = None,
             import_at: Mapping[int, list[Event]] | None = None) -> None:
        self.query_one("#details-body", Static).update(details_text(row, view, name, imported, import_at))
        self.scroll_home(animate=False)

"""The selected row before and after its stage, and every event on it with its clause."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...engine import KINDS, Event
from ..rows import MARK_NAMES, VIEWS, Row
from ..text import inert, pretty_json


def event_text(text: Text, e: Event, indent: str = "  ") -> None:
    """One event: clause, kind, its plain label, then the engine's own explanation."""
    kind = KINDS.get(e.kind)
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


def details_text(row: Row | None, view: int) -> Text:
    text = Text()
    if row is None:
        text.append("No row selected.", "dim")
        return text
    name = VIEWS[view]
    where = f"#{row.origin}" if row.origin is not None else "synthesized row"
    text.append(f"{where} · {name} · {MARK_NAMES[row.mark] if view else 'as given'}\n", "bold")
    if view == 0:
        text.append("\nEverything the four stages will do to it:\n", "bold")
    else:
        text.append("\nEvents in this stage:\n", "bold")
    if row.events:
        for e in row.events:
            if view == 0:
                text.append(f"  {e.stage}\n", "underline")
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


class Details(VerticalScroll, can_focus=True):
    def compose(self):
        yield Static(id="details-body")

    def show(self, row: Row | None, view: int) -> None:
        self.query_one("#details-body", Static).update(details_text(row, view))
        self.scroll_home(animate=False)

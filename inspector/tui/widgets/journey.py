"""One message's path through every stage, so a user sees where an entry went, and which
message made each change necessary (`→ #1`; f goes there from the table)."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ..adapter import is_extension
from ..rows import Row, Step, role_of
from ..text import inert

_STATUS_STYLE = {"dropped": "bold", "synthesized": "bold", "restored": "bold", "changed": "", "moved": "",
                 "unchanged": "dim", "gone": "dim", "not yet": "dim"}


def journey_text(row: Row | None, steps: list[Step], where: str | None = None) -> Group:
    """A two-column grid (stage | what happened) so explanations wrap under their stage."""
    if row is None:
        return Group(Text("No row selected.", "dim"))
    who = f"#{row.origin}" if row.origin is not None else "a synthesized result"
    head = Text(f"Journey of {who} ({inert(role_of(row.message))})", "bold")
    if where is not None:  # a provider format: the import step comes first
        head.append("\nimported from ", "")
        head.append(inert(where), "")
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")  # a long id breaks rather than being cut
    for step in steps:
        what = Text(step.status, _STATUS_STYLE.get(step.status, ""))
        for e in step.events:
            what.append(f"\n({e.clause}) {e.kind}")
            if e.cause is not None:
                what.append(f" → #{e.cause}", "bold")
            what.append(": ")
            what.append(inert(e.message), "dim")
        grid.add_row(Text(f"{step.stage} (ext.)" if is_extension(step.stage) else step.stage, "bold"), what)
    last = steps[-1].status if steps else ""  # "restored" by strict: back in the output
    tail = Text.assemble(("In the output: ", "bold"), "no" if last in ("dropped", "gone") else "yes")
    return Group(head, grid, Text(""), tail)


class Journey(VerticalScroll, can_focus=True):
    def compose(self):
        yield Static(id="journey-body")

    def show(self, row: Row | None, steps: list[Step], where: str | None = None) -> None:
        self.query_one("#journey-body", Static).update(journey_text(row, steps, where))

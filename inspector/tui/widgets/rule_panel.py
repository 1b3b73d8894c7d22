"""The rule the current view applies, in the project's words, so stepping teaches.

A MEM-5 stage shows its clause (found by the stage's name, never by its position); view 0
the input (or, for a provider format, how the import read it); an extension stage says
plainly that it is Inspector's own. The panel scrolls: nothing is cut."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...engine import CLAUSE_BY_STAGE, CLAUSES, RULE_ID, RULE_SOURCE, RULE_TITLE, Clause
from ..adapter import extension_clauses, format_label, is_extension
from ..text import indented, inert

IMPORT_EVENTS_SHOWN = 20  # import events listed in the panel; every one is in its row's details


def clause_for(stage: str | None) -> Clause | None:
    """The MEM-5 clause a stage applies, by the stage's name (an extension has none)."""
    if stage is None or is_extension(stage):
        return None
    return CLAUSE_BY_STAGE.get(stage)


def import_text(imported: Any, brief: bool) -> Group:
    """What the import step did: format, counts, how pairing was derived, every import event."""
    text = Text()
    parts: list[Any] = [text]
    name = format_label(imported.format)
    text.append(f"Imported from {name}. ", "bold")
    text.append(f"{len(imported.messages):,} flat messages from {len(imported.history):,} original entries; "
                "the from column says which message and block each came from.")
    if not brief:
        text.append(" Enter shows the original beside its flat form. MEM-5 reads the flat form; export "
                    "writes its decisions back into the original objects through this provenance.")
    for note in imported.notes:
        text.append("\nNote: ", "bold")
        text.append(inert(note))
    events = imported.events
    if events:
        text.append(f"\n{len(events):,} import event{'s' if len(events) != 1 else ''}:", "bold")
        for e in events[:IMPORT_EVENTS_SHOWN]:  # the panel scrolls: no need to cut on a small screen
            where = f"#{e.origin} " if e.origin is not None else ""
            line = Text(f"{where}({e.clause}) {e.kind}: ")
            line.append(inert(e.message), "dim")
            parts.append(indented(line, 2))
        hidden = len(events) - IMPORT_EVENTS_SHOWN
        if hidden > 0:
            parts.append(indented(Text(f"… {hidden:,} more, each in its row's details", "dim"), 2))
    return Group(*parts)


def extension_text(brief: bool) -> Text:
    """An extension stage is not MEM-5: say so, then its own clauses."""
    text = Text()
    text.append("Inspector's own extension, beyond MEM-5. ", "bold")
    text.append("It repairs what the literal rule leaves, so that a provider accepts the history; its "
                "clause names are Inspector's, not the rule's.")
    for clause, meaning in extension_clauses().items():
        text.append(f"\n{clause}", "bold")
        text.append(f": {meaning}")
    return text


class RulePanel(VerticalScroll, can_focus=False):
    """The clause summary in full, scrolling when the panel is short (a narrow screen)."""

    def compose(self) -> ComposeResult:
        yield Static(id="rule-body")

    def update(self, text: RenderableType) -> None:
        self.query_one("#rule-body", Static).update(text)
        self.scroll_home(animate=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = 0
        self.brief = False
        self.view_name: str | None = None
        self.imported: Any = None
        self._shown: tuple[Any, ...] | None = None

    def show_empty(self) -> None:
        """No history open: nothing to step through yet, so no talk of keys that do nothing."""
        if self._shown == ("empty",):
            return
        self._shown = ("empty",)
        self.border_title = f"{RULE_ID}: {RULE_TITLE}"
        self.update(Text.assemble(("No history open. ", "bold"),
                                  "Open one (o, or g for the bundled samples) and each stage's clause shows "
                                  "here as you step through it."))

    def show(self, view: int, brief: bool | None = None, name: str | None = None, imported: Any = None) -> None:
        """``brief`` (a narrow screen) leaves out the longer asides; nothing is ever cut."""
        shown = (view, name, imported, self.brief if brief is None else brief)
        if shown == self._shown:
            return  # the same text: no new layout (a filter or the split changed, not the stage)
        self._shown = shown
        self.view = view
        self.view_name = name
        self.imported = imported
        if brief is not None:
            self.brief = brief
        clause = clause_for(name) if view else None
        text = Text()
        if view and name is not None and is_extension(name):
            self.border_title = f"{name} (ext.) · beyond MEM-5"
            self.update(extension_text(self.brief))
            return
        if clause is None and imported is not None:
            self.border_title = f"import · {imported.format}"
            self.update(import_text(imported, self.brief))
            return
        if clause is None:
            self.border_title = f"{RULE_ID}: {RULE_TITLE}"
            text.append("The input, as given. ", "bold")
            if self.brief:
                body = ("Press n to step through the four clauses: " +
                        ", ".join(f"({c.number}) {c.stage}" for c in CLAUSES.values()) + ".")
            else:
                body = ("Four clauses apply in order: " +
                        "; ".join(f"({c.number}) {c.stage}: {c.title.lower()}" for c in CLAUSES.values()) +
                        ". Press n to step through them; the fate column says where each entry ends up.")
            text.append(body)
        else:
            self.border_title = f"{RULE_ID} clause {clause.number} · {clause.stage}"
            text.append(clause.title + ". ", "bold")
            text.append(clause.summary)
        if not self.brief:
            text.append(f"\n{RULE_SOURCE}", "dim")
        self.update(text)

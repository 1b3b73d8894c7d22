"""The rule the current view applies, in the project's words, so stepping teaches.

Views 1-4 show their MEM-5 clause; view 0 the input (or, for a provider format, how the
import read it); the ``strict`` view says plainly that it is Inspector's own extension."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from ...engine import CLAUSES, MEM5_STAGES as STAGES, RULE_ID, RULE_SOURCE
from ...engine.rule import RULE_TITLE
from ...engine.strict import STAGE as STRICT_STAGE, STRICT_CLAUSES
from ..text import inert

IMPORT_EVENTS_SHOWN = 20  # import events listed in the panel; every one is in its row's details
FORMAT_NAMES = {"openai-chat": "OpenAI Chat Completions messages", "openai-responses": "OpenAI Responses input items",
                "anthropic": "an Anthropic Messages request", "gemini": "Gemini contents",
                "bedrock": "Bedrock Converse messages", "flat": "FlowDrop flat messages"}


def clause_for(view: int):
    return CLAUSES[str(view)] if 1 <= view <= len(STAGES) else None


def first_sentence(text: str) -> str:
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def import_text(imported: Any, brief: bool) -> Text:
    """What the import step did: format, counts, how pairing was derived, every import event."""
    text = Text()
    name = FORMAT_NAMES.get(imported.format, imported.format)
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
        for e in events[: 3 if brief else IMPORT_EVENTS_SHOWN]:
            where = f"#{e.origin} " if e.origin is not None else ""
            text.append(f"\n  {where}({e.clause}) {e.kind}: ")
            text.append(inert(e.message), "dim")
        hidden = len(events) - (3 if brief else IMPORT_EVENTS_SHOWN)
        if hidden > 0:
            text.append(f"\n  … {hidden:,} more, each in its row's details", "dim")
    return text


def strict_text(brief: bool) -> Text:
    """The strict stage is not MEM-5: say so, then its own clauses."""
    text = Text()
    text.append("Inspector's own extension, beyond MEM-5. ", "bold")
    if brief:
        text.append("Not the rule; its own clauses: " + ", ".join(STRICT_CLAUSES) + ".")
        return text
    text.append("It repairs what the literal rule leaves, so that a provider accepts the history; its "
                "clause names are Inspector's, not the rule's.")
    for clause, meaning in STRICT_CLAUSES.items():
        text.append(f"\n{clause}", "bold")
        if not brief:
            text.append(f": {meaning}")
    return text


class RulePanel(Static):
    """Full clause summary when wide; its first sentence when the screen is narrow."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = 0
        self.brief = False
        self.view_name: str | None = None
        self.imported: Any = None

    def show(self, view: int, brief: bool | None = None, name: str | None = None, imported: Any = None) -> None:
        self.view = view
        self.view_name = name
        self.imported = imported
        if brief is not None:
            self.brief = brief
        clause = clause_for(view) if name in (None, *STAGES) else None
        text = Text()
        if name == STRICT_STAGE:
            self.border_title = "strict (ext.) · beyond MEM-5"
            text = strict_text(self.brief)
            self.update(text)
            return
        if clause is None and imported is not None:
            self.border_title = f"import · {imported.format}"
            text = import_text(imported, self.brief)
        elif clause is None:
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
            text.append(first_sentence(clause.summary) if self.brief else clause.summary)
        if not self.brief:
            text.append(f"\n{RULE_SOURCE}", "dim")
        self.update(text)

"""The MEM-5 clause the current stage applies, in the project's words, so stepping teaches."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...engine import CLAUSES, RULE_ID, RULE_SOURCE, STAGES
from ...engine.rule import RULE_TITLE


def clause_for(view: int):
    return CLAUSES[str(view)] if 1 <= view <= len(STAGES) else None


def first_sentence(text: str) -> str:
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


class RulePanel(Static):
    """Full clause summary when wide; its first sentence when the screen is narrow."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = 0
        self.brief = False

    def show(self, view: int, brief: bool | None = None) -> None:
        self.view = view
        if brief is not None:
            self.brief = brief
        clause = clause_for(view)
        text = Text()
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
            text.append(first_sentence(clause.summary) if self.brief else clause.summary)
        if not self.brief:
            text.append(f"\n{RULE_SOURCE}", "dim")
        self.update(text)

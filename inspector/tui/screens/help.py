"""Keys, and MEM-5 in full in the project's own words: every clause and every event kind."""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.keys import format_key
from textual.widgets import Footer, Markdown, Static

from ...engine import CLAUSES, DROP_COUNT_NOTE, KINDS, RULE_ID, RULE_SOURCE, RULE_SPEC, RULE_TITLE
from ..adapter import extension_clauses, extension_kinds


def _key(binding: Binding) -> str:
    """Each key as it is typed (`/`, `?`, `→`), never its name (`slash`)."""
    return " or ".join(f"`{format_key(k.strip())}`" for k in binding.key.split(","))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def help_markdown(bindings: Iterable[Binding]) -> str:
    lines = ["# Inspector", "",
             "Step through the four stages of MEM-5 as a diff. Markers: `-` dropped, `+` synthesized, "
             "`↑` moved, `~` changed, blank for unchanged. A row shows each of its call ids on a line of "
             "its own (in full on a screen 120 columns wide or more; narrower, cut in the middle with `…`); "
             "a struck-out id is a call the stage removed. The tag after each row is the clause and every "
             "event kind that explains it, then its cause: `→ #1` names the input message that made the "
             "change necessary (the first declaration of a redeclared id, the first result of a duplicate, "
             "the turn a synthesized result answers), and `f` goes there. On the input view the tag says "
             "where the entry ends up. The summary (`u`) counts every kind with what it means. A row whose "
             "text starts `«signed»` belongs to a turn carrying reasoning its provider signed or encrypted "
             "(`«reasoning»`: readable reasoning only); its details list each block, and `R` switches "
             "`--reasoning keep` (written back as read) or `strip` (removed on export, for another model).", "",
             "## Keys", "", "| key | does |", "|---|---|"]
    for b in bindings:
        lines.append(f"| {_key(b)} | {_cell(b.tooltip or b.description)} |")
    lines += ["| `ctrl+p` | command palette: every action by name |", "",
              "## Provider formats", "",
              "A file in a provider's format (OpenAI chat or Responses, Anthropic, Gemini, Bedrock; detected, "
              "or chosen with `inspector --from NAME FILE`) opens on the **import** step, view `0`, before "
              "coerce: each flat message MEM-5 reads, with where it came from (`messages[2].content[1]`) and "
              "the original; enter shows the original object above its flat form, and the rule panel lists "
              "the import's notes and events. `e` exports in the input's own format (`same`, the default) "
              "or any other, the same bytes as `inspector normalize FILE --to NAME`.", "",
              "## The strict stage (an extension beyond MEM-5)", "",
              "`t` (or `inspector --strict FILE`) adds stage `5`, **strict**: Inspector's own repairs of what "
              "the literal rule leaves, so a provider accepts the history. It is not part of MEM-5 and its "
              "clause names are Inspector's:", ""]
    for clause, meaning in extension_clauses().items():
        lines.append(f"- `{clause}`: {meaning}")
    lines += ["", "| clause | kind | drop | meaning |", "|---|---|---|---|"]
    extension = extension_kinds()
    for kind in extension:
        lines.append(f"| {kind.clause} | `{kind.name}` | {'yes' if kind.drop else ''} | {_cell(kind.meaning)} |")
    lines += ["",
              f"## {RULE_ID}: {RULE_TITLE}", "",
              f"{RULE_SPEC}, rule {RULE_ID}: <{RULE_SOURCE}>. What follows is this project's summary "
              "of each clause, not the rule's text.", ""]
    for clause in CLAUSES.values():
        lines += [f"### Clause {clause.number} ({clause.stage}): {clause.title}", "", clause.summary, ""]
    lines += ["### The drop count", "", DROP_COUNT_NOTE, "", "## Event kinds", "",
              "| clause | kind | drop | meaning |", "|---|---|---|---|"]
    for kind in KINDS.values():
        if kind in extension:
            continue
        lines.append(f"| {kind.clause} | `{kind.name}` | {'yes' if kind.drop else ''} | {_cell(kind.meaning)} |")
    return "\n".join(lines) + "\n"


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "close", "Close", key_display="esc", id="help.close",
                tooltip="Close help"),
    ]

    def __init__(self, bindings: Iterable[Binding]) -> None:
        super().__init__()
        self.markdown = help_markdown(bindings)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static("esc (or ? or q) closes help · ↑ ↓ pgup pgdn scroll", id="help-hint")
            yield Markdown(self.markdown, id="help-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help").focus()

    def action_close(self) -> None:
        self.dismiss(None)

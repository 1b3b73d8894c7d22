"""``inspector why`` in the TUI (issue 34): an error text pasted on the main screen (or typed
in the dialog ``w`` opens) is read by :func:`inspector.why.read`; with a file open,
:func:`inspector.why.examine` runs the matched rules over it in a worker, the table goes to
the entry the error names (else the first the rule flags) and a panel shows the rule, what it
means and the fix. An unknown text says so and lists the closest rules. Also ``y``: copy the
agent's resume command (the one :func:`inspector.formats.resume_command` renders for the
verdict) to the clipboard.

Nothing here matches texts or decides a rule: ``inspector.why`` does; this module renders its
reading. Every text shown is data (a :class:`~textual.content.Content` of plain parts, no
markup read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from ... import why
from .. import facts
from ..text import inert
from ..widgets.diff_table import DiffTable

if TYPE_CHECKING:
    from .main import MainScreen

OTHERS = 3      # the further matched rules named (by name only) under the first ones shown


def _parts(reading: why.Reading, case: why.Case | None, note: str = "") -> Content:
    """The panel's text: the rule (the one the file shows first), its meaning and fix, then
    where in the file, the repair, and the other rules the text may stand for."""
    parts: list[tuple[str, str]] = []

    def line(text: str, style: str = "") -> None:
        parts.append((inert(text, single_line=False) + "\n", style))

    shown = {(e.target, e.rule) for e in case.entries or case.covered} if case is not None else set()
    # The rules the file shows first (the one the error stands for there), then the rest.
    matches = sorted(reading.matches, key=lambda m: (m.target, m.rule) not in shown)
    if not reading.known:
        line("Unknown error text: no rule's error text matches it well enough to say which it is.",
             "bold $text-warning")
        if reading.closest:
            line("Closest rules:", "bold")
            for m in reading.closest:
                meaning = m.checked.summary if m.checked else "(not checked by this build)"
                line(f"  {m.target}/{m.rule} ({m.score:.2f}): {meaning}")
        else:
            line("No rule's error text shares a word with it.")
    else:
        # What matters first at 80x24: the rule, the fix, the entry; then what it means.
        first = matches[0]
        rule = first.checked
        agent = f" ({first.known.agent}'s wording)" if first.known.agent else ""
        line(f"{first.target}/{first.rule}" + (f" [{rule.severity}]" if rule else " [not checked by this build]")
             + agent, "bold")
        line(f"fix: {why.fix_of(rule)}", "bold $text-success")
    if case is not None:
        if case.entries:
            e = case.entries[0]
            how = "the entry the error names" if e.named else "the first entry the rule flags"
            more = f" (and {len(case.entries) - 1} more)" if len(case.entries) > 1 else ""
            line(f"In this file, {how} (the table's cursor): #{e.row} {e.place}{more}", "bold")
            if case.cleared:
                line("The repaired copy clears it" + (" (with --strict)" if case.strict else "") + ": e exports it.")
            else:
                line("Normalizing alone does not clear it (see the fix).")
            line(f"  {e.error}", "$text-muted")
            for r in e.repair[:2]:
                line(f"  repair: {r}", "$text-muted")
        elif case.covered:
            # Every entry the rules find is one the agent repairs itself (the verdict's claim).
            e = case.covered[0]
            more = f" (and {len(case.covered) - 1} more)" if len(case.covered) > 1 else ""
            line(f"In this file, {case.agent} repairs it itself on resume (the table's cursor): "
                 f"#{e.row} {e.place}{more}", "bold")
            if e.claim is not None:
                line(f"  {e.claim.words()}", "$text-muted")
            older = f" (or from {case.agent} before {e.older})" if e.older else ""
            line(f"The error must have come from a different state of the session{older}.")
        else:
            line("None of these rules finds anything in this file: the agent may have sent another "
                 "history (a later state, or another session).")
    if reading.known:
        first = matches[0]
        if first.checked is not None:
            line(f"means: {first.checked.summary}")
        rest = matches[1:]
        if rest:
            named = ", ".join(f"{m.target}/{m.rule}" for m in rest[:OTHERS])
            more = f" and {len(rest) - OTHERS} more" if len(rest) > OTHERS else ""
            line(f"The text may also stand for {named}{more} (inspector why lists each).", "$text-muted")
    if note:
        line(note, "$text-muted")
    return Content.assemble(*parts)


class WhyPanel(ModalScreen[None]):
    """The reading of one error text, at the bottom of the screen so that the table above shows
    the entry it names; enter or escape closes it."""

    DEFAULT_CSS = """
    WhyPanel { background: $background 20%; }
    WhyPanel #why { dock: bottom; margin-bottom: 1; width: 100%; height: auto; max-height: 50%; border: round $accent; padding: 0 1;
                    background: $panel; }
    WhyPanel #why-text { height: auto; }
    """
    BINDINGS = [Binding("escape,enter", "close", "Close", id="why.close", tooltip="Close the explanation")]

    def __init__(self, text: Content) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="why") as box:
            box.border_title = "why: the error's rule and fix"
            box.border_subtitle = "enter or esc closes"
            yield Static(self.text, id="why-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


class WhyDialog(ModalScreen[str | None]):
    """An input for an error text; dismisses with it (None: escape)."""

    BINDINGS = [Binding("escape", "close", "Cancel", id="whydialog.close", tooltip="Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static("why: paste or type the error text the agent or the provider showed", id="dialog-title")
            yield Input(placeholder="e.g. messages.3: tool_use ids were found without tool_result blocks…",
                        id="why-input")
            yield Static("enter explains, esc cancels", classes="dialog-hint")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_close(self) -> None:
        self.dismiss(None)


class Why:
    """The main screen's collaborator for ``why`` and the resume command."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.shown: Content | None = None     # the last panel's text (what the tests read)

    def ask(self) -> None:
        """w (and the palette's "why: explain an error text…"): the dialog, then :meth:`explain`."""
        def chosen(text: str | None) -> None:
            if text:
                self.explain(text)

        self.screen.app.push_screen(WhyDialog(), chosen)

    def explain(self, text: str) -> None:
        """Read ``text``; with a file open, examine it in a worker, then go to the entry and show the panel."""
        screen = self.screen
        reading = why.read(text)
        doc = screen.doc
        if not reading.known:       # nothing to go to: the closest rules are listed, never guessed at
            self._show(reading, None)
            return
        if doc is None or doc.source.path is None:
            note = ("Open the history the error came from to go to the entry it names."
                    if doc is None else "Standard input cannot be read again: open the file to go to the entry.")
            self._show(reading, None, note)
            return
        source = doc.source

        def run() -> None:
            try:
                case = why.examine(source.path, reading, source.fmt, source.session)
            except Exception as exc:  # noqa: BLE001 - the reading still stands; say why the file could not
                screen.app.call_from_thread(self._show, reading, None, f"The file could not be examined: {exc}")
                return
            screen.app.call_from_thread(self._show, reading, case, "", source)

        screen.run_worker(run, thread=True, exclusive=True, group="why", description="why: examine the open file")

    def _show(self, reading: why.Reading, case: why.Case | None, note: str = "", source: Any = None) -> None:
        screen = self.screen
        if source is not None and (screen.doc is None or screen.doc.source != source):
            return      # another history was opened meanwhile: this reading's entries are not its
        if case is not None and (case.entries or case.covered) and screen.doc is not None:
            self.go_to((case.entries or case.covered)[0].row)
        self.shown = _parts(reading, case, note)
        screen.app.push_screen(WhyPanel(self.shown))

    def go_to(self, origin: int) -> None:
        """The table's cursor to input entry ``origin`` on view 0 (the entries ``why`` names are the input's)."""
        screen = self.screen
        table = screen.query_one(DiffTable)
        if screen.view != 0:
            screen.view = 0
        if table.position_of(origin) is None and screen.filtered:
            screen.clear_filters()
        position = table.position_of(origin)
        if position is not None:
            table.cursor = position
            table.focus()
            screen.minimize()

    def command(self) -> str | None:
        doc = self.screen.doc
        if doc is None:
            return None
        return facts.resume_command(doc.imported, doc.source.path or doc.source.name, doc.source.session)

    def copy_command(self) -> None:
        """y: the agent's resume command of the open session to the clipboard; says what was copied."""
        copy_resume(self.screen, self.command(), "the open history")


def copy_resume(screen: Any, command: str | None, what: str) -> None:
    """Copy ``command`` (OSC 52: a terminal's clipboard, the page's under ``inspector serve``) and
    say so; no command: say why nothing was copied."""
    if not command:
        screen.notify(f"Nothing to copy: {what} has no resume command (an agent's session with a known id has one).",
                      title="Resume", severity="warning", markup=False)
        return
    screen.app.copy_to_clipboard(command)
    screen.notify(f"Copied the resume command: {inert(command)}", title="Resume", markup=False)

"""The provider's verdict on screen: a bar under the stages that says in words whether the
chosen provider would accept the history now (or, when no provider is chosen, every
provider's verdict in one line), and the list of the chosen provider's problems.

The bar holds the verdict state of the screen's document: the provider chosen (``target``),
the verdicts known so far, the rows each marks and the next one ``x`` goes to. The checks run
in a thread worker of the bar (:meth:`VerdictBar.compute`), which posts
:class:`VerdictBar.Ready` to the screen after the chosen target and once every target is
checked; the screen hands the message back (:meth:`VerdictBar.receive`) and shows the view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.content import Content
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from ...targets import ERROR
from ...verdict import judged_provider, unjudged
from ..text import inert
from .. import verdict as verdicts_of
from ..verdict import WHEN, ProviderCheck, ProviderChecks, check_all


class Text:
    """Parts with theme-variable styles, assembled into one :class:`Content` (no markup is
    read: message text stays data)."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, str]] = []

    def append(self, text: str, style: str = "") -> "Text":
        self.parts.append((text, style))
        return self

    def append_text(self, other: "Text") -> "Text":
        self.parts += other.parts
        return self

    @property
    def plain(self) -> str:
        return "".join(t for t, _ in self.parts)

    def content(self) -> Content:
        return Content.assemble(*self.parts)


OK, BAD, WARN = "$text-success", "$text-error", "$text-warning"


def matrix_text(verdicts: list[ProviderCheck], chosen: str | None = None) -> Text:
    """`✓ openai-responses gemini · ✗ openai-chat 2e anthropic 1e`: every target's verdict,
    those that accept first (e: errors, w: warnings; the picker, v, spells them out)."""
    text = Text()
    groups = [("✓", OK, [v for v in verdicts if v.accepts]), ("✗", BAD, [v for v in verdicts if not v.accepts])]
    for mark, style, group in groups:
        if not group:
            continue
        if text.parts:
            text.append(" · ", "$text-muted")
        text.append(mark, style)
        for v in group:
            text.append(" ")
            text.append(v.target, "bold underline" if v.target == chosen else "")
            if v.failure is not None:
                text.append(" ?", WARN)
            elif v.errors:
                text.append(f" {v.errors}e", BAD)
            if v.warnings:
                text.append(f" {v.warnings}w", WARN)
    return text


class VerdictBar(Static):
    """One or two lines: the chosen target's verdict for the moment the view stands for."""

    DEFAULT_CSS = "VerdictBar { height: auto; max-height: 3; padding: 0 1; }"

    class Ready(Message):
        """The targets checked so far for ``document`` (all of them once ``verdicts.complete``)."""

        def __init__(self, document: Any, verdicts: ProviderChecks) -> None:
            super().__init__()
            self.document = document
            self.verdicts = verdicts

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.document: Any = None  # the document the verdicts are for
        self.target: str | None = None  # the provider the verdict shows (None: every provider's, at a glance)
        self.verdicts: ProviderChecks | None = None  # what is known so far (None: nothing checked yet)
        self.model: str | None = None  # --model: the model the checks judge it as sent to (None: the session's)
        self.unjudged = ""  # what a session ran on that Inspector has no rules for (the verdict's "not judged")

    # -- the state -------------------------------------------------------------------------
    def reset(self, document: Any, target: str | None) -> None:
        """A new document (or the same one repaired again): nothing is known of it yet."""
        self.document, self.target, self.verdicts = document, target, None

    def begin(self, document: Any, option: str, keep: bool, model: str | None = None) -> None:
        """A new document: the target is ``option`` (``--target``; ``auto``: the provider the
        one verdict judges it for, as ``check`` does: the one a session ran on, else the one its
        format speaks, none for a flat history), or the one chosen before when ``keep`` (a
        reload of the same file) and one was; ``model`` is ``--model``."""
        target = self.target
        if not keep or target is None and option == "auto":
            target = judged_provider(document.imported) if option == "auto" else option
        self.reset(document, target)
        self.model = model
        self.unjudged = unjudged(document.imported) if option == "auto" else ""

    def receive(self, message: Ready) -> bool:
        """Keep what a worker found, if it is for the document shown; whether it is."""
        if message.document is not self.document:
            return False
        self.verdicts = message.verdicts
        return True

    @property
    def settled(self) -> bool:
        """Every target is checked: the picker (v) and x have their whole answer."""
        return self.verdicts is not None and self.verdicts.complete

    @staticmethod
    def stage_of(views: Sequence[str], view: int) -> str:
        """The moment view ``view`` stands for (input, after MEM-5, after strict)."""
        return verdicts_of.stage_of_view(views[view] if view < len(views) else "", view)

    def chosen(self, stage: str) -> ProviderCheck | None:
        return self.verdicts.at(stage, self.target) if self.verdicts and self.target else None

    def marks(self, stage: str, rows: Any, final: bool) -> dict[int, str]:
        """Row -> the worst severity of the chosen target's problems on it, for ``rows`` (a
        view's rows; ``final``: the view shows the checked output itself)."""
        chosen = self.chosen(stage)
        if chosen is None or rows is None:
            return {}
        return verdicts_of.flagged_rows(chosen, rows.layout().row_of,
                                        ((d, r) for r, d in enumerate(rows.dst) if d >= 0) if final else ())

    def problems(self, stage: str) -> Content:
        """The Provider pane: the chosen target's problems at ``stage`` (what strict repairs too)."""
        if self.verdicts is None:
            return Text().append("Checking what each provider would accept…").content()
        before = self.verdicts.at(verdicts_of.MEM5, self.target) if (
            self.target and stage == verdicts_of.STRICT) else None
        return problems_text(self.chosen(stage), before).content()

    def next_mark(self, flags: dict[int, str], order: Sequence[int] | None, row_count: int, cursor: int) -> int | None:
        """The table position of the next marked row after ``cursor``, wrapping (None: none shown)."""
        shown = order if order is not None else range(row_count)
        marked = [p for p, r in enumerate(shown) if r in flags]
        if not marked:
            return None
        after = [p for p in marked if p > cursor]
        return after[0] if after else marked[0]

    def next_problem(self, screen: Any) -> None:
        """x: the cursor to the next row (after it, wrapping) the chosen provider has a problem
        with, in ``screen``'s table; the filters give way when they hide every marked row."""
        table = screen.query_one("#table")
        if not table.flags:
            screen.notify(self.no_mark_sentence(self.stage_of(screen.views, screen.view)))
            return
        if screen.filtered and table.order is not None and not set(table.flags) & set(table.order):
            screen.clear_filters()
        position = self.next_mark(table.flags, table.order, table.row_count, table.cursor)
        if position is None:
            return
        table.cursor = position
        table.focus()
        screen.minimize()

    def no_mark_sentence(self, stage: str) -> str:
        """What x says when no row is marked: no provider chosen, still checking, or nothing to reject."""
        if self.target is None:
            return "v picks a provider first."
        if self.verdicts is None or self.verdicts.at(stage, self.target) is None:
            return (f"Still checking what {self.target} would accept: x again in a moment "
                    "(the bar says when the checks are done).")
        if self.verdicts.at(stage, self.target).problems:
            # The problems are in what the conversion to the provider's own format writes
            # (normalize --to): they belong to no row of this view, and the Provider tab lists them.
            return (f"No row marked: what {self.target} finds is in the history as converted to its own "
                    "format (normalize --to), not in a row of this view; the Provider tab lists it.")
        return ("No row marked: the chosen provider has no problem with this view "
                "(v picks another provider).")

    def compute(self, document: Any, first: str | None = None) -> None:
        """Check every target on ``document`` (a loaded TUI document) in a worker, ``first``
        (the chosen target) before the others; the screen hears after each."""

        def run() -> None:
            worker = get_current_worker()

            def report(verdicts: ProviderChecks) -> None:
                if not worker.is_cancelled:
                    # what is known so far (verdicts are frozen; the tables are copied)
                    known = ProviderChecks({stage: dict(by) for stage, by in verdicts.by_stage.items()}, verdicts.complete)
                    self.post_message(self.Ready(document, known))

            check_all(document.imported, document.result, document.strict, document.source.name,
                      cancelled=lambda: worker.is_cancelled, first=first, report=report,
                      reasoning=getattr(document, "reasoning", "keep"), model=self.model, outcome=document)

        self.run_worker(run, thread=True, exclusive=True, group="verdict", description="check providers")

    def show_verdict(self, verdicts: ProviderChecks | None, stage: str, target: str | None, partial: bool = False) -> None:
        """``partial``: the view shows a MEM-5 stage before the last, whose history is not the one
        checked; the line says the verdict is for MEM-5's output, once all four stages have run."""
        text = Text()
        if verdicts is None:
            text.append("Checking what each provider would accept…", "$text-muted")
        elif target is None and self.unjudged:
            # As check and doctor say it: the provider it ran on is one Inspector has no rules for.
            text.append("? provider unknown, not judged: ", "bold")
            text.append(inert(self.unjudged))
            text.append("  (v judges it for a provider you pick)", "$text-muted")
        elif target is None:
            when = "once all four MEM-5 stages have run" if partial and stage == verdicts_of.MEM5 else WHEN[stage]
            text.append(f"{when[:1].upper()}{when[1:]}: ", "bold")  # not capitalize(): MEM-5 keeps its capitals
            text.append_text(matrix_text(verdicts.matrix(stage)))
            if not verdicts.complete:
                text.append(" · checking the others…", "$text-muted")
            text.append("  (v picks)", "$text-muted")
        else:
            v = verdicts.at(stage, target)
            if v is None:
                text.append(f"{target}: not checked", "$text-muted")
            else:
                text.append("✓ " if v.accepts else "✗ ", OK if v.accepts else BAD)
                text.append(inert(v.sentence()), "bold" if not v.accepts else "")
                fixed = v.strict_repairs()
                if fixed and stage != "strict":
                    text.append(f"; strict (t) repairs {len(fixed)}", "$text-muted")
                if v.problems and self.app.size.width >= 120:   # narrower, the footer has v
                    text.append(" · x next, v providers", "$text-muted")
        self.update(text.content())


def problems_text(verdict: ProviderCheck | None, fixed_by_strict: ProviderCheck | None = None) -> Text:
    """The chosen target's problems as ``inspector check --target`` lists them: severity, rule,
    row and native location, the provider's own error text, the fix and its source."""
    text = Text()
    if verdict is None:
        text.append("No provider chosen: v picks one (the bar above lists every provider's verdict).", "$text-muted")
        return text
    text.append(inert(verdict.sentence()), "bold")
    text.append("\n")
    if verdict.failure is not None:
        return text
    if fixed_by_strict is not None:
        repaired = fixed_by_strict.strict_repairs()
        if repaired:
            text.append(f"\nThe strict stage repaired {len(repaired)} of the {len(fixed_by_strict.problems)} "
                        f"problems MEM-5 leaves: ", OK)
            text.append(", ".join(dict.fromkeys(p.rule for p in repaired)), OK)
            text.append("\n")
    for p, where in zip(verdict.problems, verdict.places):
        text.append("\n")
        text.append(p.severity, f"bold {BAD}" if p.severity == ERROR else f"bold {WARN}")
        text.append(f" [{p.rule}]", "bold")
        text.append(f" row {p.index}" + (f" · {inert(where)}" if where else " · a synthesized row"), "$text-muted")
        if p.strict and verdict.stage != "strict":
            text.append(" · strict (t) repairs it", OK)
        text.append("\n  provider: ", "$text-muted")
        text.append(inert(p.error))
        text.append("\n  fix: ", "$text-muted")
        text.append(inert(p.fix))
        text.append("\n  source: ", "$text-muted")
        text.append(p.source)
        text.append("\n")
    return text

"""The provider's verdict on screen: a bar under the stages that says in words whether the
chosen provider would accept the history now (or, when no provider is chosen, every
provider's verdict in one line), and the list of the chosen provider's problems.

The checks run in a thread worker of the bar (:meth:`VerdictBar.compute`), which posts
:class:`VerdictBar.Ready` to the screen once every target is checked."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from ...targets import ERROR
from ..text import inert
from ..verdict import WHEN, Verdict, Verdicts, check_all


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


def matrix_text(verdicts: list[Verdict], chosen: str | None = None) -> Text:
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
        """Every target is checked for ``document``."""

        def __init__(self, document: Any, verdicts: Verdicts) -> None:
            super().__init__()
            self.document = document
            self.verdicts = verdicts

    def compute(self, document: Any, first: str | None = None) -> None:
        """Check every target on ``document`` (a loaded TUI document) in a worker, ``first``
        (the chosen target) before the others; the screen hears after each."""

        def run() -> None:
            worker = get_current_worker()

            def report(verdicts: Verdicts) -> None:
                if not worker.is_cancelled:
                    # what is known so far (verdicts are frozen; the tables are copied)
                    known = Verdicts({stage: dict(by) for stage, by in verdicts.by_stage.items()}, verdicts.complete)
                    self.post_message(self.Ready(document, known))

            check_all(document.imported, document.result, document.strict, document.source.name,
                      cancelled=lambda: worker.is_cancelled, first=first, report=report,
                      reasoning=getattr(document, "reasoning", "keep"))

        self.run_worker(run, thread=True, exclusive=True, group="verdict", description="check providers")

    def show_verdict(self, verdicts: Verdicts | None, stage: str, target: str | None) -> None:
        text = Text()
        if verdicts is None:
            text.append("Checking what each provider would accept…", "$text-muted")
        elif target is None:
            text.append(f"{WHEN[stage].capitalize()}: ", "bold")
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


def problems_text(verdict: Verdict | None, fixed_by_strict: Verdict | None = None) -> Text:
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

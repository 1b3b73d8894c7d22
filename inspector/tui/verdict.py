"""Would the provider take this history now? ``inspector.targets.check`` on the pipeline's
outcome, arranged for the screen: no textual, no rule of its own.

Three moments can be checked, and the screen shows the one its view stands for: the input as
given (view 0: the rows the agent sends on resume, its own repairs applied, as
``inspector.verdict`` says for ``check`` and ``doctor``; a flat history as read), the history
after MEM-5 (the four stages' views, exported under the reasoning policy) and after the strict
stage (its own view, when it is on). Each problem keeps the input entry its row came from (the
result's origins), so the table marks the rows in every view that shows them.

API (stable for the screen and ``VerdictBar``): :func:`check_all` (the moments for every
target, off the UI thread), :class:`ProviderCheck` (one target at one moment),
:class:`ProviderChecks` (all of them), :func:`stage_of_view`, :func:`flagged_rows`,
:data:`WHEN`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .. import pipeline, targets
from ..engine import Result
from ..formats import Imported
from ..targets import Problem
from ..verdict import as_sent_problems, judged_model

INPUT, MEM5, STRICT = "input", "mem-5", "strict"
WHEN = {INPUT: "as given", MEM5: "after MEM-5's repair", STRICT: "after the strict stage"}


@dataclass(frozen=True, slots=True)
class ProviderCheck:
    """One target's problems with the history at one moment (as given: what the agent
    sends, less what its own repairs cover, each of those said in ``agent_repairs``)."""

    target: str
    stage: str
    problems: tuple[Problem, ...] = ()
    origins: tuple[int | None, ...] = ()     # per problem: the input entry its row came from
    places: tuple[str | None, ...] = ()      # per problem: its native location, when known
    failure: str | None = None               # the check itself could not run (why)
    agent_repairs: tuple[str, ...] = ()      # the agent's own repairs on resume, each in its sentence
    model: str | None = None                 # the model it is judged as sent to (--model, or the session's)

    @property
    def errors(self) -> int:
        return sum(p.severity == targets.ERROR for p in self.problems)

    @property
    def warnings(self) -> int:
        return len(self.problems) - self.errors

    @property
    def accepts(self) -> bool:
        return self.failure is None and not targets.failed(list(self.problems))

    def short(self) -> str:
        """`accepts`, `2 errors`, `1 warning`: one cell of the matrix."""
        if self.failure is not None:
            return "not checked"
        if self.errors:
            return _count(self.errors, "error")
        return "accepts" + (f" ({_count(self.warnings, 'warning')})" if self.warnings else "")

    @property
    def who(self) -> str:
        """The provider, with the model it is judged as sent to when one is known."""
        return f"{self.target} ({self.model})" if self.model else self.target

    def sentence(self) -> str:
        """The header's words: would the provider (for the model) accept the history now."""
        when = WHEN[self.stage]
        if self.failure is not None:
            return f"{self.who}: not checked {when} ({self.failure})"
        own = f"; the agent's own repairs on resume: {'; '.join(self.agent_repairs)}" if self.agent_repairs else ""
        if self.errors:
            more = f" and {_count(self.warnings, 'warning')}" if self.warnings else ""
            rules = ", ".join(dict.fromkeys(p.rule for p in self.problems if p.severity == targets.ERROR))
            return (f"{self.who} would reject this history {when}: {_count(self.errors, 'error')}{more} "
                    f"({rules}){own}")
        if self.warnings:
            return f"{self.who} would accept this history {when}, with {_count(self.warnings, 'warning')}{own}"
        return f"{self.who} would accept this history {when}{own}"

    def strict_repairs(self) -> list[Problem]:
        """The problems the strict stage repairs, as each target rule declares."""
        return [p for p in self.problems if p.strict]


@dataclass(slots=True)
class ProviderChecks:
    """Every checked target at every checked moment."""

    by_stage: dict[str, dict[str, ProviderCheck]] = field(default_factory=dict)
    complete: bool = False   # every target checked (the chosen one comes first)

    def at(self, stage: str, target: str) -> ProviderCheck | None:
        return self.by_stage.get(stage, {}).get(target)

    def matrix(self, stage: str) -> list[ProviderCheck]:
        return list(self.by_stage.get(stage, {}).values())




def stage_of_view(name: str, index: int) -> str:
    """The moment a view stands for: view 0 the input, strict's view the strict output, every
    MEM-5 stage the history MEM-5 writes."""
    if index == 0:
        return INPUT
    return STRICT if name == STRICT else MEM5


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _checked(target: str, stage: str, check: Callable[[], tuple[list[Problem], tuple[str, ...]]],
             origin: Callable[[int], int | None], place: Callable[[Problem], str | None],
             model: str | None = None) -> ProviderCheck:
    try:
        problems, own = check()
    except Exception as exc:  # noqa: BLE001 - one target that cannot read a history leaves the others
        return ProviderCheck(target, stage, failure=f"{type(exc).__name__}: {exc}", model=model)
    return ProviderCheck(target, stage, tuple(problems), tuple(origin(p.index) for p in problems),
                         tuple(place(p) for p in problems), agent_repairs=own, model=model)


def _as_written(out: Any, target: str, model: str | None) -> list[Problem]:
    """What ``target`` finds in a repaired moment, as ``check --target`` judges it: the document
    ``normalize --to target`` writes (``pipeline.as_written_for``: a history in another format
    is converted, so the rules on the target's own blocks see what it receives). A problem of
    the converted document takes the row of the same rule on the same call in the moment's own
    rows, when there is one (the table marks it); one the conversion alone shows has no row."""
    here = targets.check(out, target, model)
    written = pipeline.as_written_for(out, target)
    if written is out:
        return here
    rows = {(p.rule, p.tool_call_id): p.index for p in here}
    unplaced = len(out.result.messages)          # beyond the rows: listed, never marked
    return [replace(p, index=rows.get((p.rule, p.tool_call_id), unplaced))
            for p in targets.check(written, target, model)]


def _export(imported: Imported, res: Result, reasoning: str) -> Any:
    """The export of a moment under the reasoning policy: what ``normalize`` writes."""
    return pipeline.export(imported, res, reasoning=reasoning)


def check_all(imported: Imported, result: Result, strict: bool, name: str = "<input>",
              names: Sequence[str] | None = None, cancelled: Callable[[], bool] = lambda: False,
              first: str | None = None, report: Callable[[ProviderChecks], None] = lambda verdicts: None,
              reasoning: str = "keep", model: str | None = None, outcome: Any = None) -> ProviderChecks:
    """Every target in ``names`` (all by default) on the input as given, after MEM-5, and
    after strict when ``result`` has it (``strict``), each export under ``reasoning`` (the
    ``--reasoning`` policy), for ``model`` (``--model``) when given, else for the model a
    session last ran on where the target is the provider it ran on. Off the UI thread: a
    check reads the whole history, a few seconds per target on 100,000 messages, so ``first``
    (the chosen target) is checked at every moment before the others and ``report`` is
    called with what is known then, and again at the end. A moment whose export fails (a
    history no writer can write) is reported for each target as not checked, never raised.
    ``outcome`` (the open history: a pipeline Outcome of ``imported`` and ``result`` under
    ``reasoning``) lends its own export to the moment it stands for, so it is made once."""
    names = tuple(names or targets.TARGETS)
    if first in names:
        names = (first, *(t for t in names if t != first))
    out = ProviderChecks()
    n = len(imported.messages)

    def given_place(p: Problem) -> str | None:
        return p.where or (imported.where(p.index) if p.index < n else None)

    # The model per target, as ``check`` judges it: --model, else the session's own for the
    # provider it ran on (inspector.verdict.judged_model).
    models = {t: judged_model(imported, t, model) for t in names}

    def as_given(t: str) -> tuple[list[Problem], tuple[str, ...]]:
        problems, claims = as_sent_problems(imported, t, models[t])
        return problems, tuple(c.words() for c in claims)

    moments: list[tuple[str, Callable[[str], tuple[list[Problem], tuple[str, ...]]],
                        Callable[[int], int | None], Callable[[Problem], str | None]]] = [
        (INPUT, as_given, lambda i: i if i < n else None, given_place)]
    repairs = [(MEM5, result if not strict else pipeline.repair(imported, (), owned=True))]
    if strict:
        repairs.append((STRICT, result))
    for stage, res in repairs:
        origins = res.origins
        made: list[Any] = []
        shared = outcome if outcome is not None and res is outcome.result and outcome.to == "same" \
            and outcome.reasoning == reasoning else None

        def after(t: str, res: Result = res, made: list[Any] = made, shared: Any = shared
                  ) -> tuple[list[Problem], tuple[str, ...]]:
            if not made:       # exported once per moment, for the first target that asks
                try:
                    if shared is not None:
                        shared.export      # the open history's own export, made here if not yet
                        made.append(shared)
                    else:
                        made.append(pipeline.Outcome(name, imported, res, _export(imported, res, reasoning),
                                                     reasoning=reasoning))
                except Exception as exc:  # noqa: BLE001 - said per target as "not checked" (R3-14)
                    made.append(exc)
            if isinstance(made[0], Exception):
                raise made[0]
            return _as_written(made[0], t, models[t]), ()
        moments.append((stage, after, lambda i, o=origins: o[i] if i < len(o) else None, lambda p: p.where))
    for k, t in enumerate(names):
        for stage, check, origin, place in moments:
            if cancelled():
                return out
            out.by_stage.setdefault(stage, {})[t] = _checked(t, stage, lambda c=check, t=t: c(t), origin, place,
                                                             models[t])
        if k == 0 and first == t and len(names) > 1:
            report(out)
    out.complete = True
    report(out)
    return out


def flagged_rows(verdict: ProviderCheck | None, row_of: dict[int, int], final_rows: Iterable[tuple[int, int]] = ()
                 ) -> dict[int, str]:
    """Row number -> the worst severity of the problems on it, for one view: ``row_of`` maps
    an input entry to the view's row; ``final_rows`` maps (output index, row) for a view that
    shows the checked output itself (so a synthesized row, which has no input entry, is
    marked too)."""
    if verdict is None:
        return {}
    out: dict[int, str] = {}
    by_output = dict(final_rows)
    for p, o in zip(verdict.problems, verdict.origins):
        r = row_of.get(o) if o is not None else by_output.get(p.index)
        if r is None:
            continue
        if out.get(r) != targets.ERROR:
            out[r] = p.severity
    return out

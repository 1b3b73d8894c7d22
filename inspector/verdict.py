"""Will this history go through on resume? The one answer, computed once from a pipeline
outcome; ``check``, ``doctor``, the TUI, the folder browser, the session picker, batch and
``serve`` render it and decide nothing of their own.

A session store's agent sends its history on resume with its own repairs applied: the
facts its format declares (:class:`~inspector.formats.SelfRepair` on ``Format.repairs``,
by the version that wrote the session). What is left, the provider it runs on refuses (the
checks of :mod:`inspector.targets`). A flat history or a request body has no agent: it is
judged for its own provider when its format has one, else for every provider.

One vocabulary (:data:`RESUMES`, :data:`AGENT_REPAIRS`, :data:`FAILS`, :data:`UNREADABLE`),
worded once by :meth:`ResumeVerdict.sentence`. On the pipeline's floor: this module reads
``formats``, ``targets`` and ``engine`` and knows no view.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from . import formats, pipeline, targets
from .engine import EXPORT_CLAUSE, kind
from .formats import SelfRepair

__all__ = ["AGENT_REPAIRS", "CHANGES", "FAILS", "LOST", "OK", "RESUMES", "STATUSES", "STATUS_WORDS", "UNREADABLE", "Claim", "ProviderRefusals",
           "Refusal", "ResumeVerdict", "as_sent", "as_sent_problems", "as_sent_split", "judged_model", "judged_provider",
           "resume_verdict", "session_model", "unjudged", "unreadable", "written_refusals"]

RESUMES, AGENT_REPAIRS, FAILS, UNREADABLE = "resumes", "agent-repairs", "fails", "unreadable"
STATUSES = (FAILS, UNREADABLE, AGENT_REPAIRS, RESUMES)     # worst first
WORDS = {RESUMES: "resumes", AGENT_REPAIRS: "resumes because the agent repairs it itself",
         FAILS: "fails on resume", UNREADABLE: "unreadable"}
# The status of one row as every view shows it: a verdict that resumes splits into "changes"
# (MEM-5 would still change the file) and "ok". These keys are an interface (doctor --json).
OK, CHANGES = "ok", "changes"
# The one short word per status, shown by ``doctor`` (its report and --tui), the folder
# browser, the session picker and ``check``: no view keeps words of its own.
STATUS_WORDS = {FAILS: "fails", UNREADABLE: "unreadable", AGENT_REPAIRS: "agent repairs", CHANGES: "would change",
                OK: "ok", RESUMES: "ok"}
# What a claim that is not lossless costs: the agent stands a placeholder for the real result.
LOST = "the real result is lost; the tool may have run"


@dataclass(frozen=True, slots=True)
class Refusal:
    """One error a provider returns for the history as it is sent: its rule, where it is in
    the input (``row``, the imported message; ``where``, its native location)."""

    provider: str
    rule: str
    where: str
    row: int | None
    tool_call_id: str | None = None
    strict: bool = False            # --strict repairs it

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "rule": self.rule, "where": self.where, "row": self.row,
                "tool_call_id": self.tool_call_id, "strict": self.strict}


@dataclass(frozen=True, slots=True)
class Claim:
    """A self-repair the agent makes on this resume: the format's declared fact, how many
    cases, the calls it concerns and its sentence for the version that wrote the session."""

    repair: SelfRepair
    count: int
    calls: tuple[str, ...]
    said: str
    covers: bool | None             # the writing version does it (None: no version recorded)

    @property
    def cost(self) -> str:
        """What the repair costs for the version that wrote it: the real result, when a
        placeholder stands for it (by every version, or by the versions before ``since``)."""
        lost = not self.repair.lossless or (self.repair.lost_before and self.covers is not True)
        return LOST if lost else ""

    def words(self) -> str:
        """The claim in its one sentence, naming the calls (a few) and what it costs."""
        calls = ""
        if self.calls:
            more = f" and {len(self.calls) - 3} more" if len(self.calls) > 3 else ""
            calls = f" for {', '.join(self.calls[:3])}{more}"
        return self.said + calls + (f" ({self.cost})" if self.cost else "")

    def to_dict(self) -> dict[str, Any]:
        r = self.repair
        return {"case": r.name, "rule": r.rule, "count": self.count, "calls": list(self.calls), "since": r.since,
                "does": r.does, "before": r.before, "source": r.source, "lossless": r.lossless,
                "cost": self.cost, "sentence": self.said}


@dataclass(frozen=True, slots=True)
class ProviderRefusals:
    """A provider's errors on a history with no agent, and whether --strict repairs them all."""

    provider: str
    rules: tuple[str, ...]
    strict_repairs: bool

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "rules": list(self.rules), "strict_repairs": self.strict_repairs}


@dataclass(frozen=True, slots=True)
class ResumeVerdict:
    """The answer for one history (or one session of a store)."""

    status: str
    agent: str | None = None            # the agent that resumes it (None: a flat history or a body)
    version: str | None = None          # the agent version that wrote it (None: not recorded)
    provider: str | None = None         # the provider judged (None: every provider, or unknown)
    ran_on: str = ""                    # what the store records the session ran on, when it does
    refusals: tuple[Refusal, ...] = ()  # errors left once the agent's own repairs are applied
    claims: tuple[Claim, ...] = ()
    providers: tuple[ProviderRefusals, ...] = ()   # no agent and no provider of its own: per provider
    changed: bool = False               # MEM-5 (and the export) would change the file
    repair: dict[str, int] = field(default_factory=dict)   # event kinds of Inspector's repair
    reason: str = ""                    # unreadable: why
    # The agent's own command that resumes this session (``formats.resume_command``; None: no
    # agent, no command line, or no id), and how to resume it where there is no command.
    command: str | None = None
    reopen: str = ""
    # The kinds of Inspector's changes that no claim of the agent's covers: an event of the
    # import or the engine naming a call no claim names, or naming none. Export events write
    # the changes into the file and are judged with them.
    not_covered: tuple[str, ...] = ()
    # The model it is judged as sent to: ``--model``, else the one the session last ran on
    # (None: not known; a body's own ``model`` is read by the checks themselves).
    model: str | None = None

    @property
    def agent_covers(self) -> bool:
        """The agent repairs it itself and every change MEM-5 would make is to a case the
        agent's own repairs cover: nothing for Inspector to write (``check`` exits 0,
        ``normalize`` writes nothing by default)."""
        return self.status == AGENT_REPAIRS and self.changed and not self.not_covered

    @property
    def row_status(self) -> str:
        """The status one row of every view shows (a key of :data:`STATUS_WORDS`): the
        verdict's own, with a verdict that resumes split into ``changes`` (MEM-5 would still
        change the file) and ``ok``."""
        if self.status == RESUMES:
            return CHANGES if self.changed else OK
        return self.status

    @property
    def refused_rules(self) -> tuple[str, ...]:
        """Every provider rule that refuses it, once each (per provider for a flat history)."""
        rules = [r.rule for r in self.refusals] + [r for p in self.providers for r in p.rules]
        return tuple(dict.fromkeys(rules))

    @property
    def claimed(self) -> tuple[str, ...]:
        return tuple(c.repair.name for c in self.claims)

    @property
    def per_provider(self) -> bool:
        """Judged for every provider: a history with no agent and no provider of its own or
        recorded (a flat list). A session that records a provider Inspector has no rules for
        is not: it is not judged, and says so (``ran_on``)."""
        return self.agent is None and self.provider is None and not self.ran_on

    def head(self) -> str:
        """The verdict in a few words: its status, naming the agent."""
        if self.status == AGENT_REPAIRS and self.agent:
            return f"resumes because {self.agent} repairs it itself"
        return WORDS[self.status]

    def sentence(self) -> str:
        """The one wording of the verdict, for every view."""
        if self.status == UNREADABLE:
            return f"unreadable: {self.reason}"
        parts = []
        if self.per_provider:
            parts.append(self._per_provider())
        elif self.refusals:
            first = self.refusals[0]
            more = f" and {len(self.refusals) - 1} more" if len(self.refusals) > 1 else ""
            parts.append(f"{self.head()}: {first.provider} refuses it ({first.rule} at {first.where}{more})")
        elif self.provider is None:
            parts.append(f"{self.head()}; provider unknown, not judged: {self.ran_on}")
        else:
            parts.append(self.head())
        parts += [c.words() for c in self.claims]
        if self.ran_on and self.provider is not None:
            parts.append(self.ran_on)
        return "; ".join(parts)

    def _per_provider(self) -> str:
        lead = "MEM-5 changes it" if self.changed else "MEM-5 changes nothing"
        if not self.providers:
            return f"{lead}; no provider refuses it"
        judged = len(targets.TARGETS)
        who = "every provider refuses it" if len(self.providers) == judged \
            else f"{len(self.providers)} of {judged} providers refuse it"
        named = ", ".join(f"{p.provider} {'/'.join(p.rules)}" for p in self.providers)
        fixed = [p for p in self.providers if p.strict_repairs]
        if len(fixed) == len(self.providers):
            tail = "--strict repairs it"
        elif fixed:
            tail = f"--strict repairs it for {', '.join(p.provider for p in fixed)}"
        else:
            tail = ""
        return f"{lead}; {who}: {named}" + (f"; {tail}" if tail else "")

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "verdict": self.head(), "sentence": self.sentence(), "agent": self.agent,
                "version": self.version, "provider": self.provider, "ran_on": self.ran_on,
                "refusals": [r.to_dict() for r in self.refusals], "claims": [c.to_dict() for c in self.claims],
                "providers": [p.to_dict() for p in self.providers], "changed": self.changed,
                "repair": dict(self.repair), "agent_covers": self.agent_covers,
                "not_covered": list(self.not_covered), "model": self.model, "command": self.command, **({"reopen": self.reopen} if self.reopen else {}),
                **({"reason": self.reason} if self.reason else {})}


def unreadable(reason: str) -> ResumeVerdict:
    return ResumeVerdict(UNREADABLE, reason=reason)


def as_sent(imported: Any) -> tuple[list[Any], set[int], Any]:
    """The rows the agent sends on resume and the rows its own repairs stand for.

    An importer reads a store as its agent sends it, its own placeholders included, and marks
    every case the agent repairs itself with an event of a kind its format declares
    (``Format.repairs``). The rows are sent as read; the marked rows (and the calls marked)
    are the agent's, never a refusal. Returns (rows, marked rows, the ``OnResume`` or None)."""
    told = formats.on_resume(imported)
    if told is None:
        return list(imported.messages), set(), None
    marked: set[int] = set()
    for _, rows, _ in told.marked:
        marked |= set(rows)
    return list(imported.messages), marked, told


def _first_sent(rows: list[Any]) -> int | None:
    if not all(isinstance(m, dict) for m in rows):
        return None
    return next((i for i, m in enumerate(rows) if m.get("role") not in ("system", "developer")), None)


def _claims(told: Any) -> tuple[Claim, ...]:
    """Each case the agent repairs, with its one sentence (``OnResume.sentences``)."""
    said = told.sentences()
    out = []
    for (repair, n), text in zip(told.cases, said):
        calls = tuple(sorted(next((ids for k, _, ids in told.marked if k == repair.kind), ())))
        out.append(Claim(repair, n, tuple(str(c) for c in calls), text, repair.covers(told.version)))
    return tuple(out)


def _provider(imported: Any, target: str | None) -> tuple[str | None, str]:
    """The provider a resume runs on (``--target`` first, then what the store records, then
    the format's own) and what the store says it ran on."""
    if target is not None:
        return target, ""
    ran = formats.ran_on(imported)
    return ran if ran is not None else (formats.provider(imported.format), "")


def judged_provider(imported: Any, target: str | None = None) -> str | None:
    """The provider a resume of ``imported`` is judged for: ``target`` (``--target``), else
    for a session the one its store records it ran on (None: one Inspector has no rules
    for), else its format's own (None: a flat history, judged for every provider)."""
    if target is not None or not formats.is_session_format(imported.format):
        return target or formats.provider(imported.format)
    return _provider(imported, None)[0]


def session_model(imported: Any) -> str | None:
    """The model a session last ran on, as its store records it (``Format.ran_on``; None: the
    store records none, or the history is no session)."""
    hook = formats.get(imported.format).ran_on if formats.is_session_format(imported.format) else None
    recorded = [(p, m) for p, m in (hook(imported) if hook is not None else ())
                if isinstance(p, str) and p.strip()]
    model = recorded[-1][1] if recorded else None
    return model if isinstance(model, str) and model.strip() else None


def unjudged(imported: Any) -> str:
    """What a session records it ran on when that is a provider Inspector has no rules for
    (the verdict's "provider unknown, not judged: …"), with the agent's own repairs on resume
    in the verdict's words, else "": every view says it alike."""
    if not formats.is_session_format(imported.format):
        return ""
    provider, ran_on = _provider(imported, None)
    if provider is not None:
        return ""
    told = formats.on_resume(imported)
    return "; ".join([ran_on, *(c.words() for c in (_claims(told) if told is not None else ()))])


def judged_model(imported: Any, target: str | None, model: str | None = None) -> str | None:
    """The model a history is judged as sent to, for provider ``target`` (the rules on
    reasoning signed by another model read it): ``model`` (``--model``), else the model the
    session last ran on when ``target`` is the provider it ran on (or None, that one)."""
    if model:
        return model
    if target is not None and target != judged_provider(imported):
        return None
    return session_model(imported)


def resume_verdict(outcome: Any, target: str | None = None, model: str | None = None,
                   session: str | None = None) -> ResumeVerdict:
    """The verdict on one pipeline outcome (``inspector.pipeline.run``). ``target``
    (``--target``) judges for that provider instead of the one the history runs on;
    ``model`` (``--model``) is the model it is sent to; ``session`` the session chosen in a
    store (its resume command's id; else the session's own)."""
    imported, result = outcome.imported, outcome.result
    own = {r.kind for r in formats.self_repairs(imported.format)}    # the agent's, not Inspector's
    repair = dict(Counter(e.kind for e in [*imported.events, *result.events, *outcome.export_events]
                          if e.kind not in own))
    changed = outcome.changed
    if not formats.is_session_format(imported.format):
        provider = target or formats.provider(imported.format)
        if provider is None:
            # No provider of its own: it fails only where every provider refuses it; the
            # providers that do are named either way.
            every = _every_provider(imported, model)
            status = FAILS if len(every) == len(targets.TARGETS) else RESUMES
            return ResumeVerdict(status, changed=changed, providers=every, repair=repair)
        refusals = _refusals(imported, provider, model)[0]
        return ResumeVerdict(FAILS if refusals else RESUMES, provider=provider, refusals=tuple(refusals),
                             changed=changed, repair=repair, model=model)
    told = formats.on_resume(imported)
    provider, ran_on = _provider(imported, target)
    model = judged_model(imported, provider if target is not None else None, model)
    agent = formats.agent_title(imported.format)
    version = told.version if told is not None else None
    refusals: list[Refusal] = []
    claims = _claims(told) if told is not None else ()
    if provider is not None:
        refusals, claims = _refusals(imported, provider, model)
    status = FAILS if refusals else AGENT_REPAIRS if claims else RESUMES
    not_covered = _not_covered(imported, result, outcome.export_events, claims, own)
    fact = formats.REGISTRY[imported.format].agent
    return ResumeVerdict(status, agent, version, provider, ran_on, tuple(refusals), claims, changed=changed,
                         repair=repair, model=model, command=formats.resume_command(imported, outcome.name, session),
                         reopen=fact.reopen if fact is not None else "", not_covered=not_covered)


def _not_covered(imported: Any, result: Any, exported: list[Any], claims: tuple[Claim, ...],
                 own: set[str]) -> tuple[str, ...]:
    """The kinds of Inspector's changes no claim covers, and the claims that do not hold for
    the version that wrote the session (by their case name). A claim covers the calls it names when
    the version that wrote the session is known to make that repair (or every version does);
    an event of the import or the engine is covered when it names such a call; an export event
    is covered when it only writes those changes into the file (the export's own clause), not
    when it is a change of its own (a signed history cut, reasoning removed). A claim whose
    repair throws away what the file holds (``SelfRepair.drops``) covers nothing."""
    holds = [not claim.repair.drops and (claim.covers is True or (claim.covers is None and not claim.repair.since))
             for claim in claims]
    claimed = {c for claim, ok in zip(claims, holds) if ok for c in claim.calls}
    # A claim the writing version is not known to make covers nothing, and is itself left out.
    out = [claim.repair.name for claim, ok in zip(claims, holds) if not ok]
    out += [e.kind for e in [*imported.events, *result.events]
           if e.kind not in own and (e.tool_call_id is None or e.tool_call_id not in claimed)]
    out += [e.kind for e in exported if e.kind not in own and kind(e.kind).clause != EXPORT_CLAUSE]
    return tuple(dict.fromkeys(out))


def as_sent_problems(imported: Any, provider: str, model: str | None = None) -> tuple[list[Any], tuple[Claim, ...]]:
    """What ``provider`` finds in the rows the agent sends on resume, less the errors its own
    repairs cover (the rows its import marked, and the claims found by a rule), with those
    claims: the "as given" moment of every view. Warnings are kept."""
    kept, claims, _ = as_sent_split(imported, provider, model)
    return kept, claims


def as_sent_split(imported: Any, provider: str, model: str | None = None
                  ) -> tuple[list[Any], tuple[Claim, ...], list[tuple[Any, Claim]]]:
    """:func:`as_sent_problems` with the errors it leaves out (the agent repairs them itself
    on resume), each with the claim that covers it: what ``inspector why`` shows instead of
    an entry that breaks the rule. One check of the rows serves all three."""
    rows, marked, told = as_sent(imported)
    if formats.is_session_format(imported.format):
        problems = targets.check(rows, provider, model, imported.identity, given=imported)
    else:      # a body is sent as it is: its native blocks and settings are judged too
        problems = targets.check(pipeline.as_given(imported), provider, model)
    if told is None:
        return problems, (), []
    first = _first_sent(rows)
    # The rows a repair marks that the version which wrote the session is known not to make
    # (it came in a later release) are sent as they stand: the provider's refusal holds.
    late = {r.kind for r in told.repairs if r.kind is not None and r.covers(told.version) is False}
    unmade = {row for k, rows_, _ in told.marked if k in late for row in rows_}
    kept, found, covered = [], [], []
    for p in problems:
        if p.severity != targets.ERROR or p.index in unmade:
            kept.append(p)
            continue
        claim = told.claim(p.rule, p.index, p.tool_call_id, first)
        if p.index in marked:
            # A row the import marked: the repair that covers it, by its rule or by the mark.
            marking = [k for k, rows_, _ in told.marked if p.index in rows_]
            covered.append((p, claim or next(
                (r for r in sorted(told.repairs, key=lambda r: r.rule != p.rule) if r.kind in marking), None)))
            continue
        if claim is None:
            kept.append(p)
        else:
            found.append(claim)
            if claim.covers(told.version) is False:
                # The version that wrote the session is known to send it as it stands (the
                # repair came later): the provider refuses it, whatever a newer build would do.
                kept.append(p)
            else:
                covered.append((p, claim))
    claims = _claims(told.with_claims(found))
    by_repair = {c.repair: c for c in claims}
    return kept, claims, [(p, by_repair[r]) for p, r in covered if r in by_repair]


def _refusals(imported: Any, provider: str, model: str | None) -> tuple[list[Refusal], tuple[Claim, ...]]:
    problems, claims = as_sent_problems(imported, provider, model)
    n = len(imported.messages)
    return [Refusal(provider, p.rule, p.where or (imported.where(p.index) if p.index < n else f"#{p.index}"),
                    p.index if p.index < n else None, p.tool_call_id, p.strict)
            for p in problems if p.severity == targets.ERROR], claims


def written_refusals(outcome: Any, model: str | None = None) -> tuple[str | None, list[Refusal]]:
    """What the provider of the written document refuses in it (the export dialog's warning):
    the provider a session runs on for its own format (as :func:`resume_verdict` reads it),
    else the output format's own provider (None, with nothing refused: a flat list)."""
    imported = outcome.imported
    if outcome.output_format == imported.format and formats.is_session_format(imported.format):
        provider = _provider(imported, None)[0]
    else:
        provider = formats.provider(outcome.output_format)
    if provider is None:
        return None, []
    return provider, [Refusal(provider, p.rule, p.where or f"#{p.index}", None, p.tool_call_id, p.strict)
                      for p in targets.check(outcome, provider, model) if p.severity == targets.ERROR]


def _every_provider(imported: Any, model: str | None) -> tuple[ProviderRefusals, ...]:
    out = []
    rows = list(imported.messages)
    for name in targets.TARGETS:
        errors = [p for p in targets.check(rows, name, model, imported.identity) if p.severity == targets.ERROR]
        if errors:
            out.append(ProviderRefusals(name, tuple(dict.fromkeys(p.rule for p in errors)),
                                        all(p.strict for p in errors)))
    return tuple(out)


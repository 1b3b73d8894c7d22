"""What a resume of one session does, said for the agent that owns it.

The engine says what MEM-5 changes and the provider checks what the provider refuses; this
module only puts the two next to what the agent does on its own (its format's claims,
``formats.on_resume``), for
the version that wrote the file and for the current one. Nothing here decides a rule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .. import formats
from ..engine import kind
from ..targets import ERROR, check
from .agents import Agent

__all__ = ["OK", "FAILS", "AGENT_REPAIRS", "CHANGES", "UNREADABLE", "STATUSES", "Verdict", "judge"]

OK, FAILS, AGENT_REPAIRS, CHANGES, UNREADABLE = "ok", "fails", "agent-repairs", "changes", "unreadable"
# Worst first: the order the summary counts them in.
STATUSES = (FAILS, UNREADABLE, AGENT_REPAIRS, CHANGES, OK)


@dataclass(slots=True)
class Verdict:
    status: str
    sentence: str
    target: str | None = None
    version: str | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)   # what the provider refuses, as sent today
    repaired_by_agent: list[dict[str, Any]] = field(default_factory=list)
    repair: dict[str, int] = field(default_factory=dict)           # event kinds of Inspector's repair


def _as_sent(imported: Any) -> tuple[list[Any], list[int], set[str]]:
    """The flat messages as the file sends them without help: results that only the import put
    back on the chain (``result-recovered``) are left out; their call ids are returned."""
    back = {e.origin for e in imported.events if e.kind == "result-recovered"}
    keep = [i for i in range(len(imported.messages)) if i not in back]
    ids = {imported.messages[i].get("tool_call_id") for i in back if isinstance(imported.messages[i], dict)}
    return [imported.messages[i] for i in keep], keep, {i for i in ids if isinstance(i, str)}


def _first_sent(sent: list[Any]) -> int:
    """The index of the first message after the system prompt: where a conversation starts."""
    for i, m in enumerate(sent):
        if not (isinstance(m, dict) and m.get("role") in ("system", "developer")):
            return i
    return len(sent)


def _kinds(counts: Counter) -> str:
    return ", ".join(f"{k} x{n}" if n > 1 else k for k, n in counts.items())


def judge(outcome: Any, agent: Agent | None) -> Verdict:
    """The verdict on one session read by the pipeline (``inspector.pipeline.run``)."""
    imported, result = outcome.imported, outcome.result
    counts = Counter(e.kind for e in [*imported.events, *result.events, *outcome.export_events])
    repair = dict(counts)
    target = formats.provider(imported.format) if formats.is_session_format(imported.format) else None
    told = formats.on_resume(imported)
    version = told.version if told is not None else None
    problems: list[Any] = []
    keep: list[int] = []
    first = 0
    if target is not None:
        sent, keep, _ = _as_sent(imported)
        first = _first_sent(sent)
        problems = [p for p in check(sent, target) if p.severity == ERROR]

    def where(p: Any) -> str:
        return imported.where(keep[p.index]) if p.index < len(keep) else f"#{p.index}"

    rows = [{**p.to_dict(), "where": where(p)} for p in problems]
    start = keep[first] if first < len(keep) else None
    claims = [told.claim(p.rule, keep[p.index] if p.index < len(keep) else None, p.tool_call_id, start)
              if told is not None else None for p in problems]
    refused = [(p, row) for p, row, c in zip(problems, rows, claims) if c is None]
    handled = [(p, row, c) for p, row, c in zip(problems, rows, claims) if c is not None]
    tail = f"; repair: {_kinds(counts)}" if counts else ""
    title = agent.title if agent else imported.format
    # Rows the import adds are the agent's own: an importer reads what the agent sends on
    # resume, so a placeholder it adds is one the agent adds (Inspector's own come later).
    own = Counter(e.kind for e in imported.events if e.stage == "import" and kind(e.kind).effect == "add")

    if refused:
        head = refused[0][1]
        more = f" and {len(refused) - 1} more" if len(refused) > 1 else ""
        also = f"; {title} repairs {len(handled)} other{'s' if len(handled) != 1 else ''} itself" if handled else ""
        sentence = (f"would fail on resume: the provider would refuse it ({target} {head['rule']} at "
                    f"{head['where']}{more}){also}{tail}")
        status = FAILS
    elif handled or own:
        said = [f"{title} repairs this itself on resume ({kind(k).label} x{n}: {kind(k).meaning})"
                if n > 1 else f"{title} repairs this itself on resume ({kind(k).label}: {kind(k).meaning})"
                for k, n in own.items()]
        for repair_claim in dict.fromkeys(c for _, _, c in handled):
            since = f" since {repair_claim.since}" if repair_claim.since else ""
            text = f"{title}{since} repairs this itself: it {repair_claim.does}"
            if not repair_claim.lossless:
                text += " (a placeholder, not the real result: the tool may already have run)"
            older = repair_claim.covers(version)
            if older is False and repair_claim.before:
                text += (f"; {title} before {repair_claim.since} (this file was written by {version}) "
                         f"{repair_claim.before}")
            elif older is None and repair_claim.since and repair_claim.before:
                text += f"; before {repair_claim.since} it {repair_claim.before}"
            said.append(text)
        sentence = "resumes: " + "; ".join(said) + tail
        status = AGENT_REPAIRS
    elif outcome.changed:
        checked = f"no rule of {target} that Inspector checks refuses it, but " if target else ""
        sentence = f"{checked}MEM-5 would change it{tail}"
        status = CHANGES
    else:
        # How the agent's own reader handles the file on resume (a Cline task's last call is
        # answered by Cline itself), said as it is, without alarm: the resume works.
        read = Counter(kind(e.kind).label for e in imported.events if e.stage == "import")
        sentence = "ok: nothing to do" + (f" (as {title} sends it: {_kinds(read)})" if read else "")
        status = OK
    by_agent = [{**row, "since": c.since, "does": c.does, "before": c.before, "source": c.source,
                 "lossless": c.lossless} for _, row, c in handled]
    return Verdict(status, sentence, target, version, rows, by_agent, repair)

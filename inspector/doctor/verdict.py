"""The doctor's words for the one resume verdict (``inspector.verdict``): its status tag and
sentence per row. Rendering only: what the agent sends, what the provider refuses and which
claims cover it are decided in ``inspector.verdict`` and nowhere here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import verdict as resume
from ..verdict import AGENT_REPAIRS, CHANGES, FAILS, OK, UNREADABLE
from .agents import Agent

__all__ = ["OK", "FAILS", "AGENT_REPAIRS", "CHANGES", "UNREADABLE", "STATUSES", "RowVerdict", "judge"]

# Worst first: the order the summary counts them in.
STATUSES = (FAILS, UNREADABLE, AGENT_REPAIRS, CHANGES, OK)


@dataclass(slots=True)
class RowVerdict:
    """One doctor row's verdict: its status tag (the resume verdict's, with ``changes`` for a
    session that resumes and that MEM-5 would still change) and its sentence."""

    status: str
    sentence: str
    target: str | None = None
    version: str | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)   # what the provider refuses, as sent
    repaired_by_agent: list[dict[str, Any]] = field(default_factory=list)
    repair: dict[str, int] = field(default_factory=dict)           # event kinds of Inspector's repair
    resume: resume.ResumeVerdict | None = None


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} x{n}" if n > 1 else k for k, n in counts.items())


def render(v: resume.ResumeVerdict) -> RowVerdict:
    """The doctor's row for a resume verdict."""
    if v.status == resume.UNREADABLE:
        return RowVerdict(UNREADABLE, v.sentence(), resume=v)
    status = v.row_status
    if status == OK:
        sentence = "ok: nothing to do" + (f" ({v.sentence()})" if v.claims or v.ran_on or v.providers else "")
    elif status == CHANGES:
        said = v.sentence()      # a history judged per provider already opens with what MEM-5 does
        sentence = said if v.per_provider else said + "; MEM-5 would change it"
    else:
        sentence = v.sentence()
    if v.repair and status != OK:
        sentence += f"; repair: {_kinds(v.repair)}"
    return RowVerdict(status, sentence, v.provider, v.version, [r.to_dict() for r in v.refusals],
                      [c.to_dict() for c in v.claims], dict(v.repair), v)


def judge(outcome: Any, agent: Agent | None = None) -> RowVerdict:
    """The row verdict on one session read by the pipeline (``inspector.pipeline.run``);
    the agent is its format's (``agent`` is kept for the callers that name it)."""
    return render(resume.resume_verdict(outcome))

"""The agents whose stores the doctor looks for, read from the formats.

Every fact about an agent is its store's format's (``Format.agent``: name, title, how to
resume a repaired copy, whether a session is a folder; ``Format.repairs``: what it repairs
itself on resume). This module only gathers them by agent, the formats of one store (Gemini
CLI's records and logs, Goose's database and JSONL) under one name, for the doctor's rows and
the README's tables of claims and of sources. Where each agent keeps its store is ``homes.py``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import formats
from ..formats import SelfRepair, Source

__all__ = ["AGENTS", "Agent", "SelfRepair", "agent_for_format", "claims_table", "sources_markdown", "sources_table"]


@dataclass(frozen=True, slots=True)
class Agent:
    """One agent and the formats that read its store (the first is its own)."""

    name: str
    title: str
    formats: tuple[str, ...]
    resume: str = ""
    folder: bool = False
    versions: str = ""
    built_from: tuple[Source, ...] = ()

    @property
    def format(self) -> str:
        return self.formats[0]

    @property
    def also(self) -> tuple[str, ...]:
        return self.formats[1:]

    @property
    def unreadable_note(self) -> str:
        """What the agent itself does with a file Inspector cannot read: its claims on a case
        no import event or provider rule finds (a line cut by an unclean shutdown)."""
        return "; ".join(f"{self.title} since {r.since} {r.does} ({r.source})" if r.since
                         else f"{self.title} {r.does} ({r.source})"
                         for r in self.repairs if r.kind is None and r.rule is None)

    @property
    def repairs(self) -> tuple[SelfRepair, ...]:
        """What the agent repairs itself, as its format states it."""
        return formats.self_repairs(self.format)


def _gather() -> dict[str, Agent]:
    out: dict[str, Agent] = {}
    for f in formats.REGISTRY.values():
        a = f.agent
        if a is None:
            continue
        known = out.get(a.name)
        out[a.name] = Agent(a.name, a.title, (*known.formats, f.name) if known else (f.name,), a.resume, a.folder,
                            a.versions, a.built_from)
    return out


AGENTS: dict[str, Agent] = _gather()


def agent_for_format(fmt: str) -> Agent | None:
    """The agent whose sessions ``fmt`` reads (None: a request body, or no agent's store)."""
    return next((a for a in AGENTS.values() if fmt in a.formats), None)


def claims_table() -> list[dict[str, str]]:
    """Every self-repair claim as rows (agent, rule or case, since, what it does, before,
    source), read from the formats: the README's table of what each agent repairs itself."""
    return [{"agent": a.title, "rule": r.rule or f"({r.kind or r.case})", "since": r.since or "every version read",
             "does": r.does, "before": r.before or "", "source": r.source}
            for a in AGENTS.values() for r in a.repairs]


def _at(source: Source, width: int = 12) -> str:
    """``repo @ commit``, or the repository with why no commit was read."""
    return f"{source.repo} @ {source.commit[:width]}" if source.commit else f"{source.repo} ({source.note})"


def _compact(sources: tuple[Source, ...]) -> str:
    """Each repository once, at the first commit declared for it, with how many more were read."""
    by_repo: dict[str, list[Source]] = {}
    for s in sources:
        by_repo.setdefault(s.repo, []).append(s)
    cells = []
    for repo, group in by_repo.items():
        others = len({s.commit for s in group[1:] if s.commit and s.commit != group[0].commit})
        cells.append(_at(group[0]) + (f" and {others} more commit{'s' if others != 1 else ''}" if others else ""))
    return "; ".join(cells)


def sources_table(full: bool = False) -> list[dict[str, str]]:
    """What each agent's store was built from, read from the formats (``Agent.built_from``): one
    row per agent (``agent``, ``versions``, ``source``: each repository at its first commit), the
    README's table; ``full``: one row per source, with its files and what was read there
    (``docs/stores.md``)."""
    if not full:
        return [{"agent": a.title, "versions": a.versions, "source": _compact(a.built_from)} for a in AGENTS.values()]
    return [{"agent": a.title if i == 0 else "", "versions": a.versions if i == 0 else "",
             "source": _at(s), "files": ", ".join(f"`{p}`" for p in s.paths), "note": s.note if s.commit else ""}
            for a in AGENTS.values() for i, s in enumerate(a.built_from)]


def sources_markdown(full: bool = False) -> str:
    """:func:`sources_table` as the Markdown table the README (or, ``full``, docs/stores.md) holds."""
    rows = sources_table(full)
    head = (["agent", "versions read", "source (repo @ commit)", "files", "what was read there"] if full
            else ["agent", "versions read", "source (repo @ commit)"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r.values()) + " |" for r in rows]
    return "\n".join(lines) + "\n"

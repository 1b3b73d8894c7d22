"""What each supported agent does with its own sessions: where it keeps them, how to resume a
repaired copy, and which breakages it repairs itself on resume.

What an agent repairs itself is a fact of its store's format, stated once there
(``Format.repairs``, :class:`~inspector.formats.SelfRepair`: agent, version, what it does,
what older versions did, and the source of the claim), as is the version that wrote a
session (``formats.on_resume``). This table only links each agent to its format, so that
``check``, ``doctor`` and the TUI say the same thing from the same claim.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import formats
from ..formats import SelfRepair

__all__ = ["AGENTS", "Agent", "SelfRepair", "agent_for_format", "claims_table"]


@dataclass(frozen=True, slots=True)
class Agent:
    name: str               # the doctor's own name for the agent (also its folder under --fix DIR)
    title: str
    format: str             # the format that reads its store: the one link to the formats, which hold the facts
    resume: str = ""
    unreadable_note: str = ""   # what the agent itself does with a file Inspector cannot read
    folder: bool = False        # the agent resumes the session file's whole folder (a Cline task)
    also: tuple[str, ...] = ()  # other formats of the same store (Gemini CLI's logs beside its records)

    @property
    def repairs(self) -> tuple[SelfRepair, ...]:
        """What the agent repairs itself, as its format states it (none: a store Inspector
        has no reader for yet)."""
        return formats.self_repairs(self.format)


AGENTS: dict[str, Agent] = {a.name: a for a in (
    Agent("claude-code", "Claude Code", "claude-code",
          "keep a copy of the original, put the repaired file in its place under the same name, then "
          "`claude --resume <session id>`",
          "Claude Code since 2.1.121 skips a line an unclean shutdown corrupted "
          "(anthropics/claude-code CHANGELOG.md @ 5cfc0a1905ce, 2.1.121)"),
    Agent("codex", "Codex CLI", "codex-rollout",
          "keep a copy of the original, put the repaired rollout in its place under the same name, then "
          "`codex resume <id>`"),
    Agent("gemini-cli", "Gemini CLI", "gemini-cli",
          resume="keep a copy of the original, write the repaired session over its name, then "
                 "`gemini --resume <session id>`",
          also=("gemini-cli-log",)),
    Agent("agents-sdk", "OpenAI Agents SDK", "agents-sqlite",
          resume="stop the program, move the database and its -wal and -shm aside (keep them: they are the "
                 "original), put the repaired database in its place with no -wal or -shm beside it (the copy "
                 "already holds the -wal's commits; a stale one would undo the repair), open the same session "
                 "id again"),
    Agent("opencode", "OpenCode", "opencode",
          resume="`OPENCODE_DB=<repaired .db> opencode -s <session id>`; or quit OpenCode, move opencode.db and "
                 "its -wal and -shm aside (keep them: they are the original), put the repaired database in its "
                 "place with no -wal or -shm beside it (the copy already holds the -wal's commits; a stale one "
                 "would undo the repair), then `opencode -s <session id>`"),
    Agent("cline", "Cline / Roo Code / Kilo Code", "cline",
          resume="quit VS Code, keep a copy of the original task folder, put the repaired one in its place, "
                 "reopen the task",
          folder=True),
    Agent("crush", "Crush", "crush",
          resume="quit Crush, keep a copy of .crush/crush.db, put the repaired database in its place "
                 "(and remove crush.db-wal and crush.db-shm: the copy already holds their commits, and a stale -wal "
                 "would undo the repair), then run `crush`"),
    Agent("goose", "Goose", "goose",
          resume="quit Goose, keep a copy of sessions.db, put the repaired database in its place (and remove "
                 "sessions.db-wal and sessions.db-shm: the copy already holds their commits, and a stale -wal would "
                 "undo the repair), then `goose session --resume --name <session id>`",
          also=("goose-jsonl",)),
)}


def agent_for_format(fmt: str) -> Agent | None:
    """The agent whose sessions ``fmt`` reads (None: a request body, or no agent's store)."""
    return next((a for a in AGENTS.values() if fmt == a.format or fmt in a.also), None)


def claims_table() -> list[dict[str, str]]:
    """Every self-repair claim as rows (agent, rule or case, since, what it does, before,
    source), read from the formats: the README's table of what each agent repairs itself."""
    return [{"agent": a.title, "rule": r.rule or f"({r.kind})", "since": r.since or "every version read",
             "does": r.does, "before": r.before or "", "source": r.source}
            for a in AGENTS.values() for r in a.repairs]

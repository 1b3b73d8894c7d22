"""What each supported agent does with its own sessions: where it keeps them, which version
wrote a file, how to resume a repaired copy, and which breakages it repairs itself on resume.

These are facts about the agents, read from their own source code or changelogs (each claim
names its source), not rules: the rules live in the engine and in the provider checks. The
doctor uses them to say what a resume of an unrepaired session really does, for the version
that wrote it and for the current one, instead of "the provider would refuse" everywhere.

Sources (repository, path, commit):
- Codex: openai/codex ``codex-rs/core/src/context_manager/normalize.rs`` @ e2478f96d6e6
  (``ensure_call_outputs_present`` inserts an ``"aborted"`` output after every call that has
  none; ``remove_orphan_outputs`` drops outputs whose call is gone), applied to the history
  before every request, so a rollout killed mid-command resumes.
- Claude Code: its source is not published, so every claim is its own CHANGELOG.md
  (anthropics/claude-code @ 5cfc0a1905ce): 2.1.69 "Fixed 'unexpected tool_use_id found in
  tool_result blocks' error when resuming conversations that start with an orphaned tool
  result"; 2.1.80 "Fixed --resume dropping parallel tool results ... instead of showing
  [Tool result missing] placeholders" (results that hang off their own one-block ``tool_use``
  line; issue 21 measured 12 of 47 published sessions); 2.1.121 "the corrupt line is now
  skipped" (a line cut by an unclean shutdown); 2.1.132 "pre-corrupted sessions are sanitized
  on load" (a lone surrogate, "no low surrogate in string"); 2.1.152 stale thinking-block
  signatures "now stripped proactively". Entries that fix how a file is written (2.1.218: no
  unpaired ``tool_use`` left when a tool aborts) say nothing of files already written, and
  2.1.21's "interrupted during tool execution" names no case precisely enough to claim.
- Crush: charmbracelet/crush ``internal/agent/agent.go`` @ 37f36e93824e (``preparePrompt``):
  ``filterOrphanedToolResults`` (since v0.57.0, commit c41a1a0e) leaves out results whose call
  is not in the session; ``syntheticToolResultsForOrphanedCalls`` (since v0.59.0, PR #2622,
  commit 1528c82f) sends an error result for a call that has none. The database records no
  Crush version.
- Goose's own repairs (``fix_conversation``) run inside what its format reads as sent
  (``inspector/formats/goose.py``), so no provider rule shows them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["AGENTS", "Agent", "SelfRepair", "agent_for_format", "claims_table", "version_at_least"]


@dataclass(frozen=True, slots=True)
class SelfRepair:
    """One breakage the agent repairs on its own when it resumes a session.

    ``rule`` is the provider check's rule name (``inspector.targets``) the breakage shows as;
    ``recovered`` says the claim is about results the import put back on the chain
    (``result-recovered``) rather than a rule. ``since`` is the first version that does it
    (``None``: every version whose source we read); ``before`` what older versions do instead.
    """

    rule: str
    since: str | None
    does: str
    before: str | None
    source: str
    lossless: bool          # the real result is kept (True) or a placeholder replaces it
    recovered: bool = False
    leading: bool = False   # only when the problem is the first message sent


@dataclass(frozen=True, slots=True)
class Agent:
    name: str               # the doctor's own name for the agent (also its folder under --fix DIR)
    title: str
    format: str             # the format that reads its store: the one link to the formats, which hold the facts
    repairs: tuple[SelfRepair, ...] = ()
    version: Callable[[Any], str | None] | None = None
    resume: str = ""
    unreadable_note: str = ""   # what the agent itself does with a file Inspector cannot read
    folder: bool = False        # the agent resumes the session file's whole folder (a Cline task)


def _claude_version(document: Any) -> str | None:
    """Claude Code writes its ``version`` on every conversation line: the last one wrote last."""
    for entry in reversed(getattr(document, "entries", None) or []):
        if isinstance(entry, dict) and isinstance(entry.get("version"), str):
            return entry["version"]
    return None


def _codex_version(document: Any) -> str | None:
    """Codex writes ``cli_version`` in the ``session_meta`` line that opens a rollout."""
    for entry in getattr(document, "entries", None) or []:
        if isinstance(entry, dict) and entry.get("type") == "session_meta":
            payload = entry.get("payload")
            if isinstance(payload, dict) and isinstance(payload.get("cli_version"), str):
                return payload["cli_version"]
    return None


CLAUDE_CHANGELOG = "anthropics/claude-code CHANGELOG.md @ 5cfc0a1905ce, "
CODEX_NORMALIZE = "openai/codex codex-rs/core/src/context_manager/normalize.rs @ e2478f96d6e6"
CRUSH_AGENT = "charmbracelet/crush internal/agent/agent.go @ 37f36e93 (preparePrompt),"

AGENTS: dict[str, Agent] = {a.name: a for a in (
    Agent("claude-code", "Claude Code", "claude-code", (
        SelfRepair("tool-use-without-result", "2.1.80",
                   "puts the parallel results that hang off their own tool_use lines back on the chain",
                   "sends a \"[Tool result missing]\" placeholder instead of the real result",
                   CLAUDE_CHANGELOG + "2.1.80", lossless=True, recovered=True),
        SelfRepair("result-without-tool-use", "2.1.69",
                   "leaves out the orphaned tool result a conversation starts with",
                   "sends it, and the provider refuses it", CLAUDE_CHANGELOG + "2.1.69", lossless=True, leading=True),
        SelfRepair("lone-surrogate", "2.1.132", "sanitizes the half of a split emoji on load",
                   "sends it, and the request fails (\"no low surrogate in string\")",
                   CLAUDE_CHANGELOG + "2.1.132", lossless=True),
        SelfRepair("signature-other-model", "2.1.152",
                   "strips thinking-block signatures left by another model or login",
                   "sends them, and the session gets stuck", CLAUDE_CHANGELOG + "2.1.152", lossless=True),
    ), _claude_version,
        "put the repaired file in place of the original under the same name, then `claude --resume <session id>`",
        "Claude Code since 2.1.121 skips a line an unclean shutdown corrupted (" + CLAUDE_CHANGELOG + "2.1.121)"),
    Agent("codex", "Codex CLI", "codex-rollout", (
        SelfRepair("call-without-output", None,
                   "sends an \"aborted\" output for every call that has none",
                   None, CODEX_NORMALIZE, lossless=False),
        SelfRepair("output-without-call", None,
                   "leaves out every output whose call is not in the history",
                   None, CODEX_NORMALIZE, lossless=True),
    ), _codex_version,
        "put the repaired rollout in place of the original under the same name, then `codex resume <id>`"),
    Agent("gemini-cli", "Gemini CLI", "gemini-cli",
          resume="write the repaired session over the original's name, then `gemini --resume <session id>`"),
    Agent("agents-sdk", "OpenAI Agents SDK", "agents-sqlite",
          resume="stop the program, move the repaired database into place, open the same session id again"),
    Agent("opencode", "OpenCode", "opencode",
          resume="`OPENCODE_DB=<repaired .db> opencode -s <session id>`, or quit OpenCode and put it in place"),
    Agent("cline", "Cline / Roo Code / Kilo Code", "cline",
          resume="quit VS Code, put the repaired task folder in place of the original, reopen the task",
          folder=True),
    Agent("crush", "Crush", "crush", (
        SelfRepair("tool-use-without-result", "0.59.0",
                   "sends an error result of its own for a call left without a result",
                   "sends the call unanswered, and the provider refuses it",
                   CRUSH_AGENT + " syntheticToolResultsForOrphanedCalls (PR #2622)", lossless=False),
        SelfRepair("result-without-tool-use", "0.57.0", "leaves out a result that answers no call",
                   "sends it, and the provider refuses it", CRUSH_AGENT + " filterOrphanedToolResults",
                   lossless=True),
    ), resume="quit Crush, keep a copy of .crush/crush.db, put the repaired database in its place "
              "(and remove crush.db-wal and crush.db-shm), then run `crush`"),
    Agent("goose", "Goose", "goose",
          resume="quit Goose, keep a copy of sessions.db, put the repaired database in its place (and remove "
                 "sessions.db-wal and sessions.db-shm), then `goose session --resume --name <session id>`"),
)}


def agent_for_format(fmt: str) -> Agent | None:
    """The agent whose sessions ``fmt`` reads (None: a request body, or no agent's store)."""
    return next((a for a in AGENTS.values() if a.format == fmt), None)


def _key(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        digits = "".join(c for c in piece if c.isdigit()) or "0"
        parts.append(int(digits))
    return tuple(parts)


def version_at_least(version: str | None, since: str | None) -> bool | None:
    """Whether ``version`` is ``since`` or later (None: the file does not say which version wrote it)."""
    if since is None:
        return True
    if version is None:
        return None
    return _key(version) >= _key(since)


def claims_table() -> list[dict[str, str]]:
    """Every self-repair claim as rows (agent, rule, since, what it does, before, source): the
    README's table of what each agent repairs itself."""
    return [{"agent": a.title, "rule": r.rule, "since": r.since or "every version read",
             "does": r.does, "before": r.before or "", "source": r.source}
            for a in AGENTS.values() for r in a.repairs]

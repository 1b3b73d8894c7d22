"""Where each agent keeps its sessions on this machine, and the session files found there.

Each home is read from the agent's own source (repository, path, commit):

- Claude Code: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, then ``projects/<project>/*.jsonl``
  and the sub-agent transcripts under ``<session>/subagents/`` (source not published; the
  layout is the one its documentation and every published session show).
- Codex: ``$CODEX_HOME`` or ``~/.codex`` (openai/codex ``codex-rs/utils/home-dir/src/lib.rs``
  @ 69a3f82e6242, ``find_codex_home``), then ``sessions/YYYY/MM/DD/rollout-*.jsonl``
  (``codex-rs/core/src/rollout/recorder.rs`` @ 035416bfd9b7, ``precompute_log_file_info``)
  and ``archived_sessions/``, each also as ``rollout-*.jsonl.zst`` once idle for seven days
  (``codex-rs/rollout/src/compression.rs`` @ 3846901efe60: the plain file wins when both exist).
- Gemini CLI: ``$GEMINI_CLI_HOME`` or the home folder, then ``.gemini/tmp/<project>/chats/``
  (google-gemini/gemini-cli ``packages/core/src/config/storage.ts`` @ 043a08807bd3,
  ``getGlobalTempDir``; ``packages/core/src/services/chatRecordingService.ts`` @ 016443b5e7bf:
  ``session-<time>-<id>.jsonl``, older ``.json``, sub-agents in ``chats/<parent id>/``), and the
  ``/chat save`` checkpoints ``<project>/checkpoint-<tag>.json`` (``packages/core/src/core/logger.ts``
  @ 04fbf50725b9, ``_checkpointPath``).
- OpenCode: ``$XDG_DATA_HOME/opencode/`` (``~/.local/share/opencode``): ``opencode.db``,
  ``opencode-<channel>.db``, ``$OPENCODE_DB``, the older ``storage/`` tree
  (anomalyco/opencode ``packages/opencode/src/storage/db.ts``, ``json-migration.ts`` @ 0a8a0ed8bb79).
- Cline, Roo Code, Kilo Code: ``<VS Code user folder>/globalStorage/<extension id>/tasks/<task>/``
  for ``saoudrizwan.claude-dev``, ``rooveterinaryinc.roo-cline``, ``kilocode.kilo-code``, in
  VS Code, Insiders, VSCodium and Cursor, on Linux, macOS and Windows; Cline 4's ``~/.cline/data``
  (``$CLINE_DATA_DIR``) (cline/cline ``apps/vscode/src/sdk/legacy-state-reader.ts`` @ db6d18a98a34).
- Crush: its project registry ``projects.json`` in ``$CRUSH_GLOBAL_DATA``, ``$XDG_DATA_HOME/crush``
  or ``~/.local/share/crush`` (``%LOCALAPPDATA%\\crush``), each project's ``data_dir`` holding
  ``crush.db`` (charmbracelet/crush ``internal/projects/projects.go`` @ 127ce367ca62,
  ``internal/config/load.go`` ``GlobalConfigData``), and ``.crush/crush.db`` in the current folder;
  also ``.opencode/opencode.db`` there, the Go OpenCode's database (opencode-ai/opencode, which
  became Crush, with the schema Crush's first migration still creates).
- Goose: ``$GOOSE_PATH_ROOT/data`` or ``$XDG_DATA_HOME/goose`` (``%APPDATA%\\Block\\goose\\data``),
  then ``sessions/sessions.db`` and the older ``sessions/*.jsonl`` (block/goose
  ``crates/goose/src/config/paths.rs`` @ 0780e228ca96; ``session/session_manager.rs``
  ``SESSIONS_FOLDER``, ``DB_NAME``).
- Copilot CLI: ``$COPILOT_HOME`` or ``~/.copilot``, then ``session-state/<session id>/events.jsonl``
  (docs.github.com "Copilot CLI configuration directory": ``session-state/``; ``COPILOT_HOME``
  moves the whole folder, github/copilot-cli #1954); before 1.0 (0.0.421 and earlier) the CLI
  honoured ``$XDG_CONFIG_HOME/.copilot`` too, read when that variable is set.
- pi, oh-my-pi, OpenClaw: ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent`` (``$OMP_CODING_AGENT_DIR``
  or ``~/.omp/agent``), then ``sessions/--<cwd>--/*.jsonl`` (badlogic/pi-mono
  ``packages/coding-agent/src/config.ts`` @ 83378aad, ``getAgentDir``; ``session-manager.ts``
  ``getDefaultSessionDir``); OpenClaw's ``~/.openclaw/agents/<agent>/sessions/*.jsonl`` (legacy
  ``~/.clawdbot/agents``) and ``agents/<agent>/agent/openclaw-agent.sqlite`` (openclaw/openclaw
  ``src/state/openclaw-agent-db-contract.ts`` @ 040e1a76).
- The Agents SDK keeps its database wherever the program says: only folders given are read.

The environment (``HOME``, ``XDG_*``, ``APPDATA`` and the agents' own variables) and the
current folder are passed in, so the tests scan a fake home.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping

from ..formats import shadowed
from ..io import InputError, parse_json, read_bytes

__all__ = ["Home", "codex_home", "known_homes", "vscode_user_dirs"]

CLINE_EXTENSIONS = ("saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code")
VSCODE_PRODUCTS = ("Code", "Code - Insiders", "VSCodium", "Cursor")


@dataclass(slots=True)
class Home:
    """One place an agent keeps sessions: ``root`` (a folder, or one database file), where it
    was taken from (``via``: the variable that set it, or ``default``) and the glob patterns,
    relative to ``root``, of the session files the agent writes there."""

    agent: str
    root: Path
    via: str
    patterns: tuple[str, ...] = ()
    note: str = ""
    extra: list[Path] = field(default_factory=list)   # single files found by the home's own logic

    @property
    def exists(self) -> bool:
        return self.root.exists()

    def files(self) -> Iterator[Path]:
        """The session files under this home, each once, in no particular order."""
        seen: set[Path] = set()
        if self.root.is_file():
            seen.add(self.root)
            yield self.root
        elif self.root.is_dir():
            for pattern in self.patterns:
                for path in sorted(self.root.glob(pattern)):
                    if path.is_file() and path not in seen and ".repaired." not in path.name \
                            and not shadowed(path):
                        seen.add(path)
                        yield path
        for path in self.extra:
            if path.is_file() and path not in seen:
                seen.add(path)
                yield path


def _get(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    return value if value else None


def _home(env: Mapping[str, str]) -> Path:
    return Path(_get(env, "HOME") or _get(env, "USERPROFILE") or os.path.expanduser("~"))


def _xdg(env: Mapping[str, str], name: str, default: str) -> tuple[Path, str]:
    value = _get(env, name)
    if value and os.path.isabs(value):        # the XDG spec ignores a relative value
        return Path(value), name
    return _home(env) / default, "default"


def vscode_user_dirs(env: Mapping[str, str]) -> Iterator[tuple[Path, str]]:
    """Every VS Code (and Insiders, VSCodium, Cursor) user folder this machine may have, with
    the layout it belongs to: Linux ``$XDG_CONFIG_HOME``, macOS ``Library/Application Support``,
    Windows ``%APPDATA%``."""
    config, via = _xdg(env, "XDG_CONFIG_HOME", ".config")
    mac = _home(env) / "Library" / "Application Support"
    appdata = _get(env, "APPDATA")
    for product in VSCODE_PRODUCTS:
        yield config / product / "User", via
        yield mac / product / "User", "default"
        if appdata:
            yield Path(appdata) / product / "User", "APPDATA"


def _crush_dbs(registry: Path) -> list[Path]:
    """The databases Crush's project registry lists (``data_dir`` of each project)."""
    try:
        listing = parse_json(read_bytes(registry), str(registry))
    except (OSError, InputError):
        return []
    projects = listing.get("projects") if isinstance(listing, dict) else None
    out = []
    for project in projects if isinstance(projects, list) else []:
        if isinstance(project, dict) and isinstance(project.get("data_dir"), str):
            out.append(Path(project["data_dir"]) / "crush.db")
    return out


def known_homes(env: Mapping[str, str] | None = None, cwd: str | os.PathLike | None = None) -> list[Home]:
    """Every home of every supported agent, whether it exists or not (the report says which)."""
    env = os.environ if env is None else env
    cwd = Path(os.getcwd() if cwd is None else cwd)
    home = _home(env)
    homes: list[Home] = []

    claude = _get(env, "CLAUDE_CONFIG_DIR")
    homes.append(Home("claude-code", Path(claude) if claude else home / ".claude",
                      "CLAUDE_CONFIG_DIR" if claude else "default",
                      ("projects/*/*.jsonl", "projects/*/*/subagents/*.jsonl")))

    codex_root, via = codex_home(env)
    # rollout-*.jsonl* as Codex lists them: the plain file, or the .jsonl.zst its worker leaves
    # after seven idle days (Home.files lists a .zst only when no plain sibling hides it).
    rollouts = ("**/rollout-*.jsonl", "**/rollout-*.jsonl.zst")
    homes.append(Home("codex", codex_root / "sessions", via, rollouts))
    homes.append(Home("codex", codex_root / "archived_sessions", via, rollouts, note="archived"))

    gemini = _get(env, "GEMINI_CLI_HOME")
    homes.append(Home("gemini-cli", (Path(gemini) if gemini else home) / ".gemini" / "tmp",
                      "GEMINI_CLI_HOME" if gemini else "default",
                      ("*/chats/*.json", "*/chats/*.jsonl", "*/chats/*/*.json", "*/chats/*/*.jsonl",
                       "*/checkpoint-*.json")))

    data, via = _xdg(env, "XDG_DATA_HOME", ".local/share")
    opencode = data / "opencode"
    homes.append(Home("opencode", opencode, via, ("opencode.db", "opencode-*.db")))
    homes.append(Home("opencode", opencode / "storage", via, ("session/*/*.json",), note="storage tree"))
    db = _get(env, "OPENCODE_DB")
    if db and db != ":memory:":
        homes.append(Home("opencode", Path(db) if os.path.isabs(db) else opencode / db, "OPENCODE_DB"))

    for user, where in vscode_user_dirs(env):
        for ext in CLINE_EXTENSIONS:
            homes.append(Home("cline", user / "globalStorage" / ext / "tasks", where,
                              ("*/api_conversation_history.json",), note=ext))
    cline = _get(env, "CLINE_DATA_DIR")
    cline_dir = _get(env, "CLINE_DIR")
    homes.append(Home("cline", Path(cline) / "tasks" if cline else (Path(cline_dir) / "data" / "tasks" if cline_dir
                      else home / ".cline" / "data" / "tasks"),
                      "CLINE_DATA_DIR" if cline else ("CLINE_DIR" if cline_dir else "default"),
                      ("*/api_conversation_history.json",), note="cline 4"))

    crush_data = _get(env, "CRUSH_GLOBAL_DATA")
    if crush_data:
        registry, via = Path(crush_data) / "projects.json", "CRUSH_GLOBAL_DATA"
    elif _get(env, "LOCALAPPDATA") and not _get(env, "XDG_DATA_HOME"):
        registry, via = Path(env["LOCALAPPDATA"]) / "crush" / "projects.json", "LOCALAPPDATA"
    else:
        registry, via = data / "crush" / "projects.json", via_data(env)
    homes.append(Home("crush", registry.parent, via, (), note="project registry", extra=_crush_dbs(registry)))
    homes.append(Home("crush", cwd / ".crush", "current folder", ("crush.db",)))
    # The Go OpenCode that became Crush kept its database in .opencode/opencode.db, with the
    # schema Crush still has: read as Crush's predecessor.
    homes.append(Home("crush", cwd / ".opencode", "current folder (the Go OpenCode, Crush's predecessor)",
                      ("opencode.db",)))

    copilot = _get(env, "COPILOT_HOME")
    homes.append(Home("copilot-cli", (Path(copilot) if copilot else home / ".copilot") / "session-state",
                      "COPILOT_HOME" if copilot else "default", ("*/events.jsonl",)))
    xdg_config = _get(env, "XDG_CONFIG_HOME")
    if xdg_config and os.path.isabs(xdg_config):
        homes.append(Home("copilot-cli", Path(xdg_config) / ".copilot" / "session-state", "XDG_CONFIG_HOME",
                          ("*/events.jsonl",), note="0.0.421 and earlier"))

    goose_root = _get(env, "GOOSE_PATH_ROOT")
    if goose_root and os.path.isabs(goose_root):
        goose, via = Path(goose_root) / "data", "GOOSE_PATH_ROOT"
    elif _get(env, "APPDATA") and not _get(env, "XDG_DATA_HOME") and not (home / ".local" / "share" / "goose").exists():
        goose, via = Path(env["APPDATA"]) / "Block" / "goose" / "data", "APPDATA"
    else:
        goose, via = data / "goose", via_data(env)
    homes.append(Home("goose", goose / "sessions", via, ("sessions.db", "*.jsonl")))

    # pi and oh-my-pi: ``$<APP>_CODING_AGENT_DIR`` or ``~/.<configDir>/agent``, then
    # ``sessions/--<cwd>--/<time>_<uuid>.jsonl``; OpenClaw: ``agents/<agent>/sessions/<id>.jsonl``
    # (``~/.clawdbot`` before the rename) and, since 2026.9.2, one database per agent.
    for app, folder in (("PI", ".pi"), ("OMP", ".omp")):
        agent_dir = _get(env, f"{app}_CODING_AGENT_DIR")
        homes.append(Home("pi", (Path(agent_dir) if agent_dir else home / folder / "agent") / "sessions",
                          f"{app}_CODING_AGENT_DIR" if agent_dir else "default", ("*/*.jsonl",),
                          note="oh-my-pi" if app == "OMP" else ""))
    for folder in (".openclaw", ".clawdbot"):
        homes.append(Home("openclaw", home / folder / "agents", "default",
                          ("*/sessions/*.jsonl", "*/agent/openclaw-agent.sqlite"),
                          note="OpenClaw" if folder == ".openclaw" else "OpenClaw before the rename (Clawdbot)"))
    return homes


def codex_home(env: Mapping[str, str]) -> tuple[Path, str]:
    """Codex's home and where it was taken from: ``$CODEX_HOME``, else ``~/.codex``."""
    codex = _get(env, "CODEX_HOME")
    return (Path(codex), "CODEX_HOME") if codex else (_home(env) / ".codex", "default")


def via_data(env: Mapping[str, str]) -> str:
    return "XDG_DATA_HOME" if _xdg(env, "XDG_DATA_HOME", ".local/share")[1] != "default" else "default"

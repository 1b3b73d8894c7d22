"""A fake machine with sessions of every agent in the places each agent writes them, built
from the session builders of tests/sessions (so each file is what the agent writes), and the
verdict each one must get."""

from __future__ import annotations

import json
import os
from pathlib import Path

from sessions import agents_builder, codex_builder, crush_builder, gemini_builder, goose_builder, opencode_builder
from sessions import scenarios
from sessions.claude_builder import Session, text, tool  # noqa: F401 (Session, text: used by the tests)

PROJECT = "-home-dana-shop"
CLAUDE_ID = "7d9f2c1e-4b8a-4e55-9a01-3c2b6f0e8d14"


def off_chain(version: str) -> bytes:
    """Parallel results hung off their own tool_use lines (Claude Code 2.1.x's layout)."""
    s = Session(version=version)
    scenarios.opening(s)
    a1, a2 = s.assistant("msg_01F8oc1", tool("toolu_01Cart", "cat shop/cart.py"), tool("toolu_01Tax", "cat shop/tax.py"))
    s.result("toolu_01Cart", "def total(items): ...", parent=a1["uuid"])
    s.result("toolu_01Tax", "RATE = 0.2", parent=a2["uuid"])
    s.assistant("msg_01F9oc2", text("total() rounds to one decimal."))
    return s.data()


def subagent() -> bytes:
    s = Session()
    s.sidechain("Search the repo for rounding helpers")
    return s.data()


def _write(path: Path, data: bytes, minute: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    stamp = 1_760_000_000 + minute * 60
    os.utime(path, (stamp, stamp))
    return path


def build(home: Path, cwd: Path) -> dict[str, str]:
    """Lay out the fake machine; returns {path relative to home or cwd: expected status}."""
    expected: dict[str, str] = {}

    def put(rel: str, data: bytes, minute: int, status: str, base: Path = home) -> Path:
        expected[rel] = status
        return _write(base / rel, data, minute)

    projects = f".claude/projects/{PROJECT}"
    put(f"{projects}/{CLAUDE_ID}.jsonl", scenarios.crash_missing_result(), 1, "fails")
    put(f"{projects}/0a1b2c3d-0000-4000-8000-000000000001.jsonl", scenarios.split_and_clean(), 2, "ok")
    put(f"{projects}/0a1b2c3d-0000-4000-8000-000000000002.jsonl", off_chain("2.0.14"), 3, "agent-repairs")
    put(f"{projects}/0a1b2c3d-0000-4000-8000-000000000003.jsonl", off_chain("2.1.90"), 4, "agent-repairs")
    put(f"{projects}/{CLAUDE_ID}/subagents/agent-a3f2c1d0.jsonl", subagent(), 5, "ok")
    put(f"{projects}/0a1b2c3d-0000-4000-8000-000000000004.jsonl", b'{"type": "user", "message": \n', 6, "unreadable")

    day = ".codex/sessions/2025/10/12"
    put(f"{day}/rollout-2025-10-12T09-14-03-{codex_builder.SESSION}.jsonl", codex_builder.crash_missing_output(), 7,
        "agent-repairs")
    put(f"{day}/rollout-2025-10-12T10-00-00-0199d3f2-7c1e-7a40-9b6e-5d2f8e3c1a08.jsonl", codex_builder.duplicate_output(),
        8, "changes")
    put(f"{day}/rollout-2025-10-12T11-00-00-0199d3f2-7c1e-7a40-9b6e-5d2f8e3c1a09.jsonl", codex_builder.clean(), 9, "ok")

    chats = ".gemini/tmp/" + "c0ffee" * 8 + "/chats"
    put(f"{chats}/session-2025-10-12T09-10-8e1f5c2a.json", gemini_builder.crash_lost_response(), 10, "fails")
    put(f"{chats}/session-2025-10-12T09-50-9a2b3c4d.json", gemini_builder.clean(), 11, "ok")
    checkpoint = {"history": gemini_builder.client_history(json.loads(gemini_builder.crash_lost_response()))}
    put(".gemini/tmp/" + "c0ffee" * 8 + "/checkpoint-before-export.json", json.dumps(checkpoint, indent=2).encode(),
        11, "fails")

    # OpenCode answers a call its crash left running with a result of its own: the resume works.
    opencode = home / ".local/share/opencode"
    opencode.mkdir(parents=True, exist_ok=True)
    opencode_builder.write_db(opencode / "opencode.db", opencode_builder.crash_running())
    _write(opencode / "opencode.db", (opencode / "opencode.db").read_bytes(), 12)
    expected[".local/share/opencode/opencode.db"] = "agent-repairs"   # OpenCode answers its running call itself
    opencode_builder.write_db(opencode / "opencode-dev.db", opencode_builder.duplicate_call())
    _write(opencode / "opencode-dev.db", (opencode / "opencode-dev.db").read_bytes(), 12)
    expected[".local/share/opencode/opencode-dev.db"] = "fails"   # two parts under one id in one message: Anthropic refuses (opencode#1279)
    task = ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1760260800000"
    put(f"{task}/api_conversation_history.json", json.dumps(
        [{"role": "user", "content": [{"type": "text", "text": "<task>List the tests</task>"}], "ts": 1760260800000}]
    ).encode(), 13, "store")
    # Goose: a call id the provider reused (#11823) is refused; a request its crash
    # left unanswered in an older .jsonl session is left out by Goose itself (fix_conversation).
    goose = home / ".local/share/goose/sessions"
    goose.mkdir(parents=True, exist_ok=True)
    goose_builder.write_db(goose / "sessions.db", {"20261201_1": goose_builder.redeclared()})
    _write(goose / "sessions.db", (goose / "sessions.db").read_bytes(), 14)
    expected[".local/share/goose/sessions/sessions.db"] = "fails"
    goose_builder.write_jsonl(goose / "20250601_3.jsonl", goose_builder.crash())
    _write(goose / "20250601_3.jsonl", (goose / "20250601_3.jsonl").read_bytes(), 14)
    expected[".local/share/goose/sessions/20250601_3.jsonl"] = "agent-repairs"   # Goose drops the call itself
    registry = home / ".local/share/crush/projects.json"
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_text(json.dumps({"projects": [{"path": str(cwd), "data_dir": str(cwd / ".crush"),
                                                  "last_accessed": "2025-10-12T09:00:00Z"}]}))
    # Crush killed during a call: current Crush answers the call itself (since 0.59.0).
    (cwd / ".crush").mkdir(parents=True, exist_ok=True)
    crush_builder.write_db(cwd / ".crush/crush.db", {"ses-crash": crush_builder.crash()})
    _write(cwd / ".crush/crush.db", (cwd / ".crush/crush.db").read_bytes(), 15)
    expected[".crush/crush.db"] = "agent-repairs"

    # The Agents SDK has no home: a database in a project folder is found only when the folder is given.
    app = cwd / "app"
    app.mkdir(parents=True, exist_ok=True)
    agents_builder.make(app / "conversations.db", {"user-42": agents_builder.orphan_output(),
                                                    "user-43": agents_builder.clean()})
    return expected


def env_for(home: Path) -> dict[str, str]:
    return {"HOME": str(home)}


def tree_hashes(*roots: Path) -> dict[str, bytes]:
    out = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                out[str(path)] = path.read_bytes()
    return out

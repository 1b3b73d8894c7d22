"""Copilot CLI sessions written as Copilot CLI writes ``events.jsonl``: one compact JSON event
per line, ``{type, data, id, timestamp, parentId}``, each ``parentId`` the event before it
(github/copilot-sdk ``nodejs/src/generated/session-events.ts`` at cc0438d66e3e; the real files in
microsoft/vscode-copilot-chat ``src/extension/agents/copilotcli/node/test/fixtures/`` at
417210375b57). Scenarios: the published shapes, and the breaks github/copilot-cli reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

SESSION = "5f0c6a1e-3b7d-4c2a-9e41-8d2f7b6a0c13"


class Log:
    """Events appended in order; every event gets the next id and points at the one before."""

    def __init__(self, version: str = "1.0.44", model: str | None = "claude-sonnet-4.5") -> None:
        self.events: list[dict[str, Any]] = []
        start: dict[str, Any] = {"sessionId": SESSION, "version": 1, "producer": "copilot-agent",
                                 "copilotVersion": version, "startTime": self.stamp(0)}
        if model:
            start["selectedModel"] = model
        self.add("session.start", start)

    @staticmethod
    def stamp(n: int) -> str:
        return f"2026-11-03T09:{n // 60:02d}:{n % 60:02d}.000Z"

    def add(self, kind: str, data: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
        n = len(self.events)
        event: dict[str, Any] = {"type": kind, "data": data, "id": f"00000000-0000-4000-8000-{n:012d}",
                                 "timestamp": self.stamp(n), "parentId": self.events[-1]["id"] if self.events else None}
        if agent:
            event["agentId"] = agent
        self.events.append(event)
        return event

    def user(self, text: str) -> None:
        self.add("user.message", {"content": text, "attachments": []})

    def assistant(self, text: str, *calls: tuple[str, str, dict], agent: str | None = None, parent: str | None = None,
                  **extra: Any) -> None:
        data: dict[str, Any] = {"messageId": f"m-{len(self.events)}", "content": text,
                                "toolRequests": [{"toolCallId": c, "name": n, "arguments": a} for c, n, a in calls]}
        if parent:
            data["parentToolCallId"] = parent
        data.update(extra)
        self.add("assistant.message", data, agent)

    def start(self, call: str, name: str, agent: str | None = None) -> None:
        self.add("tool.execution_start", {"toolCallId": call, "toolName": name, "arguments": {}}, agent)

    def done(self, call: str, text: str, agent: str | None = None, parent: str | None = None) -> None:
        data: dict[str, Any] = {"toolCallId": call, "success": True, "result": {"content": text}}
        if parent:
            data["parentToolCallId"] = parent
        self.add("tool.execution_complete", data, agent)

    def failed(self, call: str, message: str) -> None:
        self.add("tool.execution_complete", {"toolCallId": call, "success": False, "error": {"message": message}})

    def compact(self, count: int, summary: str) -> None:
        self.add("session.compaction_start", {})
        self.add("session.compaction_complete", {"success": True, "preCompactionMessagesLength": count,
                                                 "summaryContent": summary})

    def bytes(self) -> bytes:
        return b"".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
                        for e in self.events)


def write(path: Path, log: Log) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(log.bytes())
    return path


def clean() -> Log:
    log = Log()
    log.user("What does cart.py do?")
    log.assistant("I'll read it.", ("toolu_01", "view", {"path": "cart.py"}))
    log.start("toolu_01", "view")
    log.done("toolu_01", "def total(items): ...")
    log.assistant("It sums the cart.")
    return log


def interrupted() -> Log:
    """A run killed while a tool ran: the call has its start and no completion (copilot-cli #3366)."""
    log = clean()
    log.user("Run the tests.")
    log.assistant("Running them.", ("toolu_02", "bash", {"command": "pytest"}), ("toolu_03", "view", {"path": "x"}))
    log.start("toolu_02", "bash")
    log.start("toolu_03", "view")
    log.done("toolu_03", "x")
    log.add("session.resume", {"resumeTime": Log.stamp(59), "eventCount": len(log.events)})
    log.user("Did they pass?")
    return log


def late() -> Log:
    """A result written after the next user message (an interleaved turn, copilot-cli #2323)."""
    log = clean()
    log.assistant("Checking.", ("toolu_04", "bash", {"command": "ls"}))
    log.start("toolu_04", "bash")
    log.user("Also check the docs.")
    log.done("toolu_04", "README.md")
    log.assistant("Done.")
    return log


def orphan() -> Log:
    """A completion whose request the session does not hold."""
    log = clean()
    log.done("toolu_99", "stray")
    log.user("Next?")
    return log


def subagent() -> Log:
    """A sub-agent's turns interleaved with the main one's (copilot-cli #2323, #2543): its events
    carry ``agentId`` and ``parentToolCallId``; the main conversation is whole without them."""
    log = clean()
    log.user("Find every caller.")
    log.assistant("Delegating.", ("toolu_05", "task", {"agent_type": "explore"}))
    log.start("toolu_05", "task")
    log.add("subagent.started", {"toolCallId": "toolu_05", "agentName": "explore", "agentDisplayName": "Explore",
                                 "agentDescription": "explores"})
    log.assistant("Searching.", ("call_s1", "grep", {"pattern": "total"}), agent="explore-1", parent="toolu_05")
    log.done("call_s1", "cart.py:8", agent="explore-1", parent="toolu_05")
    log.assistant("Searching more.", ("call_s2", "grep", {"pattern": "sum"}), agent="explore-1", parent="toolu_05")
    log.done("toolu_05", "cart.py:8 only")
    log.assistant("One caller.")
    return log


def compacted() -> Log:
    """A compaction whose summary stands for the first four messages; one call after it is cut."""
    log = clean()
    log.compact(4, "The user asked about cart.py; it sums the cart.")
    log.user("Now fix rounding.")
    log.assistant("Editing.", ("toolu_06", "edit", {"path": "cart.py"}))
    log.start("toolu_06", "edit")
    return log


def reasoning() -> Log:
    log = Log(model="claude-opus-4.5")
    log.user("Hi")
    log.assistant("Hello.", reasoningOpaque="EqQBCkgIARABGAIiQE", reasoningText="Greet back.", model="claude-opus-4.5")
    return log


def fixed() -> Log:
    """An interrupted call in a session written by Copilot CLI 1.0.80, which answers it itself."""
    log = interrupted()
    log.events[0]["data"]["copilotVersion"] = "1.0.80"
    return log


ALL: dict[str, Callable[[], Log]] = {"clean": clean, "interrupted": interrupted, "late": late, "orphan": orphan,
                                     "subagent": subagent, "compacted": compacted, "reasoning": reasoning,
                                     "fixed": fixed}

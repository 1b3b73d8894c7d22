"""Claude Code session files built the way Claude Code writes them (key order, one content
block per assistant line, results on user lines with ``toolUseResult``), so the tests can
break them in each way the issue lists."""

from __future__ import annotations

import uuid as uuidlib
from typing import Any

import orjson

SESSION = "7d9f2c1e-4b8a-4e55-9a01-3c2b6f0e8d14"
CWD = "/home/dana/shop"


class Session:
    def __init__(self, session: str = SESSION, version: str = "2.0.14") -> None:
        self.session = session
        self.version = version
        self.lines: list[dict[str, Any]] = []
        self.last: str | None = None
        self.n = 0
        self.minute = 0

    def _uuid(self) -> str:
        self.n += 1
        return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"{self.session}/{self.n}"))

    def _stamp(self) -> str:
        self.minute += 1
        return f"2025-10-12T09:{self.minute // 60 + 10:02d}:{self.minute % 60:02d}.000Z"

    def _head(self, parent: Any, sidechain: bool = False) -> dict[str, Any]:
        return {"parentUuid": parent, "isSidechain": sidechain, "userType": "external", "cwd": CWD,
                "sessionId": self.session, "version": self.version, "gitBranch": "main"}

    def _add(self, entry: dict[str, Any], chain: bool = True) -> dict[str, Any]:
        self.lines.append(entry)
        if chain:
            self.last = entry["uuid"]
        return entry

    def user(self, content: Any, parent: Any = "last", **extra: Any) -> dict[str, Any]:
        parent = self.last if parent == "last" else parent
        entry = {**self._head(parent), "type": "user", "message": {"role": "user", "content": content},
                 "uuid": self._uuid(), "timestamp": self._stamp(), **extra}
        return self._add(entry)

    def result(self, tool_id: str, text: str, parent: Any = "last", error: bool = False) -> dict[str, Any]:
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": text, "is_error": error}
        return self.user([block], parent, toolUseResult={"stdout": text, "stderr": "", "interrupted": False,
                                                         "isImage": False})

    def assistant(self, msg_id: str, *blocks: dict[str, Any], parent: Any = "last") -> list[dict[str, Any]]:
        """One API message, written one block per line (each line chained to the one before)."""
        out = []
        for block in blocks:
            p = self.last if parent == "last" else parent
            parent = "last"
            entry = {**self._head(p), "message": {
                "model": "claude-sonnet-4-5-20250929", "id": msg_id, "type": "message", "role": "assistant",
                "content": [block], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 4, "cache_creation_input_tokens": 311, "cache_read_input_tokens": 15872,
                          "output_tokens": 9, "service_tier": "standard"}},
                "requestId": "req_011CU" + msg_id[-8:], "type": "assistant", "uuid": self._uuid(),
                "timestamp": self._stamp()}
            out.append(self._add(entry))
        return out

    def sidechain(self, text: str) -> dict[str, Any]:
        entry = {**self._head(None, sidechain=True), "agentId": "a3f2c1d0", "type": "user",
                 "message": {"role": "user", "content": text}, "uuid": self._uuid(), "timestamp": self._stamp()}
        return self._add(entry, chain=False)

    def summary(self, text: str) -> dict[str, Any]:
        return self._add({"type": "summary", "summary": text, "leafUuid": self.last}, chain=False)

    def snapshot(self) -> dict[str, Any]:
        mid = self._uuid()
        return self._add({"type": "file-history-snapshot", "messageId": mid, "snapshot": {
            "messageId": mid, "trackedFileBackups": {}, "timestamp": self._stamp()}, "isSnapshotUpdate": False},
            chain=False)

    def boundary(self, trigger: str = "auto") -> dict[str, Any]:
        entry = {**self._head(None), "logicalParentUuid": self.last, "type": "system", "subtype": "compact_boundary",
                 "content": "Conversation compacted", "isMeta": False, "timestamp": self._stamp(),
                 "uuid": self._uuid(), "level": "info", "compactMetadata": {"trigger": trigger, "preTokens": 167053}}
        self._add(entry)
        return self.user("This session is being continued from a previous conversation that ran out of context. "
                         "Summary: the checkout test fails on a rounding error in cart totals.",
                         isVisibleInTranscriptOnly=True, isCompactSummary=True)

    def system(self, text: str) -> dict[str, Any]:
        entry = {**self._head(self.last), "type": "system", "subtype": "informational", "content": text,
                 "isMeta": False, "timestamp": self._stamp(), "uuid": self._uuid(), "level": "info"}
        return self._add(entry)

    def data(self) -> bytes:
        return b"".join(orjson.dumps(e) + b"\n" for e in self.lines)


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def tool(tool_id: str, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command,
                                                                        "description": "Run " + command}}

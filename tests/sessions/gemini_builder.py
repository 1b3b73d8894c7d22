"""Gemini CLI saved sessions as the chat recording service writes them, and the resume
conversion (records -> client history) the CLI runs, written apart from the importer."""

from __future__ import annotations

from typing import Any

import orjson

from inspector.formats import gemini

from .simulate import rejected


class Record:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.n = 0

    def _stamp(self) -> str:
        self.n += 1
        return f"2025-10-12T09:{10 + self.n:02d}:00.000Z"

    def user(self, text: str) -> None:
        self.messages.append({"id": f"m{self.n}", "timestamp": self._stamp(), "type": "user", "content": text})

    def info(self, text: str) -> None:
        self.messages.append({"id": f"m{self.n}", "timestamp": self._stamp(), "type": "info", "content": text})

    def gemini(self, text: str, *calls: dict[str, Any]) -> None:
        msg = {"id": f"m{self.n}", "timestamp": self._stamp(), "type": "gemini", "content": text,
               "thoughts": [], "tokens": {"input": 5120, "output": 40, "cached": 0, "thoughts": 12, "tool": 0,
                                          "total": 5172}, "model": "gemini-2.5-pro"}
        if calls:
            msg["toolCalls"] = list(calls)
        self.messages.append(msg)

    def document(self) -> dict[str, Any]:
        return {"sessionId": "8e1f5c2a-6b3d-4f90-a7c4-2d9e0b1f3a56", "projectHash": "c0ffee" * 8,
                "startTime": "2025-10-12T09:10:00.000Z", "lastUpdated": "2025-10-12T09:40:00.000Z",
                "messages": self.messages}

    def data(self) -> bytes:
        return orjson.dumps(self.document(), option=orjson.OPT_INDENT_2)


def call(cid: str, command: str, output: str | None, status: str = "success") -> dict[str, Any]:
    tc = {"id": cid, "name": "run_shell_command", "args": {"command": command}, "status": status,
          "timestamp": "2025-10-12T09:20:00.000Z", "displayName": "Shell", "description": command,
          "resultDisplay": output or "", "renderOutputAsMarkdown": False}
    tc["result"] = None if output is None else [
        {"functionResponse": {"id": cid, "name": "run_shell_command", "response": {"output": output}}}]
    return tc


def client_history(document: dict[str, Any]) -> list[dict[str, Any]]:
    """What a resume sends: the CLI's records-to-history conversion."""
    out: list[dict[str, Any]] = []
    for msg in document["messages"]:
        if msg["type"] in ("info", "error", "warning"):
            continue
        text = msg["content"] if isinstance(msg["content"], str) else ""
        if msg["type"] == "user":
            if not text.strip().startswith(("/", "?")):
                out.append({"role": "user", "parts": [{"text": text}]})
            continue
        calls = msg.get("toolCalls") or []
        if not calls:
            if text.strip():
                out.append({"role": "model", "parts": [{"text": text}]})
            continue
        parts = [{"text": text}] if text.strip() else []
        parts += [{"functionCall": {"name": c["name"], "args": c["args"], "id": c["id"]}} for c in calls]
        out.append({"role": "model", "parts": parts})
        responses = [p for c in calls if c.get("result") for p in c["result"]]
        if responses:
            out.append({"role": "user", "parts": responses})
    return out


def problems(document: dict[str, Any]) -> list[str]:
    flat = gemini.import_({"contents": client_history(document)}, "<resume>").messages
    return rejected(flat, "gemini")


def crash_lost_response() -> bytes:
    """Two parallel shell calls; the CLI was closed before the second returned."""
    r = Record()
    r.user("Why does the nightly export write an empty CSV?")
    r.gemini("I'll read the log and the config.",
             call("run_shell_command-1760260800000-a1b2", "tail -n 20 logs/export.log", "WARN 0 rows"),
             call("run_shell_command-1760260800001-c3d4", "cat config/export.yaml", None, "executing"))
    r.info("Request cancelled.")
    r.user("The CLI crashed. Please continue.")
    return r.data()


def clean() -> bytes:
    r = Record()
    r.user("List the tests.")
    r.gemini("", call("run_shell_command-1760260900000-e5f6", "ls tests", "test_cart.py"))
    r.gemini("There is one test file, test_cart.py.")
    r.user("/stats")
    return r.data()

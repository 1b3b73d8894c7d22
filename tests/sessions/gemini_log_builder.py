"""Gemini CLI session logs (``chats/session-*.jsonl``) as its chat recording service appends
them (google-gemini/gemini-cli ``packages/core/src/services/chatRecordingService.ts`` and
``core/geminiChat.ts`` at 5411f113), in the shape public 0.58 files show
(lyfuci/ai-terminal-manager ``src/atm/sources/gemini.py`` at 39009366: a metadata line, bare
message records and ``$set.messages`` batches, ``content`` as a list of text parts).

One tool turn, as the CLI records it: the user's prompt; the model's reply (its text, its
thought summaries, tokens); the same reply appended again with its ``toolCalls`` and their
results; a ``user`` record of the function responses (the one a resume sends a second
time, google-gemini/gemini-cli#29365); ``$set.lastUpdated`` after each message.
"""

from __future__ import annotations

from typing import Any

import orjson

SESSION = "3c1f9e2a-7d4b-4e8a-9f21-6b0d5c8e7a13"
PROJECT = "9f2c" * 16


class Log:
    def __init__(self) -> None:
        self.lines: list[Any] = []
        self.n = 0
        self.meta()

    def _stamp(self) -> str:
        self.n += 1
        return f"2026-09-14T10:{self.n // 60:02d}:{self.n % 60:02d}.000Z"

    def _id(self) -> str:
        return f"5b0e{self.n:04d}-2c1d-4f3a-8e9b-{self.n:012d}"

    def put(self, entry: Any) -> Any:
        self.lines.append(entry)
        return entry

    def meta(self) -> None:
        self.put({"sessionId": SESSION, "projectHash": PROJECT, "startTime": "2026-09-14T10:00:00.000Z",
                  "lastUpdated": "2026-09-14T10:00:00.000Z", "kind": "main"})

    def touched(self) -> None:
        self.put({"$set": {"lastUpdated": self._stamp()}})

    def user(self, text: str) -> dict[str, Any]:
        msg = self.put({"id": self._id(), "timestamp": self._stamp(), "type": "user", "content": [{"text": text}]})
        self.touched()
        return msg

    def info(self, text: str) -> None:
        self.put({"id": self._id(), "timestamp": self._stamp(), "type": "info", "content": text})

    def gemini(self, text: str, thoughts: tuple[tuple[str, str], ...] = (), model: str = "gemini-2.5-pro") -> dict:
        msg = self.put({"id": self._id(), "timestamp": self._stamp(), "type": "gemini", "content": text,
                        "thoughts": [{"subject": s, "description": d, "timestamp": self._stamp()} for s, d in thoughts],
                        "tokens": {"input": 8120, "output": 61, "cached": 0, "thoughts": 240, "tool": 0,
                                   "total": 8421},
                        "model": model})
        self.touched()
        return msg

    def tools(self, msg: dict[str, Any], *calls: dict[str, Any]) -> dict[str, Any]:
        """recordToolCalls: the reply appended again, whole, with its tool calls."""
        again = {**msg, "toolCalls": [*msg.get("toolCalls", []), *calls]}
        return self.put(again)

    def responses(self, *calls: dict[str, Any]) -> None:
        """The function responses, recorded as a user message (geminiChat.ts)."""
        parts = [p for c in calls if c.get("result") for p in c["result"]]
        self.put({"id": self._id(), "timestamp": self._stamp(), "type": "user", "content": parts})
        self.touched()

    def data(self) -> bytes:
        return b"".join(orjson.dumps(e) + b"\n" for e in self.lines)


def call(cid: str, command: str, output: str | None, status: str = "success") -> dict[str, Any]:
    tc = {"id": cid, "name": "run_shell_command", "args": {"command": command}, "status": status,
          "timestamp": "2026-09-14T10:05:00.000Z", "displayName": "Shell", "description": command,
          "resultDisplay": output or "", "renderOutputAsMarkdown": False}
    tc["result"] = None if output is None else [
        {"functionResponse": {"id": cid, "name": "run_shell_command", "response": {"output": output}}}]
    return tc


def crash() -> bytes:
    """A reply of two shell calls; the CLI was killed before the second returned."""
    log = Log()
    log.user("Why does the nightly export write an empty CSV?")
    reply = log.gemini("I'll read the log and the config.",
                       (("Checking the export", "The log and the config should show why no rows are written."),))
    done = call("run_shell_command-1757844300000-a1b2", "tail -n 20 logs/export.log", "WARN 0 rows")
    lost = call("run_shell_command-1757844300001-c3d4", "cat config/export.yaml", None, "executing")
    log.tools(reply, done, lost)
    log.info("Request cancelled.")
    log.user("The CLI crashed. Please continue.")
    return log.data()


def tool_turn() -> bytes:
    """A clean tool turn as the CLI records it; its resume sends the result twice."""
    log = Log()
    log.user("List the tests.")
    reply = log.gemini("", (("Listing", "A directory listing answers it."),))
    done = call("run_shell_command-1757844400000-e5f6", "ls tests", "test_cart.py")
    log.tools(reply, done)
    log.responses(done)
    log.gemini("There is one test file, test_cart.py.")
    log.user("/stats")
    return log.data()


def answered() -> bytes:
    """A session with nothing to repair: a reply, and no tool turn."""
    log = Log()
    log.user("What does MEM-5 say about orphan results?")
    log.gemini("They are dropped: no turn declares their id.", (("Recalling", "Clause 3 of MEM-5."),))
    return log.data()

"""OpenCode 2.x sessions written the way OpenCode 2 writes them: one ``session_message`` row per
message (``id``, ``session_id``, ``type``, ``seq``, times in columns; the rest of the message as
compact JSON in ``data``), beside the V1 ``message``/``part`` tables a database upgraded from 1.x
still holds.

Tables after anomalyco/opencode ``packages/core/src/database/schema.gen.ts`` and
``session/sql.ts`` @ 02ce4a330f33fee005fb5a18c0e3ec6e1143caee (trimmed to what a session needs;
``session_table="session_v2"`` writes the builds that kept 2.x sessions in a table of their own);
messages after ``session/message-updater.ts`` @ 03130971e20a847d77cd70e13faabca0de4f512d (what
each event projects into a row). ``python -m tests.sessions.opencode2_builder`` writes
``samples/34-opencode2-session.db``.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from . import opencode_builder as v1

PROJECT = v1.PROJECT
CWD = v1.CWD
VERSION = "2.0.4"
CLAUDE = {"id": "claude-sonnet-4-5", "providerID": "anthropic"}
GPT = {"id": "gpt-5", "providerID": "openai"}
T0 = 1_788_000_000_000

SCHEMA = """
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `sandboxes` text NOT NULL);
CREATE TABLE `{session}` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL,
  `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `agent` text, `model` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_archived` integer);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `session_message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `type` text NOT NULL,
  `seq` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
  CONSTRAINT `fk_session_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `{session}`(`id`)
  ON DELETE CASCADE);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE UNIQUE INDEX `session_message_session_seq_idx` ON `session_message` (`session_id`,`seq`);
CREATE INDEX `session_message_session_type_seq_idx` ON `session_message` (`session_id`,`type`,`seq`);
"""


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Session:
    """One 2.x session, appended message by message as the projector appends rows."""

    def __init__(self, sid: str = "ses_2b7f4c1e9ffeQk2XcWm0n7Rr1a", title: str = "Fix checkout rounding",
                 model: dict[str, str] | None = None, start: int = T0) -> None:
        self.id, self.title, self.model, self.now = sid, title, model or CLAUDE, start
        self.messages: list[tuple[str, str, int, dict[str, Any]]] = []     # id, type, created, data

    def _add(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        self.now += 1000
        mid = f"msg_{self.now:012x}{len(self.messages):04d}Zq"
        data = {**data, "time": {"created": self.now, **data.get("time", {})}}
        self.messages.append((mid, kind, self.now, data))
        return data

    def user(self, text: str, **extra: Any) -> dict[str, Any]:
        return self._add("user", {"text": text, **extra})

    def synthetic(self, text: str) -> dict[str, Any]:
        return self._add("synthetic", {"sessionID": self.id, "text": text})

    def system(self, text: str) -> dict[str, Any]:
        return self._add("system", {"text": text})

    def switch(self, model: dict[str, str]) -> dict[str, Any]:
        return self._add("model-switched", {"model": model})

    def assistant(self, *content: dict[str, Any], model: dict[str, str] | None = None, completed: bool = True,
                  error: dict[str, Any] | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"agent": "build", "model": model or self.model, "content": list(content)}
        if completed:
            data.update(finish="error" if error else "tool-calls" if any(c["type"] == "tool" for c in content)
                        else "stop", cost=0.0021,
                        tokens={"input": 812, "output": 96, "reasoning": 0, "cache": {"read": 0, "write": 0}})
            data["time"] = {"completed": self.now + 900}
        if error:
            data["error"] = error
        return self._add("assistant", data)

    def compaction(self, summary: str, recent: str = "", status: str = "completed") -> dict[str, Any]:
        return self._add("compaction", {"status": status, "reason": "auto", "summary": summary, "recent": recent})

    def rows(self) -> list[tuple[Any, ...]]:
        return [(mid, self.id, kind, seq, created, created + 900, compact(data))
                for seq, (mid, kind, created, data) in enumerate(self.messages, 1)]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def reasoning(value: str, state: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "reasoning", "text": value}
    if state is not None:
        out["state"] = state
    return out


def tool(call_id: str, name: str, args: dict[str, Any], output: str = "", status: str = "completed") -> dict[str, Any]:
    """A tool item in the state OpenCode 2 projects for ``status``."""
    if status == "completed":
        state: dict[str, Any] = {"status": "completed", "input": args, "structured": {},
                                 "content": [{"type": "text", "text": output}]}
    elif status == "error":
        state = {"status": "error", "input": args, "structured": {}, "content": [],
                 "error": {"type": "unknown", "message": output}}
    elif status == "running":
        state = {"status": "running", "input": args, "structured": {}, "content": []}
    else:                           # streaming: the input as the text streamed so far
        state = {"status": "streaming", "input": json.dumps(args)}
    return {"type": "tool", "id": call_id, "name": name, "state": state, "time": {"created": T0}}


def write_db(path: Path, *sessions: Session, session_table: str = "session", wal: bool = False,
             v1_sessions: tuple[v1.Session, ...] = ()) -> Path:
    """A database holding ``sessions`` as 2.x rows and ``v1_sessions`` in the V1 tables."""
    conn = sqlite3.connect(path)
    try:
        if wal:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(SCHEMA.format(session=session_table))
        conn.execute("INSERT INTO project VALUES (?, ?, 'git', 'shop', ?, ?, '[]')", (PROJECT, CWD, T0, T0))
        for s in sessions:
            conn.execute(f"INSERT INTO `{session_table}` VALUES (?, ?, NULL, ?, ?, ?, ?, 'build', ?, ?, ?, NULL)",
                         (s.id, PROJECT, "fix-checkout", CWD, s.title, VERSION, compact(s.model), T0, s.now))
            conn.executemany("INSERT INTO session_message VALUES (?, ?, ?, ?, ?, ?, ?)", s.rows())
        for s in v1_sessions:
            session_row, messages, parts = s.rows()
            conn.execute(f"INSERT INTO `{session_table}` (id, project_id, slug, directory, title, version, "
                         "time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (session_row[0], PROJECT, "v1", CWD, s.info["title"], v1.VERSION, T0, T0))
            conn.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", messages)
            conn.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", parts)
        conn.commit()
    finally:
        conn.close()
    return path


# -- sessions -------------------------------------------------------------------------------------

def opening(s: Session) -> None:
    s.user("The cart total is off by a cent on some orders. Find out why.")
    s.assistant(reasoning("The rounding is probably in cart.py.",
                          {"signature": "EqQBCkYIBRgCKkBsig0002"}),
                text("Let me read the cart module."),
                tool("toolu_01Read", "read", {"filePath": f"{CWD}/shop/cart.py"}, "41| return round(total, 1)"))


def clean() -> Session:
    s = Session()
    opening(s)
    s.assistant(text("cart.py rounds totals to one decimal place; that drops a cent."))
    return s


def duplicate_in_turn() -> Session:
    """A retried stream stored one grep call twice in one assistant message."""
    s = Session()
    opening(s)
    grep = tool("toolu_01Grep", "grep", {"pattern": "round(", "path": "shop"}, "shop/cart.py:41")
    s.assistant(grep, dict(grep))
    s.user("Fix it.")
    return s


def crash_running() -> Session:
    """OpenCode 2 was killed while an edit ran: OpenCode fails it itself on the next run."""
    s = Session()
    opening(s)
    s.assistant(text("I'll change the rounding in cart.py."),
                tool("toolu_01Edit", "edit", {"filePath": f"{CWD}/shop/cart.py", "oldString": "round(total, 1)",
                                              "newString": "round(total, 2)"}, status="running"), completed=False)
    s.user("OpenCode crashed. Did the edit land?")
    return s


def crash_streaming() -> Session:
    s = Session()
    opening(s)
    s.assistant(tool("toolu_01Bash", "bash", {"command": "pytest -q"}, status="streaming"), completed=False)
    return s


def reused_id() -> Session:
    """One call id used again in a later step, each use answered: the API takes it (issue 30)."""
    s = Session()
    opening(s)
    s.user("Read it again.")
    s.assistant(tool("toolu_01Read", "read", {"filePath": f"{CWD}/shop/cart.py"}, "41| return round(total, 2)"))
    s.user("Good.")
    return s


def system_update() -> Session:
    """Instructions changed mid-session: a system message between two user turns."""
    s = Session()
    opening(s)
    s.system("Prefer <Decimal> for money & never float.")
    s.user("Go on.")
    return s


def unsigned_reasoning() -> Session:
    """Claude's reasoning stored without its signature (a stream cut before the signature came)."""
    s = Session()
    s.user("The cart total is off by a cent on some orders. Find out why.")
    s.assistant(reasoning("The rounding is probably in cart.py."), text("Looking."))
    s.user("Go on.")
    return s


def compacted() -> Session:
    """A finished compaction: the rows before it are not sent, even a duplicate among them."""
    s = duplicate_in_turn()
    s.compaction("We found that cart.py rounds totals to one decimal.", "user: Fix it.")
    s.user("Now fix it.")
    return s


def foreign_reasoning() -> Session:
    """The session ran on GPT-5, then switched to Claude: GPT's reasoning goes as plain text."""
    s = Session(model=CLAUDE)
    s.user("The cart total is off by a cent on some orders. Find out why.")
    s.assistant(reasoning("Look at the rounding.", {"reasoningEncryptedContent": "gAAAAABo-enc"}),
                tool("call_7Hn2", "read", {"filePath": f"{CWD}/shop/cart.py"}, "41| return round(total, 1)"),
                model=GPT)
    s.switch(CLAUDE)
    s.user("Go on.")
    return s


def sample() -> Session:
    """The bundled sample: the session began on GPT-5 and moved to Claude, a retried stream
    stored one grep call twice in a step, and OpenCode 2 was killed while Claude's edit ran."""
    s = Session(model=CLAUDE)
    s.user("The cart total is off by a cent on some orders. Find out why.")
    s.assistant(reasoning("The rounding is likely in the cart.", {"reasoningEncryptedContent": "gAAAAABo-enc"}),
                tool("call_7Hn2", "read", {"filePath": f"{CWD}/shop/cart.py"}, "41| return round(total, 1)"),
                model=GPT)
    s.assistant(text("cart.py rounds totals to one decimal place."), model=GPT)
    s.switch(CLAUDE)
    s.user("Find every other place that rounds money.")
    grep = tool("toolu_01Grep", "grep", {"pattern": "round(", "path": "shop"}, "shop/cart.py:41\nshop/tax.py:12")
    s.assistant(reasoning("Search for round( across the package.", {"signature": "EqQBCkYIBRgCKkBsig0003"}),
                grep, dict(grep))
    s.assistant(text("I'll change the rounding in cart.py and tax.py."),
                tool("toolu_01Edit", "edit", {"filePath": f"{CWD}/shop/cart.py", "oldString": "round(total, 1)",
                                              "newString": "round(total, 2)"}, status="running"), completed=False)
    s.user("OpenCode crashed. Did the edit land?")
    return s


def write_sample(path: Path) -> Path:
    """``samples/34-opencode2-session.db``: the sample session in a WAL-mode database."""
    path.unlink(missing_ok=True)
    return write_db(path, sample(), wal=True)


BROKEN = {"duplicate-in-turn": duplicate_in_turn}
REUSED = {"reused-id": reused_id, "system-update": system_update}
# What OpenCode 2 sends as it is and Anthropic refuses; the engine cannot repair a signature.
UNSIGNED = {"unsigned-reasoning": unsigned_reasoning}
SELF_REPAIRED = {"crash-running": crash_running, "crash-streaming": crash_streaming, "compacted": compacted,
                 "foreign-reasoning": foreign_reasoning}


if __name__ == "__main__":
    print(write_sample(Path(sys.argv[1]) if len(sys.argv) > 1 else
                       Path(__file__).resolve().parents[2] / "samples" / "34-opencode2-session.db"))

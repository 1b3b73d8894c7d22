"""OpenCode sessions written the way OpenCode writes them, so the tests can break them in the
ways its store can hold: the SQLite database (``opencode.db``: ``project``, ``session``,
``message``, ``part``, the row's ``id``/``session_id``/``message_id`` in columns and the rest
of the object as compact JSON in ``data``), the legacy ``storage/`` tree of JSON files that
builds before the database wrote (``session/<project>/<id>.json``, ``message/<session>/<id>.json``,
``part/<message>/<id>.json``, each file the whole object), and ``opencode export`` output
(``{"info", "messages": [{"info", "parts"}]}``, two-space indented, a newline at the end).

Shapes follow anomalyco/opencode ``packages/opencode/src/session/session.sql.ts`` (tables),
``session/message-v2.ts`` (message and part objects), ``storage/json-migration.ts`` (the tree)
and ``cli/cmd/export.ts`` (the export); see docs/stores/opencode.md for commits.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

PROJECT = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
CWD = "/home/dana/shop"
VERSION = "1.14.48"
MODEL = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}
T0 = 1_778_580_000_000          # ms since the epoch, as OpenCode stamps times

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# The tables OpenCode's migrations create (drizzle's spelling), trimmed to what a session needs.
SCHEMA = """
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text,
  `icon_url` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  `time_initialized` integer, `sandboxes` text NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL,
  `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer,
  `summary_diffs` text, `revert` text, `permission` text, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer,
  `workspace_id` text, `path` text, `agent` text, `model` text,
  CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL,
  CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
  CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);
CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL,
  `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`),
  CONSTRAINT `fk_todo_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE INDEX `todo_session_idx` ON `todo` (`session_id`);
"""


def compact(value: Any) -> str:
    """``JSON.stringify(value)``: what drizzle writes into a json ``data`` column."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def pretty(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``: what ``opencode export`` prints."""
    return json.dumps(value, ensure_ascii=False, indent=2)


class Ids:
    """OpenCode identifiers: a prefix, 12 hex digits of (milliseconds x 4096 + a counter) and 14
    base-62 characters; session ids count down (the bits inverted), so the newest sorts first."""

    def __init__(self, seed: int = 7) -> None:
        self.seed = seed
        self.counter = 0

    def _tail(self) -> str:
        self.seed = (self.seed * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        n, out = self.seed, ""
        for _ in range(14):
            n, r = divmod(n, 62)
            out += _B62[r]
        return out

    def make(self, prefix: str, ms: int, descending: bool = False) -> str:
        self.counter += 1
        value = (ms * 0x1000 + self.counter) % 2 ** 48
        if descending:
            value = ~value % 2 ** 48
        return f"{prefix}_{value:012x}{self._tail()}"


class Session:
    """One session: messages (``info``) each with its parts, written in OpenCode's key order."""

    def __init__(self, title: str = "Fix checkout rounding", ids: Ids | None = None, start: int = T0,
                 model: dict[str, str] | None = None) -> None:
        self.ids = ids or Ids()
        self.now = start
        self.model = dict(model or MODEL)
        self.id = self.ids.make("ses", start, descending=True)
        self.info: dict[str, Any] = {
            "id": self.id, "slug": "brave-cactus", "version": VERSION, "projectID": PROJECT, "directory": CWD,
            "title": title, "time": {"created": start, "updated": start}}
        self.messages: list[dict[str, Any]] = []
        self.last_user: str | None = None

    def tick(self, ms: int = 1000) -> int:
        self.now += ms
        self.info["time"]["updated"] = self.now
        return self.now

    def _part(self, message: dict[str, Any], **body: Any) -> dict[str, Any]:
        part = {"id": self.ids.make("prt", self.tick(5)), "sessionID": self.id, "messageID": message["info"]["id"],
                **body}
        message["parts"].append(part)
        return part

    # -- messages ----------------------------------------------------------------------------
    def user(self, text: str, *extra_parts: dict[str, Any]) -> dict[str, Any]:
        created = self.tick()
        info = {"id": self.ids.make("msg", created), "sessionID": self.id, "role": "user",
                "time": {"created": created}, "agent": "build", "model": dict(self.model)}
        message = {"info": info, "parts": []}
        self.messages.append(message)
        if text:
            self._part(message, type="text", text=text)
        for body in extra_parts:
            self._part(message, **body)
        self.last_user = info["id"]
        return message

    def assistant(self, *parts: dict[str, Any], finish: str | None = "stop", completed: bool = True,
                  error: dict[str, Any] | None = None, summary: bool = False,
                  model: dict[str, str] | None = None) -> dict[str, Any]:
        """One step (one LLM call): a ``step-start``, the given parts, and a ``step-finish`` when
        the step completed. ``parts`` are bodies from :func:`text`, :func:`tool`, :func:`reasoning`."""
        created = self.tick()
        m = model or self.model
        info: dict[str, Any] = {
            "id": self.ids.make("msg", created), "sessionID": self.id, "parentID": self.last_user,
            "role": "assistant", "mode": "build", "agent": "build", "path": {"cwd": CWD, "root": CWD},
            "cost": 0, "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "modelID": m["modelID"], "providerID": m["providerID"], "time": {"created": created}}
        if summary:
            info["summary"] = True
        message = {"info": info, "parts": []}
        self.messages.append(message)
        self._part(message, type="step-start", snapshot="9c1e0f3b7a2d4c55e6f708192a3b4c5d6e7f8091")
        for body in parts:
            self._part(message, **_stamped(body, self.now))
        if completed:
            info["time"]["completed"] = self.tick()
            info["cost"] = 0.0123
            info["tokens"] = {"input": 1830, "output": 212, "reasoning": 0, "cache": {"read": 10240, "write": 96}}
            if finish:
                info["finish"] = finish
                self._part(message, type="step-finish", reason=finish,
                           snapshot="9c1e0f3b7a2d4c55e6f708192a3b4c5d6e7f8091", cost=0.0123,
                           tokens={"input": 1830, "output": 212, "reasoning": 0, "cache": {"read": 10240, "write": 96}})
        if error is not None:
            info["error"] = error
        return message

    def compaction(self, summary_text: str, tail_start: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """``/compact``: a user message holding a ``compaction`` part, answered by a summary."""
        body: dict[str, Any] = {"type": "compaction", "auto": False}
        if tail_start:
            body["tail_start_id"] = tail_start
        asking = self.user("", body)
        answer = self.assistant(text(summary_text), summary=True)
        return asking, answer

    # -- writers -----------------------------------------------------------------------------
    def export(self) -> bytes:
        """What ``opencode export <id>`` prints."""
        doc = {"info": self.info, "messages": [{"info": m["info"], "parts": m["parts"]} for m in self.messages]}
        return (pretty(doc) + "\n").encode()

    def rows(self) -> tuple[tuple[Any, ...], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        info = self.info
        session = (info["id"], info["projectID"], None, info["slug"], info["directory"], info["title"],
                   info["version"], info["time"]["created"], info["time"]["updated"])
        messages, parts = [], []
        for m in self.messages:
            i = m["info"]
            data = {k: v for k, v in i.items() if k not in ("id", "sessionID")}
            updated = i["time"].get("completed", i["time"]["created"])
            messages.append((i["id"], self.id, i["time"]["created"], updated, compact(data)))
            for p in m["parts"]:
                pdata = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
                stamp = _part_time(p, i["time"]["created"])
                parts.append((p["id"], i["id"], self.id, stamp, stamp, compact(pdata)))
        return session, messages, parts


def write_db(path: Path, *sessions: Session, wal: bool = False, shuffle: bool = False) -> Path:
    """A database as OpenCode leaves it (WAL mode when ``wal``). ``shuffle`` inserts rows in
    reverse, as rows of an imported or migrated session can land: readers must order them."""
    conn = sqlite3.connect(path)
    try:
        if wal:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO project (id, worktree, vcs, name, time_created, time_updated, sandboxes) "
                     "VALUES (?, ?, 'git', 'shop', ?, ?, '[]')", (PROJECT, CWD, T0, T0))
        for s in sessions:
            session, messages, parts = s.rows()
            conn.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
                         "time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", session)
            order = reversed if shuffle else (lambda rows: rows)
            conn.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", list(order(messages)))
            conn.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", list(order(parts)))
        conn.commit()
    finally:
        conn.close()
    return path


def write_storage(root: Path, *sessions: Session) -> Path:
    """The legacy tree under ``root`` (OpenCode's ``~/.local/share/opencode/storage``)."""
    (root / "project").mkdir(parents=True, exist_ok=True)
    (root / "project" / f"{PROJECT}.json").write_text(pretty(
        {"id": PROJECT, "worktree": CWD, "vcs": "git", "time": {"created": T0, "updated": T0}}))
    for s in sessions:
        d = root / "session" / PROJECT
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{s.id}.json").write_text(pretty(s.info))
        for m in s.messages:
            i = m["info"]
            md = root / "message" / s.id
            md.mkdir(parents=True, exist_ok=True)
            (md / f"{i['id']}.json").write_text(pretty(i))
            pd = root / "part" / i["id"]
            pd.mkdir(parents=True, exist_ok=True)
            for p in m["parts"]:
                (pd / f"{p['id']}.json").write_text(pretty(p))
    return root


# -- part bodies ---------------------------------------------------------------------------------
def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def reasoning(value: str, signature: str | None = "EqQBCkYIBRgCKkBsig0001", provider: str = "anthropic",
              **metadata: Any) -> dict[str, Any]:
    """A reasoning part; Anthropic's signature rides in ``metadata.anthropic.signature``."""
    body: dict[str, Any] = {"type": "reasoning", "text": value}
    meta = dict(metadata)
    if signature is not None:
        meta = {provider: {"signature": signature, **metadata}}
    if meta:
        body["metadata"] = meta
    return body


def tool(call_id: str, name: str, args: dict[str, Any], output: str | None = "", status: str = "completed",
         error: str | None = None, title: str | None = None) -> dict[str, Any]:
    """A tool part in one of its four states (``pending`` and ``running`` are what a crash leaves)."""
    state: dict[str, Any]
    if status == "pending":
        state = {"status": "pending", "input": {}, "raw": json.dumps(args)[:-3]}
    elif status == "running":
        state = {"status": "running", "input": args, "time": {"start": 0}}
    elif status == "error":
        state = {"status": "error", "input": args, "error": error or "Tool execution aborted",
                 "time": {"start": 0, "end": 0}}
    else:
        state = {"status": "completed", "input": args, "output": output or "", "title": title or name,
                 "metadata": {"output": output or "", "exit": 0, "description": title or name},
                 "time": {"start": 0, "end": 0}}
    return {"type": "tool", "callID": call_id, "tool": name, "state": state}


def _stamped(body: dict[str, Any], now: int) -> dict[str, Any]:
    """Fill the times OpenCode records (start/end of a text, reasoning or tool part)."""
    out = json.loads(json.dumps(body))
    if out["type"] in ("text", "reasoning"):
        out["time"] = {"start": now, "end": now + 400}
    elif out["type"] == "tool":
        t = out["state"].get("time")
        if t is not None:
            t["start"] = now
            if "end" in t:
                t["end"] = now + 900
    return out


def _part_time(part: dict[str, Any], fallback: int) -> int:
    t = part.get("time") or part.get("state", {}).get("time") or {}
    return t.get("start") or fallback


# -- scenarios -----------------------------------------------------------------------------------
def opening(s: Session) -> None:
    s.user("The checkout test fails with a rounding error, can you look?")
    s.assistant(text("Let me run the test first."),
                tool("toolu_01Run", "bash", {"command": "pytest tests/test_checkout.py", "description": "Run test"},
                     "FAILED tests/test_checkout.py::test_total - assert 10.0 == 9.99"), finish="tool-calls")


def clean() -> Session:
    """A healthy session: a reasoning step, a tool call answered, and a final answer."""
    s = Session()
    opening(s)
    s.assistant(reasoning("The total is rounded before tax; check cart.py."),
                text("I'll read the cart code."),
                tool("toolu_01Cat", "read", {"filePath": "/home/dana/shop/shop/cart.py"},
                     "41\t    return round(total, 1)"), finish="tool-calls")
    s.assistant(text("Totals are rounded to one decimal in `cart.py` line 41; that is the bug."))
    return s


def crash_running() -> Session:
    """OpenCode was killed while a command ran: the tool part stays ``running``, the step has
    no ``step-finish`` and no completion time; the user wrote again after restarting."""
    s = Session()
    opening(s)
    s.assistant(text("I'll look at the cart code."),
                tool("toolu_01Cat", "bash", {"command": "cat shop/cart.py", "description": "Show cart"},
                     status="running"), completed=False)
    s.user("Sorry, my terminal crashed. Where were we?")
    return s


def crash_pending() -> Session:
    """Killed while the model was still streaming a call's arguments: the part is ``pending``."""
    s = Session()
    opening(s)
    s.assistant(tool("toolu_01Edit", "edit", {"filePath": "shop/cart.py", "oldString": "1)", "newString": "2)"},
                     status="pending"), completed=False)
    s.user("Did the edit go through?")
    return s


def duplicate_call() -> Session:
    """A model switch left two tool parts with one call id in one step, so one assistant message of
    the request declares ``toolu_01Lint`` twice (anomalyco/opencode#1279: "messages.1.content.2:
    `tool_use` ids must be unique")."""
    s = Session()
    opening(s)
    s.assistant(tool("toolu_01Lint", "bash", {"command": "ruff check shop/", "description": "Lint"},
                     "All checks passed!"),
                tool("toolu_01Lint", "bash", {"command": "ruff check shop/", "description": "Lint"},
                     "All checks passed!"), finish="tool-calls")
    s.assistant(text("The linter is clean."))
    s.user("Go on.")
    return s


def replayed_call() -> Session:
    """A later step reuses the call id of an earlier step whose result is in (issue 30): the request
    holds two complete pairs under one id, in two assistant messages, which the API takes."""
    s = Session()
    opening(s)
    s.assistant(tool("toolu_01Run", "bash", {"command": "pytest tests/test_checkout.py", "description": "Run test"},
                     "FAILED tests/test_checkout.py::test_total - assert 10.0 == 9.99"), finish="tool-calls")
    s.assistant(text("The same assertion fails."))
    s.user("Go on.")
    return s


def duplicate_in_step() -> Session:
    """One step stored two tool parts for one call id (a stream retried mid-step)."""
    s = Session()
    opening(s)
    s.assistant(tool("toolu_01Cat", "read", {"filePath": "/home/dana/shop/shop/cart.py"}, "41\t    return round(total, 1)"),
                tool("toolu_01Cat", "read", {"filePath": "/home/dana/shop/shop/cart.py"}, "41\t    return round(total, 1)"),
                finish="tool-calls")
    s.assistant(text("Line 41 rounds to one decimal."))
    s.user("Fix it.")
    return s


def reused_call_ids() -> Session:
    """Steps of a model whose call ids restart every response (``functions.bash:0``), then the
    session continued on Claude: the ids, rewritten to ``functions_bash_0``, repeat."""
    kimi = {"providerID": "moonshotai", "modelID": "kimi-k2"}
    s = Session(model=kimi)
    s.user("Run the checkout test.")
    s.assistant(tool("functions.bash:0", "bash", {"command": "pytest tests/test_checkout.py", "description": "Run test"},
                     "1 failed"), finish="tool-calls", model=kimi)
    s.assistant(tool("functions.bash:0", "bash", {"command": "git diff", "description": "Show diff"}, ""),
                finish="tool-calls", model=kimi)
    s.assistant(text("The test fails and nothing is changed yet."), model=kimi)
    s.model = dict(MODEL)
    s.user("Switching to Claude: please fix the rounding.")
    return s


def text_after_call() -> Session:
    """One step streamed text after its tool call (#10616, #22001): sent as it is, the
    assistant message has text after ``tool_use``."""
    s = Session()
    opening(s)
    s.assistant(tool("toolu_01Todo", "todowrite", {"todos": [{"content": "Fix rounding", "status": "pending"}]},
                     "1 todo"), text("Noted the fix as a todo."), finish="tool-calls")
    s.assistant(text("Next I'll change the rounding."))
    s.user("Go ahead.")
    return s


def foreign_reasoning() -> Session:
    """Reasoning written by another provider's model, then the session resumed on Claude."""
    s = Session()
    s.user("Why does checkout round to one decimal?")
    s.assistant(reasoning("Look for round( in shop/.", signature=None, openai={"itemId": "rs_68c1"}),
                text("Because of `round(total, 1)`."), model={"providerID": "openai", "modelID": "gpt-5"})
    s.user("Fix it please.")
    return s


def compacted() -> Session:
    """``/compact`` after a broken turn: what came before the summary is not sent again."""
    s = Session()
    opening(s)
    s.assistant(tool("toolu_01Run", "bash", {"command": "pytest", "description": "Run tests"}, "1 failed"),
                finish="tool-calls")
    s.compaction("We found that cart.py rounds totals to one decimal.")
    s.user("Now fix it.")
    return s


def sample() -> Session:
    """The bundled sample: Kimi K2 steps whose call ids restart each response (two complete pairs
    under one id: kept), the session continued on Claude, a step holding one call twice (dropped),
    and OpenCode killed while Claude's edit ran."""
    s = reused_call_ids()
    s.assistant(tool("toolu_01Grep", "grep", {"pattern": "round(", "path": "shop"}, "shop/cart.py:41"),
                tool("toolu_01Grep", "grep", {"pattern": "round(", "path": "shop"}, "shop/cart.py:41"),
                finish="tool-calls")
    s.assistant(text("I'll change the rounding in cart.py."),
                tool("toolu_01Edit", "edit", {"filePath": "/home/dana/shop/shop/cart.py", "oldString": "round(total, 1)",
                                              "newString": "round(total, 2)"}, status="running"), completed=False)
    s.user("OpenCode crashed. Did the edit land?")
    return s


def write_sample(path: Path) -> Path:
    """``samples/26-opencode-session.db``: the sample session in a WAL-mode database."""
    path.unlink(missing_ok=True)
    return write_db(path, sample(), wal=True)


BROKEN = {"duplicate-call": duplicate_call, "duplicate-in-step": duplicate_in_step}
# Ids reused by complete pairs in later steps (issue 30): nothing to repair.
REUSED = {"replayed-call": replayed_call, "reused-call-ids": reused_call_ids}
OLD_BUILDS_REFUSE = {"text-after-call": text_after_call}
SELF_REPAIRED = {"crash-running": crash_running, "crash-pending": crash_pending,
                 "foreign-reasoning": foreign_reasoning, "compacted": compacted}

"""Crush databases built from Crush's own migrations (charmbracelet/crush
``internal/db/migrations/*.sql`` @ 37f36e93: the SQL below is theirs, run in order) and rows
written as Crush writes them: ``parts`` by Go's ``json.Marshal`` of ``{"type", "data"}``, a
``finish`` part on every non-assistant message (``Create``), each result a ``tool`` row.

The sessions: ``clean`` (a call and its result, signed reasoning), ``crash`` (Crush killed
during a call: the call has no result row), ``cancelled`` (the user cancelled: Crush wrote
its own error result), ``orphan`` (a result row whose call row is gone), ``duplicate`` (a
second result row for one call, as a retried write leaves), ``reasoning_crash`` (signed
reasoning on the turn whose call is unanswered) and ``summarized`` (a summary message).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from inspector.formats.crush import go_json

MIGRATIONS = [
    """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
    completion_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0),
    cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0),
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    created_at INTEGER NOT NULL   -- Unix timestamp in milliseconds
);
CREATE TRIGGER IF NOT EXISTS update_sessions_updated_at
AFTER UPDATE ON sessions
BEGIN
UPDATE sessions SET updated_at = strftime('%s', 'now')
WHERE id = new.id;
END;
CREATE TABLE IF NOT EXISTS files (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE,
    UNIQUE(path, session_id, version)
);
CREATE INDEX IF NOT EXISTS idx_files_session_id ON files (session_id);
CREATE INDEX IF NOT EXISTS idx_files_path ON files (path);
CREATE TRIGGER IF NOT EXISTS update_files_updated_at
AFTER UPDATE ON files
BEGIN
UPDATE files SET updated_at = strftime('%s', 'now')
WHERE id = new.id;
END;
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL default '[]',
    model TEXT,
    created_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    finished_at INTEGER,  -- Unix timestamp in milliseconds
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS idx_messages_session_id ON messages (session_id);
CREATE TRIGGER IF NOT EXISTS update_messages_updated_at
AFTER UPDATE ON messages
BEGIN
UPDATE messages SET updated_at = strftime('%s', 'now')
WHERE id = new.id;
END;
CREATE TRIGGER IF NOT EXISTS update_session_message_count_on_insert
AFTER INSERT ON messages
BEGIN
UPDATE sessions SET
    message_count = message_count + 1
WHERE id = new.session_id;
END;
CREATE TRIGGER IF NOT EXISTS update_session_message_count_on_delete
AFTER DELETE ON messages
BEGIN
UPDATE sessions SET
    message_count = message_count - 1
WHERE id = old.session_id;
END;
""",
    "ALTER TABLE sessions ADD COLUMN summary_message_id TEXT;",
    """CREATE INDEX IF NOT EXISTS idx_sessions_created_at ON sessions (created_at);
CREATE INDEX IF NOT EXISTS idx_messages_created_at ON messages (created_at);
CREATE INDEX IF NOT EXISTS idx_files_created_at ON files (created_at);""",
    "ALTER TABLE messages ADD COLUMN provider TEXT;",
    "ALTER TABLE messages ADD COLUMN is_summary_message INTEGER DEFAULT 0 NOT NULL;",
    "ALTER TABLE sessions ADD COLUMN todos TEXT;",
    """CREATE TABLE IF NOT EXISTS read_files (
    session_id TEXT NOT NULL CHECK (session_id != ''),
    path TEXT NOT NULL CHECK (path != ''),
    read_at INTEGER NOT NULL,  -- Unix timestamp in seconds when file was last read
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE,
    PRIMARY KEY (path, session_id)
);
CREATE INDEX IF NOT EXISTS idx_read_files_session_id ON read_files (session_id);
CREATE INDEX IF NOT EXISTS idx_read_files_path ON read_files (path);""",
]

MODEL, PROVIDER = "claude-sonnet-4-5", "anthropic"
SIGNATURE = "EqQBCkYIBRgCKkCrushSig0001"


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "data": {"text": t}}


def finish(reason: str = "stop", time: int = 0) -> dict[str, Any]:
    return {"type": "finish", "data": {"reason": reason, "time": time}}


def call(cid: str, name: str, args: str, finished: bool = True) -> dict[str, Any]:
    return {"type": "tool_call", "data": {"id": cid, "name": name, "input": args, "provider_executed": False,
                                          "finished": finished}}


def result(cid: str, name: str, content: str, error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "data": {"tool_call_id": cid, "name": name, "content": content, "data": "",
                                            "mime_type": "", "metadata": "", "is_error": error}}


def reasoning(thinking: str, signature: str = SIGNATURE) -> dict[str, Any]:
    return {"type": "reasoning", "data": {"thinking": thinking, "signature": signature, "thought_signature": "",
                                          "tool_id": "", "responses_data": None, "started_at": 1764600000,
                                          "finished_at": 1764600002}}


# A session: (title, [(message id, role, parts, created_at)], summary message id)
Session = tuple[str, list[tuple[str, str, list[dict[str, Any]], int]], str | None]


def _turn(prefix: str, t: int) -> list[tuple[str, str, list[dict[str, Any]], int]]:
    return [
        (f"{prefix}-u1", "user", [text("List the files in src <and> count them"), finish()], t),
        (f"{prefix}-a1", "assistant", [reasoning("I should list the folder first."), text("Listing src."),
                                       call(f"toolu_{prefix}01", "ls", '{"path":"src"}'),
                                       finish("tool_use", t + 2)], t + 1),
        (f"{prefix}-t1", "tool", [result(f"toolu_{prefix}01", "ls", "a.py\nb.py"), finish()], t + 2),
        (f"{prefix}-a2", "assistant", [text("There are 2 files."), finish("end_turn", t + 4)], t + 3),
    ]


def clean() -> Session:
    return "Clean session", _turn("c", 1764600000), None


def crash() -> Session:
    """Crush killed while ``bash`` ran: the call was flushed (``AddToolCall`` is a terminal
    update), no result row and no finish part were ever written; the user came back later."""
    t = 1764601000
    return "Crashed during a call", _turn("k", t) + [
        ("k-u2", "user", [text("Now run the tests"), finish()], t + 10),
        ("k-a3", "assistant", [text("Running them."), call("toolu_k02", "bash", '{"command":"pytest -q"}')], t + 11),
        ("k-u3", "user", [text("Are you still there?"), finish()], t + 600),
    ], None


def cancelled() -> Session:
    """The user pressed escape during a call: Crush wrote the result itself (agent.go)."""
    t = 1764602000
    return "Cancelled call", _turn("x", t) + [
        ("x-u2", "user", [text("Run the tests"), finish()], t + 10),
        ("x-a3", "assistant", [call("toolu_x02", "bash", "{}"), finish("canceled", t + 12)], t + 11),
        ("x-t2", "tool", [result("toolu_x02", "bash", "Error: user cancelled assistant tool calling", True),
                          finish()], t + 12),
        ("x-u3", "user", [text("Try again"), finish()], t + 20),
    ], None


def orphan() -> Session:
    """A result row whose call row is gone (its assistant row was deleted)."""
    t = 1764603000
    rows = _turn("o", t)
    return "Orphan result", rows + [
        ("o-t9", "tool", [result("toolu_o99", "view", "old output"), finish()], t + 5),
        ("o-u2", "user", [text("Thanks"), finish()], t + 6),
    ], None


def duplicate() -> Session:
    """Two result rows for one call (a retried write)."""
    t = 1764604000
    rows = _turn("d", t)
    rows.insert(3, ("d-t1b", "tool", [result("toolu_d01", "ls", "a.py\nb.py"), finish()], t + 2))
    return "Duplicate result", rows, None


def reasoning_crash() -> Session:
    """Signed reasoning on the turn whose call is unanswered, and two calls in it."""
    t = 1764605000
    return "Reasoning then crash", _turn("r", t) + [
        ("r-u2", "user", [text("Check both logs"), finish()], t + 10),
        ("r-a3", "assistant", [reasoning("Two logs; read both at once."),
                               call("toolu_r02", "view", '{"path":"a.log"}'),
                               call("toolu_r03", "view", '{"path":"b.log"}')], t + 11),
        ("r-t2", "tool", [result("toolu_r02", "view", "a: ok"), finish()], t + 12),
        ("r-u3", "user", [text("And?"), finish()], t + 12),
    ], None


def summarized() -> Session:
    """A summary: Crush resumes from the summary message, sent as a user message."""
    t = 1764606000
    rows = _turn("s", t) + [("s-sum", "assistant", [text("Summary: listed src (2 files)."), finish("end_turn")],
                             t + 20),
                            ("s-u2", "user", [text("Go on"), finish()], t + 21)]
    return "Summarized", rows, "s-sum"


BROKEN = {"crash": crash, "orphan": orphan, "duplicate": duplicate, "reasoning_crash": reasoning_crash}
FINE = {"clean": clean, "cancelled": cancelled, "summarized": summarized}


def write_db(path: Path, sessions: dict[str, Session], wal: bool = False) -> Path:
    """A database with Crush's migrations and ``sessions`` written as Crush writes them (the
    triggers count the messages). ``wal``: left in WAL mode with the rows still in the
    ``-wal`` (the connection is kept open until the copy is made, then closed unchecked)."""
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")
    for sql in MIGRATIONS:
        conn.executescript(sql)
    for sid, (title, rows, summary) in sessions.items():
        t0 = rows[0][3] if rows else 0
        conn.execute("INSERT INTO sessions (id, title, updated_at, created_at) VALUES (?, ?, ?, ?)",
                     (sid, title, t0, t0))
        for mid, role, parts, when in rows:
            done = next((p["data"]["time"] for p in parts if p["type"] == "finish"), None)
            conn.execute("INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, "
                         "updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (mid, sid, role, go_json(parts), MODEL if role == "assistant" else "",
                          PROVIDER if role == "assistant" else None, when, when, done))
        if summary:
            conn.execute("UPDATE sessions SET summary_message_id = ? WHERE id = ?", (summary, sid))
    conn.commit()
    if wal:
        _leave_open.append(conn)
    else:
        conn.close()
    return path


_leave_open: list[sqlite3.Connection] = []


def one(path: Path, name: str, wal: bool = False) -> Path:
    every = {**BROKEN, **FINE}
    return write_db(path, {f"ses-{name}": every[name]()}, wal=wal)


def sample() -> Session:
    """``samples/28-crush-session.db``: a result row whose call row compaction removed, then signed
    reasoning on a turn of two parallel views, Crush killed before the second view's result was
    written, and the user back after the crash."""
    t = 1764607000
    title, rows, _ = reasoning_crash()
    rows = [(mid.replace("r-", "p-"), role, parts, when) for mid, role, parts, when in rows]
    rows.insert(4, ("p-t9", "tool", [result("toolu_p99", "view", "stale output of a call compaction removed"),
                                     finish()], rows[3][3]))
    return "Parallel views, then a crash", rows[:-1] + [
        ("p-u4", "user", [text("Crush crashed. Please read b.log again."), finish()], t + 900)], None


def write_sample(path: Path) -> Path:
    """The sample session in a database left in WAL mode (the log checkpointed into the file)."""
    path.unlink(missing_ok=True)
    write_db(path, {"ses-7c41e2a0": sample()})
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    return path

"""Goose databases built from Goose's own schema (``SessionStorage::create_schema``,
aaif-goose/goose ``crates/goose/src/session/session_manager.rs`` @ dbec1655, schema version 9:
the SQL below is theirs) and rows written as ``add_message`` writes them (``content_json`` the
serde JSON of the content list, ``metadata_json`` the visibility flags, ``timestamp`` to the
second), plus the ``.jsonl`` layout of older builds (``session/legacy.rs``: a metadata line,
then a message per line).

The sessions: ``clean`` (a call and its response, signed thinking), ``crash`` (Goose stopped
during a call: the request has no response; Goose drops the request itself), ``orphan`` (a
response whose request is gone; Goose drops it), ``duplicate`` (two responses to one request;
Goose drops the second), ``redeclared`` (#9786: the provider emitted two requests with one id in
one turn, each answered: Goose sends both), ``reused`` (#11823: a call id used again in a later
turn, each answered: two complete pairs, kept as they are, issue 30), ``separated`` (#7914: the user wrote while the tool ran, so the
response comes after a user message: Goose sends it as it is and the provider refuses),
``hidden`` (a compacted-away call, not agent-visible).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = [
    """CREATE TABLE schema_version (
                version INTEGER PRIMARY KEY,
                applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
            )""",
    "INSERT INTO schema_version (version) VALUES (9)",
    """CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL DEFAULT '',
                description TEXT NOT NULL DEFAULT '',
                user_set_name BOOLEAN DEFAULT FALSE,
                session_type TEXT NOT NULL DEFAULT 'user',
                working_dir TEXT NOT NULL,
                created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                extension_data TEXT DEFAULT '{}',
                total_tokens INTEGER,
                input_tokens INTEGER,
                output_tokens INTEGER,
                accumulated_total_tokens INTEGER,
                accumulated_input_tokens INTEGER,
                accumulated_output_tokens INTEGER,
                schedule_id TEXT,
                recipe_json TEXT,
                user_recipe_values_json TEXT,
                provider_name TEXT,
                model_config_json TEXT,
                tenant_id TEXT,
                user_id TEXT
            )""",
    """CREATE TABLE messages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                message_id TEXT,
                session_id TEXT NOT NULL REFERENCES sessions(id),
                role TEXT NOT NULL,
                content_json TEXT NOT NULL,
                created_timestamp INTEGER NOT NULL,
                timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                tokens INTEGER,
                metadata_json TEXT
            )""",
    "CREATE INDEX idx_messages_session ON messages(session_id)",
    "CREATE INDEX idx_messages_timestamp ON messages(timestamp)",
    "CREATE INDEX idx_messages_message_id ON messages(message_id)",
    "CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC)",
    "CREATE INDEX idx_sessions_type ON sessions(session_type)",
    "CREATE INDEX idx_sessions_tenant ON sessions(tenant_id)",
    "CREATE INDEX idx_sessions_user ON sessions(user_id)",
]

SIGNATURE = "EqQBCkYIBRgCKkBgooseSig0001"
VISIBLE = {"userVisible": True, "agentVisible": True}


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def request(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "toolRequest", "id": cid, "toolCall": {"status": "success", "value": {"name": name,
                                                                                         "arguments": args}}}


def response(cid: str, out: str, error: bool = False) -> dict[str, Any]:
    return {"type": "toolResponse", "id": cid, "toolResult": {"status": "success", "value": {
        "content": [{"type": "text", "text": out}], "isError": error}}}


def thinking(t: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": t, "signature": SIGNATURE}


# A message: (role, content, created (seconds), metadata)
Message = tuple[str, list[dict[str, Any]], int, dict[str, Any]]


def _turn(p: str, t: int) -> list[Message]:
    return [
        ("user", [text("What is in the src folder?")], t, VISIBLE),
        ("assistant", [thinking("List it first."), text("Let me look."),
                       request(f"toolu_{p}01", "developer__shell", {"command": "ls src"})], t + 1, VISIBLE),
        ("user", [response(f"toolu_{p}01", "a.py\nb.py")], t + 2, VISIBLE),
        ("assistant", [text("Two files: a.py and b.py.")], t + 3, VISIBLE),
    ]


def clean() -> list[Message]:
    return _turn("c", 1764600000)


def crash() -> list[Message]:
    t = 1764601000
    return _turn("k", t) + [
        ("user", [text("Run the tests")], t + 10, VISIBLE),
        ("assistant", [text("Running."), request("toolu_k02", "developer__shell", {"command": "pytest"})], t + 11,
         VISIBLE),
        ("user", [text("hello?")], t + 300, VISIBLE),
    ]


def orphan() -> list[Message]:
    t = 1764602000
    return _turn("o", t) + [("user", [response("toolu_o99", "stale")], t + 5, VISIBLE),
                            ("user", [text("thanks")], t + 6, VISIBLE)]


def duplicate() -> list[Message]:
    t = 1764603000
    rows = _turn("d", t)
    rows.insert(3, ("user", [response("toolu_d01", "a.py\nb.py")], t + 2, VISIBLE))
    return rows


def separated() -> list[Message]:
    """aaif-goose/goose #7914: the response is stored after a later user message."""
    t = 1764604000
    return _turn("s", t) + [
        ("user", [text("Build the installer")], t + 10, VISIBLE),
        ("assistant", [request("toolu_s29", "developer__shell", {"command": "make installer"})], t + 11, VISIBLE),
        ("user", [text("hello")], t + 200, VISIBLE),
        ("user", [response("toolu_s29", "built")], t + 201, VISIBLE),
        ("assistant", [text("Done.")], t + 202, VISIBLE),
    ]


def redeclared() -> list[Message]:
    """aaif-goose/goose #9786: the provider emitted two requests with one id in one turn; Goose ran
    both and stored both responses, so one assistant message of the request declares the id twice."""
    t = 1764606000
    return _turn("r", t) + [
        ("user", [text("Again for tests/")], t + 10, VISIBLE),
        ("assistant", [request("toolu_r02", "developer__shell", {"command": "ls tests"}),
                       request("toolu_r02", "developer__shell", {"command": "ls tests"})], t + 11, VISIBLE),
        ("user", [response("toolu_r02", "test_a.py"), response("toolu_r02", "test_a.py")], t + 12, VISIBLE),
        ("assistant", [text("One test file.")], t + 13, VISIBLE),
    ]


def reused() -> list[Message]:
    """aaif-goose/goose #11823: the provider reused a call id later in the session; each call has
    its response, so the request holds two complete pairs under one id (issue 30: kept)."""
    t = 1764606000
    return _turn("u", t) + [
        ("user", [text("Again for tests/")], t + 10, VISIBLE),
        ("assistant", [request("toolu_u01", "developer__shell", {"command": "ls tests"})], t + 11, VISIBLE),
        ("user", [response("toolu_u01", "test_a.py")], t + 12, VISIBLE),
        ("assistant", [text("One test file.")], t + 13, VISIBLE),
    ]


def hidden() -> list[Message]:
    """A summary replaced the first turn: those messages are kept but not agent-visible."""
    t = 1764605000
    gone = {"userVisible": True, "agentVisible": False}
    return [(r, c, w, gone) for r, c, w, _ in _turn("h", t)] + [
        ("user", [text("Summary: src has a.py and b.py.")], t + 5, {"userVisible": False, "agentVisible": True}),
        ("user", [text("Continue")], t + 6, VISIBLE),
    ]


BROKEN = {"separated": separated, "redeclared": redeclared}
SELF_REPAIRED = {"crash": crash, "orphan": orphan, "duplicate": duplicate}
FINE = {"clean": clean, "hidden": hidden, "reused": reused, **SELF_REPAIRED}
ALL = {**BROKEN, **FINE}


def stamp(t: int) -> str:
    import datetime
    return datetime.datetime.fromtimestamp(t, tz=datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def compact(value: Any) -> str:
    """serde_json's ``to_string``: compact, non-ASCII as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def write_db(path: Path, sessions: dict[str, list[Message]]) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    for sql in SCHEMA:
        conn.execute(sql)
    for sid, messages in sessions.items():
        conn.execute("INSERT INTO sessions (id, name, working_dir, extension_data, created_at, updated_at, "
                     "provider_name) VALUES (?, ?, '/work', '{}', ?, ?, 'anthropic')",
                     (sid, f"session {sid}", stamp(messages[0][2]), stamp(messages[-1][2])))
        for n, (role, content, when, meta) in enumerate(messages):
            conn.execute("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, "
                         "timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (f"msg_{sid}_{n:04d}", sid, role, compact(content), when, stamp(when), compact(meta)))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def one(path: Path, name: str) -> Path:
    return write_db(path, {f"20261201_{sorted(ALL).index(name) + 1}": ALL[name]()})


def write_jsonl(path: Path, messages: list[Message]) -> Path:
    lines = [compact({"working_dir": "/work", "description": "legacy session", "schedule_id": None,
                      "message_count": len(messages), "total_tokens": None})]
    for n, (role, content, when, meta) in enumerate(messages):
        lines.append(compact({"id": f"msg_{n:04d}", "role": role, "created": when, "content": content,
                              "metadata": meta}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def sample() -> list[Message]:
    """``samples/29-goose-session.db``: a call id the provider reused in a later turn (#11823, each
    use answered: kept), two requests with one id in one turn (#9786), then Goose stopped during a
    shell call whose request has no response."""
    t = 1764608000
    rows = reused() + [
        ("user", [text("And the docs folder?")], t + 20, VISIBLE),
        ("assistant", [request("toolu_u03", "developer__shell", {"command": "ls docs"}),
                       request("toolu_u03", "developer__shell", {"command": "ls docs"})], t + 21, VISIBLE),
        ("user", [response("toolu_u03", "index.md"), response("toolu_u03", "index.md")], t + 22, VISIBLE),
    ]
    return rows + [
        ("user", [text("Now run them")], t + 30, VISIBLE),
        ("assistant", [request("toolu_u05", "developer__shell", {"command": "pytest tests"})], t + 31, VISIBLE),
        ("user", [text("goose quit; did the tests pass?")], t + 600, VISIBLE),
    ]


def write_sample(path: Path) -> Path:
    path.unlink(missing_ok=True)
    return write_db(path, {"20261201_4": sample()})

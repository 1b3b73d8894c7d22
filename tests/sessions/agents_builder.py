"""Agents SDK SQLiteSession databases made with the SDK's own schema and JSON spelling
(``json.dumps`` per item, ``created_at`` from CURRENT_TIMESTAMP-style text)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS agent_sessions (
    session_id TEXT PRIMARY KEY,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS agent_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    message_data TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS idx_agent_messages_session_id ON agent_messages (session_id, created_at);
"""


def make(path: Path, sessions: dict[str, list[Any]], wal: bool = False) -> Path:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    for n, (sid, items) in enumerate(sessions.items()):
        conn.execute("INSERT INTO agent_sessions (session_id, created_at, updated_at) VALUES (?, ?, ?)",
                     (sid, f"2025-10-12 09:0{n}:00", f"2025-10-12 09:0{n}:30"))
        for k, item in enumerate(items):
            conn.execute("INSERT INTO agent_messages (session_id, message_data, created_at) VALUES (?, ?, ?)",
                         (sid, json.dumps(item), f"2025-10-12 09:0{n}:{k // 3:02d}"))
    conn.commit()
    conn.close()
    return path


def orphan_output() -> list[Any]:
    """A run was cancelled between the tool call and its output, and a retry wrote the output
    without the call (openai-agents-python #4827), then the user kept going."""
    return [
        {"content": "What's the weather in Lisbon and in Porto?", "role": "user"},
        {"arguments": "{\"city\":\"Lisbon\"}", "call_id": "call_Lx81", "name": "get_weather",
         "type": "function_call", "id": "fc_01", "status": "completed"},
        {"call_id": "call_Lx81", "output": "Lisbon: 21C, sunny", "type": "function_call_output"},
        {"call_id": "call_Po27", "output": "Porto: 17C, cloudy", "type": "function_call_output"},
        {"id": "msg_01", "content": [{"annotations": [], "text": "Lisbon is 21C and sunny.", "type": "output_text"}],
         "role": "assistant", "status": "completed", "type": "message"},
        {"content": "And tomorrow?", "role": "user"},
        {"arguments": "{\"city\":\"Lisbon\",\"day\":\"tomorrow\"}", "call_id": "call_Tm03", "name": "get_weather",
         "type": "function_call", "id": "fc_02", "status": "completed"},
        {"content": "Hello? Are you still there?", "role": "user"},
    ]


def clean() -> list[Any]:
    return [
        {"content": "Weather in Faro?", "role": "user"},
        {"arguments": "{\"city\":\"Faro\"}", "call_id": "call_Fa11", "name": "get_weather",
         "type": "function_call", "id": "fc_09", "status": "completed"},
        {"call_id": "call_Fa11", "output": "Faro: 24C", "type": "function_call_output"},
        {"id": "msg_09", "content": [{"annotations": [], "text": "Faro is 24C.", "type": "output_text"}],
         "role": "assistant", "status": "completed", "type": "message"},
    ]


def items(path: Path, session: str) -> list[Any]:
    """What the SDK's get_items returns (its own query)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT message_data FROM agent_messages WHERE session_id = ? ORDER BY created_at ASC",
                            (session,)).fetchall()
    finally:
        conn.close()
    return [json.loads(r[0]) for r in rows]


def empty_call_ids(crashed: bool = True) -> list[Any]:
    """A session written by the SDK's ``OpenAIChatCompletionsModel`` against an
    OpenAI-compatible endpoint that sends no tool-call ids: every ``function_call`` keeps
    the ``"call_id": ""`` and ``"id": "__fake_id__"`` the stream handler starts it with
    (openai/openai-agents-python, ``src/agents/models/chatcmpl_stream_handler.py`` and
    ``fake_id.py`` at 7f7a44f8), and each output copies that empty id. With ``crashed``,
    the last call of the session never got its output."""
    call = lambda args: {"arguments": args, "call_id": "", "name": "get_weather",  # noqa: E731
                         "type": "function_call", "id": "__fake_id__"}
    out = lambda text: {"call_id": "", "output": text, "type": "function_call_output"}  # noqa: E731
    said = lambda text: {"id": "__fake_id__", "content": [{"annotations": [], "text": text,  # noqa: E731
                                                            "type": "output_text"}],
                         "role": "assistant", "status": "completed", "type": "message"}
    items = [{"content": "Weather in Lisbon and Porto?", "role": "user"},
             call('{"city":"Lisbon"}'), call('{"city":"Porto"}'),
             out("Lisbon: 21C"), out("Porto: 17C"),
             said("Lisbon 21C, Porto 17C."),
             {"content": "And Faro?", "role": "user"},
             call('{"city":"Faro"}'), out("Faro: 24C"), said("Faro is 24C.")]
    if crashed:
        items += [{"content": "And Braga?", "role": "user"}, call('{"city":"Braga"}'),
                  {"content": "Hello?", "role": "user"}]
    return items


# AdvancedSQLiteSession's structure table, as its _init_structure_tables creates it
# (openai/openai-agents-python src/agents/extensions/memory/advanced_sqlite_session.py, 7f7a44f8).
STRUCTURE = """
CREATE TABLE IF NOT EXISTS message_structure (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    branch_id TEXT NOT NULL DEFAULT 'main',
    message_type TEXT NOT NULL,
    sequence_number INTEGER NOT NULL,
    user_turn_number INTEGER,
    branch_turn_number INTEGER,
    tool_name TEXT,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (session_id) REFERENCES agent_sessions(session_id) ON DELETE CASCADE,
    FOREIGN KEY (message_id) REFERENCES agent_messages(id) ON DELETE CASCADE
);
"""


def make_advanced(path: Path, session: str, items: list[Any]) -> Path:
    """A database as AdvancedSQLiteSession writes it: each row with its structure entry
    (its _insert_structure_metadata: type by role or item type, turn numbers by user message)."""
    make(path, {session: items})
    conn = sqlite3.connect(path)
    conn.executescript(STRUCTURE)
    turn = 0
    for seq, (mid, text) in enumerate(conn.execute(
            "SELECT id, message_data FROM agent_messages WHERE session_id = ? ORDER BY id", (session,)).fetchall()):
        item = json.loads(text)
        turn += item.get("role") == "user"
        kind = item["role"] if item.get("role") in ("user", "assistant") else str(item.get("type") or "other")
        conn.execute("INSERT INTO message_structure (session_id, message_id, message_type, sequence_number, "
                     "user_turn_number, branch_turn_number, tool_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (session, mid, kind, seq + 1, turn, turn, item.get("name")))
    conn.commit()
    conn.close()
    return path


def advanced_items(path: Path, session: str, branch: str = "main") -> list[Any]:
    """What AdvancedSQLiteSession.get_items returns (its own query)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT m.message_data FROM agent_messages m JOIN message_structure s "
                            "ON m.id = s.message_id WHERE m.session_id = ? AND s.branch_id = ? "
                            "ORDER BY s.sequence_number ASC", (session, branch)).fetchall()
    finally:
        conn.close()
    return [json.loads(r[0]) for r in rows]

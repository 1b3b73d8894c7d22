"""OpenClaw agent databases (``openclaw-agent.sqlite``, 2026.9.2 and later) holding pi sessions as
``transcript_events`` rows, with the tables of OpenClaw's agent schema the store reads and writes
(openclaw/openclaw ``src/state/openclaw-agent-db-contract.ts`` @ 040e1a765488, schema 19: its
generated schema's ``schema_meta``, ``sessions``, ``transcript_events``,
``transcript_event_identities``, written here in the same columns), one row per pi record in
``seq`` order, ``created_at`` in Unix milliseconds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from . import pi_builder

SCHEMA = """
CREATE TABLE schema_meta (meta_key TEXT NOT NULL PRIMARY KEY, role TEXT NOT NULL, schema_version INTEGER NOT NULL,
  agent_id TEXT, app_version TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE sessions (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL,
  session_scope TEXT NOT NULL DEFAULT 'conversation', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  started_at INTEGER, ended_at INTEGER, status TEXT, chat_type TEXT, channel TEXT, account_id TEXT,
  primary_conversation_id TEXT, model_provider TEXT, model TEXT, agent_harness_id TEXT, parent_session_key TEXT,
  spawned_by TEXT, display_name TEXT);
CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL,
  created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES sessions(session_id) ON DELETE CASCADE);
CREATE INDEX idx_agent_transcript_events_updated ON transcript_events(session_id, created_at DESC, seq DESC);
CREATE TABLE transcript_event_identities (session_id TEXT NOT NULL, event_id TEXT NOT NULL, seq INTEGER NOT NULL,
  event_type TEXT, has_parent INTEGER NOT NULL DEFAULT 0, parent_id TEXT, message_idempotency_key TEXT,
  created_at INTEGER NOT NULL, PRIMARY KEY (session_id, event_id),
  FOREIGN KEY (session_id, seq) REFERENCES transcript_events(session_id, seq) ON DELETE CASCADE);
"""
T0 = 1762160400000


def build(path: Path, sessions: dict[str, pi_builder.Session]) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO schema_meta VALUES ('agent', 'agent', 19, 'main', '2026.9.2', ?, ?)", (T0, T0))
    for n, (sid, s) in enumerate(sessions.items()):
        conn.execute("INSERT INTO sessions (session_id, session_key, created_at, updated_at, model_provider, model) "
                     "VALUES (?, ?, ?, ?, ?, ?)", (sid, f"agent:main:{sid[:8]}", T0, T0 + n, "anthropic",
                                                   "claude-sonnet-4-5"))
        for seq, e in enumerate(s.entries, start=1):
            conn.execute("INSERT INTO transcript_events VALUES (?, ?, ?, ?)",
                         (sid, seq, pi_builder.stringify(e), T0 + seq))
            if e["type"] != "session":
                conn.execute("INSERT INTO transcript_event_identities VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
                             (sid, e["id"], seq, e["type"], int(e["parentId"] is not None), e["parentId"], T0 + seq))
    conn.commit()
    conn.close()
    return path


def sample(path: Path) -> Path:
    """``samples/32-openclaw-agent.sqlite``: one session, pi killed during a read, then the user's next message."""
    return build(path, {"5b1e2c3d-0000-4a1b-9c8d-7e6f5a4b3c2d": pi_builder.scenario("crash")})

"""A resume simulator for Crush: the Anthropic request Crush builds for the next turn of a
stored session, rebuilt from the database alone and written apart from the importer, so that
the two can disagree.

Steps, after charmbracelet/crush @ 37f36e93:

1. ``ListMessagesBySession``: ``SELECT * FROM messages WHERE session_id = ? ORDER BY
   created_at`` (``internal/db/sql/messages.sql``; the index keeps rowid order in a tie);
2. ``getSessionMessages``: from the session's ``summary_message_id`` on, that message as user;
3. ``preparePrompt``: messages without parts out, assistant messages with no calls, text or
   reasoning out; from 0.57.0 results whose call is not in the session left out
   (``filterOrphanedToolResults``); from 0.59.0 a call without a result followed by a tool
   message holding the error "tool call was interrupted ..." (``syntheticToolResultsForOrphanedCalls``);
4. ``ToAIMessage``: user text (trimmed), assistant text (trimmed), reasoning with its
   signature, calls; a tool message's results (``is_error`` for an error);
5. fantasy's Anthropic request (charmbracelet/fantasy ``providers/anthropic/anthropic.go``
   @ f6d4d1e3, ``groupIntoBlocks``/``toPrompt``): user and tool messages in a row are one user
   turn, parts in ``ToAIMessage``'s order (text, reasoning, calls), reasoning only signed.

``version`` picks the behaviour of steps 3's repairs (a tuple such as ``(0, 56)``; None: current).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from inspector.formats import anthropic

from .simulate import rejected, turns

SYNTHETIC = "tool call was interrupted and did not produce a result, you may retry this call if the result is still needed"


def load(path: Path, session: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """The session's messages (role, id, parts) and its summary message id, read from a copy."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "crush.db"
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{path}{suffix}").exists():
                shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")
        conn = sqlite3.connect(copy)
        try:
            if session is None:
                session = conn.execute("SELECT id FROM sessions LIMIT 1").fetchone()[0]
            summary = conn.execute("SELECT summary_message_id FROM sessions WHERE id = ?", (session,)).fetchone()[0]
            rows = conn.execute("SELECT id, role, parts FROM messages WHERE session_id = ? ORDER BY created_at",
                                (session,)).fetchall()
        finally:
            conn.close()
    return [{"id": i, "role": r, "parts": json.loads(p)} for i, r, p in rows], summary


def _of(msg: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [p["data"] for p in msg["parts"] if p["type"] == kind]


def request(messages: list[dict[str, Any]], summary: str | None, version: tuple[int, ...] | None = None) -> dict:
    if summary:
        at = next((k for k, m in enumerate(messages) if m["id"] == summary), None)
        if at is not None:
            messages = messages[at:]
            messages[0] = {**messages[0], "role": "user"}
    drops_orphans = version is None or version >= (0, 57)
    answers_calls = version is None or version >= (0, 59)
    calls = {c["id"] for m in messages if m["role"] == "assistant" for c in _of(m, "tool_call")}
    results = {r["tool_call_id"] for m in messages if m["role"] == "tool" for r in _of(m, "tool_result")}
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for m in messages:
        if not m["parts"]:
            continue
        texts, thoughts = _of(m, "text"), _of(m, "reasoning")
        if m["role"] == "assistant":
            mine = _of(m, "tool_call")
            text = texts[0]["text"] if texts else ""
            thinking = thoughts[0]["thinking"] if thoughts else ""
            if not mine and not text and not thinking:
                continue
            content = []
            if text.strip():
                content.append({"type": "text", "text": text.strip()})
            if thinking and thoughts[0]["signature"]:
                content.append({"type": "thinking", "thinking": thinking, "signature": thoughts[0]["signature"]})
            content += [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": json.loads(c["input"] or "{}")}
                        for c in mine]
            turns.append(("assistant", content))
            missing = [c for c in mine if c["id"] not in results]
            if answers_calls and missing:
                turns.append(("user", [{"type": "tool_result", "tool_use_id": c["id"], "content": SYNTHETIC,
                                        "is_error": True} for c in missing]))
        elif m["role"] == "tool":
            content = []
            for r in _of(m, "tool_result"):
                if drops_orphans and r["tool_call_id"] not in calls:
                    continue
                block = {"type": "tool_result", "tool_use_id": r["tool_call_id"], "content": r["content"]}
                if r["is_error"]:
                    block["is_error"] = True
                content.append(block)
            if content:
                turns.append(("user", content))
        else:
            text = texts[0]["text"].strip() if texts else ""
            if text:
                turns.append(("user", [{"type": "text", "text": text}]))
    body: list[dict[str, Any]] = []
    for role, content in turns:
        if body and body[-1]["role"] == role:
            body[-1]["content"].extend(content)
        else:
            body.append({"role": role, "content": content})
    return {"messages": body}


def resume(path: Path, session: str | None = None, version: tuple[int, ...] | None = None) -> dict:
    return request(*load(path, session), version=version)


def problems(body: dict[str, Any]) -> list[str]:
    """What the Anthropic API refuses in ``body``: ``check --target anthropic``, plus one result
    per call and unique call ids."""
    flat = anthropic.import_(body, "<resume>").messages
    found = rejected(flat, "anthropic")
    # Per turn (issue 30; consecutive messages of one role are one turn to the API): the API refuses
    # a duplicate inside one turn ("messages.1.content.1"),
    # and answered 200 a request reusing a completed pair's id in a later turn (pydantic/pydantic-ai
    # @ 4fda389, tests/cassettes/test_tool_search/test_cross_provider_capability_replay[...].yaml).
    for m in turns(body["messages"]):
        uses = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
        answered = [b["tool_use_id"] for b in m["content"] if b["type"] == "tool_result"]
        if len(uses) != len(set(uses)):
            found.append("tool_use ids must be unique")
        if len(answered) != len(set(answered)):
            found.append("each tool_use must have a single result")
    return found

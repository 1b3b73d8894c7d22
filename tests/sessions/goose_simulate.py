"""A resume simulator for Goose: the OpenAI Chat Completions request Goose builds for the next
turn of a stored session (the API of aaif-goose/goose #7914), rebuilt from the store alone and
written apart from the importer (which reads Goose's Anthropic spelling), so the two can
disagree.

Steps, after aaif-goose/goose: ``get_conversation`` (``session_manager.rs``: ``ORDER BY
timestamp``, user and assistant rows), the agent-visible messages, ``fix_conversation``
(``conversation/mod.rs``: empty messages out; ``fix_tool_calling`` drops a response without
an earlier pending request and a request no response answered, calls and thinking from user
messages, responses from assistant messages; consecutive messages of one effective role
merged; a leading assistant message out), then the OpenAI format: an assistant message with
its text and ``tool_calls``, a ``tool`` message per response, a user message for user text.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from inspector.formats import import_history, openai_chat

from .simulate import rejected


def load_db(path: Path, session: str | None = None) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "sessions.db"
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{path}{suffix}").exists():
                shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")
        conn = sqlite3.connect(copy)
        try:
            if session is None:
                session = conn.execute("SELECT id FROM sessions LIMIT 1").fetchone()[0]
            rows = conn.execute("SELECT role, content_json, metadata_json FROM messages WHERE session_id = ? "
                                "ORDER BY timestamp", (session,)).fetchall()
        finally:
            conn.close()
    return [{"role": r, "content": json.loads(c), "metadata": json.loads(m) if m else {}} for r, c, m in rows
            if r in ("user", "assistant")]


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        try:
            m = json.loads(line)
        except ValueError:
            continue
        out.append({"role": m["role"], "content": m["content"], "metadata": m.get("metadata") or {}})
    return out


def fix(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    msgs = [dict(m, content=list(m["content"])) for m in messages if m["metadata"].get("agentVisible", True)]

    def nonempty(ms):
        return [m for m in ms if not all(c["type"] == "text" and not c.get("text") for c in m["content"])]

    msgs = nonempty(msgs)
    pending: set[str] = set()
    for m in msgs:
        keep = []
        for c in m["content"]:
            if m["role"] == "user":
                if c["type"] in ("toolRequest", "toolConfirmationRequest", "thinking", "redactedThinking"):
                    continue
                if c["type"] == "toolResponse":
                    if c["id"] not in pending:
                        continue
                    pending.discard(c["id"])
            else:
                if c["type"] in ("toolResponse", "frontendToolRequest"):
                    continue
                if c["type"] == "toolRequest":
                    pending.add(c["id"])
            keep.append(c)
        m["content"] = keep
    for m in msgs:
        if m["role"] == "assistant":
            m["content"] = [c for c in m["content"] if not (c["type"] == "toolRequest" and c["id"] in pending)]
    msgs = nonempty(msgs)

    def effective(m):
        return "tool" if m["role"] == "user" and any(c["type"] == "toolResponse" for c in m["content"]) else m["role"]

    merged: list[dict[str, Any]] = []
    for m in msgs:
        if merged and effective(merged[-1]) == effective(m):
            merged[-1]["content"] += m["content"]
        else:
            merged.append(m)
    if merged and merged[0]["role"] == "assistant":
        merged.pop(0)
    return merged


def openai(messages: list[dict[str, Any]]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for m in fix(messages):
        text = "".join(c.get("text", "") for c in m["content"] if c["type"] == "text")
        if m["role"] == "assistant":
            calls = [{"id": c["id"], "type": "function", "function": {
                "name": c["toolCall"]["value"]["name"], "arguments": json.dumps(c["toolCall"]["value"]["arguments"])}}
                for c in m["content"] if c["type"] == "toolRequest"]
            msg: dict[str, Any] = {"role": "assistant", "content": text.rstrip() or None}
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
            continue
        for c in m["content"]:
            if c["type"] == "toolResponse":
                result = c["toolResult"]
                body = "\n".join(x.get("text", "") for x in result["value"]["content"]) \
                    if result["status"] == "success" else result["error"]
                out.append({"role": "tool", "tool_call_id": c["id"], "content": body})
        if text:
            out.append({"role": "user", "content": text})
    return {"messages": out}


def resume_db(path: Path, session: str | None = None) -> dict[str, Any]:
    return openai(load_db(path, session))


def resume_jsonl(path: Path) -> dict[str, Any]:
    return openai(load_jsonl(path))


def problems(body: dict[str, Any]) -> list[str]:
    """What Chat Completions refuses in ``body`` (``check --target openai-chat``)."""
    # Read as the provider pairs it (issue 30): a later pair reusing a completed pair's id is a pair
    # of its own, which no documented refusal covers; a second declaration in one turn still is one.
    return rejected(import_history(body, "<resume>", "openai-chat").messages, "openai-chat")

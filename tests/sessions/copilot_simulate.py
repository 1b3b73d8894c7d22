"""A resume simulator for Copilot CLI: the Anthropic Messages request Copilot CLI builds from an
``events.jsonl`` when it resumes, rebuilt from the bytes alone and written apart from the
importer (``inspector/formats/copilot/``), so the two can disagree.

From the event schema (github/copilot-sdk ``nodejs/src/generated/session-events.ts`` at
cc0438d66e3e) and the reports: the main agent's ``user.message``, ``assistant.message`` (text,
then a ``tool_use`` per ``toolRequests`` entry) and ``tool.execution_complete`` (a
``tool_result``, ``is_error`` when not ``success``) in file order; a sub-agent's events
(``agentId``, ``data.parentToolCallId``) stay out; the last successful
``session.compaction_complete`` puts its ``summaryContent`` in place of the first
``preCompactionMessagesLength`` messages (github/copilot-cli #1005); consecutive messages of one
role are one turn. ``fixes=True`` adds what Copilot CLI 1.0.78 and later does before each
request (github/copilot-cli #3183, github/app #2236): a late result goes back next to its
call, and a call without one gets an interrupted placeholder.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.formats import anthropic

from .simulate import rejected


def events(data: bytes) -> list[dict[str, Any]]:
    out = []
    for raw in data.split(b"\n"):
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _main(e: dict[str, Any]) -> bool:
    d = e.get("data") or {}
    return not e.get("agentId") and not d.get("parentToolCallId")


def conversation(data: bytes) -> list[dict[str, Any]]:
    """The messages Copilot CLI keeps for the main agent, one per event, in its own terms."""
    msgs: list[dict[str, Any]] = []
    for e in events(data):
        kind, d = e.get("type"), e.get("data") or {}
        if not _main(e):
            continue
        if kind == "user.message":
            msgs.append({"role": "user", "content": [{"type": "text", "text": d.get("content", "")}]})
        elif kind == "assistant.message":
            blocks = [{"type": "text", "text": d["content"]}] if d.get("content") else []
            blocks += [{"type": "tool_use", "id": r["toolCallId"], "name": r["name"], "input": r.get("arguments") or {}}
                       for r in d.get("toolRequests") or []]
            msgs.append({"role": "assistant", "content": blocks})
        elif kind == "tool.execution_complete":
            ok = d.get("success") is True
            text = (d.get("result") or {}).get("content", "") if ok else (d.get("error") or {}).get("message", "")
            block = {"type": "tool_result", "tool_use_id": d.get("toolCallId"), "content": text}
            if not ok:
                block["is_error"] = True
            msgs.append({"role": "user", "content": [block]})
        elif kind == "session.compaction_complete" and d.get("success") is True:
            n = d.get("preCompactionMessagesLength", len(msgs))
            msgs = [{"role": "user", "content": [{"type": "text", "text": d.get("summaryContent", "")}]}, *msgs[n:]]
    return msgs


def _fix(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    results = {b["tool_use_id"]: m for m in msgs for b in m["content"] if b.get("type") == "tool_result"}
    out: list[dict[str, Any]] = []
    used: set[int] = set()
    for m in msgs:
        if id(m) in used:
            continue
        out.append(m)
        for b in m["content"] if m["role"] == "assistant" else ():
            if b.get("type") != "tool_use":
                continue
            r = results.get(b["id"])
            if r is None:
                out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"],
                                                         "content": "interrupted", "is_error": True}]})
            else:
                out.append(r)
                used.add(id(r))
    return out


def request(data: bytes, fixes: bool = False) -> list[dict[str, Any]]:
    """The ``messages`` of the request: the conversation as turns (one role per turn)."""
    msgs = conversation(data)
    if fixes:
        msgs = _fix(msgs)
    turns: list[dict[str, Any]] = []
    for m in msgs:
        if turns and turns[-1]["role"] == m["role"]:
            turns[-1]["content"] = turns[-1]["content"] + m["content"]
        else:
            turns.append({"role": m["role"], "content": list(m["content"])})
    return turns


def problems(data: bytes, fixes: bool = False) -> list[str]:
    """What the Anthropic API refuses in the resumed request (errors only)."""
    body = {"model": "claude-sonnet-4.5", "max_tokens": 1024, "messages": request(data, fixes)}
    return rejected(anthropic.import_(body, "<resume>").messages, "anthropic")

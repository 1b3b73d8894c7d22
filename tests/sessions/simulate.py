"""A resume simulator: what Claude Code sends after ``claude --resume``, rebuilt from the
file alone, written apart from the importer so that the two can disagree.

It takes the last non-sidechain user/assistant line as the leaf, walks ``parentUuid`` back
(through ``logicalParentUuid`` at a compact boundary), keeps what follows the last boundary,
merges the lines of one API message (same ``message.id``) and consecutive user lines, and
returns the Anthropic request body.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.formats import anthropic
from inspector.targets import check


def rejected(messages: list, target: str) -> list[str]:
    """The rules ``target`` rejects ``messages`` for (``check --target``): errors, not warnings."""
    return [p.rule for p in check(messages, target) if p.severity == "error"]


def entries(data: bytes) -> list[Any]:
    out = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue
    return out


def chain(data: bytes) -> list[dict[str, Any]]:
    rows = [e for e in entries(data) if isinstance(e, dict)]
    by_uuid = {}
    for e in rows:
        if e.get("uuid"):
            by_uuid.setdefault(e["uuid"], e)
    leaf = None
    for e in rows:
        if e.get("type") in ("user", "assistant") and not e.get("isSidechain") and e.get("uuid"):
            leaf = e
    walked = []
    node, seen = leaf, set()
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        walked.append(node)
        parent = node.get("parentUuid")
        if parent is None and node.get("subtype") == "compact_boundary":
            parent = node.get("logicalParentUuid")
        node = by_uuid.get(parent) if parent else None
    walked.reverse()
    starts = [k for k, e in enumerate(walked) if e.get("subtype") == "compact_boundary"]
    return walked[starts[-1]:] if starts else walked


def request(data: bytes) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    last_id = None
    for e in chain(data):
        if e.get("type") not in ("user", "assistant") or not isinstance(e.get("message"), dict):
            last_id = None
            continue
        msg = e["message"]
        content = msg["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        role = msg["role"]
        if messages and messages[-1]["role"] == role and (role == "user" or msg.get("id") == last_id):
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
        last_id = msg.get("id") if role == "assistant" else None
    return {"model": "claude-sonnet-4-5-20250929", "max_tokens": 1024, "messages": messages}


def problems(data: bytes) -> list[str]:
    """What the Anthropic API would reject in the resumed request: ``check --target anthropic``,
    plus the two id errors the API reports for a whole request (ids must be unique; one result
    per tool_use), which the issue's reports quote."""
    body = request(data)
    flat = anthropic.import_(body, "<resume>").messages
    found = rejected(flat, "anthropic")
    blocks = [b for m in body["messages"] for b in m["content"] if isinstance(b, dict)]
    uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
    results = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
    if len(uses) != len(set(uses)):
        found.append("tool_use ids must be unique")
    if len(results) != len(set(results)):
        found.append("each tool_use must have a single result")
    return found


def dangling(data: bytes) -> list[str]:
    rows = [e for e in entries(data) if isinstance(e, dict)]
    ids = {e["uuid"] for e in rows if e.get("uuid")}
    return [e["parentUuid"] for e in rows if e.get("parentUuid") and e["parentUuid"] not in ids]


def duplicate_uuids(data: bytes) -> list[str]:
    seen, twice = set(), []
    for e in entries(data):
        u = e.get("uuid") if isinstance(e, dict) else None
        if u in seen:
            twice.append(u)
        elif u:
            seen.add(u)
    return twice


def export_notes(outcome) -> list[tuple[str, str]]:
    """(kind, sentence) of every change the last export made on its own."""
    return [(e.kind, e.message) for e in outcome.export_events]

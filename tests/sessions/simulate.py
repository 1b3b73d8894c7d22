"""A resume simulator: what Claude Code sends after ``claude --resume``, rebuilt from the
file alone, written apart from the importer so that the two can disagree.

It takes the newest childless main-chain line as the leaf, walks ``parentUuid`` back
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


CHAINED = ("user", "assistant", "system", "progress", "attachment")


def _walk(node: dict[str, Any], by_uuid: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    walked, seen = [], set()
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        walked.append(node)
        parent = node.get("parentUuid")
        if parent is None and node.get("subtype") == "compact_boundary":
            parent = node.get("logicalParentUuid")
        node = by_uuid.get(parent) if isinstance(parent, str) and parent else None
    walked.reverse()
    return walked


def chain(data: bytes) -> list[dict[str, Any]]:
    """The lines a resume sends. The leaf is picked as Claude Code 2.1 picks it
    (anthropics/claude-code #62301): among the main-chain lines that no main-chain line
    names as parent, the newest ``timestamp`` (ISO strings compare as times); no timestamp
    loses to any, and the later line wins a tie. A leaf whose walk holds no user or
    assistant line is not a place to resume from."""
    rows = [e for e in entries(data) if isinstance(e, dict)]
    # A uuid two lines hold names the later: Claude Code's loader fills a map by uuid line by
    # line (anthropics/claude-code 2.1.88, src/utils/sessionStorage.ts, loadTranscriptFile).
    by_uuid = {}
    for e in rows:
        if isinstance(e.get("uuid"), str) and e["uuid"]:
            by_uuid[e["uuid"]] = e
    # A sub-agent transcript (subagents/agent-<id>.jsonl) holds sidechain lines only: the
    # Agent tool resumes it as its own conversation.
    convo = [bool(e.get("isSidechain")) for e in rows if e.get("type") in ("user", "assistant")]
    side = bool(convo) and all(convo)
    named = set()
    for e in rows:
        if bool(e.get("isSidechain")) == side and e.get("type") in CHAINED:
            for key in ("parentUuid", "logicalParentUuid"):
                if isinstance(e.get(key), str) and (key == "parentUuid" or e.get("subtype") == "compact_boundary"):
                    named.add(e[key])
    best, best_key, best_walk = None, None, []
    if not any(isinstance(e.get("timestamp"), str) for e in rows):
        # No timestamps at all: the last conversation line of the file is the leaf.
        last = [e for e in rows if e.get("type") in ("user", "assistant") and bool(e.get("isSidechain")) == side
                and isinstance(e.get("uuid"), str)]
        best_walk = _walk(last[-1], by_uuid) if last else []
    for k, e in enumerate(rows if not best_walk else ()):
        if e.get("type") not in CHAINED or bool(e.get("isSidechain")) != side or not isinstance(e.get("uuid"), str):
            continue
        if e["uuid"] in named or by_uuid.get(e["uuid"]) is not e:
            continue
        walked = _walk(e, by_uuid)
        if not any(w.get("type") in ("user", "assistant") and bool(w.get("isSidechain")) == side for w in walked):
            continue
        stamp = e.get("timestamp") if isinstance(e.get("timestamp"), str) else None
        key = (stamp is not None, stamp or "", k)
        if best is None or key > best_key:
            best, best_key, best_walk = e, key, walked
    starts = [k for k, e in enumerate(best_walk) if e.get("subtype") == "compact_boundary"]
    sent = best_walk[starts[-1]:] if starts else best_walk
    return _with_siblings(sent, rows, side)


def _with_siblings(sent: list[dict[str, Any]], rows: list[dict[str, Any]], side: bool) -> list[dict[str, Any]]:
    """Claude Code rebuilds one API message from every line with its ``message.id``: an
    assistant line off the walk joins its message, after the message's last walked line."""
    walked = {id(e) for e in sent}
    extra: dict[str, list[dict[str, Any]]] = {}
    for e in rows:
        msg = e.get("message")
        if id(e) not in walked and e.get("type") == "assistant" and bool(e.get("isSidechain")) == side \
                and isinstance(msg, dict) and isinstance(msg.get("id"), str):
            extra.setdefault(msg["id"], []).append(e)
    last: dict[str, int] = {}
    for k, e in enumerate(sent):
        msg = e.get("message")
        if e.get("type") == "assistant" and isinstance(msg, dict) and msg.get("id") in extra:
            last[msg["id"]] = k
    out: list[dict[str, Any]] = []
    for k, e in enumerate(sent):
        out.append(e)
        for mid, at in last.items():
            if at == k:
                out.extend(extra[mid])
    return out


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


def turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive messages of one role as one message: the turn the API reads them as."""
    out: list[dict[str, Any]] = []
    for m in messages:
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        if out and out[-1]["role"] == m["role"]:
            out[-1]["content"] = [*out[-1]["content"], *content]
        else:
            out.append({"role": m["role"], "content": list(content)})
    return out


def problems(data: bytes) -> list[str]:
    """What the Anthropic API would reject in the resumed request: ``check --target anthropic``,
    plus the two id errors the API reports for a whole request (ids must be unique; one result
    per tool_use), which the issue's reports quote."""
    body = request(data)
    flat = anthropic.import_(body, "<resume>").messages
    found = rejected(flat, "anthropic")
    # Per turn (consecutive messages of one role are one turn to the API): the reports quote a
    # duplicate inside one message ("messages.1.content.1"), and a
    # request reusing a completed pair's id in a later turn was answered 200 (pydantic/pydantic-ai
    # @ 4fda389, tests/cassettes/test_tool_search/test_cross_provider_capability_replay[...].yaml).
    for m in turns(body["messages"]):
        blocks = [b for b in m["content"] if isinstance(b, dict)]
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

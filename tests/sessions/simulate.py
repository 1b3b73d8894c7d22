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


def chain(data: bytes, siblings: bool = True) -> list[dict[str, Any]]:
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
    # The map is all Claude Code reads: a line a later one hides names no parent and joins no
    # message (leaves and siblings come from messages.values()).
    rows = [e for e in rows if not isinstance(e.get("uuid"), str) or not e["uuid"] or by_uuid[e["uuid"]] is e]
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
    return _with_siblings(sent, rows, side) if siblings else sent


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


# -- Claude Code 2.1.88's own recovery and request, from its source ------------------------
# Claude Code 2.1.88's TypeScript as its published source map gave it, read at
# DroxKiwi/claude-code-leak-packaged @ fb1320d1baf5b77a0a02c15f41efb1dfa9aeff4b:
# src/utils/sessionStorage.ts (loadTranscriptFile's progress bridge, buildConversationChain,
# recoverOrphanedParallelToolResults) and src/utils/messages.ts (normalizeMessagesForAPI,
# ensureToolResultPairing, SYNTHETIC_TOOL_RESULT_PLACEHOLDER). Written from that source, apart
# from the importer's model of it.

PLACEHOLDER = "[Tool result missing due to internal error]"


def _has_result(e: dict[str, Any]) -> bool:
    content = e.get("message", {}).get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def recovered_chain(data: bytes) -> list[dict[str, Any]]:
    """The chain 2.1.88 resumes: the walk, progress lines bridged (a line whose parent is a
    progress line hangs off that line's nearest other ancestor), then every off-chain line
    of a message.id on the chain and every off-chain result hanging off a line of that id,
    spliced after the id's last line on the chain (siblings first, each group by timestamp)."""
    rows = [dict(e) for e in entries(data) if isinstance(e, dict)]
    bridge: dict[str, Any] = {}
    for e in rows:
        parent = e.get("parentUuid")
        if e.get("type") == "progress" and isinstance(e.get("uuid"), str):
            bridge[e["uuid"]] = bridge.get(parent, parent) if parent in bridge else parent
        elif parent in bridge:
            e["parentUuid"] = bridge[parent]
    walked = [e for e in chain(b"".join(orjson.dumps(e) + b"\n" for e in rows), siblings=False)
              if e.get("type") != "progress"]
    seen = {e.get("uuid") for e in walked}
    side = bool(walked) and all(bool(e.get("isSidechain")) for e in walked if e.get("type") in ("user", "assistant"))
    mine = [e for e in rows if bool(e.get("isSidechain")) == side and e.get("type") != "progress"]
    anchor: dict[str, dict[str, Any]] = {}
    for e in walked:
        if e.get("type") == "assistant" and e.get("message", {}).get("id"):
            anchor[e["message"]["id"]] = e
    group: dict[str, list[dict[str, Any]]] = {}
    results: dict[str, list[dict[str, Any]]] = {}
    for e in mine:
        if e.get("type") == "assistant" and e.get("message", {}).get("id"):
            group.setdefault(e["message"]["id"], []).append(e)
        elif e.get("type") == "user" and e.get("parentUuid") and _has_result(e):
            results.setdefault(e["parentUuid"], []).append(e)
    inserts: dict[int, list[dict[str, Any]]] = {}
    for mid, last in anchor.items():
        members = group.get(mid, [last])
        lost = [m for m in members if m.get("uuid") not in seen]
        answers = [r for m in members for r in results.get(m.get("uuid"), []) if r.get("uuid") not in seen]
        lost.sort(key=lambda x: x.get("timestamp", ""))
        answers.sort(key=lambda x: x.get("timestamp", ""))
        if lost or answers:
            inserts[id(last)] = lost + answers
    out: list[dict[str, Any]] = []
    for e in walked:
        out.append(e)
        out.extend(inserts.get(id(e), []))
    return out


def claude_code_request(data: bytes) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """What 2.1.88 sends on resume: the recovered chain's messages merged as
    normalizeMessagesForAPI merges them, then ensureToolResultPairing. Returns the messages,
    the calls given the placeholder and the results stripped as orphaned."""
    merged: list[dict[str, Any]] = []
    for e in recovered_chain(data):
        kind = e.get("type")
        if kind not in ("user", "assistant") or not isinstance(e.get("message"), dict):
            continue
        content = e["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else [dict(b) for b in content]
        if kind == "assistant":
            mid = e["message"].get("id")
            into = None
            for m in reversed(merged):      # back across tool results and other assistants only
                if m["role"] == "user" and not m["results"]:
                    break
                if m["role"] == "assistant" and m["id"] == mid:
                    into = m
                    break
            if into is not None:
                into["content"].extend(blocks)
            else:
                merged.append({"role": "assistant", "id": mid, "content": blocks, "results": False})
            continue
        has = any(b.get("type") == "tool_result" for b in blocks)
        if merged and merged[-1]["role"] == "user":
            merged[-1]["content"].extend(blocks)
            merged[-1]["results"] = merged[-1]["results"] or has
        else:
            merged.append({"role": "user", "id": None, "content": blocks, "results": has})
    placeholders: list[str] = []
    stripped: list[str] = []
    out: list[dict[str, Any]] = []
    k = 0
    while k < len(merged):
        m = merged[k]
        if m["role"] != "assistant":
            out.append({"role": m["role"], "content": m["content"]})
            k += 1
            continue
        out.append({"role": "assistant", "content": m["content"]})
        uses = [b["id"] for b in m["content"] if b.get("type") == "tool_use"]
        nxt = merged[k + 1] if k + 1 < len(merged) and merged[k + 1]["role"] == "user" else None
        given = [b.get("tool_use_id") for b in (nxt["content"] if nxt else []) if b.get("type") == "tool_result"]
        missing = [u for u in uses if u not in given]
        orphans = [g for g in given if g not in uses]
        placeholders += missing
        stripped += orphans
        synthetic = [{"type": "tool_result", "tool_use_id": u, "content": PLACEHOLDER, "is_error": True}
                     for u in missing]
        if nxt is not None:
            kept = [b for b in nxt["content"] if not (b.get("type") == "tool_result" and b.get("tool_use_id") in orphans)]
            out.append({"role": "user", "content": synthetic + kept or [{"type": "text", "text": "(no content)"}]})
            k += 2
        else:
            if synthetic:
                out.append({"role": "user", "content": synthetic})
            k += 1
    return out, placeholders, stripped

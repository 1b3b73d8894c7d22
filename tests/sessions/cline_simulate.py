"""A resume simulator for the Cline family: what each extension sends to Anthropic when a task
folder is resumed, rebuilt from the folder alone and written apart from the importer so that
the two can disagree. Each step names the function it follows (sources: docs/stores/cline.md).

``request(folder, agent)`` returns the Anthropic request body; ``problems(folder, agent)`` what
the API would reject in it. ``agent`` is ``cline`` (classic task loop, 3.35-3.89), ``cline-v4``
(the SDK extension opening a legacy task), ``roo`` (3.43+) or ``kilo`` (legacy 5.x).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from inspector.formats import anthropic

from .simulate import rejected, turns

AGENTS = ("cline", "cline-v4", "roo", "kilo")
INTERRUPTED = "Task was interrupted before this tool call could be completed."
VALIDATOR_MISSING = "Tool execution was interrupted before completion."
CLINE_MISSING = "result missing"
V4_MISSING = "[migration] Tool result missing in legacy conversation history."
V4_WARNING = ("Warning: this is a legacy conversation, which means tool names may have changed. "
              "Please use the most up-to-date tools you are aware of.")
ANTHROPIC_BLOCKS = {"text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking", "document"}


# -- reading the folder ------------------------------------------------------------------------

def load(folder: str | Path) -> dict[str, Any]:
    folder = Path(folder)
    out: dict[str, Any] = {"history": json.loads((folder / "api_conversation_history.json").read_text("utf-8")),
                           "deleted_range": None, "context_history": []}
    ctx = folder / "context_history.json"
    if ctx.exists():
        out["context_history"] = json.loads(ctx.read_text("utf-8"))
    # Cline keeps the range on the task's HistoryItem in <globalStorage>/state/taskHistory.json.
    state = folder.parent.parent / "state" / "taskHistory.json"
    if state.exists():
        for item in json.loads(state.read_text("utf-8")):
            if item.get("id") == folder.name:
                out["deleted_range"] = item.get("conversationHistoryDeletedRange")
    return out


def blocks(content: Any) -> list[Any]:
    if isinstance(content, list):
        return list(content)
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return []


def calls(msg: dict[str, Any]) -> list[dict[str, Any]]:
    if msg.get("role") != "assistant" or not isinstance(msg.get("content"), list):
        return []
    return [b for b in msg["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]


def is_result(b: Any) -> bool:
    return isinstance(b, dict) and b.get("type") == "tool_result"


# -- Cline classic: task/index.ts resumeTaskFromHistory, ContextManager.getAndAlterTruncatedMessages

def cline_resume(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    history = copy.deepcopy(history)
    opening: list[Any] = []
    if history and history[-1].get("role") == "user":
        opening = blocks(history.pop()["content"])
    history.append({"role": "user", "content": [*opening, {"type": "text", "text": "[TASK RESUMPTION] ..."}]})
    return history


def cline_truncate(messages: list[dict[str, Any]], deleted: Any, context: list[Any]) -> list[dict[str, Any]]:
    if len(messages) <= 1:
        return messages
    start = deleted[1] + 1 if deleted else 2
    kept = [*messages[:2], *messages[start:]]
    index = [0, 1, *range(start, len(messages))][:len(kept)]
    if start > 2 and len(kept) > 2 and kept[2].get("role") == "user" and isinstance(kept[2].get("content"), list):
        kept[2] = {**kept[2], "content": [b for b in kept[2]["content"] if not is_result(b)]}
    updates = {entry[0]: entry[1][1] for entry in context}
    for k, original in enumerate(index):
        for block_index, changes in updates.get(original, []):
            latest = changes[-1]
            content = kept[k].get("content")
            if latest[1] == "text" and isinstance(content, list) and block_index < len(content):
                block = content[block_index]
                if block.get("type") == "text":
                    block["text"] = latest[2][0]
                elif is_result(block) and isinstance(block.get("content"), list) and block["content"]:
                    block["content"][0]["text"] = latest[2][0]
    cline_pair(kept)
    return kept


def cline_pair(messages: list[dict[str, Any]]) -> None:
    """ensureToolResultsFollowToolUse."""
    for i in range(len(messages) - 1):
        ids = [b.get("id") for b in calls(messages[i]) if b.get("id")]
        nxt = messages[i + 1]
        if not ids or nxt.get("role") != "user":
            continue
        content = nxt["content"] if isinstance(nxt.get("content"), list) else []
        found: dict[str, Any] = {}
        other = []
        for b in content:
            if is_result(b) and b.get("tool_use_id"):
                found[b["tool_use_id"]] = b            # a later result for one id replaces the earlier
            else:
                other.append(b)
        update = False
        if found:
            expected = 0
            for b in content:
                if expected >= len(ids):
                    break
                if is_result(b) and b.get("tool_use_id") == ids[expected]:
                    expected += 1
                elif is_result(b) or expected < len(ids):
                    update = True
                    break
            if not update and expected < len(found):
                update = True
        for cid in ids:
            if cid not in found:
                found[cid] = {"type": "tool_result", "tool_use_id": cid, "content": CLINE_MISSING}
                update = True
        if update:
            messages[i + 1] = {**nxt, "content": [found[cid] for cid in ids] + other}


def cline_send(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """convertClineStorageToAnthropicMessage: role and content; unsigned thinking removed."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = [b for b in content if not (b.get("type") == "thinking" and not b.get("signature"))]
        out.append({"role": m["role"], "content": content})
    return out


def cline(data: dict[str, Any]) -> list[dict[str, Any]]:
    resumed = cline_resume(data["history"])
    return cline_send(cline_truncate(resumed, data["deleted_range"], data["context_history"]))


# -- Cline v4: sdk/legacy-task-handling.ts legacyApiHistoryToSdkMessages --------------------------

def v4_block(b: Any) -> Any:
    if not isinstance(b, dict):
        return None
    kind = b.get("type")
    if kind == "text" and isinstance(b.get("text"), str):
        return {"type": "text", "text": b["text"]}
    if kind == "tool_use" and isinstance(b.get("id"), str) and isinstance(b.get("name"), str):
        return {"type": "tool_use", "id": b["id"], "name": b["name"], "input": b.get("input") or {}}
    if kind == "tool_result" and isinstance(b.get("tool_use_id"), str):
        content = b.get("content")
        return {"type": "tool_result", "tool_use_id": b["tool_use_id"],
                "content": content if isinstance(content, str) else json.dumps(content if content is not None else "")}
    if kind == "thinking" and isinstance(b.get("thinking"), str):
        return {"type": "thinking", "thinking": b["thinking"]}
    if kind == "image" and isinstance(b.get("source"), dict) and b["source"].get("type") == "base64":
        return {"type": "image", "source": b["source"]}
    return None


def v4(data: dict[str, Any]) -> list[dict[str, Any]]:
    history = copy.deepcopy(data["history"])
    end = (data["deleted_range"] or [None, None])[1]
    if isinstance(end, int) and 2 <= end < len(history) - 1:
        history = [*history[:2], *history[end + 1:]]
        if history[2].get("role") == "user" and isinstance(history[2].get("content"), list):
            history[2]["content"] = [b for b in history[2]["content"] if not is_result(b)]
    out = []
    for m in history:
        if m.get("role") not in ("user", "assistant"):
            continue
        if isinstance(m.get("content"), str):
            out.append({"role": m["role"], "content": [{"type": "text", "text": m["content"]}]})
            continue
        content = [c for c in (v4_block(b) for b in m.get("content") or []) if c is not None]
        if content:
            out.append({"role": m["role"], "content": content})
    out.append({"role": "user", "content": [{"type": "text", "text": V4_WARNING}]})
    return v4_sanitize(out)


def v4_sanitize(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """initial-message-sanitizer.ts sanitizeInitialMessagesForSessionStart."""
    out = list(messages)
    i = 0
    while i < len(out):
        ids = [b["id"] for b in calls(out[i])]
        if not ids:
            i += 1
            continue
        if i + 1 >= len(out) or out[i + 1].get("role") != "user":
            out.insert(i + 1, {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": cid, "content": V4_MISSING} for cid in ids]})
            i += 2
            continue
        found: dict[str, Any] = {}
        other = []
        span = 0
        for j in range(i + 1, len(out)):
            if out[j].get("role") != "user":
                break
            for b in blocks(out[j]["content"]):
                cid = b.get("tool_use_id") if is_result(b) else None
                if cid in ids and cid not in found:
                    found[cid] = b
                elif not (cid in ids):
                    other.append(b)
            span += 1
        ordered = [found.get(cid, {"type": "tool_result", "tool_use_id": cid, "content": V4_MISSING}) for cid in ids]
        if len(found) < len(ids) or span > 1 or any(b.get("content") == V4_MISSING for b in ordered):
            out[i + 1:i + 1 + span] = [{**out[i + 1], "content": ordered}]
            if other:
                out.insert(i + 2, {"role": "user", "content": other})
                i += 1
        else:
            out[i + 1] = {**out[i + 1], "content": ordered + other}
        i += 1
    return out


# -- Roo Code and Kilo Code: Task.ts resumeTaskFromHistory, attemptApiRequest -------------------

def effective(messages: list[dict[str, Any]], fresh_start: bool) -> list[dict[str, Any]]:
    """condense/index.ts getEffectiveApiHistory (Roo 3.43+ with ``fresh_start``; Kilo without)."""
    summaries = [k for k, m in enumerate(messages) if m.get("isSummary") is True]
    if fresh_start and summaries:
        rest = messages[summaries[-1]:]
        declared = {b.get("id") for m in rest for b in calls(m)}
        sliced = []
        for m in rest:
            if m.get("role") == "user" and isinstance(m.get("content"), list):
                kept = [b for b in m["content"] if not is_result(b) or b.get("tool_use_id") in declared]
                if not kept:
                    continue
                if len(kept) != len(m["content"]):
                    m = {**m, "content": kept}
            sliced.append(m)
        markers = {m.get("truncationId") for m in sliced if m.get("isTruncationMarker") and m.get("truncationId")}
        return [m for m in sliced if not (m.get("truncationParent") and m["truncationParent"] in markers)]
    ids = {m["condenseId"] for m in messages if m.get("isSummary") and m.get("condenseId")}
    markers = {m["truncationId"] for m in messages if m.get("isTruncationMarker") and m.get("truncationId")}
    return [m for m in messages if not (m.get("condenseParent") and m["condenseParent"] in ids)
            and not (m.get("truncationParent") and m["truncationParent"] in markers)]


def since_summary(messages: list[dict[str, Any]], agent: str) -> list[dict[str, Any]]:
    summaries = [k for k, m in enumerate(messages) if m.get("isSummary")]
    if not summaries:
        return messages
    rest = messages[summaries[-1]:]
    if agent == "kilo" and rest and rest[0].get("role") != "user" and messages[0].get("role") == "user":
        return [messages[0], *rest]
    return rest


def validate(user: dict[str, Any], history: list[dict[str, Any]]) -> dict[str, Any]:
    """validateToolResultIds.ts validateAndFixToolResultIds."""
    if user.get("role") != "user" or not isinstance(user.get("content"), list):
        return user
    prev = [m for m in history if m.get("role") == "assistant"]
    if not prev or not isinstance(prev[-1].get("content"), list):
        return user
    uses = calls(prev[-1])
    if not uses:
        return user
    seen: set[Any] = set()
    content = []
    for b in user["content"]:
        if is_result(b):
            if b.get("tool_use_id") in seen:
                continue
            seen.add(b.get("tool_use_id"))
        content.append(b)
    results = [b for b in content if is_result(b)]
    valid = [u["id"] for u in uses]
    missing = [cid for cid in valid if cid not in {r.get("tool_use_id") for r in results}]
    if not missing and all(r.get("tool_use_id") in valid for r in results):
        return {**user, "content": content}
    used: set[Any] = set()
    fixed = []
    for b in content:
        if not is_result(b):
            fixed.append(b)
            continue
        if b.get("tool_use_id") in valid and b["tool_use_id"] not in used:
            used.add(b["tool_use_id"])
            fixed.append(b)
            continue
        k = results.index(b)
        if k < len(uses) and uses[k]["id"] not in used:
            used.add(uses[k]["id"])
            fixed.append({**b, "tool_use_id": uses[k]["id"]})
    covered = {b.get("tool_use_id") for b in fixed if is_result(b)}
    added = [{"type": "tool_result", "tool_use_id": cid, "content": VALIDATOR_MISSING} for cid in valid
             if cid not in covered]
    return {**user, "content": added + fixed}


def roo_resume(history: list[dict[str, Any]], agent: str) -> list[dict[str, Any]]:
    history = copy.deepcopy(history)
    opening: list[Any] = []
    last = history[-1] if history else None
    if last is None:
        pass
    elif agent == "roo" and last.get("isSummary"):
        pass
    elif last.get("role") == "assistant":
        opening = [{"type": "tool_result", "tool_use_id": b["id"], "content": INTERRUPTED} for b in calls(last)]
    elif last.get("role") == "user":
        history.pop()
        opening = blocks(last["content"])
        if history and history[-1].get("role") == "assistant":
            answered = {b.get("tool_use_id") for b in opening if is_result(b)}
            opening += [{"type": "tool_result", "tool_use_id": b["id"], "content": INTERRUPTED}
                        for b in calls(history[-1]) if b["id"] not in answered]
    new = {"role": "user", "content": opening or [{"type": "text", "text": "[TASK RESUMPTION] Resuming task..."}]}
    # addToApiConversationHistory
    if agent == "roo":
        eff = effective(history, True)
        if eff and eff[-1].get("role") == "assistant":
            new = validate(new, eff)
        else:
            new = {**new, "content": [{"type": "text", "text": "Tool result:\n" + (
                b["content"] if isinstance(b.get("content"), str) else json.dumps(b.get("content")))}
                if is_result(b) else b for b in new["content"]]}
    else:
        new = validate(new, history)
    return [*history, new]


def merge_users(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """mergeConsecutiveApiMessages(messages, {roles: ["user"]})."""
    out: list[dict[str, Any]] = []
    for m in messages:
        prev = out[-1] if out else None
        if (prev is not None and prev.get("role") == m.get("role") == "user" and not m.get("isSummary")
                and not prev.get("isTruncationMarker") and not m.get("isTruncationMarker")):
            out[-1] = {**prev, "content": blocks(prev["content"]) + blocks(m["content"])}
        else:
            out.append(m)
    return out


def clean_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Task.ts buildCleanConversationHistory, for a model without preserveReasoning."""
    out = []
    for m in messages:
        if m.get("type") == "reasoning":
            if m.get("encrypted_content"):
                out.append({"type": "reasoning", "summary": m.get("summary"), "encrypted_content": m["encrypted_content"]})
            continue
        if m.get("role") == "assistant":
            content = blocks(m.get("content"))
            first = content[0] if content else None
            if m.get("reasoning_details"):
                out.append({"role": "assistant", "content": m.get("content"),
                            "reasoning_details": m["reasoning_details"]})
                continue
            if isinstance(first, dict) and first.get("type") == "reasoning":
                if isinstance(first.get("encrypted_content"), str):
                    out.append({"type": "reasoning", "summary": first.get("summary") or [],
                                "encrypted_content": first["encrypted_content"]})
                rest = content[1:]
                if len(rest) == 1 and rest[0].get("type") == "text":
                    out.append({"role": "assistant", "content": rest[0]["text"]})
                else:
                    out.append({"role": "assistant", "content": rest or ""})
                continue
        if m.get("role"):
            out.append({"role": m["role"], "content": m.get("content")})
    return out


def anthropic_filter(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """anthropic-filter.ts filterNonAnthropicBlocks (reasoning items have no role: the Anthropic
    handler has nothing to send for them)."""
    out = []
    for m in messages:
        if "role" not in m:
            continue
        if isinstance(m["content"], str):
            out.append(m)
            continue
        content = [b for b in m["content"] if isinstance(b, dict) and b.get("type") in ANTHROPIC_BLOCKS]
        if content:
            out.append({**m, "content": content})
    return out


def roo(data: dict[str, Any], agent: str = "roo") -> list[dict[str, Any]]:
    resumed = roo_resume(data["history"], agent)
    sent = since_summary(effective(resumed, agent == "roo"), agent)
    if agent == "roo":
        sent = merge_users(sent)
    return anthropic_filter(clean_history(sent))


# -- the request and what Anthropic refuses in it ----------------------------------------------

def messages_sent(folder: str | Path, agent: str) -> list[dict[str, Any]]:
    data = load(folder)
    if agent == "cline":
        return cline(data)
    if agent == "cline-v4":
        return v4(data)
    return roo(data, agent)


def request(folder: str | Path, agent: str) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5-20250929", "max_tokens": 1024, "system": "You are Cline.",
            "messages": messages_sent(folder, agent)}


def problems(folder: str | Path, agent: str) -> list[str]:
    """What the Anthropic API would reject in the resumed request: ``check --target anthropic``
    and the two request-wide id errors (ids unique; one result per tool_use)."""
    body = request(folder, agent)
    flat = anthropic.import_(body, "<resume>").messages
    found = rejected(flat, "anthropic")
    # Per turn (issue 30; consecutive messages of one role are one turn to the API): the API refuses
    # a duplicate inside one turn ("messages.1.content.1"),
    # and answered 200 a request reusing a completed pair's id in a later turn (pydantic/pydantic-ai
    # @ 4fda389, tests/cassettes/test_tool_search/test_cross_provider_capability_replay[...].yaml).
    for m in turns(body["messages"]):
        every = [b for b in blocks(m["content"]) if isinstance(b, dict)]
        uses = [b["id"] for b in every if b.get("type") == "tool_use"]
        results = [b["tool_use_id"] for b in every if b.get("type") == "tool_result"]
        if len(uses) != len(set(uses)):
            found.append("tool_use ids must be unique")
        if len(results) != len(set(results)):
            found.append("each tool_use must have a single result")
    return found


def placeholders(folder: str | Path, agent: str) -> list[str]:
    """The ids the extension itself answers with a placeholder on this resume."""
    texts = {INTERRUPTED, VALIDATOR_MISSING, CLINE_MISSING, V4_MISSING}
    return [b["tool_use_id"] for m in messages_sent(folder, agent) for b in blocks(m["content"])
            if is_result(b) and b.get("content") in texts]

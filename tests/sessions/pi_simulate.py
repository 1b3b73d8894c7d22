"""What pi sends on resume, simulated apart from the importer, from pi's own source
(badlogic/pi-mono @ 83378aad7e74a0e2bb8f37c007a9685fb4609d8a):

- ``packages/coding-agent/src/core/session-manager.ts``: ``loadEntriesFromFile`` (lines that
  are not JSON skipped), ``_buildIndex`` (leaf = the last entry), ``buildSessionContext``;
- ``packages/coding-agent/src/core/messages.ts``: ``convertToLlm``;
- ``packages/ai/src/providers/transform-messages.ts``: ``transformMessages`` (errored and aborted
  assistant messages skipped; "No result provided" for a call with no result).

Returns pi's own messages (``role`` ``user``/``assistant``/``toolResult``) in the order sent.

oh-my-pi's additions to the file, as its loader and ``buildSessionContext`` read them
(can1357/oh-my-pi ``packages/coding-agent/src/session/session-entries.ts`` @ 01d016cac40f,
``session-context.ts`` @ 081fb4699e4a; ``core/messages.ts`` @ adad196fd3ba for ``fileMention``): a
first-line title slot (``parseTitleSlotFromContent``) folded away before the header; the emission
starting after the latest ``reset_boundary`` when it comes after the latest compaction; a
``fileMention`` message sent as user text.
"""

from __future__ import annotations

import json
from typing import Any


def load(text: str) -> list[dict[str, Any]]:
    entries = []
    for line in text.strip().split("\n"):
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    if entries and entries[0].get("type") == "title" and entries[0].get("v") == 1:
        entries = entries[1:]                 # oh-my-pi's title slot: not an entry
    if not entries or entries[0].get("type") != "session":
        return []
    return entries


def migrate(entries: list[dict[str, Any]]) -> None:
    """``migrateV1ToV2``: a v1 file gets ids, each entry the child of the one before, and a
    compaction's ``firstKeptEntryIndex`` becomes the id of that entry."""
    if (entries[0].get("version") or 1) >= 2:
        return
    prev = None
    for n, e in enumerate(entries):
        if e.get("type") == "session":
            continue
        e["id"], e["parentId"], prev = f"v1-{n}", prev, f"v1-{n}"
    for e in entries:
        if e.get("type") == "compaction" and isinstance(e.get("firstKeptEntryIndex"), int):
            target = entries[e["firstKeptEntryIndex"]] if e["firstKeptEntryIndex"] < len(entries) else None
            if target is not None and target.get("type") != "session":
                e["firstKeptEntryId"] = target["id"]


def context(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if entries:
        migrate(entries)
    body = [e for e in entries if e.get("type") != "session"]
    by_id = {e["id"]: e for e in body}
    if not body:
        return []
    path = []
    cur = body[-1]
    while cur is not None:
        path.insert(0, cur)
        cur = by_id.get(cur["parentId"]) if cur.get("parentId") else None
    comp = None
    for e in path:
        if e["type"] == "compaction":
            comp = e
    out: list[dict[str, Any]] = []

    def append(e: dict[str, Any]) -> None:
        if e["type"] == "message":
            out.append(e["message"])
        elif e["type"] == "custom_message":
            out.append({"role": "custom", "content": e["content"]})
        elif e["type"] == "branch_summary" and e.get("summary"):
            out.append({"role": "branchSummary", "summary": e["summary"]})

    resets = [k for k, e in enumerate(path) if e["type"] == "reset_boundary"]
    if resets and resets[-1] > (next(k for k, e in enumerate(path) if e is comp) if comp else -1):
        for e in path[resets[-1] + 1:]:       # oh-my-pi's /clear: only what follows it
            append(e)
        return out
    if comp is None:
        for e in path:
            append(e)
        return out
    out.append({"role": "compactionSummary", "summary": comp["summary"]})
    at = next(k for k, e in enumerate(path) if e is comp)
    found = False
    for e in path[:at]:
        if e["id"] == comp.get("firstKeptEntryId"):
            found = True
        if found:
            append(e)
    for e in path[at + 1:]:
        append(e)
    return out


def to_llm(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for m in messages:
        role = m.get("role")
        if role == "bashExecution":
            if not m.get("excludeFromContext"):
                out.append({"role": "user", "content": [{"type": "text", "text": m.get("command")}]})
        elif role in ("custom", "hookMessage"):
            c = m["content"]
            out.append({"role": "user", "content": [{"type": "text", "text": c}] if isinstance(c, str) else c})
        elif role in ("branchSummary", "compactionSummary"):
            out.append({"role": "user", "content": [{"type": "text", "text": m["summary"]}]})
        elif role == "fileMention":
            files = "\n\n".join(f'<file path="{f["path"]}">\n{f["content"]}\n</file>' for f in m["files"])
            out.append({"role": "user", "content": [{"type": "text",
                                                     "text": f"<system-reminder>\n{files}\n</system-reminder>"}]})
        elif role in ("user", "assistant", "toolResult"):
            out.append(m)
    return out


def transform(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    have: set[str] = set()

    def flush() -> None:
        nonlocal pending, have
        for tc in pending:
            if tc["id"] not in have:
                result.append({"role": "toolResult", "toolCallId": tc["id"], "toolName": tc["name"],
                               "content": [{"type": "text", "text": "No result provided"}], "isError": True})
        pending, have = [], set()

    for m in messages:
        if m["role"] == "assistant":
            flush()
            if m.get("stopReason") in ("error", "aborted"):
                continue
            calls = [b for b in m["content"] if b.get("type") == "toolCall"]
            if calls:
                pending, have = calls, set()
            result.append(m)
        elif m["role"] == "toolResult":
            have.add(m["toolCallId"])
            result.append(m)
        elif m["role"] == "user":
            flush()
            result.append(m)
        else:
            result.append(m)
    return result


def sent(text: str) -> list[dict[str, Any]]:
    """The messages pi sends when it resumes the session file ``text``."""
    return transform(to_llm(context(load(text))))


def pairs(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The sent history as (role, call id or text) pairs: what a comparison needs."""
    out = []
    for m in messages:
        if m["role"] == "toolResult":
            out.append(("result", m["toolCallId"]))
        elif m["role"] == "assistant":
            for b in m["content"]:
                if b.get("type") == "toolCall":
                    out.append(("call", b["id"]))
        else:
            out.append(("user", ""))
    return out

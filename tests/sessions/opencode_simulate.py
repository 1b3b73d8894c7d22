"""A resume simulator for OpenCode: the Anthropic request OpenCode builds for the next turn of
a stored session, rebuilt from the store alone and written apart from the importer, so that
the two can disagree.

The steps, each after OpenCode's own code (repository, path and commit in
docs/stores/opencode.md):

1. load the session's messages ordered by ``(time_created, id)`` and each one's parts by id
   (``MessageV2.stream``/``hydrate``; the legacy tree and an export list them in id order);
2. ``filterCompacted``: walking back from the newest, stop at the user message whose
   ``compaction`` part a finished summary answered; with ``tail_start_id`` the kept tail is
   moved after the summary;
3. ``toModelMessages``: user text (not ``ignored``), files, ``compaction`` as "What did we do so
   far?", ``subtask`` as "The following tool was executed by the user"; assistant messages with
   an error are skipped unless aborted with real parts; a ``pending``/``running`` tool part is
   sent as its call plus the error "[Tool execution was interrupted]"; reasoning and provider
   metadata only when the same model is resumed; messages of ``step-start`` parts only dropped;
4. the AI SDK's ``convertToModelMessages``: an assistant message is cut at each ``step-start``
   into an assistant message and a tool message of its results;
5. ``ProviderTransform.message`` for Anthropic: empty text and reasoning parts and then empty
   messages removed, tool call ids outside ``[a-zA-Z0-9_-]`` rewritten to ``_`` for Claude
   models, and (current OpenCode) text that trails a tool call in one message moved before it;
6. ``@ai-sdk/anthropic``: consecutive user/tool messages become one user turn, consecutive
   assistant messages one assistant turn; reasoning becomes ``thinking`` only with its
   signature (``redacted_thinking`` with ``redactedData``), otherwise it is left out; an
   error result is ``is_error``; the last text of a final assistant turn is trimmed.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from inspector.formats import anthropic

from .simulate import rejected, turns

INTERRUPTED = "[Tool execution was interrupted]"
CLAUDE_ID = re.compile(r"[^a-zA-Z0-9_-]")


# -- 1. loading -----------------------------------------------------------------------------------
def load_db(path: Path, session: str | None = None) -> list[dict[str, Any]]:
    """The session as OpenCode hydrates it, read from a copy of the database and its WAL (even
    a read-only connection would create the live file's ``-wal``/``-shm``)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "opencode.db"
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{path}{suffix}").exists():
                shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")
        return _load(copy, session)


def _load(path: Path, session: str | None) -> list[dict[str, Any]]:
    conn = sqlite3.connect(path)
    try:
        if session is None:
            session = conn.execute("SELECT id FROM session ORDER BY time_updated DESC LIMIT 1").fetchone()[0]
        rows = conn.execute("SELECT id, session_id, data FROM message WHERE session_id = ? "
                            "ORDER BY time_created, id", (session,)).fetchall()
        out = []
        for mid, sid, data in rows:
            parts = conn.execute("SELECT id, message_id, session_id, data FROM part WHERE message_id = ? "
                                 "ORDER BY id", (mid,)).fetchall()
            out.append({"info": {**json.loads(data), "id": mid, "sessionID": sid},
                        "parts": [{**json.loads(d), "id": pid, "sessionID": psid, "messageID": pmid}
                                  for pid, pmid, psid, d in parts]})
        return out
    finally:
        conn.close()


def load_storage(root: Path, session: str) -> list[dict[str, Any]]:
    out = []
    for mfile in sorted((root / "message" / session).glob("*.json")):
        info = json.loads(mfile.read_text())
        parts = [json.loads(p.read_text()) for p in sorted((root / "part" / mfile.stem).glob("*.json"))]
        out.append({"info": info, "parts": parts})
    return sorted(out, key=lambda m: m["info"]["id"])


def load_export(data: bytes) -> list[dict[str, Any]]:
    return [{"info": m["info"], "parts": m["parts"]} for m in json.loads(data)["messages"]]


# -- 2. compaction --------------------------------------------------------------------------------
def filter_compacted(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = []
    completed: set[str] = set()
    retain = None
    for msg in reversed(messages):
        info = msg["info"]
        result.append(msg)
        if retain:
            if info["id"] == retain:
                break
            continue
        if info["role"] == "user" and info["id"] in completed:
            part = next((p for p in msg["parts"] if p["type"] == "compaction"), None)
            if part is None:
                continue
            if not part.get("tail_start_id"):
                break
            retain = part["tail_start_id"]
            if info["id"] == retain:
                break
            continue
        if info["role"] == "assistant" and info.get("summary") and info.get("finish") and not info.get("error"):
            completed.add(info["parentID"])
    result.reverse()

    def tail_compaction(m: dict[str, Any]) -> bool:
        return m["info"]["role"] == "user" and any(
            p["type"] == "compaction" and p.get("tail_start_id") is not None for p in m["parts"])

    ci = max((k for k, m in enumerate(result) if tail_compaction(m)), default=-1)
    if ci < 0:
        return result
    cmsg = result[ci]
    tail_id = next(p["tail_start_id"] for p in cmsg["parts"] if p["type"] == "compaction" and p.get("tail_start_id"))
    si = next((k for k, m in enumerate(result) if k > ci and m["info"]["role"] == "assistant"
               and m["info"].get("summary") and m["info"].get("parentID") == cmsg["info"]["id"]), -1)
    ti = next((k for k, m in enumerate(result) if m["info"]["id"] == tail_id), -1)
    if 0 <= ti < ci and si > ci:
        return result[ci:si + 1] + result[ti:ci] + result[si + 1:]
    return result


# -- 3. toModelMessages (UI messages) -----------------------------------------------------------
def _tool_ui(part: dict[str, Any], same: bool) -> dict[str, Any] | None:
    state = part["state"]
    base: dict[str, Any] = {"type": "tool-" + part["tool"], "toolCallId": part["callID"], "input": state.get("input")}
    meta = part.get("metadata") or {}
    if meta.get("providerExecuted"):
        base["providerExecuted"] = True
    rest = {k: v for k, v in meta.items() if k != "providerExecuted"}
    if same and rest:
        base["callProviderMetadata"] = rest
    status = state.get("status")
    if status == "completed":
        compacted = (state.get("time") or {}).get("compacted")
        output = "[Old tool result content cleared]" if compacted else state.get("output", "")
        attachments = [] if compacted else (state.get("attachments") or [])
        return {**base, "state": "output-available",
                "output": {"text": output, "attachments": attachments} if attachments else output}
    if status == "error":
        smeta = state.get("metadata") or {}
        if smeta.get("interrupted") is True and isinstance(smeta.get("output"), str):
            return {**base, "state": "output-available", "output": smeta["output"]}
        return {**base, "state": "output-error", "errorText": state.get("error", "")}
    if status in ("pending", "running"):
        return {**base, "state": "output-error", "errorText": INTERRUPTED}
    return None


def to_ui(messages: list[dict[str, Any]], model: dict[str, str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for msg in messages:
        info, parts = msg["info"], msg["parts"]
        if not parts:
            continue
        if info["role"] == "user":
            ui: list[dict[str, Any]] = []
            for p in parts:
                if p["type"] == "text" and not p.get("ignored"):
                    ui.append({"type": "text", "text": p["text"]})
                if p["type"] == "file" and p.get("mime") not in ("text/plain", "application/x-directory"):
                    ui.append({"type": "file", "url": p["url"], "mediaType": p["mime"], "filename": p.get("filename")})
                if p["type"] == "compaction":
                    ui.append({"type": "text", "text": "What did we do so far?"})
                if p["type"] == "subtask":
                    ui.append({"type": "text", "text": "The following tool was executed by the user"})
            out.append({"role": "user", "parts": ui})
        elif info["role"] == "assistant":
            error = info.get("error")
            if error and not (error.get("name") == "MessageAbortedError"
                              and any(p["type"] not in ("step-start", "reasoning") for p in parts)):
                continue
            same = (model["providerID"], model["modelID"]) == (info.get("providerID"), info.get("modelID"))
            ui = []
            for p in parts:
                if p["type"] == "text":
                    ui.append({"type": "text", "text": p["text"],
                               **({"providerMetadata": p["metadata"]} if same and p.get("metadata") else {})})
                elif p["type"] == "step-start":
                    ui.append({"type": "step-start"})
                elif p["type"] == "tool":
                    t = _tool_ui(p, same)
                    if t:
                        ui.append(t)
                elif p["type"] == "reasoning":
                    ui.append({"type": "reasoning", "text": p["text"],
                               **({"providerMetadata": p["metadata"]} if same and p.get("metadata") else {})})
            if ui:
                out.append({"role": "assistant", "parts": ui})
    return [m for m in out if any(p["type"] != "step-start" for p in m["parts"])]


# -- 4. convertToModelMessages ------------------------------------------------------------------
def _output(part: dict[str, Any]) -> dict[str, Any]:
    if part["state"] == "output-error":
        return {"type": "error-text", "value": str(part["errorText"])}
    out = part["output"]
    if isinstance(out, str):
        return {"type": "text", "value": out}
    return {"type": "content", "value": [{"type": "text", "text": out["text"]}]}


def to_model(ui: list[dict[str, Any]]) -> list[dict[str, Any]]:
    model: list[dict[str, Any]] = []
    for m in ui:
        if m["role"] == "user":
            model.append({"role": "user", "content": [
                {"type": "text", "text": p["text"]} if p["type"] == "text"
                else {"type": "file", "mediaType": p["mediaType"], "data": p["url"]} for p in m["parts"]]})
            continue
        block: list[dict[str, Any]] = []

        def flush() -> None:
            if not block:
                return
            content = []
            for p in block:
                if p["type"] == "text":
                    content.append({"type": "text", "text": p["text"], **_opts(p, "providerMetadata")})
                elif p["type"] == "reasoning":
                    content.append({"type": "reasoning", "text": p["text"], **_opts(p, "providerMetadata")})
                else:
                    content.append({"type": "tool-call", "toolCallId": p["toolCallId"], "toolName": p["type"][5:],
                                    "input": p["input"], "providerExecuted": p.get("providerExecuted"),
                                    **_opts(p, "callProviderMetadata")})
            model.append({"role": "assistant", "content": content})
            results = [{"type": "tool-result", "toolCallId": p["toolCallId"], "toolName": p["type"][5:],
                        "output": _output(p)} for p in block
                       if p["type"].startswith("tool-") and not p.get("providerExecuted")]
            if results:
                model.append({"role": "tool", "content": results})
            block.clear()

        for p in m["parts"]:
            if p["type"] == "step-start":
                flush()
            else:
                block.append(p)
        flush()
    return model


def _opts(part: dict[str, Any], key: str) -> dict[str, Any]:
    return {"providerOptions": part[key]} if part.get(key) is not None else {}


# -- 5. ProviderTransform.message for Anthropic ---------------------------------------------------
def normalize(model: list[dict[str, Any]], model_id: str, reorder: bool = True) -> list[dict[str, Any]]:
    out = []
    for m in model:
        kept = [p for p in m["content"] if not (p["type"] in ("text", "reasoning") and p["text"] == "")]
        if kept:
            out.append({**m, "content": kept})
    if "claude" in model_id:
        for m in out:
            if m["role"] in ("assistant", "tool"):
                m["content"] = [{**p, "toolCallId": CLAUDE_ID.sub("_", p["toolCallId"])}
                                if p["type"] in ("tool-call", "tool-result") else p for p in m["content"]]
    if not reorder:
        return out
    split = []
    for m in out:
        kinds = [p["type"] in ("tool-call", "tool-result") for p in m["content"]]
        if m["role"] == "assistant" and True in kinds and False in kinds[kinds.index(True):]:
            split.append({**m, "content": [p for p, t in zip(m["content"], kinds) if not t]})
            split.append({**m, "content": [p for p, t in zip(m["content"], kinds) if t]})
        else:
            split.append(m)
    return split


# -- 6. @ai-sdk/anthropic -------------------------------------------------------------------------
def to_anthropic(model: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: list[tuple[str, list[dict[str, Any]]]] = []
    for m in model:
        side = "assistant" if m["role"] == "assistant" else "user"
        if groups and groups[-1][0] == side:
            groups[-1][1].append(m)
        else:
            groups.append((side, [m]))
    messages = []
    for g, (side, group) in enumerate(groups):
        content: list[dict[str, Any]] = []
        for j, m in enumerate(group):
            for k, p in enumerate(m["content"]):
                if p["type"] == "text":
                    last = side == "assistant" and g == len(groups) - 1 and j == len(group) - 1 \
                        and k == len(m["content"]) - 1
                    content.append({"type": "text", "text": p["text"].strip() if last else p["text"]})
                elif p["type"] == "file":
                    content.append({"type": "image", "source": {"type": "url", "url": p["data"]}})
                elif p["type"] == "reasoning":
                    meta = (p.get("providerOptions") or {}).get("anthropic") or {}
                    if meta.get("signature") is not None:
                        content.append({"type": "thinking", "thinking": p["text"], "signature": meta["signature"]})
                    elif meta.get("redactedData") is not None:
                        content.append({"type": "redacted_thinking", "data": meta["redactedData"]})
                elif p["type"] == "tool-call" and not p.get("providerExecuted"):
                    content.append({"type": "tool_use", "id": p["toolCallId"], "name": p["toolName"],
                                    "input": p["input"]})
                elif p["type"] == "tool-result":
                    out = p["output"]
                    value = out["value"] if out["type"] in ("text", "error-text") else \
                        [{"type": "text", "text": v["text"]} for v in out["value"]] if out["type"] == "content" \
                        else json.dumps(out["value"])
                    block = {"type": "tool_result", "tool_use_id": p["toolCallId"], "content": value}
                    if out["type"] == "error-text":
                        block["is_error"] = True
                    content.append(block)
        messages.append({"role": side, "content": content})
    return messages


# -- the whole resume -----------------------------------------------------------------------------
def resumed_model(messages: list[dict[str, Any]]) -> dict[str, str]:
    """The model a resume uses: the last user message's (``lastUser.model`` in the prompt loop)."""
    for msg in reversed(messages):
        if msg["info"]["role"] == "user" and msg["info"].get("model"):
            return msg["info"]["model"]
    return {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}


def request(messages: list[dict[str, Any]], reorder: bool = True,
            model: dict[str, str] | None = None) -> dict[str, Any]:
    """The Anthropic Messages request body OpenCode sends for the next turn."""
    kept = filter_compacted(messages)
    model = model or resumed_model(kept)
    body = to_anthropic(normalize(to_model(to_ui(kept, model)), model["modelID"], reorder))
    return {"model": model["modelID"], "max_tokens": 32000, "messages": body}


def problems(body: dict[str, Any]) -> list[str]:
    """What the Anthropic API would refuse in ``body``: ``check --target anthropic`` on it, plus
    what it refuses of the blocks themselves (ids unique, one result per call, nothing but
    ``tool_use`` after a ``tool_use``, no empty message)."""
    flat = anthropic.import_(body, "<resume>").messages
    found = rejected(flat, "anthropic")
    # Per turn (issue 30; consecutive messages of one role are one turn to the API): the API refuses
    # a duplicate inside one turn ("messages.1.content.1"),
    # and answered 200 a request reusing a completed pair's id in a later turn (pydantic/pydantic-ai
    # @ 4fda389, tests/cassettes/test_tool_search/test_cross_provider_capability_replay[...].yaml).
    for m in turns(body["messages"]):
        uses = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
        results = [b["tool_use_id"] for b in m["content"] if b["type"] == "tool_result"]
        if len(uses) != len(set(uses)):
            found.append("tool_use ids must be unique")
        if len(results) != len(set(results)):
            found.append("each tool_use must have a single result")
    for m in body["messages"]:
        if not m["content"]:
            found.append("all messages must have non-empty content")
        kinds = [b["type"] for b in m["content"]]
        if m["role"] == "assistant" and "tool_use" in kinds and any(
                k != "tool_use" for k in kinds[kinds.index("tool_use"):]):
            found.append("text-after-tool-use")
    return found


def resume_db(path: Path, session: str | None = None, reorder: bool = True) -> dict[str, Any]:
    return request(load_db(path, session), reorder)


def resume_export(data: bytes, reorder: bool = True) -> dict[str, Any]:
    return request(load_export(data), reorder)


def resume_storage(root: Path, session: str, reorder: bool = True) -> dict[str, Any]:
    return request(load_storage(root, session), reorder)

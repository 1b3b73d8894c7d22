"""What OpenCode sends on resume, step by step after its code (see the package docstring): the
messages kept by ``filterCompacted``, the model the resume talks to, and the Anthropic request
built from them, each block keeping the part it came from."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..store.request import Block, Request

INTERRUPTED = "[Tool execution was interrupted]"
CLAUDE_ID = re.compile(r"[^a-zA-Z0-9_-]")
# The model a session resumes with when its messages name none (the fixtures' provider).
DEFAULT_MODEL = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}


# -- what OpenCode sends ------------------------------------------------------------------------

def _key(value: Any) -> Any:
    """An id as a set key (a stored id that is not text still compares, and never raises)."""
    return value if isinstance(value, (str, int, float, type(None))) else repr(value)


def _filter_compacted(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``MessageV2.filterCompacted``: the summary of the newest finished compaction, what it
    retained, and what came after."""
    result: list[dict[str, Any]] = []
    completed: set[str] = set()
    retain = None
    for msg in reversed(messages):
        info = msg["info"]
        result.append(msg)
        if retain:
            if info.get("id") == retain:
                break
            continue
        if info.get("role") == "user" and _key(info.get("id")) in completed:
            part = next((p for p in msg["parts"] if isinstance(p, Mapping) and p.get("type") == "compaction"), None)
            if part is None:
                continue
            if not part.get("tail_start_id"):
                break
            retain = part["tail_start_id"]
            if info.get("id") == retain:
                break
            continue
        if info.get("role") == "assistant" and info.get("summary") and info.get("finish") and not info.get("error"):
            completed.add(_key(info.get("parentID")))
    result.reverse()

    def tail(m: dict[str, Any]) -> Any:
        return next((p.get("tail_start_id") for p in m["parts"] if isinstance(p, Mapping)
                     and p.get("type") == "compaction" and p.get("tail_start_id") is not None), None)

    ci = max((k for k, m in enumerate(result) if m["info"].get("role") == "user" and tail(m)), default=-1)
    if ci >= 0:
        cid = result[ci]["info"].get("id")
        si = next((k for k, m in enumerate(result) if k > ci and m["info"].get("role") == "assistant"
                   and m["info"].get("summary") and m["info"].get("parentID") == cid), -1)
        ti = next((k for k, m in enumerate(result) if m["info"].get("id") == tail(result[ci])), -1)
        if 0 <= ti < ci and si > ci:
            return result[ci:si + 1] + result[ti:ci] + result[si + 1:]
    return result


def resumed_model(messages: list[dict[str, Any]]) -> dict[str, str]:
    """The model a resume talks to: the last user message's (``lastUser.model``)."""
    for msg in reversed(messages):
        model = msg["info"].get("model")
        if msg["info"].get("role") == "user" and isinstance(model, Mapping) and model.get("modelID"):
            return {"providerID": str(model.get("providerID")), "modelID": str(model["modelID"])}
    return dict(DEFAULT_MODEL)


def _pid(part: Any) -> str:
    return str(part.get("id", "?")) if isinstance(part, Mapping) else "?"


def request(messages: list[dict[str, Any]]) -> Request:
    """Steps 1 to 6 of a resume (see the module docstring), keeping each block's part."""
    kept = _filter_compacted(messages)
    req = Request(history=messages)
    place = {id(msg): i for i, msg in enumerate(messages)}
    if len(kept) < len(messages):
        req.notes.append(("entry-not-sent", f"{len(messages) - len(kept)} message(s) before the newest compaction "
                                            "are not sent; OpenCode sends its summary instead.", None))
    model = resumed_model(kept)
    claude = "claude" in model["modelID"]
    # Model messages: (role, [Block]); an assistant message is cut at each step-start.
    model_msgs: list[tuple[str, list[Block]]] = []
    for msg in kept:
        m = place[id(msg)]
        info, parts = msg["info"], [p for p in msg["parts"] if isinstance(p, Mapping)]
        if not parts:
            continue
        if info.get("role") == "user":
            blocks = []
            for k, p in enumerate(msg["parts"]):
                kind = p.get("type") if isinstance(p, Mapping) else None
                if kind == "text" and not p.get("ignored"):
                    blocks.append(Block({"type": "text", "text": str(p.get("text", ""))}, m, k, "text"))
                elif kind == "file" and p.get("mime") not in ("text/plain", "application/x-directory"):
                    blocks.append(Block({"type": "image", "source": {"type": "url", "url": p.get("url")}}, m, k, "file"))
                elif kind == "compaction":
                    blocks.append(Block({"type": "text", "text": "What did we do so far?"}, m, k, "text"))
                elif kind == "subtask":
                    blocks.append(Block({"type": "text", "text": "The following tool was executed by the user"},
                                        m, k, "text"))
            model_msgs.append(("user", blocks))
            continue
        if info.get("role") != "assistant":
            continue
        error = info.get("error")
        if error and not (isinstance(error, Mapping) and error.get("name") == "MessageAbortedError"
                          and any(p.get("type") not in ("step-start", "reasoning") for p in parts)):
            req.notes.append(("entry-not-sent", f"Message {info.get('id')} ended in an error "
                                                f"({error.get('name') if isinstance(error, Mapping) else error}); "
                                                "OpenCode does not send it.", None))
            continue
        same = (model["providerID"], model["modelID"]) == (info.get("providerID"), info.get("modelID"))
        step: list[Block] = []
        steps = [step]
        for k, p in enumerate(msg["parts"]):
            kind = p.get("type") if isinstance(p, Mapping) else None
            if kind == "step-start":
                step = []
                steps.append(step)
            elif kind == "text":
                step.append(Block({"type": "text", "text": str(p.get("text", ""))}, m, k, "text"))
            elif kind == "reasoning":
                meta = (p.get("metadata") or {}).get("anthropic") if same else None
                meta = meta if isinstance(meta, Mapping) else {}
                if meta.get("signature") is not None and p.get("text"):
                    step.append(Block({"type": "thinking", "thinking": p["text"], "signature": meta["signature"]},
                                      m, k, "reasoning"))
                elif meta.get("redactedData") is not None and p.get("text"):
                    step.append(Block({"type": "redacted_thinking", "data": meta["redactedData"]}, m, k, "reasoning"))
                elif p.get("text"):
                    req.notes.append(("entry-not-sent", f"Reasoning part {_pid(p)} is not sent: "
                                      + ("it was written by another model." if not same else "it has no signature."),
                                      None))
            elif kind == "tool":
                _tool(req, step, p, m, k, claude)
        for blocks in steps:
            calls = [b for b in blocks if b.role == "call"]
            if not blocks or (not calls and not any(b.role in ("text", "reasoning") for b in blocks)):
                continue
            body = [b for b in blocks if b.role != "result"]
            model_msgs.append(("assistant", body))
            results = [b for b in blocks if b.role == "result"]
            if results:
                model_msgs.append(("tool", results))
    # ProviderTransform for Anthropic: empty text/reasoning out, then empty messages; text
    # trailing a call moved first (PR #22646).
    normal: list[tuple[str, list[Block]]] = []
    for role, blocks in model_msgs:
        blocks = [b for b in blocks if not (b.body.get("type") == "text" and b.body.get("text") == "")]
        if not blocks:
            continue
        if role == "assistant":
            kinds = [b.role == "call" for b in blocks]
            if True in kinds and False in kinds[kinds.index(True):]:
                late = [b for b in blocks[kinds.index(True):] if b.role != "call"]
                req.notes.append(("agent-reordered", "OpenCode moves " + ", ".join(
                    f"part {_pid(messages[b.row]['parts'][b.part])}" for b in late) + " ahead of the call(s) "
                    "it followed in its step; builds before PR #22646 send it after them, which Anthropic refuses.",
                    None))
                blocks = [b for b in blocks if b.role != "call"] + [b for b in blocks if b.role == "call"]
        normal.append((role, blocks))
    # @ai-sdk/anthropic: user and tool messages in a row are one user message, assistant ones one.
    for role, blocks in normal:
        req.add(role, blocks)
    if req.messages and req.messages[-1]["role"] == "assistant":
        last = req.messages[-1]["content"][-1]
        if last.get("type") == "text":
            last["text"] = last["text"].strip()
    return req


def _tool(req: Request, step: list[Block], p: Mapping, m: int, k: int, claude: bool) -> None:
    state = p.get("state") if isinstance(p.get("state"), Mapping) else {}
    status = state.get("status")
    cid = p.get("callID")
    cid = cid if isinstance(cid, str) else "" if cid is None else str(cid)
    sent_id = CLAUDE_ID.sub("_", cid) if claude else cid
    args = state.get("input") if isinstance(state.get("input"), Mapping) else {}
    step.append(Block({"type": "tool_use", "id": sent_id, "name": str(p.get("tool", "")), "input": args}, m, k, "call"))
    if status == "completed":
        compacted = isinstance(state.get("time"), Mapping) and state["time"].get("compacted")
        text = "[Old tool result content cleared]" if compacted else str(state.get("output", ""))
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": sent_id, "content": text}
    elif status == "error":
        meta = state.get("metadata") if isinstance(state.get("metadata"), Mapping) else {}
        if meta.get("interrupted") is True and isinstance(meta.get("output"), str):
            result = {"type": "tool_result", "tool_use_id": sent_id, "content": meta["output"]}
        else:
            result = {"type": "tool_result", "tool_use_id": sent_id, "content": str(state.get("error", "")),
                      "is_error": True}
    else:
        result = {"type": "tool_result", "tool_use_id": sent_id, "content": INTERRUPTED, "is_error": True}
        req.notes.append(("agent-placeholder", f"Part {_pid(p)} ({p.get('tool')} call {cid}) is still {status}: "
                                               f"OpenCode sends it with the error result \"{INTERRUPTED}\" itself, so "
                                               "nothing is refused; the real result is lost and the tool may have "
                                               "run (side effects unknown).", cid))
    step.append(Block(result, m, k, "result"))

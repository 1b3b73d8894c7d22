"""A resume simulator for Gemini CLI: the contents ``gemini --resume`` sends, rebuilt from a
session file alone (a ``.jsonl`` log or a ``.json`` record), written apart from the importer
so that the two can disagree.

It reads the records as ``loadConversationRecord`` does (records set by id, later copies in
place of earlier ones, ``$set.messages`` replacing everything, ``$rewindTo``) and converts
them as ``convertSessionToClientHistory`` does (google-gemini/gemini-cli
``packages/core/src/services/chatRecordingService.ts`` and ``utils/sessionUtils.ts`` at
5411f113), including the second copy of every tool result (google-gemini/gemini-cli#29365).
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.formats import gemini

from .simulate import rejected


def records(data: bytes) -> list[dict[str, Any]]:
    text = data.decode("utf-8-sig")
    try:
        whole = orjson.loads(text)
    except orjson.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
        return whole["messages"]
    found: dict[str, dict[str, Any]] = {}
    for line in text.split("\n"):
        try:
            e = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(e, dict):
            continue
        if isinstance(e.get("$rewindTo"), str):
            keys = list(found)
            at = keys.index(e["$rewindTo"]) if e["$rewindTo"] in found else 0
            for k in keys[at:]:
                del found[k]
        elif isinstance(e.get("id"), str):
            found[e["id"]] = e
        elif isinstance(e.get("$set"), dict) and isinstance(e["$set"].get("messages"), list):
            found = {m["id"]: m for m in e["$set"]["messages"] if isinstance(m, dict) and isinstance(m.get("id"), str)}
    return list(found.values())


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    out = []
    for p in content or []:
        if isinstance(p, str):
            out.append(p)
        elif "functionResponse" in p:
            out.append(f"[Function Response: {p['functionResponse'].get('name')}]")
        elif "functionCall" in p:
            out.append(f"[Function Call: {p['functionCall'].get('name')}]")
        else:
            out.append(p.get("text") or "")
    return "".join(out)


def _parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return [{"text": p} if isinstance(p, str) else p for p in content]
    return [{"text": content}] if isinstance(content, str) else [content]


def client_history(data: bytes) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    msgs = records(data)
    marks = [i for i, m in enumerate(msgs) if m.get("type") == "compression_marker"]
    if marks:
        out += [{"role": "model" if c.get("role") == "model" else "user", "parts": _parts(c.get("parts") or [])}
                for c in msgs[marks[-1]].get("compressedHistory", [])]
        msgs = msgs[marks[-1] + 1:]
    for m in msgs:
        if m["type"] == "user":
            t = _text(m.get("content")).strip()
            if t and not t.startswith(("/", "?", "<session_context>", "<hook_context>")):
                out.append({"role": "user", "parts": _parts(m["content"])})
        elif m["type"] == "gemini":
            content = _parts(m["content"]) if m.get("content") else []
            calls = m.get("toolCalls") or []
            if any(p.get("functionCall") or p.get("thought") for p in content):
                parts = content
            else:
                parts = [{"text": f"**{t['subject']}** {t['description']}" if t.get("subject") else t["description"],
                          "thought": True} for t in m.get("thoughts") or []]
                parts += content + [{"functionCall": {"id": c["id"], "name": c["name"], "args": c["args"]}}
                                    for c in calls]
            if parts:
                out.append({"role": "model", "parts": parts})
                answers = [p for c in calls if c.get("result") for p in _parts(c["result"])]
                if answers:
                    out.append({"role": "user", "parts": answers})
    return out


def problems(data: bytes) -> list[str]:
    """What the Gemini API would reject in the resumed request (``check --target gemini``)."""
    flat = gemini.import_({"contents": client_history(data)}, "<resume>").messages
    return rejected(flat, "gemini")

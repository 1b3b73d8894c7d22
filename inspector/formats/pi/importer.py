"""What pi sends on resume, read as an Anthropic request whose every block knows its entry and
content part, so the engine's decisions map back onto pi's entries.

The messages of the walk (``tree.walk``) become what pi's ``convertToLlm`` makes of them
(badlogic/pi-mono @ 83378aad, ``packages/coding-agent/src/core/messages.ts``): ``user``,
``assistant`` and ``toolResult`` as they are; ``bashExecution`` (unless
``excludeFromContext``), ``custom``, ``custom_message`` entries, branch and compaction
summaries as user text. An assistant's blocks: ``text``; ``thinking`` with its
``thinkingSignature`` (a signed block; ``redacted`` thinking is the signature alone);
``toolCall`` ``{id, name, arguments}``. A ``toolResult`` answers ``toolCallId``.

Then what pi itself does to that list before every request (``packages/ai/src/providers/
transform-messages.ts``, ``transformMessages``), each an import note and a self-repair claim
of the format: an assistant message whose ``stopReason`` is ``error`` or ``aborted`` is left
out (since 0.49.2, 2d27a2c7); a call left without a result when the next assistant or user
message comes is answered with an error result "No result provided" (since 0.25.0, fb1fdb60).

Tool call ids: the OpenAI Responses providers store ``<call_id>|<item id>`` as one id and pi
pairs by the whole string; the id sent to Responses is the part before ``|``
(``openai-responses-shared.ts``). Inspector pairs as pi does, on the whole string.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import anthropic
from ..base import Imported, Loc, Reasoning
from ..store.request import Block, Request
from . import tree

COMPACTION_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
COMPACTION_SUFFIX = "\n</summary>"
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUFFIX = "</summary>"
SKIPPED_STOPS = ("error", "aborted")
# pi-ai's APIs that speak OpenAI Responses (``packages/ai/src/types.ts``, ``KnownApi``).
RESPONSES_APIS = ("openai-responses", "openai-codex-responses", "azure-openai-responses")


@dataclass(slots=True)
class Parts:
    """An entry's parts as the request blocks index them (``message_rows.edits`` reads ``parts``)."""

    parts: list[Any]


@dataclass(slots=True)
class PiState:
    """What export needs: the entries (``raw`` as read, ``entries`` parsed), the walk, the
    request and its Anthropic import, and each entry's parts."""

    raw: list[Any]
    entries: list[Any]
    walk: tree.Walk
    request: Request
    inner: Imported
    rows: list[Parts]


def _text(text: Any) -> dict[str, Any]:
    return {"type": "text", "text": text if isinstance(text, str) else ""}


def _content(content: Any, row: int) -> tuple[list[Block], list[Any]]:
    """A user-side content (a string or text/image blocks) as request blocks and parts."""
    if isinstance(content, str):
        return [Block(_text(content), row, 0, "text")], [content]
    if not isinstance(content, list):
        return [], []
    blocks = []
    for k, b in enumerate(content):
        if isinstance(b, Mapping) and b.get("type") == "image":
            blocks.append(Block({"type": "image", "source": {"type": "base64", "media_type": b.get("mimeType"),
                                                              "data": b.get("data")}}, row, k, "file"))
        elif isinstance(b, Mapping) and b.get("type") == "text":
            blocks.append(Block(_text(b.get("text")), row, k, "text"))
    return blocks, list(content)


def _assistant(message: Mapping, row: int) -> list[Block]:
    out = []
    content = message.get("content")
    for k, b in enumerate(content if isinstance(content, list) else []):
        kind = b.get("type") if isinstance(b, Mapping) else None
        if kind == "text":
            out.append(Block(_text(b.get("text")), row, k, "text"))
        elif kind == "thinking":
            sig = b.get("thinkingSignature")
            if b.get("redacted"):
                out.append(Block({"type": "redacted_thinking", "data": sig}, row, k, "reasoning"))
            elif sig:
                out.append(Block({"type": "thinking", "thinking": b.get("thinking") or "", "signature": sig},
                                 row, k, "reasoning"))
            elif isinstance(b.get("thinking"), str) and b["thinking"].strip():
                out.append(Block({"type": "thinking", "thinking": b["thinking"]}, row, k, "reasoning"))
        elif kind == "toolCall":
            out.append(Block({"type": "tool_use", "id": b.get("id"), "name": b.get("name"),
                              "input": b.get("arguments") if isinstance(b.get("arguments"), Mapping) else {}},
                             row, k, "call"))
    return out


def _result(message: Mapping, row: int) -> Block:
    blocks, _ = _content(message.get("content"), row)
    body = {"type": "tool_result", "tool_use_id": message.get("toolCallId"), "content": [b.body for b in blocks]}
    if message.get("isError") is True:
        body["is_error"] = True
    return Block(body, row, 0, "result")


def build(entries: list[Any], w: tree.Walk, word: str = "line") -> tuple[Request, list[Parts], list[tuple[str, str, str | None, int]]]:
    """The request the walk sends, each entry's parts, and pi's own repairs on the way
    (kind, sentence, call id, entry index)."""
    req = Request()
    rows = [Parts([]) for _ in entries]
    notes: list[tuple[str, str, str | None, int]] = []
    pending: list[tuple[str, Any, int]] = []       # (call id, name, entry) of the last assistant's calls
    answered: set[Any] = set()

    def flush(at: int) -> None:
        for cid, name, where in pending:
            if cid not in answered:
                notes.append(("call-answered-on-resume",
                              f"Entry {_name(entries, where, word)}: the toolCall {cid} ({name}) has no toolResult before "
                              f"the next message; pi sends an error result \"No result provided\" for it itself.",
                              cid if isinstance(cid, str) else None, where))
        pending.clear()
        answered.clear()

    for i in w.sent:
        e = entries[i]
        kind = e.get("type")
        if kind == "compaction":
            summary = e.get("summary") if isinstance(e.get("summary"), str) else ""
            rows[i].parts = [summary]
            req.add("user", [Block(_text(COMPACTION_PREFIX + summary + COMPACTION_SUFFIX), i, 0, "text")])
            continue
        if kind == "branch_summary":
            rows[i].parts = [e.get("summary")]
            flush(i)
            req.add("user", [Block(_text(BRANCH_PREFIX + str(e.get("summary")) + BRANCH_SUFFIX), i, 0, "text")])
            continue
        if kind == "custom_message":
            blocks, rows[i].parts = _content(e.get("content"), i)
            flush(i)
            req.add("user", blocks)
            continue
        message = e.get("message")
        r = tree.role(e)
        if not isinstance(message, Mapping):
            continue
        if r == "assistant":
            content = message.get("content")
            rows[i].parts = list(content) if isinstance(content, list) else []
            flush(i)
            if message.get("stopReason") in SKIPPED_STOPS:
                notes.append(("entry-not-sent", f"Entry {_name(entries, i, word)}: an assistant message that ended with "
                                                f"stopReason {message.get('stopReason')!r}; pi leaves it out of "
                                                "what it sends.", None, i))
                continue
            blocks = _assistant(message, i)
            pending.extend((b.body.get("id"), b.body.get("name"), i) for b in blocks if b.role == "call")
            req.add("assistant", blocks)
        elif r == "toolResult":
            rows[i].parts = [message]
            answered.add(message.get("toolCallId"))
            req.add("user", [_result(message, i)])
        elif r in ("user", "custom"):
            blocks, rows[i].parts = _content(message.get("content"), i)
            flush(i)
            req.add("user", blocks)
        elif r == "bashExecution" and not message.get("excludeFromContext"):
            rows[i].parts = [message]
            flush(i)
            req.add("user", [Block(_text(_bash(message)), i, 0, "text")])
        elif r == "fileMention":
            rows[i].parts = [message]
            flush(i)
            req.add("user", [Block(_text(_mentions(message)), i, 0, "text")])
        elif r in ("branchSummary", "compactionSummary"):
            rows[i].parts = [message.get("summary")]
            flush(i)
            prefix, suffix = (BRANCH_PREFIX, BRANCH_SUFFIX) if r == "branchSummary" else (COMPACTION_PREFIX,
                                                                                         COMPACTION_SUFFIX)
            req.add("user", [Block(_text(prefix + str(message.get("summary")) + suffix), i, 0, "text")])
    req.history = [e if isinstance(e, dict) else {} for e in entries]
    return req, rows, notes


def _bash(m: Mapping) -> str:
    """What ``bashExecutionToText`` sends for a ``!`` command (its words are the user's)."""
    text = f"Ran `{m.get('command')}`\n"
    output = m.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    if m.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif m.get("exitCode") not in (None, 0):
        text += f"\n\nCommand exited with code {m.get('exitCode')}"
    return text


def _mentions(m: Mapping) -> str:
    """What oh-my-pi's ``convertToLlm`` sends for an ``@file`` mention (can1357/oh-my-pi
    ``packages/coding-agent/src/core/messages.ts`` @ adad196fd3bad10d06e57eda4c01ad7ae787c7ec):
    each file as ``<file path="P">`` around its content, all in one ``<system-reminder>``."""
    files = m.get("files") if isinstance(m.get("files"), list) else []
    body = "\n\n".join(f'<file path="{f.get("path")}">\n{f.get("content")}\n</file>'
                        for f in files if isinstance(f, Mapping))
    return f"<system-reminder>\n{body}\n</system-reminder>"


def _name(entries: list[Any], i: int, word: str) -> str:
    eid = tree.entry_id(entries[i])
    return f"{eid} ({word} {i + 1})" if eid else f"{word} {i + 1}"


def openclaw_notes(entries: list[Any], w: tree.Walk, word: str = "event") -> list[tuple[str, str, str | None, int]]:
    """What OpenClaw's replay repair does on top of pi's (openclaw/openclaw
    ``src/agents/session-transcript-repair.ts`` @ 0122dec6, ``repairToolUseResultPairing``): a
    toolResult that is not in the span after its own call's assistant message (up to the next
    assistant), or answers a call a result already answered, is left out; an errored or aborted
    assistant opens no span, so a result written for its call is left out too."""
    out: list[tuple[str, str, str | None, int]] = []
    span: set[Any] = set()
    seen: set[Any] = set()
    for i in w.sent:
        e = entries[i]
        r = tree.role(e)
        if r == "assistant":
            m = e["message"]
            content = m.get("content") if isinstance(m.get("content"), list) else []
            span = set() if m.get("stopReason") in SKIPPED_STOPS else {
                b.get("id") for b in content if isinstance(b, Mapping) and b.get("type") == "toolCall"}
        elif r == "toolResult":
            cid = e["message"].get("toolCallId")
            if cid in span and cid not in seen:
                seen.add(cid)
                continue
            why = "answers a call already answered" if cid in seen else "is not right after its call's turn"
            out.append(("result-dropped-on-resume", f"Entry {_name(entries, i, word)}: the toolResult for {cid} {why}; "
                        "OpenClaw leaves it out of what it sends.", cid if isinstance(cid, str) else None, i))
    return out


def read(fmt: str, document: Any, raw: list[Any], entries: list[Any], name: str,
         where: Callable[[int, str | None, tuple[int, ...] | None, tuple[int, ...] | None], Loc],
         openclaw: bool = False, word: str = "line") -> Imported:
    """The import of one session's entries; ``where(entry, key, parts, entries)`` spells a place;
    ``openclaw``: OpenClaw's own replay repair is noted too."""
    w = tree.walk(entries)
    req, rows, notes = build(entries, w, word)
    if openclaw:
        notes += openclaw_notes(entries, w, word)
    inner = anthropic.import_({"messages": req.messages}, name)
    im = Imported(fmt, inner.messages, document, container=None, history=entries)
    im.events.extend(inner.events)

    def loc(src: Loc) -> Loc:
        content = req.messages[src.message]["content"] if isinstance(src.message, int) else []
        picked = [req.blocks[id(content[k])] for k in (src.blocks or range(len(content))) if k < len(content)
                  and id(content[k]) in req.blocks]
        if not picked:
            return where(w.sent[0] if w.sent else 0, None, None, None)
        at = sorted({b.row for b in picked})
        if len(at) > 1:
            return where(at[0], None, None, tuple(at))
        e = entries[at[0]]
        if e.get("type") in ("compaction", "branch_summary"):
            return where(at[0], "summary", (), None)
        if tree.role(e) in ("toolResult", "bashExecution"):
            return where(at[0], "message", (), None)
        if e.get("type") == "message" and isinstance(e["message"].get("content"), str):
            return where(at[0], "content", (), None)
        return where(at[0], "content", tuple(dict.fromkeys(b.part for b in picked)), None)

    for src, calls in zip(inner.sources, inner.calls):
        im.sources.append(loc(src))
        im.calls.append([loc(c) for c in calls])
    for r in inner.reasoning:
        im.reasoning.append(Reasoning(r.row, loc(r.loc), r.kind, r.signed, r.encrypted, _model(entries, r, req),
                                      r.before, r.text))
    _thought_signatures(im, req, where)
    composite = sorted({str(c) for c in req.calls() if isinstance(c, str) and "|" in c})
    if composite:
        im.notes.append(f"{len(composite)} call id(s) are pi's Responses ids, call_id|item id (first: "
                        f"{composite[0]}): pi pairs a result by the whole id and sends the part before \"|\" as "
                        "the call_id")
    asked: dict[Any, int] = {}
    for k, m in enumerate(inner.messages):
        for c in m.get("tool_calls") or ():
            asked.setdefault(c.get("tool_call_id"), k)
    flat_of = {s.message: k for k, s in enumerate(im.sources) if isinstance(s.message, int)}
    for kind, sentence, cid, at in notes:
        row = flat_of.get(at) if cid is None or kind == "result-dropped-on-resume" else asked.get(cid)
        im.note(row, kind, sentence, tool_call_id=cid)
    for n in w.notes:
        im.notes.append(n)
    off = (sum(1 for e in entries if isinstance(e, Mapping)) - len(w.path) - (w.header is not None)
           - (w.slot is not None))
    im.notes.append(f"{len(w.sent)} entries make up what a resume sends (the path from the last entry to the root"
                    + (", from the latest compaction" if w.compaction is not None else "")
                    + (", after the latest /clear (oh-my-pi's reset_boundary)" if w.reset is not None else "")
                    + f"); {off} entries off that path carried unchanged")
    im.state = PiState(raw, entries, w, req, inner, rows)
    return im


def _thought_signatures(im: Imported, req: Request, where: Callable[..., Loc]) -> None:
    """A ``toolCall``'s ``thoughtSignature`` (Gemini's) is signed reasoning too: recorded on the
    call's row, so a view marks it and no repair edits or moves it."""
    for b in req.blocks.values():
        if b.role != "call":
            continue
        entry = im.history[b.row]
        content = entry.get("message", {}).get("content") if isinstance(entry, Mapping) else None
        block = content[b.part] if isinstance(content, list) and b.part < len(content) else None
        if isinstance(block, Mapping) and block.get("thoughtSignature"):
            row = next((k for k, m in enumerate(im.messages) for c in m.get("tool_calls") or ()
                        if c.get("tool_call_id") == b.body.get("id")), None)
            message = entry.get("message")
            model = message.get("model") if isinstance(message, Mapping) else None
            im.reasoning.append(Reasoning(row, where(b.row, "content", (b.part,), None), "thoughtSignature", True,
                                          True, model if isinstance(model, str) else None))


def _model(entries: list[Any], r: Reasoning, req: Request) -> str | None:
    """The model of the assistant message a reasoning block came from (pi records it on each)."""
    content = req.messages[r.loc.message]["content"] if isinstance(r.loc.message, int) else []
    for k in r.loc.blocks or ():
        b = req.blocks.get(id(content[k])) if k < len(content) else None
        if b is not None:
            m = entries[b.row].get("message") if isinstance(entries[b.row], Mapping) else None
            model = m.get("model") if isinstance(m, Mapping) else None
            return model if isinstance(model, str) else None
    return None


def ran_on(entries: list[Any], w: tree.Walk) -> list[tuple[str | None, str | None]]:
    """(provider, model) per assistant message sent, and each ``model_change`` on the path, in
    path order (pi records ``provider``/``model`` on every assistant message)."""
    out: list[tuple[str | None, str | None]] = []
    for i in w.path:
        e = entries[i]
        if e.get("type") == "model_change":
            p, m = e.get("provider"), e.get("modelId")
            if p is None and isinstance(e.get("model"), str) and "/" in e["model"]:
                # oh-my-pi: ``model`` "provider/modelId" per ``role``; a role other than the default
                # (or a retry fallback) names a side model, not the one the conversation runs on.
                if e.get("role") not in (None, "default", "fallback"):
                    continue
                p, m = e["model"].split("/", 1)
        elif tree.role(e) == "assistant":
            msg = e["message"]
            p, m = msg.get("provider"), msg.get("model")
            if msg.get("api") in RESPONSES_APIS:
                p = "openai-responses"
        else:
            continue
        out.append((p if isinstance(p, str) else None, m if isinstance(m, str) else None))
    return out

"""Gemini CLI sessions, in the two shapes the CLI saves:

- **saved session records** (``~/.gemini/tmp/<project_hash>/chats/session-*.json``), written by
  the CLI's chat recording service: ``{sessionId, projectHash, startTime, lastUpdated,
  messages}``; a message has ``id``, ``timestamp``, ``type`` (``user``, ``gemini``, ``info``,
  ``error``, ``warning``) and ``content``; a ``gemini`` message lists its ``toolCalls``, each
  with ``id``, ``name``, ``args``, ``status`` and the ``result`` parts (``functionResponse``)
  that answered it. A resume rebuilds the API history from them: a user message per
  ``user`` record (slash commands and ``info``/``error``/``warning`` records are not sent), a
  model content with text and one ``functionCall`` per tool call, then one user content with
  every result. A call whose record has no result is what makes Gemini answer "the number of
  function response parts is equal to the number of function call parts".
- **``/chat save`` checkpoints** (``checkpoint-<tag>.json``) as ``{"history": [Content...]}``.
  A bare ``Content[]`` list is the Gemini API's own shape and is read as ``gemini``.

Current CLIs write a ``user`` record's ``content`` as a list of parts (``[{"text": ...}]``);
the record's own keys decide the format, before any provider's (detect.py prefers a
session store's markers). Read from its bytes (``sniff``/``parse``), a record with nothing
to change is written back as those bytes; otherwise as the CLI writes it,
``JSON.stringify(record, null, 2)`` (google-gemini/gemini-cli
``packages/core/src/services/chatRecordingService.ts`` and ``core/logger.ts`` at 5411f113).
The append-only ``.jsonl`` logs of current CLIs are not read yet.

Export writes the same document; only the records an event touches change: a synthesized
result becomes the call's ``result`` (a ``functionResponse`` with an error) and its status
``cancelled`` (the call found by the id the engine wrote, at its own index, before any
dropped call leaves the list); a dropped call leaves its record's ``toolCalls``; an emptied
record goes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ..engine import Result
from ..io import InputError, parse_json
from . import gemini, session
from .base import Decisions, Exported, Imported, Loc, as_text, join_text, kind_of
from .gemini import Gemini
from .base import describe_block as _describe
from .format import SESSION, Format

NAME = "gemini-cli"
SUMMARY = "a Gemini CLI saved session (chats/session-*.json) or /chat save checkpoint"


class RecordLoc(Loc):
    """Where a row came from in a session record: ``messages[3]``, ``messages[3].toolCalls[1]``,
    ``messages[3].toolCalls[1].result[0]`` (``key`` ``result``, ``blocks`` ``(call, part)``)."""

    __slots__ = ()

    def describe(self, container: str | None = None) -> str:
        base = f"messages[{self.message}]"
        if self.key == "toolCalls":
            return f"{base}.toolCalls[{self.blocks[0]}]"
        if self.key == "result":
            call, part = self.blocks
            return f"{base}.toolCalls[{call}].result" + (f"[{part}]" if part is not None else "")
        return base


class Checkpoint(Gemini):
    name = NAME
    container = "history"
    system_fields = ()


CHECKPOINT = Checkpoint()


def is_record(document: Any) -> bool:
    if not isinstance(document, Mapping) or not isinstance(document.get("messages"), list):
        return False
    return "sessionId" in document and ("projectHash" in document or "startTime" in document)


def is_checkpoint(document: Any) -> bool:
    if not isinstance(document, Mapping) or not isinstance(document.get("history"), list):
        return False
    return all(isinstance(c, Mapping) and "parts" in c for c in document["history"]) and "messages" not in document


def evidence(document: Any) -> list[str]:
    if is_record(document):
        return ['a Gemini CLI session record ("sessionId", "messages" with "gemini" records)']
    if is_checkpoint(document):
        return ['a Gemini CLI /chat save checkpoint ({"history": [contents with parts]})']
    return []




def text_of(content: Any) -> str:
    """The text of a PartListUnion (a string, a part, or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        content = [content]
    if isinstance(content, list):
        return join_text([p if isinstance(p, str) else p.get("text") for p in content
                          if isinstance(p, str) or (isinstance(p, Mapping) and isinstance(p.get("text"), str)
                                                    and not p.get("thought"))])
    return ""


def responses(result: Any) -> list[tuple[int | None, Mapping | str]]:
    """The function responses a tool call's ``result`` holds, with their part index."""
    if isinstance(result, str):
        return [(None, result)] if result else []
    if isinstance(result, Mapping):
        return [(None, result)] if "functionResponse" in result else []
    if isinstance(result, list):
        return [(k, p) for k, p in enumerate(result) if isinstance(p, Mapping) and "functionResponse" in p]
    return []


def import_(document: Any, name: str = "<input>") -> Imported:
    if is_checkpoint(document):
        return CHECKPOINT.import_(document, name)
    if not is_record(document):
        raise InputError(name, f"{NAME}: expected a saved session ({{\"sessionId\", \"messages\"}}) or a "
                               f"checkpoint ({{\"history\": [...]}}), got {kind_of(document)}")
    messages = document["messages"]
    im = Imported(NAME, [], document, container="messages", history=messages)
    skipped = 0
    for i, msg in enumerate(messages):
        if not isinstance(msg, Mapping):
            skipped += 1
            continue
        kind = msg.get("type")
        text = text_of(msg.get("content"))
        if kind == "user":
            if text.strip().startswith(("/", "?")):
                skipped += 1
                continue
            im.add({"role": "user", "content": text}, RecordLoc(i))
        elif kind == "gemini":
            calls = msg.get("toolCalls")
            calls = calls if isinstance(calls, list) else []
            if not calls:
                if text.strip():
                    im.add({"role": "assistant", "content": text}, RecordLoc(i))
                else:
                    skipped += 1
                continue
            flat_calls = []
            locs = []
            for j, tc in enumerate(calls):
                if not isinstance(tc, Mapping):
                    continue
                flat_calls.append({"tool_call_id": tc.get("id"), "name": tc.get("name"), "arguments": tc.get("args")})
                locs.append(RecordLoc(i, "toolCalls", (j,)))
            im.add({"role": "assistant", "content": text, "tool_calls": flat_calls}, RecordLoc(i), locs)
            for j, tc in enumerate(calls):
                if not isinstance(tc, Mapping):
                    continue
                for k, part in responses(tc.get("result")):
                    if isinstance(part, str):
                        im.add({"role": "tool", "content": part, "tool_call_id": tc.get("id")},
                               RecordLoc(i, "result", (j, k)))
                        continue
                    fr = part["functionResponse"]
                    fr = fr if isinstance(fr, Mapping) else {}
                    cid = fr.get("id") if fr.get("id") is not None else tc.get("id")
                    im.add({"role": "tool", "content": as_text(fr.get("response")), "tool_call_id": cid},
                           RecordLoc(i, "result", (j, k)))
        else:
            skipped += 1
    im.notes.append(f"{len(messages)} records; {skipped} not sent on resume (info, error and warning records, "
                    f"slash commands, empty replies), kept as they are")
    return im


def export_same(im: Imported, result: Result, notes: Exported) -> Any:
    if is_checkpoint(im.document):
        return CHECKPOINT.export_same(im, result, notes)
    d = Decisions.of(result)
    kept = {o for o in result.origins if o is not None}
    messages = im.history
    changed: dict[int, dict[str, Any]] = {}
    gone: set[int] = set()

    def record(i: int) -> dict[str, Any]:
        if i not in changed:
            msg = dict(messages[i])
            msg["toolCalls"] = [dict(tc) if isinstance(tc, Mapping) else tc for tc in msg.get("toolCalls") or []]
            changed[i] = msg
        return changed[i]

    drop_calls: dict[int, set[int]] = {}
    drop_parts: dict[tuple[int, int], set[Any]] = {}
    for o, loc in enumerate(im.sources):
        if loc.key is None and im.messages[o]["role"] == "assistant" and o not in kept:
            gone.add(loc.message)
        elif loc.key == "result" and o not in kept:
            drop_parts.setdefault((loc.message, loc.blocks[0]), set()).add(loc.blocks[1])
        if o in kept:
            for j in d.dropped_calls.get(o, ()):
                c = im.calls[o][j]
                drop_calls.setdefault(c.message, set()).add(c.blocks[0])
    for (i, j), parts in drop_parts.items():
        if i in gone:
            continue
        tc = record(i)["toolCalls"][j]
        result_value = tc.get("result")
        if isinstance(result_value, list) and None not in parts:
            tc["result"] = [p for k, p in enumerate(result_value) if k not in parts]
        else:
            tc["result"] = None
    # Synthesized results: the call's own record gets the result it never had, found by the
    # call's own index in the record, before any dropped call leaves the list.
    where: dict[Any, tuple[int, int]] = {}
    for msg_row, o in d.rows:     # each kept call by the id the engine wrote it with (a cast id too)
        if o is None or msg_row.get("role") != "assistant":
            continue
        for call, j in zip(msg_row.get("tool_calls") or (), d.kept_calls(o, len(im.calls[o]))):
            loc = im.calls[o][j]
            where.setdefault(call.get("tool_call_id"), (loc.message, loc.blocks[0]))
    for msg_row, o in d.rows:
        if o is not None or msg_row["tool_call_id"] not in where:
            continue
        i, j = where[msg_row["tool_call_id"]]
        tc = record(i)["toolCalls"][j]
        tc["result"] = [{"functionResponse": {"id": msg_row["tool_call_id"], "name": tc.get("name"),
                                              "response": {"error": msg_row["content"]}}}]
        tc["status"] = "cancelled"
    for i, calls in drop_calls.items():
        if i in gone:
            continue
        msg = record(i)
        msg["toolCalls"] = [tc for j, tc in enumerate(msg["toolCalls"]) if j not in calls]
    if not changed and not gone:
        return im.document
    out = []
    for i, msg in enumerate(messages):
        if i in gone:
            continue
        if i in changed:
            new = changed[i]
            if not new["toolCalls"] and "toolCalls" not in messages[i]:
                del new["toolCalls"]
            out.append(new)
        else:
            out.append(msg)
    body = RecordFile(im.document, None, im.document.newline if isinstance(im.document, RecordFile) else True)
    body["messages"] = out
    return body


class RecordFile(dict):
    """A saved session read from its bytes: the record, with the file's own bytes (``raw``,
    written back as they are while nothing changes) and whether it ended with a newline."""

    __slots__ = ("raw", "newline")

    def __init__(self, record: Mapping, raw: bytes | None, newline: bool) -> None:
        super().__init__(record)
        self.raw, self.newline = raw, newline


def sniff(data: bytes, name: str = "<input>") -> bool:
    """A saved session's own keys at the top of the file (the CLI writes ``sessionId`` first)."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and b'"sessionId"' in head and b'"messages"' in data[:1 << 16] \
        and (b'"projectHash"' in head or b'"startTime"' in head)


def parse(data: bytes, name: str = "<input>") -> Any:
    document = parse_json(data, name)
    if is_record(document):
        return RecordFile(document, data, data.rstrip(b" \t\r").endswith(b"\n"))
    return document


def dump(document: Any, compact: bool = False) -> bytes:
    """A record read from a file and left unchanged is its own bytes; any other is written in
    the CLI's own spelling, ``JSON.stringify(record, null, 2)``, with no newline after it
    (``chatRecordingService.ts`` and ``logger.ts`` for checkpoints) when the file it came
    from had none."""
    if isinstance(document, RecordFile) and document.raw is not None and not compact:
        return document.raw
    # A document handed over already parsed has no ending of its own: it gets the usual one.
    newline = compact or not isinstance(document, RecordFile) or document.newline
    return orjson.dumps(document, option=0 if compact else orjson.OPT_INDENT_2) + (b"\n" if newline else b"")


def export_new(im: Imported, result: Result, notes: Exported) -> Any:
    """A checkpoint (``{"history": [...]}``) from another format's history."""
    return {"history": CHECKPOINT.export_new(im, result, notes)[CHECKPOINT.container]}


# -- registration --------------------------------------------------------------------------

FORMAT = Format(
    NAME, "a Gemini CLI session", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=lambda block: _describe(block, ("id",), ("text", "args", "response", "result")),
    sniff=sniff, parse=parse, dump=dump, kind=SESSION, suffixes=(".json",), provider="gemini",
    kinds=session.EMITS + gemini.FORMAT.kinds,
)

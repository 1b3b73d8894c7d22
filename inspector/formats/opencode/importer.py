"""Import: an OpenCode session read as the request OpenCode sends on resume, through the
Anthropic importer, with its own repairs as notes and every reasoning part recorded."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...io import InputError
from .. import anthropic, session
from ..base import Imported, Loc, Reasoning, kind_of
from ..store.request import Request
from . import v2 as opencode2
from .resume import _key, request
from .store import (EXPORT, HEADER, NAME, OpenCodeDB, OpenCodeExport, _is_export, _is_tree_session, _read_tree,
                    listing, parse, parse_export)

# -- import -----------------------------------------------------------------------------------

@dataclass(slots=True)
class OpenCodeState:
    """What export needs: the OpenCode messages as sent, the request, and its Anthropic import."""

    request: Request
    inner: Imported
    model: dict[str, str] | None = None      # the model a 2.x resume talks to (V1 reads it from its messages)
    v2: bool = False                         # an OpenCode 2.x session (session_message rows)


def _session_messages(document: Any, name: str) -> tuple[Any, list[dict[str, Any]], str]:
    if isinstance(document, (bytes, bytearray)):
        data = bytes(document)
        document = parse(data, name) if data.startswith(HEADER) else parse_export(data, name)
    if isinstance(document, OpenCodeDB):
        if document.session is None:
            raise session.must_choose(NAME, len(document.sessions()), ", ".join(
                f"{s.id} ({s.first_user[:40]!r})" for s in listing(document)[:10]), name)
        return document, document.messages(document.session), document.session
    if isinstance(document, Mapping) and _is_export(document):
        document = OpenCodeExport(dict(document))
    elif isinstance(document, Mapping) and _is_tree_session(document):
        document = _read_tree(document, name)
    if not isinstance(document, OpenCodeExport):
        raise InputError(name, f"{NAME}: expected an OpenCode database, export or session file, got {kind_of(document)}")
    return document, document.doc["messages"], str(document.doc["info"].get("id", ""))


def import_(document: Any, name: str = "<input>") -> Imported:
    if isinstance(document, (bytes, bytearray)) and bytes(document).startswith(HEADER):
        document = parse(bytes(document), name)
    if isinstance(document, OpenCodeDB) and not document.sessions():
        return session.empty_store(NAME, document)
    document, messages, sid = _session_messages(document, name)
    second = isinstance(document, OpenCodeDB) and document.is_v2(sid)
    model = None
    if second:
        req, model = opencode2.request(messages, document.v2info.get(sid, {}).get("model"))
    else:
        req = request(messages)
    inner = anthropic.import_(req.messages, name)
    fmt = NAME if isinstance(document, OpenCodeDB) else EXPORT
    im = Imported(fmt, inner.messages, document, container="messages", history=messages)
    im.events.extend(inner.events)
    for src, calls in zip(inner.sources, inner.calls):
        im.sources.append(req.loc(src))
        im.calls.append([req.loc(c) for c in calls])
    asked: dict[Any, int] = {}            # where each call id is asked for, found in one pass
    for i, m in enumerate(inner.messages):
        for c in m.get("tool_calls") or ():
            asked.setdefault(_key(c.get("tool_call_id")), i)
    for kind, sentence, cid in req.notes:
        row = asked.get(_key(cid)) if cid is not None else None
        im.note(row, kind, sentence, tool_call_id=cid)
    if isinstance(document, OpenCodeDB):
        for what in document.skipped(sid):
            im.note(None, "entry-skipped", f"The {what} row is not JSON; OpenCode cannot read it either, and it is "
                                           "kept as it is." + (" OpenCode 2 stops at a row it cannot decode: "
                                                               "the session does not resume until it is removed."
                                                               if second else ""))
        im.notes.append(f"session {sid!r}" + (" (OpenCode 2.x, session_message)" if second else "")
                        + f": {len(messages)} messages; {len(document.sessions()) - 1} other "
                        f"session(s) left as they are" + ("; the WAL was read from a copy" if document.wal else ""))
    im.state = OpenCodeState(req, inner, model, second)
    _record_reasoning(im, req, inner)
    return im


# Where a provider's signature or encrypted reasoning rides in a reasoning part's ``metadata``
# (the AI SDK's providerMetadata: @ai-sdk/anthropic ``signature`` / ``redactedData``,
# @ai-sdk/openai ``reasoningEncryptedContent``, @ai-sdk/google ``thoughtSignature``).
SIGNED_KEYS = ("signature", "redactedData", "reasoningEncryptedContent", "thoughtSignature")


def _signed_part(part: Mapping) -> tuple[bool, bool]:
    """(signed, encrypted) of a reasoning part, from its provider metadata."""
    meta = part.get("metadata")
    signed = encrypted = False
    nested = [*(meta.values() if isinstance(meta, Mapping) else ()),
              *(part["providerMetadata"].values() if isinstance(part.get("providerMetadata"), Mapping) else ()),
              part.get("state")]           # OpenCode 2.x: providerMetadata, or the provider's state itself
    for value in nested:
        if isinstance(value, Mapping):
            signed = signed or any(isinstance(value.get(k), str) and value[k] for k in SIGNED_KEYS)
            encrypted = encrypted or any(isinstance(value.get(k), str) and value[k]
                                         for k in ("redactedData", "reasoningEncryptedContent"))
    return signed, encrypted


def _record_reasoning(im: Imported, req: Request, inner: Imported) -> None:
    """Every reasoning part of the session, in order: a part OpenCode sends (as a
    ``thinking`` or ``redacted_thinking`` block) with its row and the calls it precedes, one
    it leaves out (unsigned, or written by another model than the one resumed) with no row.
    The model is the message's own ``modelID``."""
    sent: dict[tuple[int, int], Reasoning] = {}
    for r in inner.reasoning:
        content = req.messages[r.loc.message]["content"] if isinstance(r.loc.message, int) else []
        block = req.blocks.get(id(content[r.loc.blocks[0]])) if r.loc.blocks and r.loc.blocks[0] < len(content) else None
        if block is not None:
            sent[(block.row, block.part)] = r
    for m, msg in enumerate(req.history):
        info = msg["info"]
        model = info.get("modelID") if isinstance(info.get("modelID"), str) and info.get("modelID") else None
        own = info.get("model") if isinstance(info.get("model"), Mapping) else {}
        model = model or (own.get("id") if isinstance(own.get("id"), str) and own.get("id") else None)
        for k, part in enumerate(msg["parts"]):
            if not (isinstance(part, Mapping) and part.get("type") == "reasoning"):
                continue
            signed, encrypted = _signed_part(part)
            text = part.get("text") if isinstance(part.get("text"), str) else ""
            r = sent.get((m, k))
            im.reasoning.append(Reasoning(r.row if r else None, Loc(m, "parts", (k,)), "reasoning", signed,
                                          encrypted, model, r.before if r else (), text))

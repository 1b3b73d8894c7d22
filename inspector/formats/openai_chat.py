"""OpenAI Chat Completions: ``messages`` (or a whole request body) where ``content`` is null,
a string or a list of parts, assistant turns carry ``tool_calls`` (``id``, ``type``,
``function {name, arguments}``) and results are ``tool`` messages with ``tool_call_id``.

One original message is one flat message, so provenance is the message index, and each
call's is its index in ``tool_calls``. A synthetic result is a ``tool`` message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..engine import Kind, Result, declare
from ..io import InputError
from . import base, reasoning
from .base import (Decisions, Exported, Imported, Loc, PerMessage, Reasoning, args_string, call_args, call_name, describe_block,
                   join_text, kind_of, note_unconverted, rebuild, split_body)
from .format import Format
from . import identity
from .shape import shape_of

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("call-fields-written", "strict:call-fields", False, "call fields written",
         "A call's missing or empty name got a placeholder, or its arguments object was written as the JSON string "
         "OpenAI requires (strict, beyond MEM-5)."),
    Kind("image-moved", "strict:image-role", False, "image moved to a user message",
         "Images in a tool or system message, which Chat Completions refuses, were moved into a user message after "
         "it (strict, beyond MEM-5)."),
)

NAME = "openai-chat"
# Detection: content part types only Chat Completions uses, and calls spelled
# ``{"id", "type": "function", "function": {name, arguments}}``.
PART_MARKERS = frozenset({"image_url", "input_audio", "file", "refusal"})
PARTS = frozenset({"text", *PART_MARKERS})   # every part type a Chat message may hold
TEXT_PARTS = ("text", "refusal", "input_text", "output_text")
# Message fields only Chat Completions defines (an assistant message echoing a response:
# ``annotations``, ``refusal``, ``audio``; the legacy ``function_call``): evidence of the
# format, never fields for the flat shape to discard.
# OpenAI-compatible reasoning fields (DeepSeek's ``reasoning_content``, a gateway's
# ``reasoning`` text and signed ``reasoning_details``) are the format's too.
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")
MESSAGE_MARKERS = frozenset({"annotations", "refusal", "audio", "function_call", *REASONING_FIELDS})


def content_text(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return join_text([p.get("text") if isinstance(p.get("text"), str) else p.get("refusal")
                          for p in content if isinstance(p, Mapping) and p.get("type") in TEXT_PARTS
                          and isinstance(p.get("text", p.get("refusal")), str)])
    return content          # a scalar or object: the engine casts or serializes it (clause 1)


_FLAT_KEYS = ("role", "content")
# Keys of a call that hold its name or arguments outside the ``function`` object.
_OWN_KEYS = frozenset(("name", "arguments", "args", "input"))


def flat_call(call: Any) -> Any:
    if type(call) is not dict and not isinstance(call, Mapping):
        return call          # the engine drops it as malformed (clause 3)
    raw = call.get("tool_call_id")
    if raw is None:
        raw = call.get("id")
    fn = call.get("function")
    if type(fn) is dict and call.keys().isdisjoint(_OWN_KEYS):
        # The usual spelling, read as call_name and call_args read it, without their search.
        name = fn.get("name")
        return {"tool_call_id": raw, "name": name if isinstance(name, str) else "", "arguments": fn.get("arguments")}
    return {"tool_call_id": raw, "name": call_name(call), "arguments": call_args(call)}


def import_(document: Any, name: str) -> Imported:
    body, history = split_body(document, "messages")
    if history is None:
        raise InputError(name, f"openai-chat: expected an array of messages or a request body with a "
                               f"\"messages\" array, got {kind_of(document)}")
    messages: list[Any] = []
    im = Imported(NAME, messages, document, container="messages" if body is not None else None, history=history)
    # One message is one flat message: provenance is the identity, computed when asked.
    im.sources = PerMessage(history, _source_of)
    im.calls = PerMessage(history, _calls_of)
    lost = im.unconverted                        # parts the flat text does not carry
    push = messages.append
    for i, m in enumerate(history):
        if type(m) is not dict and not isinstance(m, Mapping) or not isinstance(role := m.get("role"), str):
            push(m)
            continue
        content = m.get("content")
        if type(content) is str and type(m) is dict and tuple(m) == _FLAT_KEYS and role != "tool":
            # Already a flat message: read as the object it is. (A result without an id is
            # rebuilt: its flat form names the missing id.)
            push(m)
            continue
        if type(content) is list:
            lost.extend((i, "content", k) for k, p in enumerate(content)
                        if not (isinstance(p, Mapping) and p.get("type") in TEXT_PARTS))
            content = content_text(content)
        flat: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            calls = m.get("tool_calls")
            if isinstance(calls, list):
                flat["tool_calls"] = [flat_call(c) for c in calls]
            for fld in REASONING_FIELDS:
                if m.get(fld):
                    im.reasoning.append(_reasoning(i, m, fld, len(calls) if isinstance(calls, list) else 0))
        elif role == "tool":
            flat["tool_call_id"] = m.get("tool_call_id")
        push(flat)
    return im


def _reasoning(i: int, m: Mapping, fld: str, calls: int) -> Reasoning:
    """A reasoning field of an assistant message: signed when its details carry a signature
    or encrypted data (a gateway's ``reasoning_details``)."""
    value = m[fld]
    details = value if isinstance(value, list) else []
    signed = any(isinstance(d, Mapping) and (d.get("signature") or d.get("data")) for d in details)
    encrypted = any(isinstance(d, Mapping) and d.get("data") for d in details)
    text = value if isinstance(value, str) else join_text(
        [d.get("text") for d in details if isinstance(d, Mapping) and isinstance(d.get("text"), str)])
    model = m.get("model") if isinstance(m.get("model"), str) else None
    return Reasoning(i, Loc(i, fld, ()), fld, signed, encrypted, model, tuple(range(calls)), text)


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: the reasoning fields of assistant messages go."""
    body, history = reasoning.history_of(document, "messages")
    if history is None:
        return document
    out, changed = [], False
    for i, m in enumerate(history):
        found = [f for f in REASONING_FIELDS if isinstance(m, Mapping) and f in m]
        if found:
            changed = True
            for f in found:
                reasoning.removed(notes, f"messages[{i}].{f}", "reasoning")
            m = {k: v for k, v in m.items() if k not in found}
        out.append(m)
    return reasoning.put_back(body, "messages", out) if changed else document


def _source_of(index: int, message: Any) -> Loc:
    return Loc(index)


def _calls_of(index: int, message: Any) -> list[Loc]:
    """Where each call of an assistant turn came from: its index in ``tool_calls``."""
    if not isinstance(message, Mapping) or message.get("role") != "assistant":
        return []
    calls = message.get("tool_calls")
    return [Loc(index, "tool_calls", (j,)) for j in range(len(calls))] if isinstance(calls, list) else []


def export_same(im: Imported, result: Result, notes: Exported) -> Any:
    d = Decisions.of(result)
    out = []
    history = im.history            # provenance is the identity: origin o is history[o]
    dropped = d.dropped_calls
    for msg, o in d.rows:
        if o is None:
            out.append({"role": "tool", "tool_call_id": msg["tool_call_id"], "content": msg["content"]})
            continue
        orig = history[o]
        calls = orig.get("tool_calls") if msg["role"] == "assistant" and isinstance(orig, Mapping) else None
        if isinstance(calls, list) and (dropped.get(o) or not calls):
            orig = dict(orig)
            kept = [calls[j] for j in d.kept_calls(o, len(calls))]
            if kept:
                orig["tool_calls"] = kept
            else:
                del orig["tool_calls"]     # an empty tool_calls array is itself rejected
        out.append(orig)
    if any(s.name == "strict" for s in result.stages):
        out = strict_fields(out, notes)
        out = strict_images(out, notes)
    return rebuild(im, out)


PLACEHOLDER_NAME = "unnamed_tool"


def strict_fields(messages: list[Any], notes: Exported) -> list[Any]:
    """``--strict``, OpenAI (issue 31, item 5): a call with a missing, empty or non-string
    name gets a placeholder name, and arguments written as an object (or null) are written as
    the JSON string OpenAI requires (null as ``{}``), one event per call. The input's objects
    are never edited: a changed message, call and function are new dicts."""
    out = list(messages)
    for p, m in enumerate(messages):
        calls = m.get("tool_calls") if isinstance(m, Mapping) and m.get("role") == "assistant" else None
        if not isinstance(calls, list):
            continue
        new_calls = list(calls)
        for j, call in enumerate(calls):
            fn = call.get("function") if isinstance(call, Mapping) else None
            if not isinstance(fn, Mapping):
                continue
            fixed = dict(fn)
            what = []
            if not isinstance(fn.get("name"), str) or not fn.get("name"):
                fixed["name"] = PLACEHOLDER_NAME
                what.append(f"its name ({json.dumps(fn.get('name'))}) became {PLACEHOLDER_NAME!r}")
            if "arguments" in fn and not isinstance(fn["arguments"], str):
                fixed["arguments"] = args_string(fn["arguments"] if fn["arguments"] is not None else {})
                what.append("its arguments were written as a JSON string")
            if what:
                new_calls[j] = {**call, "function": fixed}
                notes.note("call-fields-written", f"messages[{p}].tool_calls[{j}]: " + " and ".join(what) +
                               ", as OpenAI requires.")
        if new_calls != calls:
            out[p] = {**m, "tool_calls": new_calls}
    return out


def strict_images(messages: list[Any], notes: Exported) -> list[Any]:
    """``--strict``, OpenAI Chat (issue 31, item 5): images in a tool or system message (which
    Chat Completions refuses: "Image URLs are only allowed for messages with role 'user'",
    OpenHands #7700) move into a new user message after the block of tool messages, and a
    text part says so where each was; one event per message."""
    out: list[Any] = []
    pending: list[Any] = []
    for p, m in enumerate(messages):
        role = m.get("role") if isinstance(m, Mapping) else None
        if pending and role != "tool":
            out.append({"role": "user", "content": pending})
            pending = []
        content = m.get("content") if isinstance(m, Mapping) else None
        if role not in ("tool", "system", "developer") or not isinstance(content, list) or \
                not any(isinstance(x, Mapping) and x.get("type") == "image_url" for x in content):
            out.append(m)
            continue
        images = [x for x in content if isinstance(x, Mapping) and x.get("type") == "image_url"]
        kept = [x if not (isinstance(x, Mapping) and x.get("type") == "image_url")
                else {"type": "text", "text": "(image moved to the next user message)"} for x in content]
        out.append({**m, "content": kept})
        who = f"tool call {m.get('tool_call_id')}" if role == "tool" else f"the {role} message"
        pending += [{"type": "text", "text": f"Image(s) from {who}:"}, *images]
        notes.note("image-moved", f"messages[{p}]: {len(images)} image(s) in a {role} message, which Chat Completions "
                       "refuses, moved into a user message after it.")
    if pending:
        out.append({"role": "user", "content": pending})
    return out


def export_new(im: Imported, result: Result, notes: Exported) -> Any:
    note_unconverted(im, NAME, notes)
    out = []
    for msg in result.messages:
        role = msg["role"]
        if role == "assistant":
            new: dict[str, Any] = {"role": "assistant", "content": msg["content"]}
            if msg.get("tool_calls"):
                new["content"] = msg["content"] or None     # OpenAI writes null beside calls
                new["tool_calls"] = [{"id": c["tool_call_id"], "type": "function",
                                      "function": {"name": call_name(c), "arguments": args_string(call_args(c))}}
                                     for c in msg["tool_calls"]]
            out.append(new)
        elif role == "tool":
            out.append({"role": "tool", "tool_call_id": msg["tool_call_id"], "content": msg["content"]})
        else:
            out.append({"role": role, "content": msg["content"]})
    return out


# -- registration --------------------------------------------------------------------------


def evidence(document: Any) -> list[str]:
    shape = shape_of(document, "messages")
    found = [f'a "{t}" content part' for t in sorted(PART_MARKERS & shape.blocks.keys())]
    found += [f'a message with "{k}"' for k in sorted(MESSAGE_MARKERS & shape.message_keys)]
    if shape.call_function_objects:
        found.append('calls with "function": {name, arguments}')
    return found


FORMAT = Format(
    NAME, "OpenAI Chat Completions messages",
    "OpenAI Chat Completions: messages (or a request body) with tool_calls and tool messages",
    evidence, import_, export_same, export_new,
    describe_block=lambda block: describe_block(block, ("id", "tool_call_id"), ("text", "refusal", "function")),
    parts=PARTS,
    provider="openai-chat",
    kinds=EMITS + base.EMITS + reasoning.EMITS,
    strip_reasoning=strip_reasoning,
    pairing=identity.ADJACENT,
)

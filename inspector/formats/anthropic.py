"""Anthropic Messages: a request body with a top-level ``system`` (string or text blocks) and
``messages`` whose content is a string or blocks (``text``, ``tool_use``, ``tool_result``,
``thinking``, ``image``, ...). A synthetic result is a ``tool_result`` block with
``is_error: true``; all of a turn's results go first in the next user message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import Kind, declare
from . import base, blocks, compaction, reasoning, surrogates
from .base import args_object, as_text, call_args, call_name, describe_block, join_text
from .blocks import BlockSpec
from .format import Format
from . import identity
from .shape import messages_body, shape_of

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("text-after-tool-use", "strict:text-after-tool-use", False, "moved before tool_use",
         "Blocks after an assistant message's first tool_use were moved ahead of it, as Anthropic requires "
         "(strict, beyond MEM-5)."),
    Kind("server-call-dropped", "strict:server-tools", False, "server call dropped",
         "A server or MCP tool call whose result never came was left out, as Anthropic refuses it once the "
         "conversation goes on (strict, beyond MEM-5)."),
    Kind("server-result-dropped", "strict:server-tools", False, "server result dropped",
         "A server tool result without its call earlier in the turn was left out, as Anthropic refuses it "
         "(strict, beyond MEM-5)."),
    Kind("prefill-trimmed", "strict:blank-text", False, "prefill trimmed",
         "The final assistant message (a prefill) ended in whitespace, which Anthropic refuses: the whitespace was "
         "trimmed, or a prefill of only whitespace left out (strict, beyond MEM-5)."),
    Kind("blank-text-dropped", "strict:blank-text", False, "empty text dropped",
         "An empty text block beside other content was left out, as Anthropic refuses it (strict, beyond MEM-5)."),
    Kind("blank-text-replaced", "strict:blank-text", False, "blank text replaced",
         "A message with nothing but blank text got a placeholder text, as Anthropic refuses an empty message "
         "(strict, beyond MEM-5)."),
)

# What a message that would otherwise be empty says (Anthropic refuses empty content).
PLACEHOLDER = "(empty)"


NAME = "anthropic"
# Detection: block types only Anthropic uses. A ``thinking`` block counts only as Anthropic
# spells it (a string ``thinking`` and a ``signature``): Mistral has a ``thinking`` part too.
BLOCK_MARKERS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "compaction",
                           "web_search_tool_result", "document", "search_result", "container_upload"})
# Block types an Anthropic message may hold that decide nothing alone.
PARTS = frozenset({"text", "image"})


def result_text(content: Any) -> str:
    if isinstance(content, list):
        return join_text([b.get("text") for b in content
                          if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)])
    return as_text(content)


class Anthropic(BlockSpec):
    name = NAME

    def classify(self, block: Any) -> tuple[str, Any]:
        if not isinstance(block, Mapping):
            return "other", None
        kind = block.get("type")
        if kind == "text":
            return "text", block.get("text") if isinstance(block.get("text"), str) else ""
        if kind == "tool_use":
            return "call", {"tool_call_id": block.get("id"), "name": block.get("name"),
                            "arguments": block.get("input")}
        if kind == "tool_result":
            return "result", (block.get("tool_use_id"), result_text(block.get("content")))
        return "other", None

    def system_text(self, value: Any) -> str:
        return result_text(value) if isinstance(value, list) else as_text(value)

    def reasoning_of(self, block: Any) -> tuple[str, bool, bool, str] | None:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "thinking":
            sig, text = block.get("signature"), block.get("thinking")
            return kind, isinstance(sig, str) and bool(sig), False, text if isinstance(text, str) else ""
        if kind == "redacted_thinking":
            return kind, True, True, ""
        return None

    def text_block(self, text: str) -> Any:
        return {"type": "text", "text": text}

    def call_block(self, cid, call, imported):
        return {"type": "tool_use", "id": cid, "name": call_name(call), "input": args_object(call_args(call))}

    def result_block(self, cid, text, synthetic, call, imported):
        block = {"type": "tool_result", "tool_use_id": cid, "content": text}
        if synthetic:
            block["is_error"] = True
        return block

    def system_top(self, texts):
        return {"system": "\n\n".join(texts)} if texts else {}

    def fold_system(self, body, items):
        current = body.get("system")
        if current is None and all(isinstance(t, str) for t in items):
            return {"system": "\n\n".join(items)}
        blocks = list(current) if isinstance(current, list) else [] if current is None else \
            [self.text_block(as_text(current))]
        for item in items:
            blocks.extend(item if isinstance(item, list) else [self.text_block(item)])
        return {"system": blocks}

    def arrange(self, im, origin, blocks, kept, strict, notes):
        """Anthropic rejects anything but more ``tool_use`` after a message's first ``tool_use``.
        With ``--strict`` the blocks that follow it move ahead of it, in their order.

        Signed thinking (issue 31, item 8): Anthropic verifies each thinking block of the
        latest assistant message against the place it had in the response; moving one is
        refused as "`thinking` or `redacted_thinking` blocks in the latest assistant message
        cannot be modified" (observed: NousResearch/hermes-agent #35975, where a replay put
        every thinking block first; BerriAI/litellm #23047, thinking moved ahead of
        server_tool_use). Only the thinking is signed, so when every signed block sits before
        the first ``tool_use`` the move touches unsigned blocks only: each signed block keeps
        its index, its bytes and everything before it, and the message, refused as it is, is
        reordered. A signed block after the first ``tool_use`` would have to move itself: that
        turn is written as it was, with a note (which changes nothing)."""
        if not strict:
            return kept
        uses = {k for k in kept if isinstance(blocks[k], Mapping) and blocks[k].get("type") == "tool_use"}
        if not uses:
            return kept
        first = next(p for p, k in enumerate(kept) if k in uses)
        late = [k for k in kept[first:] if k not in uses]
        if not late:
            return kept
        signed = [k for k in kept if (self.reasoning_of(blocks[k]) or ("", False))[1]]
        if any(k in kept[first:] for k in signed):
            where = f"{im.container or 'messages'}[{im.sources[origin].message}]"
            moved = next(k for k in signed if k in kept[first:])
            notes.note("signed-kept-in-place", f"{where} has blocks after its first tool_use, which Anthropic rejects, "
                           f"but signed thinking ({where}.content[{moved}]) is among them: reordering would move the "
                           "signed block itself, which Anthropic refuses as modified, so it is written as it was. "
                           "Send it with --reasoning strip (which removes the thinking) if the provider refuses it.",
                       origin=origin)
            return kept
        where = ", ".join(f"{im.container or 'messages'}[{im.sources[origin].message}].content[{k}]" for k in late)
        kept_signed = (" The signed thinking before it keeps its place and bytes: only unsigned blocks move."
                       if signed else "")
        notes.note("text-after-tool-use", f"{where} followed the first tool_use block of the message; "
                       "Anthropic rejects that shape, so it is moved ahead of the tool_use blocks." + kept_signed,
                       origin=origin)
        return [*kept[:first], *late, *(k for k in kept[first:] if k in uses)]


    def import_(self, document, name):
        im = super().import_(document, name)
        compaction.note(im, "content")
        return im

    def export_same(self, im, result, notes):
        body = super().export_same(im, result, notes)
        if any(s.name == "strict" for s in result.stages):
            body = server_repair(body, notes)
            body = blank_repair(body, im, notes)
        return body

    def export_new(self, im, result, notes):
        body = super().export_new(im, result, notes)
        if any(s.name == "strict" for s in result.stages):
            body = blank_repair(body, im, notes)
        return body


SERVER_USES = ("server_tool_use", "mcp_tool_use")
UNCACHEABLE = ("thinking", "redacted_thinking")       # blocks that take no cache_control


def _type(block: Any) -> Any:
    return block.get("type") if isinstance(block, Mapping) else None


def _server_result(block: Any) -> bool:
    kind = _type(block)
    return isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result"


def _content(message: Any) -> list:
    content = message.get("content") if isinstance(message, Mapping) else None
    return content if isinstance(content, list) else []


def server_repair(body: Any, notes: Any) -> Any:
    """``--strict``, Anthropic (issue 31, item 1): a ``server_tool_use`` or ``mcp_tool_use``
    whose result block is nowhere in the request is left out, unless it is still in flight
    (every later message a user turn of client ``tool_result`` blocks only: the one shape the
    API accepts it in); an ``advisor_tool_result`` without its call earlier in the same
    assistant turn is left out (refused, anthropics/claude-code #89348; other server results
    in that place are not observed refused, and stay). A dropped block's ``cache_control`` moves to the nearest block before it
    that can carry one, so the cache boundary stays where the user put it; a message left
    with nothing is left out (pydantic-ai's ``_drop_unpaired_native_tool_calls`` does the
    same, ``tests/models/anthropic/test_unpaired_native_tool_calls.py`` at 5344c9ae)."""
    history = body.get("messages") if isinstance(body, Mapping) else None
    if not isinstance(history, list):
        return body
    answered = {b.get("tool_use_id") for m in history if isinstance(m, Mapping) and m.get("role") == "assistant"
                for b in _content(m) if _server_result(b)}
    flight = len(history)
    while flight > 0 and isinstance(history[flight - 1], Mapping) and history[flight - 1].get("role") == "user" \
            and _content(history[flight - 1]) and all(_type(b) == "tool_result" for b in _content(history[flight - 1])):
        flight -= 1
    drop: dict[int, list[int]] = {}
    turn: set = set()
    for p, m in enumerate(history):
        if not (isinstance(m, Mapping) and m.get("role") == "assistant"):
            turn = set()
            continue
        for k, b in enumerate(_content(m)):
            if _type(b) in SERVER_USES:
                turn.add(b.get("id"))
                if b.get("id") not in answered and p + 1 < flight:
                    drop.setdefault(p, []).append(k)
                    notes.note("server-call-dropped", f"messages[{p}].content[{k}] ({_type(b)} {b.get('id')}) has no "
                                   "result block and the conversation goes on past it, which Anthropic refuses; "
                                   "it is left out.")
            elif _type(b) == "advisor_tool_result" and b.get("tool_use_id") not in turn:
                # refused as observed (claude-code #89348); other server results only warn: kept
                drop.setdefault(p, []).append(k)
                notes.note("server-result-dropped", f"messages[{p}].content[{k}] ({_type(b)} for "
                               f"{b.get('tool_use_id')}) has no call before it in its turn, which Anthropic "
                               "refuses; it is left out.")
    if not drop:
        return body
    out = list(history)
    carry: list[tuple[int, int]] = []       # (message, block) of each dropped cache_control, to move back
    for p, ks in drop.items():
        for k in ks:
            cache = out[p]["content"][k].get("cache_control")
            if cache is not None:
                carry.append((p, k))
    for p, k in carry:
        cache = history[p]["content"][k]["cache_control"]
        q, j = p, k - 1
        while q >= 0:
            blocks = _content(out[q])
            while j >= 0 and (j in drop.get(q, ()) or _type(blocks[j]) in UNCACHEABLE or not isinstance(blocks[j], Mapping)):
                j -= 1
            if j >= 0:
                new = list(blocks)
                new[j] = {**blocks[j], "cache_control": cache}
                out[q] = {**out[q], "content": new}
                break
            q -= 1
            j = len(_content(out[q])) - 1 if q >= 0 else -1
    for p, ks in drop.items():
        out[p] = {**out[p], "content": [b for k, b in enumerate(_content(out[p])) if k not in ks]}
    out = [m for p, m in enumerate(out) if not (p in drop and not m["content"])]
    return {**body, "messages": out}


def _blank(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str) \
        and not block["text"].strip()


def blank_repair(body: Any, im: Any, notes: Any) -> Any:
    """``--strict``, Anthropic (issue 31, item 4): the blank text the API refuses, repaired the
    way it accepts. The scope, from what was observed:

    - an empty text block is refused anywhere ("text content blocks must be non-empty",
      anthropics/claude-code #59812, #49171): beside other content it is left out;
    - a message that is nothing but blank text, or an empty string or list, is refused
      ("text content blocks must contain non-whitespace text", claude-code #23440, opencode
      #31259; an empty user string, claude-code #6774): it gets a placeholder text;
    - a whitespace-only text block beside other content is accepted (a recorded request
      answered HTTP 200 by claude-haiku-4-5 holds ``" "`` before two ``tool_use`` blocks): kept.

    The last message, an assistant prefill, is left as it is. Each change is an event; the
    import's objects are never edited (changed messages are new dicts)."""
    history = body.get("messages") if isinstance(body, Mapping) else None
    if not isinstance(history, list):
        return body
    out = list(history)
    changed = False
    for n, message in enumerate(history):
        if not isinstance(message, Mapping) or (n == len(history) - 1 and message.get("role") == "assistant"):
            continue
        content = message.get("content")
        where = f"messages[{n}]"
        if isinstance(content, str) and not content.strip():
            out[n] = {**message, "content": PLACEHOLDER}
            notes.note("blank-text-replaced", f"{where} had {'empty' if not content else 'only blank'} content, "
                           f"which Anthropic refuses; it now reads {PLACEHOLDER!r}.")
            changed = True
        elif isinstance(content, list):
            if not content or all(_blank(b) for b in content):
                out[n] = {**message, "content": [{"type": "text", "text": PLACEHOLDER}]}
                notes.note("blank-text-replaced", f"{where} held nothing but blank text, which Anthropic refuses; "
                               f"it now reads {PLACEHOLDER!r}.")
                changed = True
            elif any(_blank(b) and not b["text"] for b in content):
                gone = [k for k, b in enumerate(content) if _blank(b) and not b["text"]]
                out[n] = {**message, "content": [b for k, b in enumerate(content) if k not in gone]}
                notes.note("blank-text-dropped", f"{', '.join(f'{where}.content[{k}]' for k in gone)}: an empty "
                               "text block, which Anthropic refuses, is left out; the message keeps its other blocks.")
                changed = True
    last = out[-1] if out else None
    if isinstance(last, Mapping) and last.get("role") == "assistant":
        content = last.get("content")
        blocks = content if isinstance(content, list) else None
        text = (blocks[-1].get("text") if blocks and isinstance(blocks[-1], Mapping) and blocks[-1].get("type") == "text"
                else content if isinstance(content, str) else None)
        if content == [] or content == "":
            out = out[:-1]
            notes.note("prefill-trimmed", f"messages[{len(out)}], the final assistant message, is empty: a prefill of "
                           "nothing asks for nothing, so it is left out.")
            changed = True
        elif isinstance(text, str) and text != text.rstrip():
            where = f"messages[{len(out) - 1}]"
            if not text.strip() and (blocks is None or len(blocks) == 1):
                out = out[:-1]
                notes.note("prefill-trimmed", f"{where}, the final assistant message, is only whitespace, which "
                               "Anthropic refuses as a prefill; it is left out.")
            else:
                new = text.rstrip()
                out[-1] = {**last, "content": [*blocks[:-1], {**blocks[-1], "text": new}] if blocks else new}
                notes.note("prefill-trimmed", f"{where}, the final assistant message, ended in whitespace, which "
                               "Anthropic refuses; the trailing whitespace was trimmed.")
            changed = True
    return {**body, "messages": out} if changed else body


def _thinking(block: Any) -> str | None:
    kind = block.get("type") if isinstance(block, Mapping) else None
    return kind if kind in ("thinking", "redacted_thinking") else None


def strip_reasoning(document: Any, notes: Any) -> Any:
    """``--reasoning strip``: every thinking and redacted_thinking block goes."""
    return reasoning.strip_blocks(document, notes, "messages", "content", _thinking)


SPEC = Anthropic()
import_ = SPEC.import_
export_same = SPEC.export_same
export_new = SPEC.export_new


# -- registration --------------------------------------------------------------------------


def _is_marker(kind: str, block: Mapping, keys: set[str]) -> bool:
    if kind == "thinking":
        return isinstance(block.get("thinking"), str) and "signature" in keys
    return True


def evidence(document: Any) -> list[str]:
    found = []
    body = messages_body(document)
    if body is not None:
        system = body.get("system")
        if isinstance(system, str):
            found.append('a top-level "system" string')
        elif isinstance(system, list) and system and all(isinstance(b, Mapping) and "type" in b for b in system):
            found.append('a top-level "system" list of typed text blocks')
    shape = shape_of(document, "messages")
    found += [f'a "{t}" block' for t in sorted(BLOCK_MARKERS & shape.blocks.keys())
              if _is_marker(t, shape.blocks[t], shape.block_keys[t])]
    if "source" in shape.block_keys.get("image", ()):
        found.append('a "image" block')
    return found


FORMAT = Format(
    NAME, "an Anthropic Messages request",
    "Anthropic Messages: a request body with system and messages of tool_use / tool_result blocks",
    evidence, import_, export_same, export_new,
    describe_block=lambda block: describe_block(block, ("id", "tool_use_id"), ("text", "content", "input", "thinking")),
    parts=PARTS,
    provider="anthropic",
    kinds=EMITS + blocks.EMITS + base.EMITS + reasoning.EMITS + surrogates.EMITS + compaction.EMITS,
    strip_reasoning=strip_reasoning,
    pairing=identity.ADJACENT,
)

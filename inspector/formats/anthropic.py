"""Anthropic Messages: a request body with a top-level ``system`` (string or text blocks) and
``messages`` whose content is a string or blocks (``text``, ``tool_use``, ``tool_result``,
``thinking``, ``image``, ...). A synthetic result is a ``tool_result`` block with
``is_error: true``; all of a turn's results go first in the next user message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import Kind, declare
from . import base, blocks, reasoning
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
)


NAME = "anthropic"
# Detection: block types only Anthropic uses. A ``thinking`` block counts only as Anthropic
# spells it (a string ``thinking`` and a ``signature``): Mistral has a ``thinking`` part too.
BLOCK_MARKERS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
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
        With ``--strict`` the blocks that follow it move ahead of it, in their order."""
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
        if signed:
            where = f"{im.container or 'messages'}[{im.sources[origin].message}]"
            notes.note("signed-kept-in-place", f"{where} has blocks after its first tool_use, which Anthropic rejects, "
                           f"but it carries signed thinking ({where}.content[{signed[0]}]): Inspector never reorders "
                           "what a provider signed, so it is written as it was. Send it with --reasoning strip "
                           "(which removes the thinking) if the provider refuses it.",
                       origin=origin)
            return kept
        where = ", ".join(f"{im.container or 'messages'}[{im.sources[origin].message}].content[{k}]" for k in late)
        notes.note("text-after-tool-use", f"{where} followed the first tool_use block of the message; "
                       "Anthropic rejects that shape, so it is moved ahead of the tool_use blocks.",
                       origin=origin)
        return [*kept[:first], *late, *(k for k in kept[first:] if k in uses)]


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
    kinds=EMITS + blocks.EMITS + base.EMITS + reasoning.EMITS,
    strip_reasoning=strip_reasoning,
    pairing=identity.ADJACENT,
)

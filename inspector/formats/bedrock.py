"""Amazon Bedrock Converse: ``system`` is a list of ``{"text"}`` blocks, ``messages`` hold
content blocks keyed by kind (``text``, ``toolUse``, ``toolResult``, ``reasoningContent``,
``image``, ...). A ``toolUse`` of ``"type": "server_tool_use"`` is a tool the provider ran
itself (its ``toolResult`` is in the same assistant message): not a client call, so it is
carried through as part of the turn. A synthetic result is a ``toolResult`` with ``status: "error"``; all of a
turn's results go in the next user message, as Bedrock requires.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import base, blocks, reasoning
from .base import args_object, as_text, call_args, call_name, describe_block, join_text
from .blocks import BlockSpec
from .format import Format
from . import identity
from .shape import messages_body, shape_of

NAME = "bedrock"
# Detection: Converse blocks are keyed by kind, with no ``type``; these keys are its alone.
BLOCK_MARKERS = frozenset({"toolUse", "toolResult", "reasoningContent", "cachePoint", "guardContent"})
BODY_MARKERS = ("modelId", "inferenceConfig", "toolConfig")


def result_text(content: Any) -> str:
    if not isinstance(content, list):
        return as_text(content)
    parts = []
    for b in content:
        if isinstance(b, Mapping):
            if isinstance(b.get("text"), str):
                parts.append(b["text"])
            elif "json" in b:
                parts.append(as_text(b["json"]))
    return join_text(parts)


class Bedrock(BlockSpec):
    name = NAME
    merge_users = True
    merge_reason = "Bedrock requires user and assistant messages to alternate"

    def classify(self, block: Any) -> tuple[str, Any]:
        if not isinstance(block, Mapping):
            return "other", None
        if isinstance(block.get("text"), str):
            return "text", block["text"]
        use = block.get("toolUse")
        if isinstance(use, Mapping) and use.get("type") != "server_tool_use":
            return "call", {"tool_call_id": use.get("toolUseId"), "name": use.get("name"),
                            "arguments": use.get("input")}
        res = block.get("toolResult")
        if isinstance(res, Mapping):
            return "result", (res.get("toolUseId"), result_text(res.get("content")))
        return "other", None

    def system_text(self, value: Any) -> str:
        return result_text(value)

    def reasoning_of(self, block: Any) -> tuple[str, bool, bool, str] | None:
        content = block.get("reasoningContent") if isinstance(block, Mapping) else None
        if not isinstance(content, Mapping):
            return None
        if "redactedContent" in content:
            return "reasoningContent", True, True, ""
        text = content.get("reasoningText")
        text = text if isinstance(text, Mapping) else {}
        sig = text.get("signature")
        return ("reasoningContent", isinstance(sig, str) and bool(sig), False,
                text.get("text") if isinstance(text.get("text"), str) else "")

    def text_block(self, text: str) -> Any:
        return {"text": text}

    def call_block(self, cid, call, imported):
        return {"toolUse": {"toolUseId": cid, "name": call_name(call), "input": args_object(call_args(call))}}

    def result_block(self, cid, text, synthetic, call, imported):
        res = {"toolUseId": cid, "content": [{"text": text}]}
        if synthetic:
            res["status"] = "error"
        return {"toolResult": res}

    def system_top(self, texts):
        return {"system": [{"text": t} for t in texts]} if texts else {}

    def fold_system(self, body, items):
        current = body.get("system")
        current = current if isinstance(current, list) else []
        return {"system": [*current, *(b for t in items for b in (t if isinstance(t, list) else [{"text": t}]))]}


def _reasoning_block(block: Any) -> str | None:
    return "reasoningContent" if isinstance(block, Mapping) and "reasoningContent" in block else None


def strip_reasoning(document: Any, notes: Any) -> Any:
    """``--reasoning strip``: every reasoningContent block goes."""
    return reasoning.strip_blocks(document, notes, "messages", "content", _reasoning_block)


SPEC = Bedrock()
import_ = SPEC.import_
export_same = SPEC.export_same
export_new = SPEC.export_new


# -- registration --------------------------------------------------------------------------


def evidence(document: Any) -> list[str]:
    found = []
    body = messages_body(document)
    if body is not None:
        system = body.get("system")
        if isinstance(system, list) and system and all(isinstance(b, Mapping) for b in system) \
                and not all("type" in b for b in system) and any("text" in b and "type" not in b for b in system):
            found.append('a top-level "system" list of {"text"} blocks')
        if any(k in body for k in BODY_MARKERS):
            found.append('"modelId", "inferenceConfig" or "toolConfig"')
    shape = shape_of(document, "messages")
    keys = BLOCK_MARKERS & shape.untyped_keys
    if keys:
        found.append(f'a "{sorted(keys)[0]}" block')
    elif shape.untyped_keys & {"text", "image", "document"}:
        found.append("content blocks without a type key")
    return found


FORMAT = Format(
    NAME, "Bedrock Converse messages",
    "Amazon Bedrock Converse: messages of toolUse / toolResult blocks keyed by kind",
    evidence, import_, export_same, export_new,
    describe_block=lambda block: describe_block(block, ("toolUseId",), ("text", "content", "input")),
    provider="bedrock",
    kinds=blocks.EMITS + base.EMITS + reasoning.EMITS,
    strip_reasoning=strip_reasoning,
    pairing=identity.ADJACENT,
)

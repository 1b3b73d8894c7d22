"""Rules the OpenAI-compatible servers add to ``openai-chat``'s, shared by the targets
built on it (``xai``, ``vllm``, ``groq``, ``deepseek``): each is a function of the view,
so a target lists the ones its server enforces."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from .base import Hit, View, is_map
from .openai_chat import NAME as CHAT, located, sent
from .text import call_arguments


def strict_json(text: str) -> bool:
    """RFC 8259 JSON, as a strict server reads it (no lone surrogate escapes)."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def python_json(text: str) -> bool:
    """JSON as Python's ``json.loads`` reads it (what vLLM runs on each call's arguments)."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def arguments_not_json(valid: Callable[[str], bool], error: Callable[[Any], str]) -> Callable[[View], Iterator[Hit]]:
    """A rule: each call whose ``arguments`` string does not parse with ``valid``. Arguments
    held as an object are written as JSON, so only strings are read."""
    def rule(view: View) -> Iterator[Hit]:
        for i, m in view.rows:
            if m["role"] != "assistant":
                continue
            for j, cid, args in call_arguments(m):
                if isinstance(args, str) and not valid(args):
                    yield Hit(i, error(cid), cid if isinstance(cid, str) else None, call=j)
    return rule


def assistant_messages(view: View) -> Iterator[tuple[int, Any, tuple[int, str]]]:
    """(position, message, (row, location)) of each assistant message sent, read natively."""
    for position, message in enumerate(sent(view)):
        if is_map(message) and message.get("role") == "assistant":
            found = located(view, message)
            if found is not None:
                yield position, message, found


__all__ = ["CHAT", "arguments_not_json", "assistant_messages", "python_json", "strict_json"]

"""New entries for the playground's insert (``a``), written in the open document's own format.

A template is a small flat history that MEM-5 leaves as it is (a question, a call and its
answer). It goes through the pipeline's own steps (read as flat, repaired, exported to the
open format), and the entry wanted is taken from the written history by position, so every
format spells its entries with its own exporter, never with a table kept here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import pipeline

TEMPLATES: dict[str, str] = {
    "user": "user text",
    "call": "assistant with a tool call",
    "result": "tool result answering the selected call",
    "system": "system message",
    "broken": "a broken entry (no role: clause 1 drops it)",
}
QUESTION = "What is the weather in Lyon?"
SYSTEM_TEXT = "Answer in one sentence."
NO_TEMPLATES = frozenset({"gemini-cli"})  # its saved sessions and the checkpoints its exporter writes differ in shape
LINE_FORMATS = frozenset({"codex-rollout"})  # session files whose exporter writes a line per entry with no chain


def _flat(name: str, call_id: str, tool: str, args: str) -> tuple[list[dict[str, Any]], int]:
    """The flat history a template is cut from, and the position of the wanted entry."""
    question = {"role": "user", "content": QUESTION}
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": tool, "arguments": args}}]}
    answer = {"role": "tool", "tool_call_id": call_id, "content": "18°C, clear"}
    if name == "call":
        return [question, call, answer], 1
    if name == "result":
        return [question, call, answer], 2
    return [question], 0


def template(name: str, fmt: str, call_id: str = "call_new_1", tool: str = "get_weather",
             args: str = '{"city": "Lyon"}') -> Any:
    """One native entry of format ``fmt`` (``result`` answers ``call_id``, named ``tool``)."""
    if name == "broken":
        return {"content": "an entry with no role"}
    if name == "system":
        if fmt in ("flat", "openai-chat", "openai-responses", "codex-rollout"):
            return _written([{"role": "system", "content": SYSTEM_TEXT}], 0, fmt)
        user = template("user", fmt)  # a format that keeps system text in a field: a system message in the list
        if isinstance(user, Mapping):
            return _retext({**user, "role": "system"})
    flat, at = _flat(name, call_id, tool, args)
    return _written(flat, at, fmt)


def _written(flat: list[Any], at: int, fmt: str) -> Any:
    imported = pipeline.read(flat, "<template>", "flat")
    written = pipeline.export(imported, pipeline.repair(imported), fmt)
    return pipeline.read(written.document, "<template>", fmt).history[at]


def _retext(value: Any) -> Any:
    """The question's text replaced by a system instruction, wherever the format put it."""
    if value == QUESTION:
        return SYSTEM_TEXT
    if isinstance(value, Mapping):
        return {k: _retext(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_retext(v) for v in value]
    return value


def available(fmt: str, shape: str) -> bool:
    """Whether inserting from templates is offered: JSON documents, and session files whose
    lines stand alone (a Claude Code line belongs to a chain of parent ids a new line is not in)."""
    if fmt in NO_TEMPLATES:
        return False
    return shape != "lines" or fmt in LINE_FORMATS

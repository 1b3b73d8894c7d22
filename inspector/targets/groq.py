"""Groq chat completions: OpenAI Chat's rules, and a stricter message schema: every tool
message names its ``tool_call_id``, assistant content is a string, and fields Groq does not
know (the reasoning other servers return: ``reasoning_content``, ``reasoning``) are refused
rather than ignored."""

from __future__ import annotations

from collections.abc import Iterator

from . import openai_chat
from .base import ERROR, Hit, Rule, View, extend
from .compatible import assistant_messages

NAME = "groq"
THINKING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")


def tool_call_id_missing(view: View) -> Iterator[Hit]:
    """A tool row without an id. Normalizing drops a result it cannot pair, so this is
    seen in a history checked as it is (a flat list), as a proxy that lost the field sends it."""
    for i, m in view.rows:
        cid = m.get("tool_call_id")
        if m["role"] == "tool" and (not isinstance(cid, str) or not cid):
            yield Hit(i, f"'messages.{i}' : for 'role:tool' the following must be satisfied"
                         f"[('messages.{i}.tool_call_id' : property 'tool_call_id' is missing)]")


def assistant_content_not_string(view: View) -> Iterator[Hit]:
    for position, message, (row, where) in assistant_messages(view):
        if isinstance(message.get("content"), list):
            yield Hit(row, f"'messages.{position}' : for 'role:assistant' the following must be satisfied"
                           f"[('messages.{position}.content' : value must be a string)]", where=where)


def thinking_fields(view: View) -> Iterator[Hit]:
    for position, message, (row, where) in assistant_messages(view):
        for key in THINKING_FIELDS:
            if key in message:
                yield Hit(row, f"'messages.{position}' : for 'role:assistant' the following must be satisfied"
                               f"[('messages.{position}' : property '{key}' is unsupported)]", where=where)
                break


TARGET = extend(openai_chat.TARGET, NAME, [
    Rule("tool-call-id-missing", tool_call_id_missing, ERROR, "https://github.com/hackclub/ai/issues/22",
         "a tool message without tool_call_id",
         "Give the result the id of the call it answers, or remove it (normalizing drops results it cannot pair)."),
    Rule("assistant-content-not-string", assistant_content_not_string, ERROR,
         "https://github.com/tidyverse/ellmer/issues/162",
         "an assistant message whose content is a list of parts (native)",
         "Write the assistant's text parts as one string."),
    Rule("thinking-fields", thinking_fields, ERROR, "https://github.com/AstrBotDevs/AstrBot/issues/5946",
         "an assistant message carrying reasoning_content, reasoning or reasoning_details (native)",
         "Leave the reasoning fields out of requests to Groq (they are another model's thinking)."),
])

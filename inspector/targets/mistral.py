"""Mistral chat completions (OpenAI-shaped): a tool-calling turn is followed by exactly one
``tool`` message per call, ids are 9 characters of ``[a-zA-Z0-9]``, and an assistant turn
sits between tool results and the next user message."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from .base import ERROR, MOVE, RENAME, WARNING, Hit, Rule, View, calls_of, cid_of, create, result_id
from .openai_chat import blocks
from .text import surrogate_rule

NAME = "mistral"
ID_PATTERN = re.compile(r"^[a-zA-Z0-9]{9}$")


def calls_responses_mismatch(view: View) -> Iterator[Hit]:
    rows = view.rows
    position = {i: k for k, (i, _) in enumerate(rows)}
    for i, ids, _ in blocks(view):
        answered = []
        k = position[i] + 1
        while k < len(rows) and rows[k][1]["role"] == "tool":
            answered.append(result_id(rows[k][1]))
            k += 1
        if Counter(ids) != Counter(answered):
            yield Hit(i, "Not the same number of function calls and responses")


def tool_call_id_format(view: View) -> Iterator[Hit]:
    for i, m in view.rows:
        if m["role"] != "assistant":
            continue
        for j, cid in enumerate(map(cid_of, calls_of(m))):
            if cid is not None and not ID_PATTERN.match(cid := view.sent_id(cid)):
                yield Hit(i, f"Tool call id was {cid} but must be a-z, A-Z, 0-9, with a length of 9.", cid, call=j)


def user_after_tool(view: View) -> Iterator[Hit]:
    for (_, a), (i, b) in zip(view.rows, view.rows[1:]):
        if a["role"] == "tool" and b["role"] == "user":
            yield Hit(i, "Unexpected role 'user' after role 'tool'")


def tool_after_user(view: View) -> Iterator[Hit]:
    for (_, a), (i, b) in zip(view.rows, view.rows[1:]):
        if a["role"] == "user" and b["role"] == "tool":
            yield Hit(i, "Unexpected role 'tool' after role 'user'", result_id(b))


def empty_assistant(view: View) -> Iterator[Hit]:
    for i, m in view.rows:
        content = m.get("content")
        if m["role"] == "assistant" and not calls_of(m) and (content is None or content == "" or content == []):
            yield Hit(i, "Assistant message must have either content or tool_calls, but not none")


TARGET = create(NAME, [
    Rule("calls-responses-mismatch", calls_responses_mismatch, ERROR,
         "https://github.com/NousResearch/hermes-agent/pull/11722",
         "a tool-calling turn not followed by exactly one tool message per call", MOVE, strict=True),
    Rule("tool-call-id-format", tool_call_id_format, ERROR, "https://github.com/anomalyco/opencode/issues/1680",
         "a call id that is not 9 characters of a-z, A-Z, 0-9", RENAME),
    Rule("user-after-tool", user_after_tool, ERROR, "https://github.com/datapizza-labs/datapizza-ai/issues/98",
         "a user message right after a tool message",
         "Put the assistant's reply to the tool results between them; if it is lost, the history needs an "
         "assistant turn there."),
    Rule("tool-after-user", tool_after_user, ERROR, "https://github.com/charmbracelet/crush/issues/279",
         "a tool message right after a user message", MOVE, strict=True),
    Rule("empty-assistant", empty_assistant, ERROR, "https://github.com/solbrowse/extension/issues/16",
         "an assistant message with neither content nor tool_calls",
         "Remove the empty assistant message, or give it the text it lost."),
    surrogate_rule(WARNING, "https://docs.mistral.ai/api/"),
])

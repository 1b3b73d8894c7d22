"""Anthropic Messages: each assistant turn's ``tool_use`` ids are answered by ``tool_result``
blocks first thing in the next user message, and nothing but more ``tool_use`` follows the
first ``tool_use`` of an assistant message. Consecutive messages of one role are combined
into one turn, so calls of two assistant messages in a row answered together are valid."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import ERROR, MOVE, RENAME, WARNING, Hit, Rule, View, create, is_map, stray_results, unanswered

NAME = "anthropic"
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")

MESSAGES = "https://docs.anthropic.com/en/api/messages"


def tool_use_without_result(view: View) -> Iterator[Hit]:
    for t, missing in unanswered(view.turns(combine_assistant=True), leading=True):
        i, j, c = missing[0]
        yield Hit(i, f"messages.{t}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                     f"{', '.join(c for _, _, c in missing)}. Each `tool_use` block must have a corresponding "
                     "`tool_result` block in the next message.", c, call=j)


def result_without_tool_use(view: View) -> Iterator[Hit]:
    for t, k, i, cid in stray_results(view.turns(combine_assistant=True)):
        yield Hit(i, f"messages.{t}.content.{k}: unexpected `tool_use_id` found in `tool_result` blocks: "
                     f"{cid}. Each `tool_result` block must have a corresponding `tool_use` block in the "
                     "previous message.", cid)


def tool_use_id_pattern(view: View) -> Iterator[Hit]:
    for t, turn in enumerate(view.turns(combine_assistant=True)):
        if turn.side == "assistant":
            for k, (i, j, cid) in enumerate(turn.call_ids()):
                if not ID_PATTERN.match(cid):
                    yield Hit(i, f"messages.{t}.content.{k}.tool_use.id: String should match pattern "
                                 "'^[a-zA-Z0-9_-]+$'", cid, call=j)


def unknown_role(view: View) -> Iterator[Hit]:
    for t, turn in enumerate(view.turns(combine_assistant=True)):
        for i, m in turn.rows:
            if m["role"] not in ("user", "assistant", "tool"):
                yield Hit(i, f"messages.{t}.role: Input should be 'user' or 'assistant'")


def text_after_tool_use(view: View) -> Iterator[Hit]:
    """Native: after the first ``tool_use`` block of an assistant turn only ``tool_use``
    blocks may follow (measured: ``[tool_use, text]`` and ``[text, tool_use, text]`` are
    rejected, ``[text, tool_use]`` and ``[tool_use, tool_use]`` accepted). Consecutive
    assistant messages are one turn, so the blocks run on across them. Read in what export
    writes (dropped calls gone, ``--strict`` reordering applied), located in the input."""
    uses: list[str] = []          # tool_use ids seen so far in the current assistant turn
    reported = False
    for position, message in enumerate(view.sent(NAME) or ()):
        if not (is_map(message) and message.get("role") == "assistant"):
            uses, reported = [], False
            continue
        blocks = message.get("content")
        for block in blocks if isinstance(blocks, list) and not reported else ():
            kind = block.get("type") if is_map(block) else None
            if kind == "tool_use":
                uses.append(str(block.get("id")))
            elif uses:
                found = view.locate(block, "content")
                if found is not None:
                    yield Hit(found[0], f"messages.{position}: `tool_use` ids were found without `tool_result` "
                                        f"blocks immediately after: {', '.join(uses)}. Each `tool_use` block must "
                                        "have a corresponding `tool_result` block in the next message.", uses[0],
                              where=found[1])
                reported = True
                break
        found = view.locate(message, "content") if isinstance(blocks, str) and blocks.strip() else None
        if found is not None and uses and not reported:     # a text message after the turn's tool_use
            yield Hit(found[0], f"messages.{position}: `tool_use` ids were found without `tool_result` blocks "
                                f"immediately after: {', '.join(uses)}. Each `tool_use` block must have a "
                                "corresponding `tool_result` block in the next message.", uses[0], where=found[1])
            reported = True


TARGET = create(NAME, [
    Rule("tool-use-without-result", tool_use_without_result, ERROR,
         "https://github.com/anthropics/claude-code/issues/1237",
         "tool_use ids of an assistant turn not answered first thing in the very next user message",
         MOVE, strict=True),
    Rule("result-without-tool-use", result_without_tool_use, ERROR,
         "https://github.com/anthropics/claude-code/issues/18947",
         "a tool_result whose tool_use is not in the previous assistant turn",
         MOVE, strict=True),
    Rule("tool-use-id-pattern", tool_use_id_pattern, ERROR, "https://github.com/CommandCodeAI/command-code/issues/323",
         "a tool_use id outside [a-zA-Z0-9_-]", RENAME),
    Rule("text-after-tool-use", text_after_tool_use, ERROR, "https://github.com/stacklok/mecatl/issues/1465",
         "a block other than tool_use after the first tool_use of an assistant turn (native)",
         "Put the message's text and other blocks before its first tool_use; Inspector's export never writes "
         "this shape."),
    Rule("unknown-role", unknown_role, WARNING, MESSAGES, "a role other than user and assistant",
         "Use role user or assistant (a system prompt goes in the top-level system field)."),
])

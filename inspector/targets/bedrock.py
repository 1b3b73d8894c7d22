"""Amazon Bedrock Converse: roles alternate, each assistant turn's ``toolUse`` ids are
answered by ``toolResult`` blocks in the next message, and no more results than calls.
Starting with an assistant message and ``toolUseId`` format are documented but accepted by
some models (Claude on Converse; ids a non-Anthropic model issued itself): warnings."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import (ERROR, MOVE, RENAME, WARNING, Hit, Rule, View, create, is_map,
                   signed_rule, stray_results, unanswered)
from .text import surrogate_rule

NAME = "bedrock"
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_.:-]+$")     # as the ToolUseBlock reference lists it today
ID_MAX = 64

CONVERSE = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html"
TOOL_USE = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html"
MESSAGE = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html"


def first_not_user(view: View) -> Iterator[Hit]:
    turns = view.turns(combine_assistant=False)
    if turns and turns[0].side != "user":
        yield Hit(turns[0].index, "A conversation must start with a user message. Try again with a conversation "
                                  "that starts with a user message.")


def not_alternating(view: View) -> Iterator[Hit]:
    turns = view.turns(combine_assistant=False)
    for prev, turn in zip(turns, turns[1:]):
        if turn.side == "assistant" and prev.side == "assistant":
            yield Hit(turn.index, "A conversation must alternate between user and assistant roles. Make sure the "
                                  "conversation alternates between user and assistant roles and try again.")


def tool_use_without_result(view: View) -> Iterator[Hit]:
    for t, missing in unanswered(view.turns(combine_assistant=False), leading=False):
        i, j, c = missing[0]
        yield Hit(i, f"Expected toolResult blocks at messages.{t + 1}.content for the following Ids: "
                     f"{', '.join(c for _, _, c in missing)}", c, call=j)


def too_many_results(view: View) -> Iterator[Hit]:
    seen: set[int] = set()
    for t, _, i, cid in stray_results(view.turns(combine_assistant=False)):
        if t not in seen:                    # the provider names the turn once
            seen.add(t)
            yield Hit(i, f"The number of toolResult blocks at messages.{t}.content exceeds the number of toolUse "
                         "blocks of previous turn.", cid)


def tool_use_id(view: View) -> Iterator[Hit]:
    for t, turn in enumerate(view.turns(combine_assistant=False)):
        if turn.side != "assistant":
            continue
        for k, (i, j, cid) in enumerate(turn.call_ids()):
            cid = view.sent_id(cid)
            if len(cid) > ID_MAX:
                what = f"Member must have length less than or equal to {ID_MAX}"
            elif not ID_PATTERN.match(cid):
                what = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+"
            else:
                continue
            yield Hit(i, f"1 validation error detected: Value '{cid}' at 'messages.{t + 1}.member.content.{k + 1}"
                         f".member.toolUse.toolUseId' failed to satisfy constraint: {what}", cid, call=j)


def unknown_role(view: View) -> Iterator[Hit]:
    for t, turn in enumerate(view.turns(combine_assistant=False)):
        for i, m in turn.rows:
            if m["role"] not in ("user", "assistant", "tool"):
                yield Hit(i, f"1 validation error detected: Value '{m['role']}' at 'messages.{t + 1}.member.role' "
                             "failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]")


def blank_text(view: View) -> Iterator[Hit]:
    """Native: a text block whose text is empty. Whitespace-only text is accepted (measured:
    a recorded body with a ``"\\n"`` text block got an answer), so it is not reported."""
    for position, message in enumerate(view.sent(NAME) or ()):
        content = message.get("content") if is_map(message) else None
        for k, block in enumerate(content if isinstance(content, list) else ()):
            text = block.get("text") if is_map(block) else None
            if text == "":
                found = view.locate(block, "content")
                if found is not None:
                    yield Hit(found[0], f"The text field in the ContentBlock object at messages.{position}.content.{k} "
                                        "is blank. Add text to the text field, and try again.", where=found[1])


TARGET = create(NAME, [
    Rule("first-not-user", first_not_user, WARNING, CONVERSE, "a conversation that does not start with a user message",
         "Start the history with the user message that began it (it may have been trimmed)."),
    Rule("not-alternating", not_alternating, ERROR, "https://github.com/langgenius/dify/issues/9294",
         "two assistant turns in a row",
         "Merge the two assistant turns or put the user message between them back."),
    Rule("tool-use-without-result", tool_use_without_result, ERROR,
         "https://github.com/zeroclaw-labs/zeroclaw/pull/1476",
         "toolUse ids without toolResult blocks in the next message", MOVE, strict=True),
    Rule("too-many-results", too_many_results, ERROR, "https://github.com/Just-Curieous/Curie/issues/16",
         "toolResult blocks answering no toolUse of the previous turn", MOVE, strict=True),
    Rule("tool-use-id", tool_use_id, WARNING, TOOL_USE,
         f"a toolUseId outside [a-zA-Z0-9_.:-] or longer than {ID_MAX} characters", RENAME),
    Rule("unknown-role", unknown_role, WARNING, MESSAGE, "a role other than user and assistant",
         "Use role user or assistant (a system prompt goes in the top-level system field)."),
    Rule("blank-text", blank_text, ERROR, "https://github.com/aws-samples/bedrock-engineer/issues/8",
         "an empty text block (native)",
         "Remove the blank text block (it carries nothing the model can read)."),
    surrogate_rule(WARNING, CONVERSE),
    signed_rule(NAME, "https://github.com/router-for-me/CLIProxyAPI/pull/5422"),
])

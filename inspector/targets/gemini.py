"""Gemini ``generateContent``: a function call turn comes right after a user turn or a
function response turn, and the response turn after it holds one response per call.
Consecutive contents of one role are read as one turn, so calls of two model contents in a
row answered in one user content are valid."""

from __future__ import annotations

from collections.abc import Iterator

from .base import ERROR, MOVE, WARNING, Hit, Rule, Turn, View, create, result_id

NAME = "gemini"
CONTENT = "https://ai.google.dev/api/caching#Content"

COUNT = ("Please ensure that the number of function response parts is equal to the number of function call parts "
         "of the function call turn.")


def _results(turn: Turn) -> list[tuple[int, str]]:
    return [(i, result_id(m)) for i, m in turn.rows if m["role"] == "tool"]


def call_turn_position(view: View) -> Iterator[Hit]:
    turns = view.turns(combine_assistant=True)
    for t, turn in enumerate(turns):
        if turn.side == "assistant" and turn.call_ids() and (t == 0 or turns[t - 1].side != "user"):
            yield Hit(turn.call_ids()[0][0], "Please ensure that function call turn comes immediately after a user "
                                             "turn or after a function response turn.")


def response_turn_position(view: View) -> Iterator[Hit]:
    turns = view.turns(combine_assistant=True)
    for t, turn in enumerate(turns):
        results = _results(turn) if turn.side == "user" else []
        if results and (t == 0 or turns[t - 1].side != "assistant" or not turns[t - 1].call_ids()):
            i, cid = results[0]
            yield Hit(i, "Please ensure that function response turn comes immediately after a function call turn.",
                      cid)


def response_count(view: View) -> Iterator[Hit]:
    turns = view.turns(combine_assistant=True)
    for t, turn in enumerate(turns):
        if turn.side != "assistant" or not turn.call_ids():
            continue
        ids = [c for _, _, c in turn.call_ids()]
        nxt = turns[t + 1] if t + 1 < len(turns) else None
        if nxt is None:
            continue                         # the history ends on the call turn: nothing answered yet
        results = _results(nxt) if nxt.side == "user" else []
        wanted = set(ids)
        if len(results) != len(ids) or any(cid not in wanted for _, cid in results):
            yield Hit(results[0][0] if results else nxt.index, COUNT)


def unknown_role(view: View) -> Iterator[Hit]:
    for i, m in view.rows:
        if m["role"] not in ("system", "user", "assistant", "tool"):
            yield Hit(i, "Please use a valid role: user, model.")


TARGET = create(NAME, [
    Rule("call-turn-position", call_turn_position, ERROR, "https://github.com/google-gemini/gemini-cli/issues/11814",
         "a function call turn not right after a user turn or a function response turn",
         "Put the user message that prompted this turn back before it, or merge it into the model turn before it."),
    Rule("response-turn-position", response_turn_position, ERROR,
         "https://github.com/langchain-ai/langchain/issues/27799",
         "a function response turn not right after a function call turn", MOVE, strict=True),
    Rule("response-count", response_count, ERROR, "https://github.com/google-gemini/gemini-cli/issues/4217",
         "a different number of function responses than function calls in that turn", MOVE, strict=True),
    Rule("unknown-role", unknown_role, WARNING, CONTENT, "a role other than user and model",
         "Use role user or model (a system prompt goes in systemInstruction)."),
])

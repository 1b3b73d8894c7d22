"""Gemini ``generateContent``: a function call turn comes right after a user turn or a
function response turn, and the response turn after it holds one response per call.
Consecutive contents of one role are read as one turn, so calls of two model contents in a
row answered in one user content are valid."""

from __future__ import annotations

from collections.abc import Iterator

import re

from .base import ERROR, MOVE, WARNING, Hit, Rule, Turn, View, create, is_map, result_id, signed_rule
from .text import surrogate_rule

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


SIGNATURES = "https://ai.google.dev/gemini-api/docs/thought-signatures"
GEMINI_3 = re.compile(r"gemini-([3-9]|\d\d)")


def gemini_3(view: View) -> bool | None:
    """Whether the request's model is Gemini 3 or later; None when the body does not say
    (``generateContent`` names the model in the URL)."""
    model = view.setting(NAME, "model")
    if not isinstance(model, str) or not model:
        return None
    return GEMINI_3.search(model.lower()) is not None


def _current_turn(contents: list) -> int:
    """Where the current turn starts: after the last user content that is not only
    function responses (Gemini validates signatures in the current turn only)."""
    start = 0
    for k, content in enumerate(contents):
        parts = content.get("parts") if is_map(content) else None
        if is_map(content) and content.get("role", "user") == "user" and isinstance(parts, list) and \
                any(is_map(p) and "functionResponse" not in p for p in parts):
            start = k + 1
    return start


def _unsigned_calls(view: View) -> Iterator[Hit]:
    contents = view.sent(NAME) or []
    for position in range(_current_turn(contents), len(contents)):
        content = contents[position]
        parts = content.get("parts") if is_map(content) and content.get("role") == "model" else None
        calls = [(k, p) for k, p in enumerate(parts if isinstance(parts, list) else ())
                 if is_map(p) and "functionCall" in p]
        if not calls:
            continue
        k, first = calls[0]
        if first.get("thoughtSignature") or first.get("thought_signature"):
            continue
        found = view.locate(first, "parts") or view.locate(content, "parts")
        name = first["functionCall"].get("name") if is_map(first["functionCall"]) else None
        if found is not None:
            yield Hit(found[0], "Function call is missing a thought_signature in functionCall parts. This is "
                                "required for tools to work correctly, and missing thought_signature may lead to "
                                f"degraded model performance. Additional data, function call `default_api:{name}`, "
                                f"position {k + 1}.", where=found[1])


def thought_signature(view: View) -> Iterator[Hit]:
    """Native, Gemini 3 named in the body: the first functionCall part of each model content
    in the current turn carries its thoughtSignature."""
    if gemini_3(view):
        yield from _unsigned_calls(view)


def thought_signature_unknown_model(view: View) -> Iterator[Hit]:
    """The same where the body names no model but its history holds signatures (the model
    signs its calls): a warning, since Gemini 2.5 signs too and does not require them."""
    if gemini_3(view) is None and view.document(NAME) is not None and _signs(view):
        yield from _unsigned_calls(view)


def _signs(view: View) -> bool:
    for content in view.sent(NAME) or ():
        parts = content.get("parts") if is_map(content) else None
        if any(is_map(p) and (p.get("thoughtSignature") or p.get("thought_signature"))
               for p in (parts if isinstance(parts, list) else ())):
            return True
    return False


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
    Rule("thought-signature", thought_signature, ERROR,
         "https://github.com/NoeFabris/opencode-antigravity-auth/issues/368",
         "Gemini 3: the first functionCall part of a model turn in the current turn has no thoughtSignature (native)",
         "Send the model's parts back exactly as it returned them, thoughtSignature included."),
    Rule("thought-signature-unknown-model", thought_signature_unknown_model, WARNING, SIGNATURES,
         "the same, where the body names no model but its history holds signatures (Gemini 3 rejects it, earlier "
         "models do not; native)",
         "Send the model's parts back exactly as it returned them, thoughtSignature included."),
    surrogate_rule(WARNING, CONTENT),
    signed_rule(NAME, SIGNATURES),
])

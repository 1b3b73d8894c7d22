"""What a provider would still reject after normalization: ``inspector check --target``.

MEM-5 (https://flowdrop.io/spec/rules/gr-mem/mem-5) matches ids as sets, so its output is
orphan-free but not always accepted (``semantics.md``, "Known limits of the literal rule"),
and every provider adds rules of its own. :func:`check_target` is pure: given flat messages
(normally the engine's output) it lists every problem with the flat index, the provider's
own error text, and what to do. ``strict`` says whether ``--strict`` repairs it.

Provider messages are counted the way Inspector exports them: system rows go to the
top-level system field (Anthropic, Bedrock, Gemini); consecutive user and tool rows form one
user turn (Anthropic and Bedrock combine them; Gemini's function responses share a
content); each assistant row is one turn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cast import call_id

TARGETS = ("openai-chat", "openai-responses", "anthropic", "bedrock", "gemini", "mistral")

MOVE = "Move each result directly after the turn that made its call (--strict does this)."
EARLY = ("A result placed before its call answers nothing the provider can see: drop it and give the call "
         "an interrupted result (--strict does this).")
RENAME = "Rename the id consistently in the call and its result; Inspector does not rewrite ids."


@dataclass(frozen=True, slots=True)
class Problem:
    target: str
    rule: str
    index: int              # index of the offending message in the checked (flat) list
    error: str              # the provider's own error text for this case
    fix: str
    strict: bool            # True when --strict repairs it
    tool_call_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "rule": self.rule, "index": self.index, "error": self.error,
                "fix": self.fix, "strict": self.strict, "tool_call_id": self.tool_call_id}


# Every rule checked, per target: the README and ``check --target`` list them from here.
RULES: dict[str, dict[str, str]] = {
    "openai-chat": {
        "empty-tool-calls": "an assistant message with an empty tool_calls array",
        "duplicate-tool-call-id": "one tool_call_id declared or answered twice",
        "tool-calls-unanswered": "a call not answered by the tool messages right after its turn",
        "tool-without-calls": "a tool message not in the block right after a turn with tool_calls",
        "tool-call-id-not-found": "a tool message in that block answering a call of another turn",
        "unknown-role": "a role Chat Completions does not accept",
    },
    "openai-responses": {
        "output-without-call": "a function_call_output with no function_call before it",
        "call-without-output": "a function_call with no function_call_output after it",
        "unknown-role": "a message role Responses does not accept",
    },
    "anthropic": {
        "tool-use-without-result": "tool_use ids not answered first thing in the very next user message",
        "result-without-tool-use": "a tool_result whose tool_use is not in the previous assistant message",
        "tool-use-id-pattern": "a tool_use id outside [a-zA-Z0-9_-]",
        "unknown-role": "a role other than user and assistant",
    },
    "bedrock": {
        "first-not-user": "a conversation that does not start with a user message",
        "not-alternating": "two assistant turns in a row",
        "tool-use-without-result": "toolUse ids without toolResult blocks in the next message",
        "too-many-results": "toolResult blocks answering no toolUse of the previous turn",
        "tool-use-id": "a toolUseId outside [a-zA-Z0-9_-] or longer than 64 characters",
        "unknown-role": "a role other than user and assistant",
    },
    "gemini": {
        "call-turn-position": "a function call turn not right after a user turn or a function response turn",
        "response-turn-position": "a function response turn not right after a function call turn",
        "response-count": "a different number of function responses than function calls in that turn",
        "unknown-role": "a role other than user and model",
    },
    "mistral": {
        "calls-responses-mismatch": "a tool-calling turn not followed by exactly one tool message per call",
        "tool-call-id-format": "a call id that is not 9 characters of a-z, A-Z, 0-9",
        "user-after-tool": "a user message right after a tool message",
        "tool-after-user": "a tool message right after a user message",
    },
}

NOT_CHECKED: dict[str, str] = {
    "anthropic: text after tool_use in one assistant turn":
        "the flat shape joins a turn's text and keeps no block order, so it cannot be seen after import; "
        "Inspector's export never adds text after a turn's tool_use blocks",
    "all targets: tool schemas, content size and token limits":
        "they depend on the request's tools and model, not on the history",
    "mistral: a history ending with an assistant message":
        "legal to store; only a request for a new completion must end with a user or tool message",
}


def _calls(m: Mapping) -> list[Any]:
    calls = m.get("tool_calls")
    return calls if isinstance(calls, list) else []


def _cid(call: Any) -> str | None:
    return call_id(call) if isinstance(call, Mapping) else None


def _rows(messages: list[Any]) -> list[tuple[int, Mapping]]:
    return [(i, m) for i, m in enumerate(messages) if isinstance(m, Mapping) and isinstance(m.get("role"), str)]


def check_target(messages: list[Any], target: str) -> list[Problem]:
    """Every problem ``target`` would reject in ``messages`` (flat rows), in order."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
    return _CHECKS[target](target, _rows(messages))


# -- OpenAI Chat Completions (and the OpenAI-compatible part of Mistral) ---------------------

def _openai_chat(target: str, rows: list[tuple[int, Mapping]]) -> list[Problem]:
    out: list[Problem] = []
    seen_call: dict[str, int] = {}
    seen_result: dict[str, int] = {}
    owner: tuple[int, set[str]] | None = None     # the turn whose result block we are in
    for i, m in rows:
        role = m["role"]
        if role not in ("system", "developer", "user", "assistant", "tool", "function"):
            out.append(Problem(target, "unknown-role", i,
                               f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', "
                               "'function', 'tool', and 'developer'.",
                               "Give the message one of the supported roles, or remove it.", False))
        if role == "tool":
            cid = m.get("tool_call_id")
            cid = cid if isinstance(cid, str) else str(cid)
            if cid in seen_result:
                out.append(Problem(target, "duplicate-tool-call-id", i,
                                   f"Invalid parameter: Duplicate value for 'tool_call_id' of '{cid}', in "
                                   f"messages[{seen_result[cid]}] and messages[{i}].",
                                   "Keep one result per call: normalizing (MEM-5 clause 3) keeps the first.",
                                   False, cid))
            seen_result.setdefault(cid, i)
            if owner is None:
                out.append(Problem(target, "tool-without-calls", i,
                                   "Invalid parameter: messages with role 'tool' must be a response to a "
                                   "preceeding message with 'tool_calls'.",
                                   MOVE if cid in seen_call else EARLY, True, cid))
            elif cid not in owner[1]:
                out.append(Problem(target, "tool-call-id-not-found", i,
                                   f"Invalid parameter: 'tool_call_id' of '{cid}' not found in 'tool_calls' of "
                                   "previous message.", MOVE, True, cid))
            continue
        owner = None
        if role == "assistant" and "tool_calls" in m:
            calls = _calls(m)
            if not calls:
                out.append(Problem(target, "empty-tool-calls", i,
                                   f"Invalid 'messages[{i}].tool_calls': empty array. Expected an array with "
                                   "minimum length 1, but got an empty array instead.",
                                   "Remove the empty tool_calls key (normalizing does).", False))
                continue
            ids = set()
            for call in calls:
                cid = _cid(call)
                if cid is None:
                    continue
                if cid in seen_call:
                    out.append(Problem(target, "duplicate-tool-call-id", i,
                                       f"Invalid parameter: Duplicate value for 'tool_call_id' of '{cid}', in "
                                       f"messages[{seen_call[cid]}] and messages[{i}].",
                                       "Normalize: MEM-5 clause 3 drops the later declaration.", False, cid))
                seen_call.setdefault(cid, i)
                ids.add(cid)
            owner = (i, ids)
    # A turn's calls must all be answered in the block of tool messages right after it.
    out.extend(_unanswered_openai(target, rows))
    return sorted(out, key=lambda p: p.index)


def _blocks(rows: list[tuple[int, Mapping]]):
    """(assistant index, its call ids in order, ids answered in the tool block right after it)."""
    for k, (i, m) in enumerate(rows):
        if m["role"] != "assistant" or not _calls(m):
            continue
        answered = []
        j = k + 1
        while j < len(rows) and rows[j][1]["role"] == "tool":
            answered.append(str(rows[j][1].get("tool_call_id")))
            j += 1
        yield i, [c for c in map(_cid, _calls(m)) if c is not None], answered


def _unanswered_openai(target: str, rows) -> list[Problem]:
    out = []
    for i, ids, answered in _blocks(rows):
        missing = [c for c in ids if c not in answered]
        if missing:
            out.append(Problem(target, "tool-calls-unanswered", i,
                               "An assistant message with 'tool_calls' must be followed by tool messages responding "
                               "to each 'tool_call_id'. The following tool_call_ids did not have response "
                               f"messages: {', '.join(missing)}", MOVE, True, missing[0]))
    return out


# -- OpenAI Responses -------------------------------------------------------------------------

def _responses(target: str, rows) -> list[Problem]:
    out = []
    declared_at: dict[str, int] = {}
    for i, m in rows:
        for call in _calls(m) if m["role"] == "assistant" else ():
            cid = _cid(call)
            if cid is not None:
                declared_at.setdefault(cid, i)
    answered_at: dict[str, int] = {}
    for i, m in rows:
        role = m["role"]
        if role == "tool":
            cid = str(m.get("tool_call_id"))
            if declared_at.get(cid, i + 1) > i:
                out.append(Problem(target, "output-without-call", i,
                                   f"No tool call found for function call output with call_id {cid}.",
                                   EARLY if cid in declared_at else "Remove the output (normalizing drops orphans).",
                                   cid in declared_at, cid))
            else:
                answered_at.setdefault(cid, i)
        elif role not in ("user", "assistant", "system", "developer") and "_" not in role and role != "item":
            out.append(Problem(target, "unknown-role", i,
                               f"Invalid value: '{role}'. Supported values are: 'assistant', 'system', "
                               "'developer', and 'user'.", "Give the message a supported role, or remove it.", False))
    for cid, i in declared_at.items():
        if cid not in answered_at:
            out.append(Problem(target, "call-without-output", i, f"No tool output found for function call {cid}.",
                               "Add a function_call_output after the call (normalizing or --strict does).", True, cid))
    return sorted(out, key=lambda p: p.index)


# -- Turn-based targets: Anthropic, Bedrock, Gemini --------------------------------------------

@dataclass(slots=True)
class _Turn:
    side: str                       # "assistant" or "user"
    rows: list[tuple[int, Mapping]]

    @property
    def index(self) -> int:
        return self.rows[0][0]


def _turns(rows) -> list[_Turn]:
    turns: list[_Turn] = []
    for i, m in rows:
        if m["role"] == "system":
            continue
        side = "assistant" if m["role"] == "assistant" else "user"
        if side == "user" and turns and turns[-1].side == "user":
            turns[-1].rows.append((i, m))
        else:
            turns.append(_Turn(side, [(i, m)]))
    return turns


def _leading_results(turn: _Turn) -> list[str]:
    ids = []
    for _, m in turn.rows:
        if m["role"] != "tool":
            break
        ids.append(str(m.get("tool_call_id")))
    return ids


def _anthropic(target: str, rows) -> list[Problem]:
    out = []
    turns = _turns(rows)
    pattern = re.compile(r"^[a-zA-Z0-9_-]+$")
    for t, turn in enumerate(turns):
        for i, m in turn.rows:
            if m["role"] not in ("user", "assistant", "tool"):
                out.append(Problem(target, "unknown-role", i, f"messages.{t}.role: Input should be 'user' or 'assistant'",
                                   "Use role user or assistant (a system prompt goes in the top-level system field).",
                                   False))
        if turn.side == "assistant":
            (i, m), = turn.rows
            ids = [c for c in map(_cid, _calls(m)) if c is not None]
            for k, cid in enumerate(ids):
                if not pattern.match(cid):
                    out.append(Problem(target, "tool-use-id-pattern", i,
                                       f"messages.{t}.content.{k}.tool_use.id: String should match pattern "
                                       "'^[a-zA-Z0-9_-]+$'", RENAME, False, cid))
            nxt = turns[t + 1] if t + 1 < len(turns) else None
            first = _leading_results(nxt) if nxt and nxt.side == "user" else []
            missing = [c for c in ids if c not in first]
            if missing:
                out.append(Problem(target, "tool-use-without-result", i,
                                   f"messages.{t}: `tool_use` ids were found without `tool_result` blocks immediately "
                                   f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
                                   "`tool_result` block in the next message.", MOVE, True, missing[0]))
        else:
            prev = turns[t - 1] if t > 0 else None
            allowed = {c for c in map(_cid, _calls(prev.rows[0][1]))} if prev and prev.side == "assistant" else set()
            for k, (i, m) in enumerate(turn.rows):
                if m["role"] == "tool" and str(m.get("tool_call_id")) not in allowed:
                    cid = str(m.get("tool_call_id"))
                    out.append(Problem(target, "result-without-tool-use", i,
                                       f"messages.{t}.content.{k}: unexpected `tool_use_id` found in `tool_result` "
                                       f"blocks: {cid}. Each `tool_result` block must have a corresponding "
                                       "`tool_use` block in the previous message.", MOVE, True, cid))
    return sorted(out, key=lambda p: p.index)


def _bedrock(target: str, rows) -> list[Problem]:
    out = []
    turns = _turns(rows)
    pattern = re.compile(r"^[a-zA-Z0-9_-]+$")
    if turns and turns[0].side != "user":
        out.append(Problem(target, "first-not-user", turns[0].index,
                           "A conversation must start with a user message. Try again with a conversation that "
                           "starts with a user message.",
                           "Start the history with the user message that began it (it may have been trimmed).", False))
    for t, turn in enumerate(turns):
        for i, m in turn.rows:
            if m["role"] not in ("user", "assistant", "tool"):
                out.append(Problem(target, "unknown-role", i,
                                   f"1 validation error detected: Value '{m['role']}' at 'messages.{t + 1}.member.role' "
                                   "failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]",
                                   "Use role user or assistant (a system prompt goes in the top-level system field).",
                                   False))
        if turn.side == "assistant":
            (i, m), = turn.rows
            if t > 0 and turns[t - 1].side == "assistant":
                out.append(Problem(target, "not-alternating", i,
                                   "A conversation must alternate between user and assistant roles. Make sure the "
                                   "conversation alternates between user and assistant roles and try again.",
                                   "Merge the two assistant turns or put the user message between them back.", False))
            ids = [c for c in map(_cid, _calls(m)) if c is not None]
            for k, cid in enumerate(ids):
                if not pattern.match(cid) or len(cid) > 64:
                    what = ("Member must have length less than or equal to 64" if len(cid) > 64 else
                            "Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+")
                    out.append(Problem(target, "tool-use-id", i,
                                       f"1 validation error detected: Value '{cid}' at 'messages.{t + 1}.member.content."
                                       f"{k + 1}.member.toolUse.toolUseId' failed to satisfy constraint: {what}",
                                       RENAME, False, cid))
            nxt = turns[t + 1] if t + 1 < len(turns) else None
            got = {str(m2.get("tool_call_id")) for _, m2 in nxt.rows if m2["role"] == "tool"} if nxt and nxt.side == "user" else set()
            missing = [c for c in ids if c not in got]
            if missing:
                out.append(Problem(target, "tool-use-without-result", i,
                                   f"Expected toolResult blocks at messages.{t + 1}.content for the following Ids: "
                                   f"{', '.join(missing)}", MOVE, True, missing[0]))
        else:
            prev = turns[t - 1] if t > 0 else None
            allowed = {c for c in map(_cid, _calls(prev.rows[0][1]))} if prev and prev.side == "assistant" else set()
            extra = [(i, m) for i, m in turn.rows if m["role"] == "tool" and str(m.get("tool_call_id")) not in allowed]
            if extra:
                i, m = extra[0]
                out.append(Problem(target, "too-many-results", i,
                                   f"The number of toolResult blocks at messages.{t}.content exceeds the number of "
                                   "toolUse blocks of previous turn.", MOVE, True, str(m.get("tool_call_id"))))
    return sorted(out, key=lambda p: p.index)


def _gemini(target: str, rows) -> list[Problem]:
    out = []
    turns = _turns(rows)
    for t, turn in enumerate(turns):
        for i, m in turn.rows:
            if m["role"] not in ("user", "assistant", "tool"):
                out.append(Problem(target, "unknown-role", i, "Please use a valid role: user, model.",
                                   "Use role user or model (a system prompt goes in systemInstruction).", False))
        prev = turns[t - 1] if t > 0 else None
        if turn.side == "assistant":
            (i, m), = turn.rows
            if _calls(m) and (prev is None or prev.side != "user"):
                out.append(Problem(target, "call-turn-position", i,
                                   "Please ensure that function call turn comes immediately after a user turn or "
                                   "after a function response turn.",
                                   "Put the user message that prompted this turn back before it, or merge it into "
                                   "the model turn before it.", False))
            continue
        results = [(i, m) for i, m in turn.rows if m["role"] == "tool"]
        if not results:
            continue
        calls = _calls(prev.rows[0][1]) if prev is not None and prev.side == "assistant" else []
        if not calls:
            out.append(Problem(target, "response-turn-position", results[0][0],
                               "Please ensure that function response turn comes immediately after a function call "
                               "turn.", MOVE, True, str(results[0][1].get("tool_call_id"))))
            continue
        ids = {_cid(c) for c in calls}
        if len(results) != len(calls) or any(str(m.get("tool_call_id")) not in ids for _, m in results):
            out.append(Problem(target, "response-count", results[0][0],
                               "Please ensure that the number of function response parts is equal to the number of "
                               "function call parts of the function call turn.", MOVE, True))
    for t, turn in enumerate(turns):           # calls whose response turn is missing altogether
        if turn.side == "assistant" and _calls(turn.rows[0][1]):
            nxt = turns[t + 1] if t + 1 < len(turns) else None
            if nxt is not None and nxt.side == "user" and not any(m["role"] == "tool" for _, m in nxt.rows):
                out.append(Problem(target, "response-count", nxt.index,
                                   "Please ensure that the number of function response parts is equal to the number "
                                   "of function call parts of the function call turn.", MOVE, True))
    return sorted(out, key=lambda p: p.index)


def _mistral(target: str, rows) -> list[Problem]:
    out = []
    pattern = re.compile(r"^[a-zA-Z0-9]{9}$")
    for i, ids, answered in _blocks(rows):
        if sorted(ids) != sorted(answered):
            out.append(Problem(target, "calls-responses-mismatch", i, "Not the same number of function calls and responses",
                               MOVE, True))
    for i, m in rows:
        for call in _calls(m) if m["role"] == "assistant" else ():
            cid = _cid(call)
            if cid is not None and not pattern.match(cid):
                out.append(Problem(target, "tool-call-id-format", i,
                                   f"Tool call id was {cid} but must be a-z, A-Z, 0-9, with a length of 9.",
                                   RENAME, False, cid))
    for (_, a), (i, b) in zip(rows, rows[1:]):
        if a["role"] == "tool" and b["role"] == "user":
            out.append(Problem(target, "user-after-tool", i, "Unexpected role 'user' after role 'tool'",
                               "Put the assistant's reply to the tool results between them; if it is lost, the "
                               "history needs an assistant turn there.", False))
        elif a["role"] == "user" and b["role"] == "tool":
            out.append(Problem(target, "tool-after-user", i, "Unexpected role 'tool' after role 'user'", MOVE, True,
                               str(b.get("tool_call_id"))))
    return sorted(out, key=lambda p: p.index)


_CHECKS = {"openai-chat": _openai_chat, "openai-responses": _responses, "anthropic": _anthropic,
           "bedrock": _bedrock, "gemini": _gemini, "mistral": _mistral}

"""OpenAI Chat Completions: a turn with ``tool_calls`` is answered by the block of ``tool``
messages right after it, one per call, each id once; assistant content parts are text or
refusal only."""

from __future__ import annotations

from collections.abc import Iterator

from .base import EARLY, ERROR, MOVE, RENAME, WARNING, Hit, Rule, View, calls_of, cid_of, create, is_map, result_id
from .text import surrogate_rule

NAME = "openai-chat"
ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
ASSISTANT_PARTS = frozenset({"text", "refusal"})

DOCS = "https://platform.openai.com/docs/api-reference/chat/create"
GUIDE = "https://platform.openai.com/docs/guides/function-calling"
ID_MAX = 40


def blocks(view: View) -> list[tuple[int, list[str], set[str]]]:
    """(assistant row, its call ids in order, ids answered by the tool rows right after it)."""
    def build():
        out = []
        rows = view.rows
        for k, (i, m) in enumerate(rows):
            if m["role"] != "assistant" or not calls_of(m):
                continue
            answered = set()
            j = k + 1
            while j < len(rows) and rows[j][1]["role"] == "tool":
                answered.add(result_id(rows[j][1]))
                j += 1
            out.append((i, [c for c in map(cid_of, calls_of(m)) if c is not None], answered))
        return out
    return view.memo("chat-blocks", build)


def owners(view: View) -> Iterator[tuple[int, str, set[str] | None, bool]]:
    """For each tool row: (index, id, ids of the turn whose result block it is in or None,
    whether a call with that id was declared anywhere before it)."""
    declared: set[str] = set()
    owner: set[str] | None = None
    for i, m in view.rows:
        role = m["role"]
        if role == "tool":
            cid = result_id(m)
            yield i, cid, owner, cid in declared
            continue
        owner = None
        if role == "assistant" and calls_of(m):
            owner = {c for c in map(cid_of, calls_of(m)) if c is not None}
            declared |= owner


def empty_tool_calls(view: View) -> Iterator[Hit]:
    for i, m in view.rows:
        if m["role"] == "assistant" and isinstance(m.get("tool_calls"), list) and not m["tool_calls"]:
            yield Hit(i, f"Invalid 'messages[{i}].tool_calls': empty array. Expected an array with minimum length 1, "
                         "but got an empty array instead.")


def duplicate_tool_call_id(view: View) -> Iterator[Hit]:
    seen_call: dict[str, int] = {}
    seen_result: dict[str, int] = {}
    for i, m in view.rows:
        if m["role"] == "tool":
            cid = result_id(m)
            if cid in seen_result:
                yield Hit(i, f"Invalid parameter: Duplicate value for 'tool_call_id' of '{cid}', in "
                             f"messages[{seen_result[cid]}] and messages[{i}].", cid,
                          fix="Keep one result per call: normalizing (MEM-5 clause 3) keeps the first.")
            seen_result.setdefault(cid, i)
        elif m["role"] == "assistant":
            for j, cid in enumerate(map(cid_of, calls_of(m))):
                if cid is None:
                    continue
                if cid in seen_call:
                    yield Hit(i, f"Invalid parameter: Duplicate value for 'tool_call_id' of '{cid}', in "
                                 f"messages[{seen_call[cid]}] and messages[{i}].", cid, call=j,
                              fix="Normalize: MEM-5 clause 3 drops the later declaration.")
                seen_call.setdefault(cid, i)


def tool_calls_unanswered(view: View) -> Iterator[Hit]:
    for i, ids, answered in blocks(view):
        missing = [c for c in ids if c not in answered]
        if missing:
            yield Hit(i, "An assistant message with 'tool_calls' must be followed by tool messages responding to "
                         "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                         f"{', '.join(missing)}", missing[0])


def tool_without_calls(view: View) -> Iterator[Hit]:
    for i, cid, owner, declared in owners(view):
        if owner is None:
            yield Hit(i, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                         "with 'tool_calls'.", cid, fix=MOVE if declared else EARLY)


def tool_call_id_not_found(view: View) -> Iterator[Hit]:
    for i, cid, owner, _ in owners(view):
        if owner is not None and cid not in owner:
            yield Hit(i, f"Invalid parameter: 'tool_call_id' of '{cid}' not found in 'tool_calls' of previous "
                         "message.", cid)


def unknown_role(view: View) -> Iterator[Hit]:
    for i, m in view.rows:
        if m["role"] not in ROLES:
            yield Hit(i, f"Invalid value: '{m['role']}'. Supported values are: 'system', 'assistant', 'user', "
                         "'function', 'tool', and 'developer'.")


def assistant_content_part(view: View) -> Iterator[Hit]:
    """Native: an assistant message whose content list holds a part other than text or
    refusal (a forwarded ``tool_use`` block, say) is rejected."""
    for message in view.sent(NAME) or ():
        content = message.get("content") if is_map(message) and message.get("role") == "assistant" else None
        if not isinstance(content, list):
            continue
        for part in content:
            kind = part.get("type") if is_map(part) else None
            if kind not in ASSISTANT_PARTS:
                found = view.locate(part, "content")
                if found is not None:
                    yield Hit(found[0], f"Invalid value: '{kind}'. Supported values are: 'text' and 'refusal'.",
                              where=found[1])
                break


def tool_call_id_length(view: View) -> Iterator[Hit]:
    """A call id longer than 40 characters (ids another provider issued: Gemini's, Bedrock's)."""
    for i, m in view.rows:
        if m["role"] != "assistant":
            continue
        for j, cid in enumerate(map(cid_of, calls_of(m))):
            if cid is not None and len(cid := view.sent_id(cid)) > ID_MAX:
                yield Hit(i, f"Invalid 'messages[{i}].tool_calls[{j}].id': string too long. Expected a string with "
                             f"maximum length {ID_MAX}, but got a string with length {len(cid)} instead.", cid, call=j)


def _json_type(value) -> str:
    return {dict: "an object", list: "an array", bool: "a boolean", int: "an integer", float: "a number",
            type(None): "null"}.get(type(value), "an object")


def call_fields(view: View) -> Iterator[Hit]:
    """Native: a tool call whose function name is missing, empty or not a string
    (continuedev/continue #9784, #5091), or whose arguments are not a string (an object or
    null: aaif-goose/goose-mobile #20), in OpenAI's own validation words."""
    for p, message in enumerate(view.sent(NAME) or ()):
        calls = message.get("tool_calls") if is_map(message) and message.get("role") == "assistant" else None
        for j, call in enumerate(calls if isinstance(calls, list) else ()):
            fn = call.get("function") if is_map(call) else None
            if not is_map(fn):
                continue
            at = f"messages[{p}].tool_calls[{j}].function"
            name, args = fn.get("name"), fn.get("arguments")
            if "name" not in fn:
                text = f"Missing required parameter: '{at}.name'."
            elif not isinstance(name, str):
                text = f"Invalid type for '{at}.name': expected a string, but got {_json_type(name)} instead."
            elif not name:
                text = f"Invalid '{at}.name': empty string. Expected a string with minimum length 1, but got an " \
                       "empty string instead."
            elif "arguments" in fn and not isinstance(args, str):
                text = f"Invalid type for '{at}.arguments': expected a string, but got {_json_type(args)} instead."
            else:
                continue
            found = view.locate(message, "content")
            if found is not None:
                yield Hit(found[0], text, cid_of({"id": call.get("id")}) if is_map(call) else None,
                          where=f"{found[1]}.tool_calls[{j}]")


def image_outside_user(view: View) -> Iterator[Hit]:
    """Native: an image part in a message whose role is not ``user`` (a tool returning a
    screenshot): "Image URLs are only allowed for messages with role 'user'" (OpenHands #7700)."""
    for message in view.sent(NAME) or ():
        content = message.get("content") if is_map(message) else None
        role = message.get("role") if is_map(message) else None
        if role in ("user", "assistant") or not isinstance(content, list):
            continue                 # an assistant part is assistant-content-part's
        for part in content:
            if is_map(part) and part.get("type") == "image_url":
                found = view.locate(part, "content") or view.locate(message, "content")
                if found is not None:
                    yield Hit(found[0], f"Image URLs are only allowed for messages with role 'user', but this message "
                                        f"with role '{role}' contains an image URL.", where=found[1])
                break


def sent(view: View) -> list:
    """What an OpenAI-compatible endpoint receives, for the targets built on this one (they
    read documents in this format)."""
    return view.sent(NAME) or []


def located(view: View, message) -> tuple[int, str] | None:
    return view.locate(message, "content")


TARGET = create(NAME, [
    Rule("empty-tool-calls", empty_tool_calls, ERROR, "https://github.com/openai/openai-python/issues/2061",
         "an assistant message with an empty tool_calls array",
         "Remove the empty tool_calls key (normalizing does)."),
    Rule("duplicate-tool-call-id", duplicate_tool_call_id, ERROR, "https://github.com/agno-agi/agno/issues/5116",
         "one tool_call_id declared or answered twice"),
    Rule("tool-calls-unanswered", tool_calls_unanswered, ERROR, "https://github.com/agno-agi/agno/issues/1784",
         "a call not answered by the tool messages right after its turn", MOVE, strict=True),
    Rule("tool-without-calls", tool_without_calls, ERROR, "https://github.com/itmisx/deepx-code/issues/94",
         "a tool message not in the block right after a turn with tool_calls", MOVE, strict=True),
    Rule("tool-call-id-not-found", tool_call_id_not_found, WARNING, GUIDE,
         "a tool message in that block answering a call of another turn", MOVE, strict=True),
    Rule("unknown-role", unknown_role, WARNING, DOCS, "a role Chat Completions does not list",
         "Give the message one of the supported roles, or remove it."),
    Rule("assistant-content-part", assistant_content_part, ERROR, DOCS,
         "an assistant content part other than text or refusal (native)",
         "Remove the foreign part (a tool call belongs in tool_calls, once)."),
    Rule("tool-call-id-length", tool_call_id_length, ERROR, "https://github.com/vercel/ai/issues/5171",
         f"a tool call id longer than {ID_MAX} characters", RENAME),
    Rule("call-fields", call_fields, ERROR, "https://github.com/continuedev/continue/issues/9784",
         "a tool call whose function name is missing, empty or not a string, or whose arguments are an object or "
         "null instead of a JSON string (aaif-goose/goose-mobile#20) (native)",
         "Give the call a name and its arguments as a JSON string (--strict writes a placeholder name and the "
         "arguments as a string).", strict=True),
    Rule("image-outside-user", image_outside_user, ERROR, "https://github.com/All-Hands-AI/OpenHands/issues/7700",
         "an image part in a tool or system message (native)",
         "Move the image into a user message after the tool results (--strict does this and leaves a note in its "
         "place).", strict=True),
    surrogate_rule(WARNING, DOCS),
])

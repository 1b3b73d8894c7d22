"""OpenAI Responses: ``input`` items (a bare list or a request body). ``message`` items (with
or without ``type``), ``function_call`` (``call_id``, ``name``, ``arguments``),
``function_call_output`` (``call_id``, ``output``), ``reasoning``, and other built-in tool
items.

Carried through untouched: built-in tools the provider runs itself (``web_search_call``,
``file_search_call``, ``code_interpreter_call``, ...) and item types Inspector does not know
stay inside their turn; only ``function_call`` and ``custom_tool_call`` are client calls. With
``previous_response_id``, ``conversation`` or ``item_reference`` items the server holds earlier calls, so an output for a
call that is not in ``input`` answers one of them: it is kept out of the engine's pairing,
written back where it was, and an import event says so.

A model turn is a run of consecutive model-produced items (assistant messages, reasoning,
function calls, built-in tool calls): it becomes one flat assistant row whose provenance
lists every item. A reasoning item is dropped with the item right after it, since the API
rejects reasoning without its following item. A synthetic result is a
``function_call_output`` (``custom_tool_call_output`` for a custom tool call).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine import EXPORT_CLAUSE, IMPORT_CLAUSE, INTERRUPTED, SIDE_EFFECTS_UNKNOWN, Kind, Result, declare, to_id
from ..io import InputError
from . import base, compaction, reasoning
from .base import (Decisions, Exported, Imported, Loc, Reasoning, args_string, as_text, call_args, call_name, describe_block,
                   kind_of, note_unconverted, rebuild)
from .openai_chat import TEXT_PARTS, content_text
from .format import Format
from . import identity
from .shape import shape_of

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("item-carried", IMPORT_CLAUSE, False, "item carried",
         "An item with no flat equivalent rides along with its turn and is written back as it was.", "note"),
    Kind("result-server-call", IMPORT_CLAUSE, False, "server-held call",
         "A result answers a call the server holds (previous_response_id, conversation or item_reference); "
         "it is kept as it is.", "note"),
    Kind("result-builtin-call", IMPORT_CLAUSE, False, "built-in call result",
         "A result answers a built-in tool call (not a function call); it is kept as it is.", "note"),
    Kind("client-call-answered", EXPORT_CLAUSE, False, "interrupted output added",
         "A call the client runs (local shell, shell, apply patch, client tool search, MCP approval) had no output, "
         "which the Responses API refuses; an interrupted output of its own type was written after its turn "
         "(a change of the written input: the engine's rows are not touched).", "change", unknown_effects=True),
)

# Calls the client runs, besides function and custom tool calls: the output item type that
# answers each, and how it is keyed. The API refuses a request where one has no output
# ("No tool output found for local shell call call_...", openai/openai-agents-python #1855;
# "... for shell call ...", microsoft/agent-framework #8663). A computer_call is not
# answered here: its output is a screenshot, which Inspector cannot make up.
CLIENT_CALLS = {"local_shell_call": "local_shell_call_output", "shell_call": "shell_call_output",
                "apply_patch_call": "apply_patch_call_output", "tool_search_call": "tool_search_output",
                "computer_call": "computer_call_output", "mcp_approval_request": "mcp_approval_response"}


NAME = "openai-responses"
# Detection: input item types and content part types only Responses uses (``input_audio``
# is Chat's too, so it decides nothing here).
ITEM_MARKERS = frozenset({"function_call", "function_call_output", "reasoning", "message", "custom_tool_call",
                          "custom_tool_call_output", "item_reference", "web_search_call", "file_search_call",
                          "computer_call", "computer_call_output"})
PART_MARKERS = frozenset({"input_text", "output_text", "input_image", "input_file"})
PARTS = frozenset({*PART_MARKERS, "input_audio", "refusal", "summary_text"})
CALLS = ("function_call", "custom_tool_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")
# Items Inspector knows; any other type (types added later) is carried as is.
KNOWN = frozenset({"message", "reasoning", *CALLS, *OUTPUTS, "web_search_call", "file_search_call",
                   "tool_search_call", "tool_search_output", "computer_call", "computer_call_output",
                   "code_interpreter_call", "image_generation_call", "local_shell_call",
                   "local_shell_call_output", "shell_call", "shell_call_output", "apply_patch_call",
                   "apply_patch_call_output", "mcp_call", "mcp_list_tools", "mcp_approval_request",
                   "mcp_approval_response", "item_reference", "compaction"})


@dataclass(slots=True)
class ResponsesState:
    """What export needs of a Responses import: the items carried past the engine (written
    back in place), and whether ``input`` was a one-line prompt string."""

    carried: list[int] = field(default_factory=list)
    input_string: bool = False


def item_type(item: Mapping) -> str | None:
    kind = item.get("type")
    if kind is None and "role" in item:
        return "message"
    return kind if isinstance(kind, str) else None


def is_model(item: Any) -> bool:
    """Whether an item belongs to a model turn: everything but input messages, function
    outputs and untyped items. Built-in tool calls the provider runs itself (web search, file
    search, code interpreter...), their outputs and unknown item types stay inside their turn,
    untouched; only ``function_call`` and ``custom_tool_call`` are the client's calls."""
    if not isinstance(item, Mapping):
        return False
    kind = item_type(item)
    if kind == "message":
        return item.get("role") == "assistant"
    return kind is not None and kind not in OUTPUTS


def server_state(document: Any, history: list[Any]) -> str | None:
    """How the request continues state the server holds, if it does: a body field, or input
    items that stand for stored items."""
    if isinstance(document, Mapping):
        for key in ("previous_response_id", "conversation"):
            if document.get(key):
                return key
    if any(isinstance(it, Mapping) and it.get("type") == "item_reference" for it in history):
        return "item_reference"
    return None


def import_(document: Any, name: str) -> Imported:
    if isinstance(document, list):
        history, container = document, None
    elif isinstance(document, Mapping) and isinstance(document.get("input"), (list, str)):
        history, container = document["input"], "input"
    else:
        raise InputError(name, f"openai-responses: expected an array of input items or a request body with an "
                               f"\"input\" array, got {kind_of(document)}")
    im = Imported(NAME, [], document, container=container, history=history)
    im.state = own = ResponsesState()
    if isinstance(history, str):           # a one-line prompt: nothing to pair, nothing to repair
        im.history = [{"role": "user", "content": history}]
        own.input_string = True
        history = im.history
    # Items kept out of the flat list and written back in place: server-held results and
    # turns with nothing the engine pairs.
    carried = own.carried
    lost = im.unconverted                        # items and parts the flat form does not carry
    state = server_state(document, history)
    declared: set[Any] = set()      # call ids of function calls in the input
    builtin: dict[str, int] = {}     # call ids of other items (a client-run tool_search_call...)
    for k, it in enumerate(history):
        if isinstance(it, Mapping) and "call_id" in it:
            t = item_type(it)
            if t in CALLS:
                declared.add(to_id(it["call_id"]))       # as the engine reads it (any JSON value)
            elif t is not None and t not in OUTPUTS and isinstance(it["call_id"], str):
                # Only typed items stay in their turn; an untyped one is dropped by clause 1.
                builtin.setdefault(it["call_id"], k)
    i, n = 0, len(history)
    while i < n:
        item = history[i]
        if not isinstance(item, Mapping):
            im.add(item, Loc(i))
            i += 1
            continue
        kind = item_type(item)
        if is_model(item):
            j = i
            texts, calls, locs = [], [], []
            thoughts: list[tuple[int, Mapping, int]] = []       # (index, item, calls before it)
            message = False
            while j < n and is_model(history[j]):
                it = history[j]
                t = item_type(it)
                if t in CALLS:
                    calls.append({"tool_call_id": it.get("call_id"), "name": it.get("name"),
                                  "arguments": it.get("arguments", it.get("input")), "type": t})
                    locs.append(Loc(j))
                elif t == "message":
                    message = True
                    _parts_lost(it, j, lost)
                    text = content_text(it.get("content"))
                    texts.append(text if isinstance(text, str) else as_text(text))
                else:
                    lost.append((j, None, None))
                    if t == "reasoning":
                        thoughts.append((j, it, len(calls)))
                if t not in KNOWN:
                    im.note(None, "item-carried",
                            f"input[{j}] is an item of type {t!r} that Inspector does not know; it is carried "
                            "through unchanged as part of its turn.")
                j += 1
            row = None
            if message or calls:
                flat: dict[str, Any] = {"role": "assistant", "content": "\n".join(t for t in texts if t)}
                if calls:
                    flat["tool_calls"] = calls
                row = im.add(flat, Loc(i, items=tuple(range(i, j))), locs)
            else:
                carried.extend(range(i, j))   # no text and no client call: nothing for the engine
            for k, it, before in thoughts:
                im.reasoning.append(_reasoning(row, k, it, tuple(range(before, len(calls)))))
            i = j
            continue
        if kind in OUTPUTS:
            cid = item.get("call_id")
            key = to_id(cid)
            if key in builtin and key not in declared:
                carried.append(i)
                lost.append((i, None, None))
                im.note(None, "result-builtin-call",
                        f"input[{i}] answers the {item_type(history[builtin[key]])} at input[{builtin[key]}], "
                        "a built-in tool call rather than a function call; it is carried through unchanged.",
                        tool_call_id=cid)
            elif state and key not in declared and isinstance(cid, str) and cid.strip():
                carried.append(i)
                lost.append((i, None, None))
                im.note(None, "result-server-call",
                        f"input[{i}] answers call {cid!r}, which is not in the input: with {state!r} the server "
                        "holds that call, so the result is kept and carried through unchanged.", tool_call_id=cid)
            else:
                im.add({"role": "tool", "content": as_text(item.get("output")), "tool_call_id": cid}, Loc(i))
        elif kind == "message" and isinstance(item.get("role"), str):
            _parts_lost(item, i, lost)
            im.add({"role": item["role"], "content": content_text(item.get("content"))}, Loc(i))
        else:
            im.add(dict(item), Loc(i))     # no type and no usable role: the engine says why (clause 1)
        i += 1
    compaction.note(im, None)
    return im


def _reasoning(row: int | None, k: int, item: Mapping, before: tuple[int, ...]) -> Reasoning:
    """A reasoning item: signed when it carries ``encrypted_content`` (or is a stored
    ``rs_`` item the server checks by id)."""
    encrypted = bool(item.get("encrypted_content"))
    rid = item.get("id")
    summary = item.get("summary")
    text = "\n".join(s.get("text") for s in summary if isinstance(s, Mapping) and isinstance(s.get("text"), str)) \
        if isinstance(summary, list) else ""
    signed = encrypted or (isinstance(rid, str) and rid.startswith("rs_"))
    return Reasoning(row, Loc(k), "reasoning", signed, encrypted, None, before, text)


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: reasoning items and every item holding ``encrypted_content`` go."""
    body, history = reasoning.history_of(document, "input")
    if history is None:
        return document
    out = []
    for k, it in enumerate(history):
        if isinstance(it, Mapping) and (item_type(it) == "reasoning" or "encrypted_content" in it):
            reasoning.removed(notes, f"input[{k}]", f"a {item_type(it)} item" + (
                f" {it['id']}" if isinstance(it.get("id"), str) else ""))
            continue
        out.append(it)
    return reasoning.put_back(body, "input", out) if len(out) != len(history) else document


def export_same(im: Imported, result: Result, notes: Exported) -> Any:
    d = Decisions.of(result)
    out: list[tuple[int | None, Any]] = []       # (input index or None for a new item, item)
    for msg, o in d.rows:
        if o is None:
            cid = msg["tool_call_id"]
            # The engine's own calls, keyed by their resolved (string) ids.
            made = (d.calls_by_id.get(cid) or {}).get("type")
            kind = "custom_tool_call_output" if made == "custom_tool_call" else "function_call_output"
            out.append((None, {"type": kind, "call_id": cid, "output": msg["content"]}))
            continue
        loc = im.sources[o]
        items = loc.items or (loc.message,)
        gone = {im.calls[o][j].message for j in d.dropped_calls.get(o, ())}
        for k in items:
            if k in gone:
                continue
            if item_type(im.history[k]) == "reasoning" and k + 1 in gone:
                continue                 # reasoning must be followed by the item it produced
            out.append((k, im.history[k]))
    own = im.state if isinstance(im.state, ResponsesState) else ResponsesState()
    items = _with_carried(out, own.carried, im.history)
    if own.input_string and len(items) == 1 and items[0] is im.history[0]:
        return im.document
    items = answer_client_calls(items, notes)
    return rebuild(im, items)


def client_call_key(item: Mapping) -> Any:
    """The id an output answers a client-run call by (an MCP approval request: its ``id``)."""
    return item.get("id") if item_type(item) == "mcp_approval_request" else item.get("call_id")


def answers(item: Any) -> str | None:
    """The call id an output item answers (``approval_request_id`` for an MCP approval
    response; a local shell output written with ``id``, as openai-python's type has it)."""
    if not isinstance(item, Mapping):
        return None
    said = item.get("approval_request_id") if item_type(item) == "mcp_approval_response" else \
        item.get("call_id", item.get("id"))
    return said if isinstance(said, str) else None       # an id that is no string answers nothing


def _client_run(item: Any) -> bool:
    kind = item_type(item) if isinstance(item, Mapping) else None
    # A tool search the server runs (``execution`` absent or "server") needs no output from the client.
    return kind in CLIENT_CALLS and not (kind == "tool_search_call" and item.get("execution") != "client")


def _interrupted(call: Mapping) -> dict[str, Any] | None:
    kind, key = item_type(call), client_call_key(call)
    if kind == "local_shell_call":      # the server reads call_id (openai-agents-python #1855), not id
        return {"type": "local_shell_call_output", "call_id": key, "output": INTERRUPTED}
    if kind == "shell_call":
        return {"type": "shell_call_output", "call_id": key,
                "output": [{"stdout": "", "stderr": INTERRUPTED, "outcome": {"type": "exit", "exit_code": 1}}]}
    if kind == "apply_patch_call":
        return {"type": "apply_patch_call_output", "call_id": key, "status": "failed", "output": INTERRUPTED}
    if kind == "tool_search_call":
        return {"type": "tool_search_output", "call_id": key, "execution": "client", "tools": []}
    if kind == "mcp_approval_request":
        return {"type": "mcp_approval_response", "approval_request_id": key, "approve": False,
                "reason": INTERRUPTED}
    return None


def answer_client_calls(items: list[Any], notes: Exported) -> list[Any]:
    """Issue 31, item 3: each call the client runs with no output anywhere after it gets an
    interrupted output of its own item type, right after its model turn (as the engine closes a
    function call), one event each. Outputs answer calls by id in any later place, so a call
    answered later is left alone; a computer call is only reported (its output is a screenshot)."""
    answered = {answers(it) for it in items if isinstance(it, Mapping) and item_type(it) not in CLIENT_CALLS}
    todo = [(k, it) for k, it in enumerate(items) if _client_run(it) and client_call_key(it) not in answered
            and item_type(it) != "computer_call" and isinstance(client_call_key(it), str)]
    if not todo:
        return items
    out = list(items)
    inserts: dict[int, list[Any]] = {}
    for k, call in todo:
        end = k + 1
        while end < len(items) and is_model(items[end]):
            end += 1
        inserts.setdefault(end, []).append(_interrupted(call))
        notes.note("client-call-answered", f"input[{k}] ({item_type(call)} {client_call_key(call)}) had no output, "
                       "which the Responses API refuses (\"No tool output found for ...\"): an interrupted "
                       f"{_interrupted(call)['type']} now follows its turn. {SIDE_EFFECTS_UNKNOWN}")
    out = []
    for k, it in enumerate(items):
        out.extend(inserts.get(k, ()))
        out.append(it)
    out.extend(inserts.get(len(items), ()))
    return out


def _parts_lost(item: Mapping, index: int, lost: list) -> None:
    content = item.get("content")
    if type(content) is list:
        lost.extend((index, "content", k) for k, p in enumerate(content)
                    if not (isinstance(p, Mapping) and p.get("type") in TEXT_PARTS))


def _with_carried(out: list[tuple[int | None, Any]], carried: list[int], history: list[Any]) -> list[Any]:
    """Put each carried item back right before the written item that followed it in the input
    (the next one still written; at the end if none is), so moves elsewhere do not move it."""
    if not carried:
        return [item for _, item in out]
    position = {k: p for p, (k, _) in enumerate(out) if k is not None}
    before: dict[int | None, list[Any]] = {}
    nxt: int | None = None
    it = reversed(carried)
    c = next(it, None)
    for k in range(len(history) - 1, -1, -1):     # one pass from the end: the next written index
        while c is not None and c >= k:
            if c == k:
                before.setdefault(nxt, []).append(history[c])
            c = next(it, None)
        if k in position:
            nxt = position[k]
    items: list[Any] = []
    for p, (_, item) in enumerate(out):
        items.extend(reversed(before.get(p, ())))
        items.append(item)
    items.extend(reversed(before.get(None, ())))
    return items


def export_new(im: Imported, result: Result, notes: Exported) -> Any:
    note_unconverted(im, NAME, notes)
    out = []
    for msg, o in zip(result.messages, result.origins):
        role = msg["role"]
        if role == "assistant":
            # An empty turn without calls is still written: left out, what follows it would
            # move up (a result could then open the input) with no event to say so.
            if msg["content"] or not msg.get("tool_calls"):
                out.append({"role": "assistant", "content": msg["content"]})
            for c in msg.get("tool_calls") or ():
                out.append({"type": "function_call", "call_id": c["tool_call_id"], "name": call_name(c),
                            "arguments": args_string(call_args(c))})
        elif role == "tool":
            out.append({"type": "function_call_output", "call_id": msg["tool_call_id"], "output": msg["content"]})
        else:
            out.append({"role": role, "content": msg["content"]})
    return out


# -- registration --------------------------------------------------------------------------


def evidence(document: Any) -> list[str]:
    found = []
    if isinstance(document, Mapping) and isinstance(document.get("input"), (list, str)) \
            and "messages" not in document:
        found.append('an "input" array')
    shape = shape_of(document, "input")
    found += [f'an input item of type "{t}"' for t in sorted(ITEM_MARKERS & shape.item_types.keys())
              if t != "message" or "role" in shape.item_types[t]]
    found += [f'a "{t}" content part' for t in sorted(PART_MARKERS & shape.blocks.keys())]
    return found


FORMAT = Format(
    NAME, "OpenAI Responses input items",
    "OpenAI Responses: input items (or a request body) with function_call and function_call_output",
    evidence, import_, export_same, export_new,
    describe_block=lambda block: describe_block(block, ("call_id", "id"), ("text", "output", "arguments", "content")),
    parts=PARTS,
    provider="openai-responses",
    kinds=EMITS + base.EMITS + reasoning.EMITS + compaction.EMITS,
    strip_reasoning=strip_reasoning,
    pairing=identity.CALL_ORDER,
)

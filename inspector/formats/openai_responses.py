"""OpenAI Responses: ``input`` items (a bare list or a request body). ``message`` items (with
or without ``type``), ``function_call`` (``call_id``, ``name``, ``arguments``),
``function_call_output`` (``call_id``, ``output``), ``reasoning``, and other built-in tool
items.

A model turn is a run of consecutive model-produced items (assistant messages, reasoning,
function calls, built-in tool calls): it becomes one flat assistant row whose provenance
lists every item. A reasoning item is dropped with the item right after it, since the API
rejects reasoning without its following item. A synthetic result is a
``function_call_output`` (``custom_tool_call_output`` for a custom tool call).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import Result
from ..io import InputError
from .base import Decisions, Imported, Loc, args_string, as_text, call_args, call_name, kind_of, rebuild
from .openai_chat import content_text

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
MODEL_ITEMS = frozenset({"reasoning", *CALLS, "web_search_call", "file_search_call", "computer_call",
                         "code_interpreter_call", "image_generation_call", "local_shell_call", "mcp_call"})


def item_type(item: Mapping) -> str | None:
    kind = item.get("type")
    if kind is None and "role" in item:
        return "message"
    return kind if isinstance(kind, str) else None


def is_model(item: Any) -> bool:
    if not isinstance(item, Mapping):
        return False
    kind = item_type(item)
    return kind in MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant")


def import_(document: Any, name: str) -> Imported:
    if isinstance(document, list):
        history, container = document, None
    elif isinstance(document, Mapping) and isinstance(document.get("input"), (list, str)):
        history, container = document["input"], "input"
    else:
        raise InputError(name, f"openai-responses: expected an array of input items or a request body with an "
                               f"\"input\" array, got {kind_of(document)}")
    im = Imported(NAME, [], document, container=container, history=history)
    if isinstance(history, str):           # a one-line prompt: nothing to pair, nothing to repair
        im.history = [{"role": "user", "content": history}]
        im.extra["input-string"] = True
        history = im.history
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
            while j < n and is_model(history[j]):
                it = history[j]
                t = item_type(it)
                if t in CALLS:
                    calls.append({"tool_call_id": it.get("call_id"), "name": it.get("name"),
                                  "arguments": it.get("arguments", it.get("input")), "type": t})
                    locs.append(Loc(j))
                elif t == "message":
                    text = content_text(it.get("content"))
                    texts.append(text if isinstance(text, str) else as_text(text))
                j += 1
            flat: dict[str, Any] = {"role": "assistant", "content": "\n".join(t for t in texts if t)}
            if calls:
                flat["tool_calls"] = calls
            im.add(flat, Loc(i, items=tuple(range(i, j))), locs)
            i = j
            continue
        if kind in OUTPUTS:
            im.add({"role": "tool", "content": as_text(item.get("output")), "tool_call_id": item.get("call_id")},
                   Loc(i))
        elif kind == "message":
            role = item.get("role")
            if isinstance(role, str):
                im.add({"role": role, "content": content_text(item.get("content"))}, Loc(i))
            else:
                im.add(dict(item), Loc(i))
        else:
            # An item the engine has no pairing rule for (item_reference, mcp approvals...):
            # carried through untouched under its own type as the role.
            im.add({"role": kind or "item", "content": ""}, Loc(i))
            im.note(len(im.messages) - 1, "item-carried",
                    f"Item {i} of type {kind!r} has no tool pairing; it is carried through unchanged.")
        i += 1
    return im


def export_same(im: Imported, result: Result) -> Any:
    d = Decisions.of(result)
    out = []
    for msg, o in d.rows:
        if o is None:
            cid = msg["tool_call_id"]
            # The engine's own calls, keyed by their resolved (string) ids.
            made = (d.calls_by_id.get(cid) or {}).get("type")
            kind = "custom_tool_call_output" if made == "custom_tool_call" else "function_call_output"
            out.append({"type": kind, "call_id": cid, "output": msg["content"]})
            continue
        loc = im.sources[o]
        items = loc.items or (loc.message,)
        gone = {im.calls[o][j].message for j in d.dropped_calls.get(o, ())}
        for k in items:
            if k in gone:
                continue
            if item_type(im.history[k]) == "reasoning" and k + 1 in gone:
                continue                 # reasoning must be followed by the item it produced
            out.append(im.history[k])
    if im.extra.get("input-string") and len(out) == 1 and out[0] is im.history[0]:
        return im.document
    return rebuild(im, out)


def export_new(im: Imported, result: Result) -> Any:
    out = []
    for msg, o in zip(result.messages, result.origins):
        role = msg["role"]
        if role == "assistant":
            if msg["content"]:
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
from .base import describe_block  # noqa: E402
from .registry import Format  # noqa: E402
from .shape import shape_of  # noqa: E402


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
)

"""Google Gemini ``generateContent``: ``systemInstruction`` and ``contents`` with roles
``user`` and ``model`` (``function`` in older histories) and ``parts``: ``text``,
``functionCall``, ``functionResponse``, ``inlineData``, thoughts, ... Both camelCase and the
Python SDK's snake_case spellings are read; export writes the spelling the document used.

Calls without ids. Gemini may omit ``id`` on ``functionCall`` and ``functionResponse``.
Pairing is then derived, and said so in an import event for each pair:
- a call without an id gets the id ``NAME-C-P`` (its name, content index and part index;
  characters outside ``[a-zA-Z0-9_-]`` become ``_`` so the id is valid for every target);
- a response without an id answers the first not-yet-answered call with the same name in the
  most recent ``model`` content before it; if there is none it gets its own ``NAME-C-P``
  id, answers nothing, and the engine drops it as an orphan (MEM-5 clause 3).
Derived ids are never written back: exported calls and results carry an ``id`` only when
the original call had one.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine import IMPORT_CLAUSE, Kind, declare
from . import base, blocks, reasoning
from .base import Imported, args_object, as_text, call_args, call_name, describe_block, join_text, kind_of
from .blocks import BlockSpec
from .format import Format
from . import identity
from .shape import shape_of

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("id-derived", IMPORT_CLAUSE, False, "id derived",
         "A call or response had no id, so one was derived from its position to pair them.", "note", "call"),
)


NAME = "gemini"
# Detection: the body's own keys, and part keys only Gemini uses (both spellings).
BODY_MARKERS = ("systemInstruction", "system_instruction")
PART_MARKERS = frozenset({"functionCall", "functionResponse", "function_call", "function_response", "inlineData",
                          "inline_data", "fileData", "file_data", "executableCode", "codeExecutionResult",
                          "thoughtSignature"})


@dataclass(slots=True)
class GeminiState:
    """What export needs of a Gemini import: the call ids the import derived (written back
    without an id, as they came), and whether the parts are spelled in snake_case."""

    derived: set[str] = field(default_factory=set)
    snake: bool = False


_NO_STATE = GeminiState()


def _state(im: Imported) -> GeminiState:
    """A Gemini import's own state; a history from another format has none."""
    return im.state if isinstance(im.state, GeminiState) else _NO_STATE


def _get(part: Mapping, camel: str, snake: str) -> Any:
    value = part.get(camel)
    return part.get(snake) if value is None else value


class Gemini(BlockSpec):
    name = NAME
    container = "contents"
    key = "parts"
    assistant = "model"
    system_fields = ("systemInstruction", "system_instruction")

    def role_of(self, message: Mapping) -> str | None:
        role = message.get("role")
        if role is None or role in ("user", "function"):
            return "user"
        if role == "model":
            return "assistant"
        return role if isinstance(role, str) and role.strip() else None

    def is_user(self, message: Mapping) -> bool:
        return message.get("role") in (None, "user", "function")

    def classify(self, part: Any) -> tuple[str, Any]:
        if not isinstance(part, Mapping):
            return "other", None
        if isinstance(part.get("text"), str):
            return ("other", None) if part.get("thought") else ("text", part["text"])
        call = _get(part, "functionCall", "function_call")
        if isinstance(call, Mapping):
            return "call", {"tool_call_id": call.get("id"), "name": call.get("name"), "arguments": call.get("args")}
        resp = _get(part, "functionResponse", "function_response")
        if isinstance(resp, Mapping):
            return "result", (resp.get("id"), as_text(resp.get("response")))
        return "other", None

    def reasoning_of(self, part: Any) -> tuple[str, bool, bool, str] | None:
        if not isinstance(part, Mapping):
            return None
        sig = _get(part, "thoughtSignature", "thought_signature")
        if part.get("thought"):
            return "thought", bool(sig), False, part["text"] if isinstance(part.get("text"), str) else ""
        if sig:
            return "thoughtSignature", True, True, ""
        return None

    def system_text(self, value: Any) -> str:
        if isinstance(value, Mapping):
            parts = value.get("parts")
            if isinstance(parts, list):
                return join_text([p.get("text") for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str)])
        return as_text(value)

    def import_(self, document: Any, name: str) -> Imported:
        im = super().import_(document, name)
        im.state = GeminiState(snake=_uses_snake(im.history))
        derived = im.state.derived
        # The latest model content's calls: by id (answered by id), and by name in order
        # (answered by name), each a dict or a queue so a turn of n calls costs n steps.
        open_ids: dict[Any, list[list[Any]]] = {}
        by_name: dict[Any, deque[list[Any]]] = {}
        for o, flat in enumerate(im.messages):
            if not isinstance(flat, dict):
                continue
            loc = im.sources[o]
            if flat.get("role") == "assistant":
                open_ids, by_name = {}, {}
                for j, call in enumerate(flat.get("tool_calls") or ()):
                    if call.get("tool_call_id") is None:
                        cid = _derived(call.get("name"), loc.message, im.calls[o][j].blocks[0])
                        call["tool_call_id"] = cid
                        derived.add(cid)
                        im.note(o, "id-derived",
                                f"Call {_shown(call.get('name'))} at {im.calls[o][j].describe(im.container)} has no id; "
                                f"Inspector names it {cid!r} (name-content-part) to pair it.", call=j, tool_call_id=cid)
                    entry = [call.get("name"), call["tool_call_id"], False]
                    by_name.setdefault(_name_key(entry[0]), deque()).append(entry)
                    try:
                        open_ids.setdefault(entry[1], []).append(entry)
                    except TypeError:            # an id that is no JSON scalar pairs with nothing by id
                        pass
            elif flat.get("role") == "tool" and loc.blocks:      # a functionResponse part
                part = im.history[loc.message][self.key][loc.blocks[0]]
                resp = _get(part, "functionResponse", "function_response") if isinstance(part, Mapping) else None
                if not isinstance(resp, Mapping):
                    continue                     # a "tool" content of other parts: no response to pair
                rname = resp.get("name")
                if flat["tool_call_id"] is None:
                    match = _first_open(by_name.get(_name_key(rname)), rname)
                    if match is not None:
                        match[2] = True
                        flat["tool_call_id"] = match[1]
                        im.note(o, "id-derived",
                                f"Response {_shown(rname)} at {im.where(o)} has no id; paired by name and order with the "
                                f"call {match[1]!r} of the model turn before it.", tool_call_id=match[1])
                    else:
                        cid = _derived(rname, loc.message, loc.blocks[0])
                        derived.add(cid)
                        flat["tool_call_id"] = cid
                        im.note(o, "id-derived",
                                f"Response {_shown(rname)} at {im.where(o)} has no id and no unanswered call named "
                                f"{_shown(rname)} in the model turn before it; it is given the id {cid!r} and pairs with nothing.",
                                tool_call_id=cid)
                else:
                    try:
                        same_id = open_ids.get(flat["tool_call_id"], ())
                    except TypeError:
                        same_id = ()
                    for entry in same_id:
                        entry[2] = True
        if derived:
            im.notes.append("Some Gemini calls or responses have no id: pairing was derived from position and "
                            "name (see the import events); derived ids are not written back.")
        return im

    def result_order(self, rows, im):
        """Without ids Gemini pairs responses with calls by name and order, so a synthetic
        response for an id-less call (the engine puts it ahead of the real ones) is written in
        its call's place among the turn's responses. Runs without one keep their order."""
        derived = _state(im).derived
        out = list(rows)
        i = 0
        while i < len(out):
            msg = out[i][0]
            calls = [c.get("tool_call_id") for c in msg.get("tool_calls") or ()] if msg.get("role") == "assistant" else []
            j = i + 1
            while j < len(out) and out[j][0].get("role") == "tool":
                j += 1
            run = out[i + 1:j]
            if calls and any(o is None and m.get("tool_call_id") in derived for m, o in run):
                place = {cid: k for k, cid in enumerate(calls)}
                out[i + 1:j] = sorted(run, key=lambda row: place.get(row[0].get("tool_call_id"), len(calls)))
            i = j if j > i + 1 else i + 1
        return out

    def _keys(self, im: Imported) -> tuple[str, str]:
        return ("function_call", "function_response") if _state(im).snake else ("functionCall", "functionResponse")

    def text_block(self, text: str) -> Any:
        return {"text": text}

    def call_block(self, cid, call, im):
        fc = {"name": call_name(call), "args": args_object(call_args(call))}
        if cid not in _state(im).derived:
            fc["id"] = cid
        return {self._keys(im)[0]: fc}

    def result_block(self, cid, text, synthetic, call, im):
        # The call's own name, whatever its type: Gemini pairs id-less responses by name, so a
        # response named otherwise would be an orphan on the next run.
        name = call.get("name") if isinstance(call, Mapping) and "name" in call else call_name(call)
        fr = {"name": name, "response": {"error" if synthetic else "output": text}}
        if cid not in _state(im).derived:
            fr["id"] = cid
        return {self._keys(im)[1]: fr}

    def system_top(self, texts):
        return {"systemInstruction": {"parts": [{"text": t} for t in texts]}} if texts else {}

    def fold_system(self, body, items):
        fld = "system_instruction" if "system_instruction" in body else "systemInstruction"
        current = body.get(fld)
        parts = list(current.get("parts") or []) if isinstance(current, Mapping) else []
        base = dict(current) if isinstance(current, Mapping) else {}
        base["parts"] = [*parts, *(p for t in items for p in (t if isinstance(t, list) else [{"text": t}]))]
        return {fld: base}


def _derived(name: Any, content: int, part: int) -> str:
    stem = re.sub(r"[^a-zA-Z0-9_-]", "_", name) if isinstance(name, str) else "call"
    return f"{stem}-{content}-{part}"


def _shown(name: Any) -> str:
    """A name for a sentence; a name that is not text (any depth) is described, not printed."""
    return repr(name) if isinstance(name, str) else f"({kind_of(name)})"


def _name_key(name: Any) -> Any:
    """A name as a dict key: itself when hashable, else one shared bucket compared by value."""
    try:
        hash(name)
    except TypeError:
        return _UNHASHABLE
    return name


_UNHASHABLE = object()


def _first_open(queue: deque[list[Any]] | None, name: Any) -> list[Any] | None:
    """The first call of ``queue`` not yet answered that has ``name``; answered calls at the
    head are let go, so each call is passed over once."""
    if not queue:
        return None
    while queue and queue[0][2]:
        queue.popleft()
    for entry in queue:
        if not entry[2] and _same(entry[0], name):
            return entry
    return None


def _same(a: Any, b: Any) -> bool:
    """Names compared for pairing; values too deep to compare pair with nothing."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    try:
        return a == b
    except RecursionError:
        return False


def _uses_snake(history: list[Any]) -> bool:
    for content in history:
        if isinstance(content, Mapping) and isinstance(content.get("parts"), list):
            for part in content["parts"]:
                if isinstance(part, Mapping):
                    if "function_call" in part or "function_response" in part or "inline_data" in part:
                        return True
                    if "functionCall" in part or "functionResponse" in part:
                        return False
    return False


# Google's documented stand-in for a signature Gemini 3 requires on the first functionCall
# part of a turn, for histories whose signatures are gone (ai.google.dev, "Thought signatures").
SIGNATURE_SENTINEL = "skip_thought_signature_validator"


def _thought(part: Any) -> str | None:
    return "thought" if isinstance(part, Mapping) and part.get("thought") else None


def _unsign(part: Any, first_call: bool) -> tuple[Any, str]:
    """The part without its signature (None when it has none); the first call of a turn
    gets the sentinel in its place."""
    if not isinstance(part, Mapping):
        return None, ""
    keys = [k for k in ("thoughtSignature", "thought_signature") if k in part]
    if not keys or part[keys[0]] == SIGNATURE_SENTINEL:
        return None, ""
    plain = {k: v for k, v in part.items() if k not in keys}
    if first_call and reasoning._is_call(part):
        plain[keys[0]] = SIGNATURE_SENTINEL
        return plain, f"; Google's sentinel {SIGNATURE_SENTINEL!r} takes its place, as the first call of a turn needs one"
    return plain, ""


def strip_reasoning(document: Any, notes: Any) -> Any:
    """``--reasoning strip``: thought parts go, and so does every thoughtSignature."""
    return reasoning.strip_blocks(document, notes, "contents", "parts", _thought, _unsign)


SPEC = Gemini()
import_ = SPEC.import_
export_same = SPEC.export_same
export_new = SPEC.export_new


# -- registration --------------------------------------------------------------------------


def evidence(document: Any) -> list[str]:
    found = []
    if isinstance(document, Mapping) and (isinstance(document.get("contents"), list)
                                          or any(k in document for k in BODY_MARKERS)):
        found.append('a "contents" array or "systemInstruction"')
    shape = shape_of(document, "contents")
    if shape.parts_only:
        found.append('a content with "parts"')
        keys = PART_MARKERS & shape.part_keys
        if keys:
            found.append(f'a "{sorted(keys)[0]}" part')
    return found


FORMAT = Format(
    NAME, "Gemini contents",
    "Google Gemini generateContent: contents of parts with functionCall / functionResponse",
    evidence, import_, export_same, export_new,
    describe_block=lambda block: describe_block(block, ("id",), ("text", "args", "response")),
    provider="gemini",
    kinds=EMITS + blocks.EMITS + base.EMITS + reasoning.EMITS,
    strip_reasoning=strip_reasoning,
    pairing=identity.BY_NAME,
)

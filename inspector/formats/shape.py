"""What a document is made of, gathered in one pass for detection.

Every registered format is asked for its evidence, and most formats look at the same
history list: walking it once per format would cost six passes over a large file. A
:class:`Shape` is the vocabulary of one history list (keys and ``type`` values seen at each
level, and the first example of each typed block), without any format's knowledge; each
format's ``evidence`` reads it through :func:`shape_of` and decides with its own markers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Keys every chat format shares; a message with only these (and text content) is plain.
PLAIN_KEYS = frozenset(("role", "content", "tool_call_id", "name"))
CALL_KEYS = frozenset(("role", "content", "tool_calls"))


@dataclass(slots=True)
class Shape:
    """The vocabulary of one history list. Empty when the list does not exist."""

    present: bool = False
    item_types: dict[str, set[str]] = field(default_factory=dict)    # item "type" value -> keys seen
    parts_only: bool = False              # an item with a "parts" list and no "content"
    part_keys: set[str] = field(default_factory=set)                  # keys of Mapping items in "parts"
    metadata_keys: set[str] = field(default_factory=set)
    call_keys: set[frozenset[str]] = field(default_factory=set)       # distinct key sets of calls
    call_function_objects: bool = False   # a call whose "function" is an object
    blocks: dict[str, Mapping] = field(default_factory=dict)          # block "type" -> first block
    block_keys: dict[str, set[str]] = field(default_factory=dict)     # block "type" -> keys seen
    untyped_keys: set[str] = field(default_factory=set)               # keys of blocks without "type"
    list_content: bool = False            # some content is a list of parts
    message_keys: set[str] = field(default_factory=set)               # keys of messages that are not plain
    roles: bool = False                   # some entry is an object with a "role" key


def _scan(history: list[Any]) -> Shape:
    shape = Shape(present=True)
    plain, with_calls = PLAIN_KEYS, CALL_KEYS
    for m in history:
        if type(m) is dict:
            keys = m.keys()
            # Plain messages (the most common) carry no marker of any format: skip them fast.
            if keys <= plain:
                if "role" in keys:
                    shape.roles = True
                if type(m.get("content")) is not list:
                    continue
            elif keys <= with_calls and type(m.get("content")) is not list \
                    and type(calls := m.get("tool_calls")) is list:
                shape.roles = shape.roles or "role" in keys
                _calls(calls, shape)
                continue
        elif not isinstance(m, Mapping):
            continue
        _item(m, shape)
    return shape


def _item(m: Mapping, shape: Shape) -> None:
    """Everything one history item that is not plain says about its format."""
    shape.message_keys.update(m.keys())
    if "role" in m:
        shape.roles = True
    kind = m.get("type")
    if isinstance(kind, str):
        shape.item_types.setdefault(kind, set()).update(m.keys())
    parts = m.get("parts")
    if isinstance(parts, list) and "content" not in m:
        shape.parts_only = True
        for p in parts:
            if _is_map(p):
                shape.part_keys.update(p.keys())
    meta = m.get("metadata")
    if _is_map(meta):
        shape.metadata_keys.update(meta.keys())
    calls = m.get("tool_calls")
    if isinstance(calls, list):
        _calls(calls, shape)
    content = m.get("content")
    if isinstance(content, list):
        shape.list_content = True
        for b in content:
            if not _is_map(b):
                continue
            t = b.get("type")
            if isinstance(t, str):
                if t not in shape.blocks:
                    shape.blocks[t] = b
                    shape.block_keys[t] = set(b.keys())
                else:
                    shape.block_keys[t].update(b.keys())
            else:
                shape.untyped_keys.update(b.keys())


def _is_map(value: Any) -> bool:
    """``isinstance(value, Mapping)``, with parsed JSON's own ``dict`` answered at C speed."""
    return type(value) is dict or isinstance(value, Mapping)


def _calls(calls: list[Any], shape: Shape) -> None:
    last: frozenset[str] | None = None   # calls of one turn usually share their keys
    for c in calls:
        if type(c) is not dict and not isinstance(c, Mapping):
            continue
        keys = c.keys()
        if last is None or keys != last:
            # Hashed, never searched for in a list: a document whose every call has keys of its
            # own costs one set lookup per call, not a walk over every key set seen so far.
            last = frozenset(keys)
            shape.call_keys.add(last)
        if not shape.call_function_objects:
            fn = c.get("function")
            if fn is not None and (type(fn) is dict or isinstance(fn, Mapping)):
                shape.call_function_objects = True


_EMPTY = Shape()
_last: tuple[Any, Shape] | None = None    # the history last scanned, and its shape


def shape_of(document: Any, key: str | None = None) -> Shape:
    """The shape of ``document[key]`` (of ``document`` itself when it is a list and ``key`` is
    None or names the list a bare document stands for). Kept for the history last asked
    about (one at a time, never a batch's worth), so that every format's evidence shares
    one pass."""
    global _last
    history = document if type(document) is list or isinstance(document, list) else (
        document.get(key) if isinstance(document, Mapping) and key is not None else None)
    if not isinstance(history, list):
        return _EMPTY
    last = _last
    if last is not None and last[0] is history:
        return last[1]
    shape = _scan(history)
    _last = (history, shape)
    return shape


def messages_body(document: Any) -> Mapping | None:
    """The document, when it is an object whose history would be ``messages``: not a body
    that keeps it in ``contents`` (Gemini) or ``input`` without ``messages`` (Responses)."""
    if not isinstance(document, Mapping) or isinstance(document.get("contents"), list):
        return None
    if isinstance(document.get("input"), (list, str)) and "messages" not in document:
        return None
    return document


def forget() -> None:
    """Drop the kept shape (detection calls this when every format has answered)."""
    global _last
    _last = None

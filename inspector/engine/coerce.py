"""Stage 1 (MEM-5 clause 1): every entry becomes a flat message, or is dropped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cast import WHITESPACE, fresh, kind_of, to_id, to_text
from .model import Recorder

# Roles that are already exact, trimmed strings: the hot loop skips trimming them.
_PLAIN_ROLES = frozenset(("user", "assistant", "tool", "system"))

_HOW = {
    "content-cast": "cast {what} to the text {text}",
    "content-serialized": "wrote {what} out as JSON text instead of blanking it",
    "content-unserializable": "could not turn {what} into text, so it became an empty string",
}


def _field(key: Any) -> str:
    """A field name as shown in an explanation: odd names are quoted, so a key with
    control characters can never reach a terminal raw."""
    key = str(key)
    return key if key.isprintable() and key.strip() == key and key else repr(key)


def _shown(value: Any) -> str:
    """A scalar as written; a list or object by its kind: its repr could be huge, or nested
    deeper than repr can go."""
    if value is None or isinstance(value, (bool, int, float)):
        return _short(repr(value))
    return kind_of(value)


def _short(text: str, limit: int = 40) -> str:
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(text)


def coerce(entries: list[Any], rec: Recorder) -> tuple[list[dict[str, Any]], list[int | None]]:
    out: list[dict[str, Any]] = []
    origins: list[int | None] = []
    push, mark = out.append, origins.append
    record = rec.record
    copy = rec.copy
    own = fresh if copy else _shared
    for i, entry in enumerate(entries):
        # A message already exactly as this stage would write it (the same keys in the same
        # order, a role that keeps them, text content, a non-empty list of calls or a text
        # result id) needs no check: it is copied as it is, or in zero-copy mode kept as the
        # very same object.
        if type(entry) is dict and (order := _FLAT_ORDERS.get(tuple(entry))) is not None \
                and type(role := entry["role"]) is str and role in order[0] and type(entry["content"]) is str \
                and (order[1] is None or (type(extra := entry[order[1]]) is order[2] and (extra or order[2] is str))):
            if not copy:
                push(entry)
            elif order[2] is list:
                push({"role": role, "content": entry["content"], "tool_calls": [fresh(call) for call in extra]})
            else:
                push(entry.copy())
            mark(i)
            continue
        if type(entry) is not dict and not isinstance(entry, Mapping):
            record("not-a-map", i,
                   f"Dropped entry {i}: it is {kind_of(entry)}, "
                   "not a message object.")
            continue
        role = entry.get("role")
        if type(role) is not str or role not in _PLAIN_ROLES:  # the common roles need no trimming
            if not isinstance(role, str) or not (trimmed := role.strip(WHITESPACE)):
                why = "has no role" if role is None else (
                    "has a blank role" if isinstance(role, str) else f"has {kind_of(role)} as its role")
                record("no-role", i,
                       f"Dropped entry {i}: it {why}, so no provider could tell who said it.")
                continue
            if trimmed != role:
                record("role-trimmed", i,
                       f"Trimmed the whitespace around the role {role!r}, leaving {trimmed!r}.")
                role = trimmed
            elif type(role) is not str:
                role = str(role)

        content = entry.get("content")
        if type(content) is not str:
            raw = content
            content, how = to_text(raw)
            if how is not None:
                record(how, i,
                       "Content: " + _HOW[how].format(what=kind_of(raw), text=_short(content)) + ".")

        if role == "assistant":
            calls = entry.get("tool_calls")
            if calls is None and "metadata" in entry:
                calls = _lift(entry, "tool_calls", i, rec)
            if isinstance(calls, list) and calls:
                # The output owns its calls (editing it never edits the caller's input), unless
                # the caller gave up the input (``copy=False``): then only the list is new.
                msg = {"role": role, "content": content, "tool_calls": [own(call) for call in calls]}
            else:
                msg = {"role": role, "content": content}
        elif role == "tool":
            raw_id = entry.get("tool_call_id")
            if raw_id is None and "metadata" in entry:
                raw_id = _lift(entry, "tool_call_id", i, rec)
            tool_call_id = raw_id if type(raw_id) is str else to_id(raw_id)
            if raw_id is not None and type(raw_id) is not str:
                record("id-cast", i,
                       f"Cast the result's tool_call_id, {_shown(raw_id)}, to the string {_short(tool_call_id)}.",
                       tool_call_id=tool_call_id)
            msg = {"role": role, "content": content, "tool_call_id": tool_call_id}
        else:
            msg = {"role": role, "content": content}

        if not entry.keys() <= msg.keys():
            extra = [_field(k) for k in entry if k not in msg]
            record("field-discarded", i,
                   "Left out fields the flat shape has no place for: " + ", ".join(extra) + ".")
        push(msg)
        mark(i)
    return out, origins


# The key orders this stage writes: the roles that keep them, and the third key's type.
_FLAT_ORDERS: dict[tuple[str, ...], tuple[frozenset[str], str | None, type | None]] = {
    ("role", "content"): (frozenset(("user", "assistant", "system")), None, None),
    ("role", "content", "tool_calls"): (frozenset(("assistant",)), "tool_calls", list),
    ("role", "content", "tool_call_id"): (frozenset(("tool",)), "tool_call_id", str),
}


def _shared(call: Any) -> Any:
    return call


def _lift(entry: Mapping, key: str, index: int, rec: Recorder) -> Any:
    """Stored buffer rows keep pairing fields under ``metadata``."""
    meta = entry.get("metadata")
    if not isinstance(meta, Mapping):
        return None
    value = meta.get(key)
    used = value is not None if key == "tool_call_id" else isinstance(value, list) and bool(value)
    if used:
        rec.record("metadata-lifted", index,
                   f"Read {key} from the stored row's metadata, where the buffer keeps it.")
    return value

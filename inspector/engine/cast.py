"""Scalars to text the way the reference runtime (PHP, precision 14) casts them.

Content and ids are cast by the same functions so that a call id and the id of the
result answering it can never be cast differently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import orjson

# PHP's trim() set: the reference runtime decides what counts as blank.
WHITESPACE = " \t\n\r\0\x0b"

def kind_of(value: Any) -> str:
    """What kind of value this is, in JSON's words ("an array", never "a list"): the one
    describer every explanation and error uses."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "a byte string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__name__} value"


# How a value became text; None means it already was text (or was null/missing).
CAST = "content-cast"
SERIALIZED = "content-serialized"
UNSERIALIZABLE = "content-unserializable"


def php_float(value: float) -> str:
    """Format a float as PHP's string cast does with ``precision=14``."""
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INF" if value > 0 else "-INF"
    mantissa, exponent = ("%.13e" % value).split("e")
    negative = mantissa.startswith("-")
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    decpt = int(exponent) + 1 if digits != "0" else 1
    sign = "-" if negative else ""
    if (decpt < -3) if decpt < 0 else (decpt > 14):
        exp = decpt - 1
        tail = digits[1:] or "0"
        return f"{sign}{digits[0]}.{tail}E{'-' if exp < 0 else '+'}{abs(exp)}"
    if decpt <= 0:
        return f"{sign}0.{'0' * -decpt}{digits}"
    if len(digits) <= decpt:
        return sign + digits + "0" * (decpt - len(digits))
    return f"{sign}{digits[:decpt]}.{digits[decpt:]}"


_INT_LIMIT = 2**63


def to_text(value: Any) -> tuple[str, str | None]:
    """Return ``(text, how)``: ``how`` is None when no conversion took place."""
    if value is None:
        return "", None
    if isinstance(value, str):
        return str(value), None
    if value is True:
        return "1", CAST
    if value is False:
        return "", CAST
    if isinstance(value, int):
        if -_INT_LIMIT <= value < _INT_LIMIT:
            return int.__repr__(value), CAST
        # The reference runtime has 64-bit integers: larger ones arrive there as floats.
        try:
            return php_float(float(value)), CAST
        except OverflowError:
            return ("INF" if value > 0 else "-INF"), CAST
    if isinstance(value, float):
        return php_float(value), CAST
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8"), CAST
        except UnicodeDecodeError:
            return "", UNSERIALIZABLE
    try:
        if isinstance(value, Mapping) and not isinstance(value, dict):
            value = dict(value)
        return orjson.dumps(value).decode("utf-8"), SERIALIZED
    except (TypeError, ValueError):
        return "", UNSERIALIZABLE


def to_id(value: Any) -> str:
    """Cast an id; never trimmed, null or missing becomes ``""``."""
    return value if type(value) is str else to_text(value)[0]


def call_id(call: Mapping) -> str:
    """A call's id as MEM-11 reads it: ``tool_call_id`` unless missing or null (an empty
    one still shadows ``id``), else ``id``; cast like any id."""
    cid = call.get("tool_call_id")
    if type(cid) is str:
        return cid
    return to_id(call.get("id") if cid is None else cid)


def fresh(value: Any, depth: int = 0) -> Any:
    """A copy of a JSON value in which every list and dict is new (strings and numbers
    cannot change, so they are shared). Other containers (tuples, other mappings) are kept
    as they are. Shallow values, the usual case, are copied at C speed level by level; past
    ``_SHALLOW`` levels a loop takes over, so any depth the parser accepts is copied."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return value
    if depth > _SHALLOW:
        return _fresh_deep(value)
    copy = value.copy()
    for key, item in (copy.items() if kind is dict else enumerate(copy)):
        if type(item) is dict or type(item) is list:
            copy[key] = fresh(item, depth + 1)  # a value replaced in place: the size stays
    return copy


_SHALLOW = 50


def _fresh_deep(value: Any) -> Any:
    root = value.copy()
    stack = [root]
    while stack:
        copy = stack.pop()
        for key, item in (copy.items() if type(copy) is dict else enumerate(copy)):
            if type(item) is dict or type(item) is list:
                copy[key] = new = item.copy()
                stack.append(new)
    return root


# The runtime's falsy strings: ids spelled like this can pair with nothing.
UNUSABLE = frozenset(("", "0"))

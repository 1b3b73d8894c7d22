"""Hypothesis strategies for hostile histories, as the JSON text a file would hold.

Values the JSON writer cannot produce (nesting deeper than 255, numbers beyond 64 bits,
1e400) are spliced into the text through placeholders, so the files are what a parser sees.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from hypothesis import strategies as st

from inspector.bundled import samples_dir

# Raw number texts: beyond int64 and uint64, a float's limits, negative zero, exponents.
NUMBERS = ["123456789012345678901234567890", "-123456789012345678901234567890", "18446744073709551615",
           "18446744073709551616", "9223372036854775808", "-9223372036854775809", "1e308", "-1.7976931348623157e308",
           "1E-400", "5e-324", "-0.0", "0.1", "1.0", "1e25", "0", "1", "-1"]
DEPTHS = [2, 100, 254, 255, 256, 300, 600, 1000, 1020]
TAG = "\u00a7HOSTILE\u00a7"


def deep_text(depth: int, obj: bool, leaf: str = "1") -> str:
    return ('{"a":' * depth + leaf + "}" * depth) if obj else ("[" * depth + leaf + "]" * depth)


NUMBER = st.sampled_from(NUMBERS).map(lambda n: f"{TAG}n{n}")
DEEP = st.builds(lambda d, o: f"{TAG}d{d}{'o' if o else 'l'}", st.sampled_from(DEPTHS), st.booleans())
TEXT = st.one_of(st.text(max_size=6),
                 st.sampled_from(["user", "assistant", "tool", "system", " user ", "USER", "model", "function",
                                  "0", "", " ", "\u0000", "[bold]x[/]", "\x1b[31mred", "c1", "call_1",
                                  "tool_use", "tool_result", "function_call", "function_call_output", "text"]))
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
                   TEXT, NUMBER, DEEP)
KEYS = st.sampled_from(["role", "content", "tool_calls", "tool_call_id", "id", "type", "function", "name",
                        "arguments", "metadata", "text", "input", "tool_use_id", "call_id", "output", "parts",
                        "functionCall", "functionResponse", "args", "response", "toolUse", "toolResult",
                        "toolUseId", "messages", "contents", "system", "timestamp"])
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(KEYS, inner, max_size=4)), max_leaves=12)

FIELDS = ("role", "content", "tool_calls", "tool_call_id", "metadata", "name")


def _message_template(role: str) -> dict[str, Any]:
    if role == "assistant":
        return {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    if role == "tool":
        return {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    return {"role": role, "content": "hi"}


@st.composite
def flat_histories(draw) -> Any:
    """Flat messages where any field (or a call's field) may hold any JSON type."""
    roles = draw(st.lists(st.sampled_from(["system", "user", "assistant", "tool"]), min_size=1, max_size=6))
    messages: list[Any] = []
    for role in roles:
        msg = _message_template(role)
        for field in draw(st.lists(st.sampled_from(FIELDS), max_size=2, unique=True)):
            msg[field] = draw(VALUE)
        calls = msg.get("tool_calls") if role == "assistant" else None
        if isinstance(calls, list) and calls and isinstance(calls[0], dict):
            call = calls[0]
            for field in draw(st.lists(st.sampled_from(["id", "tool_call_id", "type", "function", "name",
                                                        "arguments"]), max_size=2, unique=True)):
                call[field] = draw(VALUE)
        messages.append(msg if draw(st.integers(0, 9)) else draw(VALUE))
    return messages


def load_samples() -> dict[str, Any]:
    return {p.name: json.loads(p.read_text()) for p in sorted(samples_dir().glob("[0-9]*.json"))}


SAMPLES = load_samples()


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


def _get(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


@st.composite
def sample_mutations(draw) -> Any:
    """A bundled sample (every provider format) with one to three places changed: a value
    replaced by any JSON, a key deleted, a list item repeated, a value wrapped in a list,
    or nested far too deep."""
    name = draw(st.sampled_from(sorted(SAMPLES)))
    doc = orjson.loads(orjson.dumps(SAMPLES[name]))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["replace", "replace", "delete", "repeat", "wrap", "deep"]))
        if not path:
            if how == "replace":
                doc = draw(VALUE)
            continue
        parent, step = _get(doc, path[:-1]), path[-1]
        if how == "replace":
            parent[step] = draw(VALUE)
        elif how == "delete":
            del parent[step]
        elif how == "repeat" and isinstance(parent, list):
            parent.insert(step, orjson.loads(orjson.dumps(parent[step])))
        elif how == "wrap":
            parent[step] = [parent[step]]
        elif how == "deep":
            parent[step] = draw(DEEP)
    return name, doc


def to_text(document: Any) -> bytes:
    """The document as a file would hold it, placeholders spliced in as raw JSON."""
    text = orjson.dumps(document).decode()
    if TAG not in text:
        return text.encode()
    parts = text.split(f'"{TAG}')
    out = [parts[0]]
    for part in parts[1:]:
        token, rest = part.split('"', 1)
        if token[0] == "n":
            out.append(token[1:])
        else:
            out.append(deep_text(int(token[1:-1]), token[-1] == "o"))
        out.append(rest)
    return "".join(out).encode()

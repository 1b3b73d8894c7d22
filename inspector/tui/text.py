"""Message text is data: turn any value into inert, bounded, single-purpose text.

Everything a history contains reaches the screen through these helpers, as ``rich.text.Text``
built from plain strings (never markup), with control and direction-changing characters
replaced by visible escapes and every preview cut before it can cost time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from rich.console import Group
from rich.padding import Padding
from rich.text import Text

PREVIEW_SOURCE = 512  # characters looked at for a one-line preview, whatever the content's size
DETAIL_STRING = 4000  # longest string shown in the details pane before it is clipped
DETAIL_ITEMS = 200  # most list items / object keys shown in the details pane


def _escape_table(single_line: bool) -> dict[int, str]:
    table: dict[int, str] = {}
    for code in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)):
        table[code] = f"\\x{code:02x}"
    # Direction overrides/isolates and line separators would reorder or break the screen.
    for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C,
                 0x2028, 0x2029, 0xFEFF):
        table[code] = f"\\u{code:04x}"
    if single_line:
        table[ord("\n")] = "⏎"
        table[ord("\t")] = " "
    else:
        table[ord("\n")] = "\n"
        table[ord("\t")] = "    "
    return table


_ONE_LINE = _escape_table(single_line=True)
_MULTI_LINE = _escape_table(single_line=False)


def inert(text: str, single_line: bool = True) -> str:
    """Replace every character that could move the cursor, restyle or reorder the screen."""
    return text.translate(_ONE_LINE if single_line else _MULTI_LINE)


def indented(text: Text, indent: int) -> Padding:
    """A block whose wrapped lines stay under its first (a plain Text wraps to column 0)."""
    return Padding(text, (0, 0, 0, indent))


def json_block(text: str) -> Group:
    """Indented JSON whose long lines wrap under their own start, not at the left edge."""
    lines = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        lines.append(indented(Text(body), len(line) - len(body)) if body is not line else Text(line))
    return Group(*lines)


def preview(value: Any, limit: int = PREVIEW_SOURCE) -> str:
    """One line of at most ``limit`` source characters, escaped: cheap even for a 1 MB line."""
    if isinstance(value, str):
        text = value
    elif value is None:
        text = ""
    else:
        text = compact_json(value, limit * 2)
    clipped = len(text) > limit
    text = inert(text[:limit])
    return text + "…" if clipped else text


def compact_json(value: Any, limit: int | None = None) -> str:
    """Compact JSON text for a preview of raw (not yet coerced) content or entries."""
    try:
        data = orjson.dumps(_clip(value, limit or DETAIL_STRING), option=orjson.OPT_NON_STR_KEYS)
        return data.decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)[: limit or DETAIL_STRING]


def pretty_json(value: Any) -> str:
    """Indented JSON of a message for the details pane, long strings and lists clipped."""
    try:
        data = orjson.dumps(_clip(value, DETAIL_STRING), option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
        text = data.decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        text = repr(value)[:DETAIL_STRING]
    return inert(text, single_line=False)


def _clip(value: Any, string_limit: int, depth: int = 0) -> Any:
    """A copy small enough to show: long strings, long lists and deep nesting are cut."""
    if isinstance(value, str):
        if len(value) > string_limit:
            return value[:string_limit] + f"… ({len(value) - string_limit:,} more characters)"
        return value
    if depth > 12:
        return "…"
    if isinstance(value, Mapping):
        out = {}
        for n, (k, v) in enumerate(value.items()):
            if n >= DETAIL_ITEMS:
                out["…"] = f"{len(value) - DETAIL_ITEMS:,} more keys"
                break
            out[str(k)] = _clip(v, string_limit, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        items = [_clip(v, string_limit, depth + 1) for v in value[:DETAIL_ITEMS]]
        if len(value) > DETAIL_ITEMS:
            items.append(f"… {len(value) - DETAIL_ITEMS:,} more items")
        return items
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value)} bytes>"
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return repr(value)[:string_limit]


_ID_KEYS = ("id", "tool_use_id", "call_id", "toolUseId", "tool_call_id")
_TEXT_KEYS = ("text", "content", "parts", "output", "arguments", "input", "args", "response", "thinking")


def _block_summary(block: Any) -> str:
    """`tool_use toolu_01 get_weather {"city":"Lyon"}`: kind, id, name, then the payload."""
    if not isinstance(block, Mapping):
        return compact_json(block, PREVIEW_SOURCE)
    inner: Mapping = block
    kind = block.get("type")
    if not isinstance(kind, str) and len(block) == 1:  # Gemini and Bedrock: {"functionCall": {...}}
        kind, value = next(iter(block.items()))
        if isinstance(value, Mapping):
            inner = value
        elif isinstance(value, list):  # Bedrock's system: [{"text": ...}]
            return f"{kind} {describe_original(value)}"
        else:
            return f"{kind} {compact_json(value, PREVIEW_SOURCE) if not isinstance(value, str) else value}"
    parts = [str(kind)] if kind is not None else []
    for key in _ID_KEYS:
        if isinstance(inner.get(key), str):
            parts.append(inner[key])
            break
    if isinstance(inner.get("name"), str):
        parts.append(inner["name"])
    for key in _TEXT_KEYS:
        if key in inner and key != "type":
            value = inner[key]
            if isinstance(value, list):  # a result's own blocks
                value = describe_original(value)
            parts.append(value if isinstance(value, str) else compact_json(value, PREVIEW_SOURCE))
            break
    if len(parts) <= 1 and inner is not block:  # {"json": {...}}: nothing known inside, show it
        parts.append(compact_json(inner, PREVIEW_SOURCE))
    return " ".join(parts)


def describe_original(value: Any) -> str:
    """A one-line reading of an original provider object (a message, a block, or items),
    for the import view: its blocks' kinds, ids and text rather than raw JSON braces."""
    if isinstance(value, list):
        return " · ".join(describe_original(v) for v in value[:20])
    if not isinstance(value, Mapping):
        return compact_json(value, PREVIEW_SOURCE)
    if isinstance(value.get("type"), str):
        return _block_summary(value)
    if len(value) == 1 and isinstance(next(iter(value.values())), str):  # {"system": "..."}
        return next(iter(value.values()))
    for key in ("content", "parts"):
        blocks = value.get(key)
        if isinstance(blocks, list):
            return " · ".join(_block_summary(b) for b in blocks[:20])
        if isinstance(blocks, str) and "type" not in value:
            return blocks
    return _block_summary(value)

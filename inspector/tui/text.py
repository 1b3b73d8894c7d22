"""Message text is data: turn any value into inert, bounded, single-purpose text.

Everything a history contains reaches the screen through these helpers, as ``rich.text.Text``
built from plain strings (never markup), with control and direction-changing characters
replaced by visible escapes and every preview cut before it can cost time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
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


class Indented:
    """A block whose wrapped lines stay under its first (a plain Text wraps to column 0).

    The indent gives way, down to none, when the longest unbroken word (a call id, a quoted
    id with its brackets) would otherwise not fit the width: the word then stands whole on
    a line of its own instead of being cut in the middle."""

    def __init__(self, text: RenderableType, indent: int) -> None:
        self.text = text
        self.indent = indent
        plain = text.plain if isinstance(text, Text) else ""  # another renderable keeps its indent
        self.longest = max((cell_len(word) for word in plain.split()), default=0)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = options.max_width - self.longest
        indent = max(0, min(self.indent, room))
        yield Padding(self.text, (0, 0, 0, indent))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        inner = Measurement.get(console, options, self.text)
        return Measurement(inner.minimum, inner.maximum + self.indent)


def indented(text: RenderableType, indent: int) -> Indented:
    return Indented(text, indent)


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

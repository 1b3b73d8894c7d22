"""JSON text read for positions only: where each element of an array starts and ends, where
the value under a key starts, and a JSON array's items with their spans. A store that
rewrites its own JSON (a Cline task file, an OpenCode export, a Crush or Goose row's parts)
cuts or replaces by these positions, so every other byte stays as the agent wrote it.

One scanner, for ``str`` and ``bytes`` alike (offsets are in the text given: characters for
``str``, bytes for ``bytes``); each value is scanned once, so a document of n elements is
read in time linear in its size.
"""

from __future__ import annotations

import json
import re
from typing import Any, AnyStr


class _Syntax:
    def __init__(self, kind: type) -> None:
        enc = (lambda s: s.encode()) if kind is bytes else (lambda s: s)
        self.token = re.compile(enc(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]'))
        self.scalar = re.compile(enc(r"-?[0-9][0-9.eE+-]*|true|false|null"))
        self.ws = re.compile(enc(r"[ \t\r\n]*"))
        self.quote, self.comma, self.close_array, self.close_object = enc('"'), enc(","), enc("]"), enc("}")
        self.open_array = enc("[")
        self.opening = (enc("["), enc("{"))
        self.closing = (enc("]"), enc("}"))


_STR, _BYTES = _Syntax(str), _Syntax(bytes)


def _syntax(text: AnyStr) -> _Syntax:
    return _BYTES if isinstance(text, (bytes, bytearray)) else _STR


def value_end(text: AnyStr, i: int) -> int:
    """The end of the JSON value that starts at ``i``."""
    s = _syntax(text)
    c = text[i:i + 1]
    if c == s.quote:
        return s.token.match(text, i).end()
    if c not in s.opening:
        return s.scalar.match(text, i).end()
    depth = 0
    for tok in s.token.finditer(text, i):
        t = tok.group()
        if t in s.opening:
            depth += 1
        elif t in s.closing:
            depth -= 1
            if depth == 0:
                return tok.end()
    raise ValueError("unterminated JSON value")


def array_spans(text: AnyStr, i: int) -> tuple[int, int, list[tuple[int, int]]]:
    """The array (or object) whose bracket is at ``i``: its start, its end, and the (start,
    end) of each element (of each member's value, for an object)."""
    s = _syntax(text)
    close = s.close_array if text[i:i + 1] == s.open_array else s.close_object
    out = []
    j = s.ws.match(text, i + 1).end()
    while text[j:j + 1] != close:
        if close == s.close_object:
            j = s.ws.match(text, value_end(text, j)).end() + 1      # the key and its colon
            j = s.ws.match(text, j).end()
        e = value_end(text, j)
        out.append((j, e))
        j = s.ws.match(text, e).end()
        if text[j:j + 1] == s.comma:
            j = s.ws.match(text, j + 1).end()
        elif text[j:j + 1] != close:
            raise ValueError("not a JSON array or object")
    return i, j + 1, out


def element_spans(text: AnyStr, start: int) -> list[tuple[int, int]]:
    """The (start, end) of each element of the (valid) JSON array whose ``[`` is at ``start``."""
    return array_spans(text, start)[2]


def key_at(text: AnyStr, path: tuple[str, ...], i: int | None = None) -> int:
    """Where the value under the keys ``path`` starts (from the object at ``i``, the root by default)."""
    s = _syntax(text)
    i = s.ws.match(text).end() if i is None else i
    for key in path:
        j = s.ws.match(text, i + 1).end()
        while True:
            kend = value_end(text, j)
            name = json.loads(text[j:kend])
            v = s.ws.match(text, s.ws.match(text, kend).end() + 1).end()
            if name == key:
                i = v
                break
            j = s.ws.match(text, value_end(text, v)).end()
            j = s.ws.match(text, j + 1).end()
    return i


def items(text: Any) -> tuple[list[Any] | None, list[tuple[int, int]]]:
    """A JSON array's items, decoded, and each item's (start, end) in ``text``; (None, [])
    for anything that is not text holding one JSON array."""
    if not isinstance(text, str):
        return None, []
    decoder = json.JSONDecoder()
    try:
        i = len(text) - len(text.lstrip())
        if text[i:i + 1] != "[":
            return None, []
        found: list[Any] = []
        spans: list[tuple[int, int]] = []
        i += 1
        while True:
            while i < len(text) and text[i] in " \t\r\n":
                i += 1
            if text[i] == "]":
                break
            value, end = decoder.raw_decode(text, i)
            found.append(value)
            spans.append((i, end))
            i = end
            while text[i] in " \t\r\n":
                i += 1
            if text[i] == ",":
                i += 1
            elif text[i] != "]":
                return None, []
        if text[i + 1:].strip():
            return None, []
        return found, spans
    except (ValueError, IndexError):
        return None, []

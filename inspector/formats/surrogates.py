"""Half of a UTF-16 pair (a lone surrogate: an emoji cut in two by a truncation that counted
UTF-16 code units) in a document written for a provider that refuses it.

JSON's grammar allows the escape ``"\\ud83d"`` on its own, and JavaScript agents write it
(``JSON.stringify`` of a string cut in the middle of an emoji), but UTF-8 cannot hold it:
Anthropic refuses the request ("The request body is not valid JSON: no low surrogate in
string"; anthropics/claude-code #6199, and Claude Code's CHANGELOG 2.1.132, which sanitizes
it on load since). The reader keeps such a string as it is (``io.loads_surrogates``); the
export of a format whose provider refuses it replaces each half character by U+FFFD, one
event per entry, and changes nothing else: in a JSON Lines session only the escape's six
bytes on that line are rewritten, every other byte and line stays as it was.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

import orjson

from ..engine import EXPORT_CLAUSE, Kind, declare
from .jsonl import Lines

# Providers whose API refuses a lone surrogate (observed): see the module docstring.
REFUSED_BY = frozenset({"anthropic"})
REFUSAL = "The request body is not valid JSON: no low surrogate in string"
REPLACEMENT = "\ufffd"

EMITS = declare(
    Kind("surrogate-replaced", EXPORT_CLAUSE, False, "half character replaced",
         "Half of a UTF-16 pair (an emoji cut in two), which the provider refuses as invalid JSON, was replaced by "
         "U+FFFD; the rest of the entry is unchanged."),
)

SURROGATE = re.compile("[\ud800-\udfff]")
_MAYBE = re.compile(rb"\\u[dD][89a-fA-F]")
_ESCAPE = re.compile(rb"\\u([0-9a-fA-F]{4})|\\.", re.S)


def _high(unit: int) -> bool:
    return 0xD800 <= unit <= 0xDBFF


def _low(unit: int) -> bool:
    return 0xDC00 <= unit <= 0xDFFF


def fix_escapes(raw: bytes) -> tuple[bytes, int]:
    """``raw`` (one JSON text) with every lone surrogate escape replaced by ``\\ufffd``, and
    how many were. Escapes are read in order, so ``\\\\ud83d`` (a backslash, then text) is
    not one; a high escape right before a low one is a pair and stays."""
    escapes = [(m.start(), m.end(), int(m.group(1), 16)) for m in _ESCAPE.finditer(raw) if m.group(1)]
    lone: list[tuple[int, int]] = []
    k = 0
    while k < len(escapes):
        start, end, unit = escapes[k]
        if _high(unit) and k + 1 < len(escapes) and escapes[k + 1][0] == end and _low(escapes[k + 1][2]):
            k += 2
            continue
        if _high(unit) or _low(unit):
            lone.append((start, end))
        k += 1
    if not lone:
        return raw, 0
    out, at = [], 0
    for start, end in lone:
        out += [raw[at:start], b"\\ufffd"]
        at = end
    out.append(raw[at:])
    return b"".join(out), len(lone)


def clean(value: Any, path: str = "") -> tuple[Any, list[tuple[str, int, int]]]:
    """``value`` with lone surrogates replaced, copied only along the paths that change (the
    export's objects are the import's: they are never edited), and (path, code unit,
    offset) of each replaced character."""
    if isinstance(value, str):
        found = [(path, ord(m.group()), m.start()) for m in SURROGATE.finditer(value)]
        return (SURROGATE.sub(REPLACEMENT, value), found) if found else (value, [])
    if isinstance(value, Mapping):
        changed, found, out = False, [], {}
        for key, v in value.items():
            new_key, f1 = clean(key, f"{path}.{key}".lstrip(".") + " (key)") if isinstance(key, str) else (key, [])
            new, f2 = clean(v, f"{path}.{key}".lstrip("."))
            changed |= bool(f1 or f2)
            found += f1 + f2
            out[new_key] = new
        return (out, found) if changed else (value, [])
    if isinstance(value, list):
        pairs = [clean(v, f"{path}[{n}]") for n, v in enumerate(value)]
        found = [f for _, fs in pairs for f in fs]
        return ([v for v, _ in pairs], found) if found else (value, [])
    return value, []


def _sentence(where: str, found: list[tuple[str, int, int]]) -> str:
    path, unit, offset = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return (f"{where}: half of a UTF-16 pair (U+{unit:04X} at character {offset} of {path or 'the value'}){more} "
            f"replaced by U+FFFD: the provider refuses it (\"{REFUSAL}\").")


def replace(document: Any, notes: Any, im: Any) -> Any:
    """The export's document with every lone surrogate replaced by U+FFFD, one event per
    entry (a session line, a message of the history); the document itself when it holds none."""
    if isinstance(document, Lines):
        return _lines(document, notes, im)
    try:
        orjson.dumps(document)            # C speed: a document orjson can write holds no lone surrogate
        return document
    except (TypeError, orjson.JSONEncodeError):
        pass
    new, found = clean(document)
    if not found:
        return document
    container = getattr(im, "container", None) or ""
    history = new.get(container) if container and isinstance(new, Mapping) else new
    old_history = document.get(container) if container and isinstance(document, Mapping) else document
    if isinstance(history, list) and isinstance(old_history, list) and len(history) == len(old_history):
        origin = _Rows(im)
        for n, (a, b) in enumerate(zip(old_history, history)):
            if a is not b:
                _, per = clean(a)
                notes.note("surrogate-replaced", _sentence(f"{container or 'history'}[{n}]", per),
                           origin=origin(n) if getattr(im, "history", None) is old_history else None)
        rest = [f for f in found if not f[0].startswith(container)] if container else []
        if rest:
            notes.note("surrogate-replaced", _sentence("the request body", rest))
    else:
        notes.note("surrogate-replaced", _sentence("the document", found))
    return new


def _lines(doc: Lines, notes: Any, im: Any) -> Lines:
    raw, entries = doc.raw, doc.entries
    changed = False
    same = getattr(im, "format", None) == doc.format
    origin = _Rows(im)
    for i, entry in enumerate(entries):
        if entry is None or not _MAYBE.search(raw[i]):
            continue
        new, found = clean(entry)
        if not found:
            continue
        if not changed:
            raw, entries, changed = list(raw), list(entries), True
        fixed, count = fix_escapes(raw[i])
        raw[i] = fixed if count else raw[i]
        entries[i] = new
        notes.note("surrogate-replaced", _sentence(f"line {i + 1}", found), origin=origin(i) if same else None)
    return dataclasses.replace(doc, raw=raw, entries=entries) if changed else doc


class _Rows:
    """The first flat row each session line (or history message) became, built on first
    need in one pass over the import (an export that replaces nothing never builds it)."""

    def __init__(self, im: Any):
        self.im, self.rows = im, None

    def __call__(self, line: int) -> int | None:
        if self.rows is None:
            self.rows = {}
            for o, loc in enumerate(getattr(self.im, "sources", ())):
                self.rows.setdefault(loc.message, o)
        return self.rows.get(line)

"""Rules about the text itself, shared by every target's table.

A lone UTF-16 surrogate (half of an emoji split by a truncation that counted UTF-16 code
units) cannot be written as UTF-8: a strict JSON reader refuses the whole body, whatever
the provider. Inspector's own reader refuses such a file with its line and column (orjson
rejects a ``\\ud83d`` escape without its pair), so the rule sees them only in a document
handed over as Python objects (the library API, stdlib ``json`` readers, a TUI paste).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from .base import Hit, Rule, View, calls_of, is_map

SURROGATE = re.compile("[\ud800-\udfff]")
HIGH = range(0xD800, 0xDC00)


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(field path, string) of every string in a message, keys included."""
    if isinstance(value, str):
        yield path, value
    elif is_map(value):
        for k, v in value.items():
            if isinstance(k, str):
                yield f"{path}.{k} (key)", k
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for n, v in enumerate(value):
            yield from _strings(v, f"{path}[{n}]")


def lone_surrogate(view: View, refusal: str | None = None) -> Iterator[Hit]:
    """Each row with a lone surrogate, named by its field and character offset (one hit a
    row: the first one the provider's reader stops at). orjson refuses to write a lone
    surrogate, so a history it writes has none and is not walked. ``refusal``: the
    provider's own words for a half pair whose second half is missing, where known."""
    if _writable(view):
        return
    for i, m in view.rows:
        for path, text in _strings(m, "message"):
            found = SURROGATE.search(text)
            if found is None:
                continue
            ch = ord(found.group())
            kind = "high" if ch in HIGH else "low"
            what = refusal if refusal and kind == "high" else f"invalid {kind} surrogate in string"
            yield Hit(i, f"The request body is not valid JSON: {what} "
                         f"(U+{ch:04X} at character {found.start()} of {path[len('message.'):] or 'the message'})")
            break


def _writable(view: View) -> bool:
    def build() -> bool:
        try:
            orjson.dumps(view.messages)
        except (TypeError, orjson.JSONEncodeError):       # a surrogate, or a value orjson cannot write
            return False
        return True
    return view.memo("orjson-writable", build)


def surrogate_rule(severity: str, source: str, refusal: str | None = None, repaired: bool = False) -> Rule:
    """``repaired``: the export to this provider replaces each half character by U+FFFD, one
    event per entry (``formats.surrogates``), because the provider refuses it."""
    fix = ("inspector normalize replaces each half character by U+FFFD (one event per entry) and changes nothing "
           "else of the entry." if repaired else
           "Remove the half character or restore its pair where the text was cut; Inspector does not edit message "
           "text for a provider that does not refuse it.")
    return Rule("lone-surrogate", lambda view: lone_surrogate(view, refusal), severity, source,
                "a lone UTF-16 surrogate (half of a split emoji) in a message", fix)


def call_arguments(m: Any) -> Iterator[tuple[int, Any, Any]]:
    """(call position, id, arguments) of each call of a flat row."""
    for j, call in enumerate(calls_of(m)):
        if is_map(call):
            yield j, call.get("tool_call_id", call.get("id")), call.get("arguments")

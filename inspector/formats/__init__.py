"""Provider formats in and out. Importers turn a parsed document into the flat messages
the engine consumes, keeping where each came from; exporters go back the other way.

Only the FlowDrop flat shape is here so far; each provider gets its own module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..io import InputError

FORMATS = ("flat",)


@dataclass(slots=True)
class Imported:
    format: str
    messages: list[Any]
    document: Any
    notes: list[str] = field(default_factory=list)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def import_flat(document: Any, name: str) -> Imported:
    if isinstance(document, list):
        return Imported("flat", document, document)
    if isinstance(document, dict):
        messages = document.get("messages")
        if isinstance(messages, list):
            return Imported("flat", messages, document)
        if "messages" in document:
            raise InputError(name, f'"messages" is {_kind(messages)}, expected an array of messages')
        raise InputError(name, 'expected a JSON array of messages or an object with a "messages" array; '
                               "the top-level object has no \"messages\" key")
    raise InputError(name, f'expected a JSON array of messages or an object with a "messages" array, '
                           f"got {_kind(document)}")


def import_history(document: Any, name: str = "<input>", fmt: str = "auto") -> Imported:
    if fmt not in ("auto", *FORMATS):
        raise InputError(name, f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    return import_flat(document, name)

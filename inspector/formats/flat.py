"""FlowDrop's flat shape (and stored buffer rows): what the engine reads and writes.

Importing is the identity; exporting writes the engine's own output, as ``normalize``
always has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import Result
from ..io import InputError
from .base import Imported, Loc, kind_of

NAME = "flat"


def import_(document: Any, name: str) -> Imported:
    if isinstance(document, list):
        history, container = document, None
    elif isinstance(document, Mapping):
        history = document.get("messages")
        if not isinstance(history, list):
            if "messages" in document:
                raise InputError(name, f'"messages" is {kind_of(history)}, expected an array of messages')
            raise InputError(name, 'expected a JSON array of messages or an object with a "messages" array; '
                                   'the top-level object has no "messages" key')
        container = "messages"
    else:
        raise InputError(name, f'expected a JSON array of messages or an object with a "messages" array, '
                               f"got {kind_of(document)}")
    im = Imported(NAME, history, document, container=container, history=history)
    for i, m in enumerate(history):
        calls = m.get("tool_calls") if isinstance(m, Mapping) else None
        im.sources.append(Loc(i))
        im.calls.append([Loc(i, "tool_calls", (j,)) for j in range(len(calls))] if isinstance(calls, list) else [])
    return im


def export_same(im: Imported, result: Result) -> Any:
    return result.messages


def export_new(im: Imported, result: Result) -> Any:
    return result.messages

"""FlowDrop's flat shape (and stored buffer rows): what the engine reads and writes.

Importing is the identity; exporting writes the engine's own output, as ``normalize``
always has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    # Flat provenance is the identity: computed when asked, not for every record of a batch.
    im.sources = _Identity(history, _source_of)
    im.calls = _Identity(history, _calls_of)
    return im


def _source_of(index: int, message: Any) -> Loc:
    return Loc(index)


def _calls_of(index: int, message: Any) -> list[Loc]:
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    return [Loc(index, "tool_calls", (j,)) for j in range(len(calls))] if isinstance(calls, list) else []


class _Identity(Sequence):
    """A read-only list whose item ``i`` is ``make(i, history[i])``."""

    __slots__ = ("_history", "_make")

    def __init__(self, history: list[Any], make: Any) -> None:
        self._history = history
        self._make = make

    def __len__(self) -> int:
        return len(self._history)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        return self._make(index, self._history[index])


def export_same(im: Imported, result: Result) -> Any:
    return result.messages


export_new = export_same  # the engine's output is already flat, whatever it came from

"""FlowDrop's flat shape (and stored buffer rows): what the engine reads and writes.

Importing is the identity; exporting writes the engine's own output, as ``normalize``
always has. A request body keeps every other field: only its ``messages`` are replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import Result
from ..io import InputError
from .base import Exported, Imported, Loc, PerMessage, describe_block, kind_of
from .shape import shape_of
from .format import Format

NAME = "flat"
# Evidence of the flat shape alone: stored rows keep pairing in metadata, and calls spell
# their id ``tool_call_id`` (or carry a ``name`` without OpenAI's ``function`` object).
METADATA_PAIRING = frozenset({"tool_calls", "tool_call_id"})


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
    im.sources = PerMessage(history, _source_of)
    im.calls = PerMessage(history, _calls_of)
    return im


def _source_of(index: int, message: Any) -> Loc:
    return Loc(index)


def _calls_of(index: int, message: Any) -> list[Loc]:
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    return [Loc(index, "tool_calls", (j,)) for j in range(len(calls))] if isinstance(calls, list) else []


def export_same(im: Imported, result: Result, notes: Exported) -> Any:
    if im.container is None:
        return result.messages
    body = dict(im.document)
    body["messages"] = result.messages
    return body


def export_new(im: Imported, result: Result, notes: Exported) -> Any:
    """The engine's output is already flat. A body keeps its other fields; the history list
    and the top-level fields that were read into messages (e.g. ``system``) are replaced by
    ``messages``."""
    if im.container is None or not isinstance(im.document, Mapping):
        return result.messages
    read = {im.container}
    read.update(loc.message for loc in im.sources if isinstance(loc.message, str))
    body = {k: v for k, v in im.document.items() if k not in read}
    body["messages"] = result.messages
    return body


def evidence(document: Any) -> list[str]:
    shape = shape_of(document, "messages")
    found = []
    if METADATA_PAIRING & shape.metadata_keys:
        found.append("stored buffer rows with tool pairing in metadata")
    if any("tool_call_id" in keys or ("name" in keys and "function" not in keys) for keys in shape.call_keys):
        found.append("calls in the flat spelling (tool_call_id / name)")
    return found


FORMAT = Format(
    NAME, "FlowDrop flat messages",
    "FlowDrop's flat messages and stored buffer rows, as MEM-5 reads them",
    evidence, import_, export_same, export_new,
    describe_block=lambda block: describe_block(block, ("tool_call_id", "id"), ("content", "arguments")),
    suffixes=(".json",),
    own=True,
)

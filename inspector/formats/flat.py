"""FlowDrop's flat shape (and stored buffer rows): what the engine reads and writes.

Importing is the identity; exporting writes the engine's own output, as ``normalize``
always has. A request body keeps every other field: only its ``messages`` are replaced.

One message per line (``{"role": ...}`` on each line of a JSON Lines file, a common log
export) is the same history spelled as lines: it is read as :class:`~.jsonl.Lines`, each
message's row points at its line, and the repair goes back as lines, every line the engine
kept unchanged written as its own bytes (``session.rewrite_lines``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import Result
from ..io import InputError, dump_messages, parse_json
from . import openai_chat, session
from .base import Exported, Imported, Loc, PerMessage, describe_block, kind_of
from .jsonl import LineLoc, Lines, first_objects, split
from .shape import shape_of
from .format import Format

NAME = "flat"
# Evidence of the flat shape alone: stored rows keep pairing in metadata, and calls spell
# their id ``tool_call_id`` (or carry a ``name`` without OpenAI's ``function`` object).
METADATA_PAIRING = frozenset({"tool_calls", "tool_call_id"})


# The keys a chat message may have (OpenAI's chat message and the flat shape): a line with
# any other key is some agent's record, left to the store formats (a Goose message has
# ``created``, a Claude Code entry ``uuid``/``type``).
MESSAGE_KEYS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id", "function_call", "refusal",
                          "audio", "annotations", "reasoning_content", "metadata", "id"})


def _message(entry: Mapping) -> bool:
    return isinstance(entry.get("role"), str) and entry.keys() <= MESSAGE_KEYS


def sniff(head: bytes, name: str = "<input>") -> bool:
    """One chat message per line: two or more lines, each one a message and nothing else."""
    objects = first_objects(head)
    return len(objects) >= 2 and all(_message(o) for o in objects)


def parse(data: bytes, name: str = "<input>", **options: Any) -> Any:
    """``--from flat``: one JSON document, or one message per line."""
    return split(data, NAME, name) if sniff(data[:1 << 20], name) else parse_json(data, name)


def dump(document: Any, compact: bool = False) -> bytes:
    return document.to_bytes() if isinstance(document, Lines) else dump_messages(document, compact)


def _import_lines(document: Lines, name: str) -> Imported:
    """The messages of the lines. Messages spelled as OpenAI's (calls with a ``function``
    object) are read by the openai-chat reader, so that they are written back in their own
    spelling; anything else is MEM-5's own reading."""
    lines = [i for i, entry in enumerate(document.entries) if entry is not None]
    history = [document.entries[i] for i in lines]
    inner = openai_chat.import_(history, name) if openai_chat.evidence(history) and not evidence(history) else None
    messages = inner.messages if inner is not None else history
    im = Imported(NAME, messages, document, history=history)
    if inner is None:
        im.sources = [LineLoc(i) for i in lines]
        im.calls = [_calls_of(i, entry) for i, entry in zip(lines, history)]
    else:
        im.sources = [LineLoc(lines[loc.message], loc.key, loc.blocks) for loc in inner.sources]
        im.calls = [[LineLoc(lines[loc.message], loc.key, loc.blocks) for loc in row] for row in inner.calls]
        im.unconverted, im.reasoning = inner.unconverted, inner.reasoning
    im.state = (lines, inner)
    spelled = " (OpenAI's chat spelling)" if inner is not None else ""
    im.notes.append(f"one message per line{spelled}: {len(history)} messages on {len(document.raw)} lines")
    _refuse_unreadable_lines(document, name)
    session.skipped_lines(im, document, "it holds no message")
    return im


def _refuse_unreadable_lines(document: Lines, name: str) -> None:
    """A line that is not JSON, in a history of one message per line, is bad input: no agent
    reads this file and skips the line as its loader would, so its message would be lost
    without a word. The error names the first such line and column (and how many more), as a
    broken JSON document's does; a line the damage reader mended is read, with its note. The
    last line alone may be cut short (a writer stopped mid-line): it is kept, and the copy
    ends it, so that the next line appended is not glued to it (``line-ended``)."""
    last = max((i for i, line in enumerate(document.raw) if line.strip()), default=-1)
    bad = [i for i in document.bad if i != last]
    if not bad:
        return
    first = bad[0]
    try:
        parse_json(document.raw[first], name)
        reason, column = "not one JSON record", None
    except InputError as exc:
        reason, column = exc.reason, exc.column
    more = len(bad) - 1
    also = f" (and {more} more line{'s' if more != 1 else ''}: " + \
        ", ".join(str(i + 1) for i in bad[1:6]) + (", ..." if more > 5 else "") + ")" if more else ""
    raise InputError(name, f"line {first + 1} is not JSON: {reason}{also}; a history of one message per line "
                           "is read whole, so mend the line (or remove it) and read it again",
                     first + 1, column if column is not None else 1)


def _export_lines(im: Imported, result: Result, notes: Exported) -> Lines:
    """The repaired history as lines: a message written back as it was read keeps its line's
    bytes, in place while the order allows; any other gets a line of its own after the line
    before it (a changed message's old line goes, as a dropped one's does)."""
    doc: Lines = im.document
    lines, inner = im.state
    history = im.history
    if inner is not None:
        items = openai_chat.export_same(inner, result, notes)
        same = session.origins(history, items)
    else:
        items = result.messages
        same = [o if o is not None and m == history[o] else None for m, o in zip(items, result.origins)]
    if same == list(range(len(history))):
        return doc
    bad = set(doc.bad)
    removed = set(lines) | {i for i, line in enumerate(doc.raw) if i not in bad and not line.strip()}   # blank
    after: dict[int, list[tuple[bytes | None, Any]]] = {}
    previous = -1
    for item, o in zip(items, same):
        line = lines[o] if o is not None else None
        if line is not None and line > previous and not after.get(previous):
            removed.discard(line)
            previous = line
        else:
            after.setdefault(previous, []).append((doc.raw[line] if line is not None else None, item))
    return session.rewrite_lines(doc, NAME, removed, {}, after)


def import_(document: Any, name: str) -> Imported:
    if isinstance(document, Lines):
        return _import_lines(document, name)
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
    if isinstance(im.document, Lines):
        return _export_lines(im, result, notes)
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
    if isinstance(document, Lines):
        return ["one message per line"] if document.format == NAME else []
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
    sniff=sniff, parse=parse, dump=dump,
    own=True,
)

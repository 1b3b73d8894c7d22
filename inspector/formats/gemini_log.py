"""Gemini CLI's append-only session logs: ``~/.gemini/tmp/<project>/chats/session-*.jsonl``
(JSON Lines since 0.39, google-gemini/gemini-cli #23749; sub-agents under a folder named
after the parent session).

Read as Gemini CLI reads one (``loadConversationRecord`` in
``packages/core/src/services/chatRecordingService.ts`` at 5411f113): the first line holds the
metadata (``sessionId``, ``projectHash``, ``startTime``...); then, line by line,
- a message record (a string ``id``): set by its id; a later line with the same id (the CLI
  appends the whole record again whenever it changes: tokens, tool calls) replaces it where
  the first one stood;
- ``{"$set": {...}}``: metadata; with ``messages`` (a batch, written when the CLI syncs its
  history: compression, masking, a resume) every record read so far is replaced by the
  batch's (lyfuci/ai-terminal-manager ``src/atm/sources/gemini.py`` at 39009366 saw both
  kinds in real 0.58 files);
- ``{"$rewindTo": ID}``: that record and every later one go (none, if the id is unknown:
  everything goes);
- a line that is not JSON is skipped.

Written back as the CLI writes: every line stays as it is, and what changes is appended, as
the CLI itself appends: each changed record whole under its own id, or, when the repair
removes records, one ``$set.messages`` batch of every record the session keeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ..engine import EXPORT_CLAUSE, Kind, declare
from ..io import BOM
from .base import Exported
from .jsonl import Lines, dump_line, split

NAME = "gemini-cli-log"       # the format that reads the logs (gemini_cli.LOG_FORMAT)

EMITS = declare(
    Kind("record-appended", EXPORT_CLAUSE, False, "record appended",
         "A changed record is appended whole under its own id, as Gemini CLI appends a record it updates; "
         "Gemini CLI reads it in place of the earlier one.", "change"),
    Kind("messages-reset", EXPORT_CLAUSE, False, "messages reset",
         "A $set.messages line is appended, as Gemini CLI writes when it syncs its history: it replaces every "
         "record before it, so the records the repair removed are gone.", "change"),
)


@dataclass(frozen=True, slots=True)
class Place:
    """Where a record read from a log is: its line, and its index in that line's
    ``$set.messages`` batch or metadata ``messages`` (None: the line is the record)."""

    line: int
    index: int | None = None
    key: str | None = None

    def head(self) -> tuple[str, str]:
        """(prefix, separator) of a path inside the record: ``line 4, toolCalls[0]``."""
        if self.index is None:
            return f"line {self.line + 1}", ", "
        return f"line {self.line + 1}, {self.key}[{self.index}]", "."


@dataclass(slots=True)
class Log:
    """The records a resume reads, in Gemini CLI's order, with where each one is."""

    records: list[Mapping]
    places: list[Place]
    metadata: dict[str, Any]


def is_metadata(entry: Any) -> bool:
    return isinstance(entry, Mapping) and isinstance(entry.get("sessionId"), str) \
        and isinstance(entry.get("projectHash"), str) and not isinstance(entry.get("id"), str)


def _first_line(data: bytes) -> tuple[bytes, bool]:
    """The first non-blank line, and whether anything but blanks follows it."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    start = 0
    while True:
        end = data.find(b"\n", start)
        line = data[start:] if end < 0 else data[start:end]
        if line.strip() or end < 0:
            rest = b"" if end < 0 else data[end + 1:]
            return line, bool(rest.strip())
        start = end + 1


def sniff(data: bytes, name: str = "<input>") -> bool:
    """A log opens with its metadata record alone on the first line (a saved ``.json``
    session is one indented document: its first line is ``{``; written on one line, it is
    that line alone, with its ``messages``)."""
    line, more = _first_line(data)
    if not line.lstrip().startswith(b"{") or b'"sessionId"' not in line:
        return False
    try:
        first = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return is_metadata(first) and (more or "messages" not in first)


def parse(data: bytes, name: str = "<input>") -> Lines:
    # The CLI reads its log with Node's readline (loadConversationRecord at 5411f113), which also
    # breaks lines at U+2028/U+2029, and JSON.stringify writes them raw: such a record is lost.
    return split(data, NAME, name, separators=True)


def read(doc: Lines) -> Log:
    by_id: dict[str, tuple[Mapping, Place]] = {}
    metadata: dict[str, Any] = {}

    def add(messages: Any, line: int, key: str) -> None:
        for k, msg in enumerate(messages):
            if isinstance(msg, Mapping) and isinstance(msg.get("id"), str):
                by_id[msg["id"]] = (msg, Place(line, k, key))

    for line, entry in enumerate(doc.entries):
        if not isinstance(entry, Mapping):
            continue
        if isinstance(entry.get("$rewindTo"), str):
            ids = list(by_id)
            cut = ids.index(entry["$rewindTo"]) if entry["$rewindTo"] in by_id else 0
            for gone in ids[cut:]:
                del by_id[gone]
        elif isinstance(entry.get("id"), str):
            by_id[entry["id"]] = (entry, Place(line))
        elif isinstance(entry.get("$set"), Mapping):
            update = entry["$set"]
            if isinstance(update.get("messages"), list):
                by_id.clear()
                add(update["messages"], line, "$set.messages")
            metadata.update(update)
        elif isinstance(entry.get("sessionId"), str) and isinstance(entry.get("projectHash"), str):
            metadata.update(entry)
            if isinstance(entry.get("messages"), list):
                add(entry["messages"], line, "messages")
    records = [r for r, _ in by_id.values()]
    places = [p for _, p in by_id.values()]
    return Log(records, places, metadata)


def append(doc: Lines, log: Log, changed: dict[int, Any], gone: set[int], notes: Exported) -> Lines:
    """The log with the repair appended (see the module's docstring); every line kept."""
    raw, entries = list(doc.raw), list(doc.entries)
    if gone:
        kept = [changed.get(r, rec) for r, rec in enumerate(log.records) if r not in gone]
        entry = {"$set": {"messages": kept}}
        raw.append(dump_line(entry))
        entries.append(entry)
        lost = ", ".join(_where(log, r) for r in sorted(gone)[:5]) + (" and more" if len(gone) > 5 else "")
        notes.note("messages-reset", f"Line {len(raw)} is a new $set.messages batch of the {len(kept)} records the "
                                     f"session keeps; it replaces every record before it, so {lost} "
                                     f"{'is' if len(gone) == 1 else 'are'} no longer read.")
    else:
        for r in sorted(changed):
            raw.append(dump_line(changed[r]))
            entries.append(changed[r])
            notes.note("record-appended", f"Line {len(raw)} is the record {log.records[r].get('id')!r} "
                                          f"({_where(log, r)}) as repaired; Gemini CLI reads it in place of it.")
    return Lines(NAME, raw, entries, True, doc.bom, list(doc.bad))


def _where(log: Log, r: int) -> str:
    return log.places[r].head()[0]

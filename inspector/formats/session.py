"""What the agent session stores share: a container (JSONL lines, SQLite rows, JSON records)
around an inner provider format, and the kinds of change writing one back makes.

A store reads its container into the items a resume would send, imports them with the inner
format, and keeps its own typed state (a dataclass of its own) on ``Imported.state`` for its
export. The export runs the inner format's own export, then maps what it wrote back onto
the container: every item that is the original object keeps its original line or row,
byte for byte.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..engine import EXPORT_CLAUSE, IMPORT_CLAUSE, Kind, declare
from ..io import InputError
from .base import Imported, kind_of
from .jsonl import Lines, dump_line

# The kinds every store emits (claude_code.py, codex_rollout.py, gemini_cli.py, agents_sqlite.py).
EMITS = declare(
    Kind("entry-skipped", IMPORT_CLAUSE, False, "entry skipped",
         "A line or row the agent cannot read either (not JSON, or no message in it); it is kept as it is.", "note"),
    Kind("entry-removed", EXPORT_CLAUSE, False, "entry removed",
         "A line or row of the session lost everything in it, so it is removed.", "change"),
    Kind("entry-added", EXPORT_CLAUSE, False, "entry added",
         "A new line or row holds a synthesized result, placed after its call's turn.", "change"),
    Kind("entry-rewritten", EXPORT_CLAUSE, False, "entry rewritten",
         "A line or record keeps the rest of its content after some of it was dropped.", "change"),
    Kind("line-mended", IMPORT_CLAUSE, False, "damaged line read",
         "A line damaged in writing (a record cut by a raw line break, NUL bytes, records glued on one line, a "
         "line separator the agent's reader breaks at) is read as the record or records it holds.", "note"),
    Kind("line-repaired", EXPORT_CLAUSE, False, "damaged line repaired",
         "The copy writes a damaged line whole: a record's lines joined, glued records split, NUL bytes removed, "
         "a line separator escaped; only that line's bytes change.", "change"),
    Kind("line-ended", EXPORT_CLAUSE, False, "line ended",
         "The file's last line had no line break (a write cut short); the copy ends it, so the agent's next "
         "line is not glued to it.", "change"),
)


def end_last_line(document: Any, notes: Any, source: Any = None) -> Any:
    """A JSON Lines document whose last line has no line break, written with one (a new
    :class:`Lines`: the import's document is never changed), as an export event. Left
    unended, the agent's next append would join that line and be lost on the next resume.
    ``source``: the document read, whose numbering the event uses when it is Lines too."""
    if not isinstance(document, Lines) or document.final_newline or not document.raw:
        return document
    read = source if isinstance(source, Lines) and not source.final_newline and source.raw else document
    last = len(read.raw)
    state = "is not JSON (cut short)" if last - 1 in read.bad else "has no line break"
    notes.note("line-ended", f"Line {last}, the last of the file, {state}; the copy ends it with a line break, "
                             "so the agent's next line starts a line of its own.")
    return Lines(document.format, document.raw, document.entries, True, document.bom, document.bad)


def open_store(document: Any, name: str, fmt: str, parse: Callable[[bytes, str], Any], expected: type,
               what: str) -> Any:
    """Every store's ``import_`` preamble: bytes are parsed by the store's own parser, and
    anything but its container is a clear error naming the input."""
    if isinstance(document, (bytes, bytearray)):
        document = parse(bytes(document), name)
    if not isinstance(document, expected):
        raise InputError(name, f"{fmt}: expected {what}, got {kind_of(document)}")
    return document


# Kinds that several stores emit but not every one: declared here once, and each store that
# emits one lists it among its own (no store borrows a kind from a sibling store's module).
NOT_SENT = Kind("entry-not-sent", IMPORT_CLAUSE, False, "not sent",
                "A message or part the agent leaves out of the request on resume (compacted away, failed, or "
                "with nothing to send); it is kept as it is.", "note")
MOVED = Kind("entry-moved", EXPORT_CLAUSE, False, "entry moved",
             "A line was moved with the result it holds, next to its call.", "change")
declare(NOT_SENT, MOVED)

NO_SESSION = "the database holds no session yet: nothing to check"


def selected(db: Any, sid: str, held: Any, name: str, fmt: str) -> Any:
    """``--session ID`` on a store holding several sessions (``held``: their ids): a shallow
    copy of ``db`` with ``sid`` chosen, so the database given keeps its own choice; an id it
    does not hold is refused, naming those it does."""
    if sid not in held:
        raise InputError(name, f"{fmt}: no session {sid!r}; sessions: " + (", ".join(held) or "none"))
    picked = copy.copy(db)
    picked.session = sid
    return picked


def must_choose(fmt: str, count: int, shown: str, name: str) -> InputError:
    """The error for a store holding several sessions when none is chosen."""
    return InputError(name, f"{fmt}: the database holds {count} sessions; choose one with --session ID: {shown}")


def empty_store(fmt: str, document: Any) -> Imported:
    """The import of a store that holds no session (a fresh database): an empty history the
    engine has nothing to do with, written back as it was."""
    im = Imported(fmt, [], document, container=None, history=[])
    im.notes.append(NO_SESSION)
    return im


def is_empty_store(im: Imported) -> bool:
    return im.state is None and not im.messages and NO_SESSION in im.notes


def skipped_lines(im: Imported, document: Lines, why: str = "a resume skips it") -> None:
    """One import note per damaged line read as its records (``line-mended``), and per line
    that is not JSON, saying where and why (the agent's loader skips it too)."""
    told: dict[int, str] = {}
    for d in document.damage:
        if d.mended:
            im.note(None, "line-mended", d.read + ".")
        elif d.lines:
            told.setdefault(d.lines[0], d.read)
    for i in document.bad:
        detail = f" ({told[i]})" if i in told else ""
        im.note(None, "entry-skipped", f"Line {i + 1} is not JSON{detail}; {why}, and it is kept as it is.")


def repaired_lines(document: Any, notes: Any, source: Any) -> None:
    """One export event per line of ``source`` (the file read) whose damage the copy mends:
    the copy is written from the mended reading, whatever else the export does to the line
    (its own events say that)."""
    if not isinstance(document, Lines) or not isinstance(source, Lines) or not source.damage \
            or document.format != source.format:
        return
    for d in source.damage:
        for sentence in d.written:
            notes.note("line-repaired", sentence)


def origins(items: list[Any], out: list[Any]) -> list[int | None]:
    """The identity diff of an inner export: for each item it wrote, the index of the original
    item it is (the very same object: kept as it came), or None for an item the export made."""
    index = {id(item): k for k, item in enumerate(items)}
    return [index.get(id(item)) for item in out]


def unchanged(items: list[Any], out: list[Any]) -> bool:
    """Whether the inner export wrote back exactly the original items, in their order."""
    return len(out) == len(items) and all(a is b for a, b in zip(out, items))


def rewrite_lines(doc: Lines, fmt: str, removed: set[int], rewrite: dict[int, Any],
                  after: dict[int, list[tuple[bytes | None, Any]]], keep_cr: bool = True) -> Lines:
    """The one line rewriter: every line not removed or rewritten goes out as its own bytes;
    a rewritten line is its new entry in the agents' spelling; ``after[i]`` are the lines
    written after line ``i`` (``-1``: before the first), each as its bytes (a line moved as
    it is) or None (a new entry). ``keep_cr``: a new or rewritten line keeps the ``\\r`` of
    the line it replaces or follows (a CRLF file stays CRLF)."""
    raw: list[bytes] = []
    entries: list[Any] = []

    def put(line: bytes | None, entry: Any, near: bytes) -> None:
        if line is None:
            line = dump_line(entry) + (b"\r" if keep_cr and near.endswith(b"\r") else b"")
        raw.append(line)
        entries.append(entry)

    for line, entry in after.get(-1, ()):
        put(line, entry, b"")
    for i, line in enumerate(doc.raw):
        if i not in removed:
            if i in rewrite:
                put(None, rewrite[i], line)
            else:
                put(line, doc.entries[i], line)
        for new, entry in after.get(i, ()):
            put(new, entry, line)
    return Lines(fmt, raw, entries, doc.final_newline or not doc.raw, doc.bom)

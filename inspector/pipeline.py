"""Load → repair → export: the one path every view takes, in steps a view can stop between.

- :func:`load` (bytes), :func:`load_file` (a path or ``-``) and :func:`read` (a parsed
  document) give the :class:`~inspector.formats.Imported` history, one session of a file
  that holds several when ``session`` names it;
- :func:`repair` normalizes an import (with the strict stage when asked);
- :func:`export` writes the repair back in a format as an :class:`Exported`: the document,
  what the export changed on its own, the bytes, the count of entries written;
- :class:`Outcome` is the three together, its export made when first asked for (the TUI's
  open history is one); :func:`run` and :func:`run_file` take all steps;
- :func:`sessions` is the one session iterator: a parsed file once, each session it holds
  read from it in turn (``check`` of a database, the doctor, batch, the TUI's picker).

The CLI's subcommands, ``inspector check FOLDER``, each batch record (local and Dask),
``inspector serve`` and the TUI (its load, strict toggle and export) all go through these
steps, so the same input gives the same bytes everywhere. Nothing here decides what a rule
does: the engine decides, the formats apply its decisions through provenance, and this
module only wires them together. No step edits what an earlier step returned.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .engine import EXTENSIONS, Event, Result, Stage, kind, normalize
from . import formats
from .formats import REGISTRY, Exported, Imported, export_history, import_history, known
from .io import JSONWriteError, display_name, parse_json, read_bytes

__all__ = ["Exported", "Outcome", "Session", "chosen_session", "export", "held_sessions", "load", "load_file",
           "outcome", "parse", "read", "repair", "run", "run_file", "select_session", "sessions"]

SNIFF_BYTES = 1 << 20   # what a format sees of the bytes when it is asked whether they are its own


# -- load ---------------------------------------------------------------------------------
def parse(data: bytes, name: str = "<input>", fmt: str = "auto", sniff: bool = True) -> Any:
    """Bytes to a document: a format that claims raw bytes (``Format.sniff``) parses them
    itself; anything else is one JSON document. ``sniff=False`` (a batch record, which is one
    JSON document by construction) skips asking the formats when none is named."""
    if fmt != "auto":
        return REGISTRY[known(fmt, name)].parse(data, name)
    if sniff:
        # Formats sniff the head only: a one-line JSON body of many megabytes is then not
        # parsed once per JSON Lines format before it is parsed as the document it is.
        head = sniff_head(data)
        for f in REGISTRY.values():
            if f.sniff(head, name):
                return f.parse(data, name)
    return parse_json(data, name)


_NON_BLANK = re.compile(rb"\S")


def sniff_head(data: bytes) -> bytes:
    """The first :data:`SNIFF_BYTES`, extended to the end of the line they cut: a session
    whose first line is longer is still seen whole. A document that is one line (nothing but
    whitespace after its first line break) is cut at the limit: it is JSON, not JSON Lines."""
    if len(data) <= SNIFF_BYTES:
        return data
    end = data.find(b"\n", SNIFF_BYTES)
    if end < 0 or _NON_BLANK.search(data, end + 1) is None:
        return data[:SNIFF_BYTES]
    return data[:end + 1]


def select_session(document: Any, session: str, name: str) -> Any:
    """``--session ID``: one session of a file that holds several (an Agents SDK database).
    The format chooses on a copy, so the document given (an earlier step's export, in batch)
    is left as it was."""
    return formats.select_session(document, session, name)


def held_sessions(document: Any) -> list[formats.SessionInfo]:
    """The sessions a parsed file offers to choose from: those of a file holding several with
    none chosen yet (empty for any other document, and for a store holding one or none)."""
    held = formats.sessions(document)
    return held if len(held) > 1 and formats.chosen_session(document) is None else []


def chosen_session(document: Any) -> str | None:
    """The session chosen in a parsed file that holds several (None: not such a file)."""
    return formats.chosen_session(document) if len(formats.sessions(document)) > 1 else None


@dataclass(frozen=True, slots=True)
class Session:
    """One session of a parsed file (``id`` None: the file is one history), read when asked;
    every session of a file shares the one parsed document."""

    id: str | None
    document: Any
    name: str
    fmt: str = "auto"
    alone: bool = True             # the file's only session: its import may be owned by the engine
    error: BaseException | None = None   # the file could not be read or parsed: read() raises this

    @property
    def label(self) -> str:
        return self.name if self.id is None else f"{self.name} --session {self.id}"

    def read(self) -> Imported:
        if self.error is not None:
            raise self.error
        return read(self.document, self.name, self.fmt, self.id)

    def run(self, to: str = "same", strict: bool = False, compact: bool = False,
            reasoning: str = "keep") -> "Outcome":
        return outcome(self.read(), self.name, to, strict, compact, self.alone, reasoning)


def sessions(document: Any, name: str = "<input>", fmt: str = "auto", session: str | None = None) -> list[Session]:
    """The sessions of a parsed file, each to read in turn from the one parse: ``session``
    alone when given; each session of a file that holds several; else the file as one."""
    if session is not None:
        return [Session(session, document, name, fmt)]
    ids = [s.id for s in held_sessions(document)]
    if not ids:
        return [Session(None, document, name, fmt)]
    return [Session(i, document, name, fmt, alone=False) for i in ids]


def read(document: Any, name: str = "<input>", fmt: str = "auto", session: str | None = None) -> Imported:
    """A parsed document as the flat history the engine reads (``fmt``: ``auto`` detects)."""
    if session is not None:
        document = select_session(document, session, name)
    return import_history(document, name, fmt)


def load(data: bytes, name: str = "<input>", fmt: str = "auto", session: str | None = None,
         sniff: bool = True) -> Imported:
    """Bytes, parsed (see :func:`parse`) and read as a history."""
    return read(parse(data, name, fmt, sniff), name, fmt, session)


def load_file(path: str | os.PathLike, fmt: str = "auto", session: str | None = None) -> Imported:
    """:func:`load` on a file, or on standard input for ``-``; the history is named as the
    CLI names the file."""
    return load(read_bytes(path), display_name(path), fmt, session)


# -- repair -------------------------------------------------------------------------------
def repair(imported: Imported, extensions: Sequence[str] = (), owned: bool = False) -> Result:
    """The engine on the imported messages, with ``extensions`` (``("strict",)``) after MEM-5.

    ``owned`` says the caller holds the import alone and nobody will edit it or the result
    (the TUI, batch, bytes parsed by :func:`run`): the engine then runs in its zero-copy mode
    and the result may share objects with the import; otherwise it shares none."""
    return normalize(imported.messages, extensions, copy=not owned)


# -- export -------------------------------------------------------------------------------
@dataclass(slots=True)
class Exported(formats.Exported):
    """A repair written back in one format: the formats' export (the document and the
    export's own events, what it changed beyond the engine's decisions), with the format it
    is in and the bytes and entry count, computed when first asked for."""

    format: str = ""
    compact: bool = False
    _data: bytes | None = field(default=None, repr=False)
    _entries: int | None = field(default=None, repr=False)

    @property
    def data(self) -> bytes:
        """The document as the bytes ``inspector normalize`` writes."""
        if self._data is None:
            try:
                self._data = REGISTRY[self.format].dump(self.document, self.compact)
            except TypeError as exc:      # a format's own writer: orjson's encode error is TypeError
                raise JSONWriteError(str(exc)) from exc
        return self._data

    @property
    def entries(self) -> int:
        """How many entries the written history holds in its format (messages, items, lines).
        The format's importer is the one place that knows where a document keeps its entries,
        so the written document is read once, when this is first asked (the TUI's toast)."""
        if self._entries is None:
            self._entries = len(import_history(self.document, "<export>", self.format).history)
        return self._entries


def export(imported: Imported, result: Result, to: str = "same", compact: bool = False,
           reasoning: str = "keep") -> Exported:
    """``result`` (from :func:`repair` of ``imported``) as a document in format ``to``
    (``same``: the input's own). ``reasoning``: ``keep`` writes reasoning back as it was read;
    ``strip`` (``--reasoning strip``) removes every reasoning block, signature and encrypted
    item, each removal an export event."""
    written = export_history(imported, result, to, reasoning)   # the one call into the formats' export
    return Exported(written.document, written.events, imported.format if to == "same" else to, compact)


# -- all steps ----------------------------------------------------------------------------
@dataclass(slots=True)
class Outcome:
    """Everything a view needs about one history: where it came from, what the engine did,
    and what is written back. The export is worked out when first asked for (``export``,
    ``exported``, ``export_events``, ``data``, ``changed``) and kept: a view that never writes
    (the TUI before an export, a listing) never pays for it, and one that does pays once."""

    name: str
    imported: Imported
    result: Result
    made: Exported | None = None   # the export, once worked out (given: already made)
    to: str = "same"
    reasoning: str = "keep"        # the --reasoning policy the export runs with
    compact: bool = False

    @property
    def export(self) -> Exported:
        """The repair written back in format ``to`` under the policy (:func:`export`), made on
        first use and kept."""
        if self.made is None:
            self.made = export(self.imported, self.result, self.to, self.compact, self.reasoning)
        return self.made

    @property
    def exported_yet(self) -> bool:
        """Whether the export is made (a view may show what it says without making it)."""
        return self.made is not None

    @property
    def format(self) -> str:
        """The input's format, as detected or as given with ``--from``."""
        return self.imported.format

    @property
    def output_format(self) -> str:
        return self.export.format if self.made is not None else (self.imported.format if self.to == "same" else self.to)

    @property
    def exported(self) -> Any:
        """The written document."""
        return self.export.document

    @property
    def export_events(self) -> list[Event]:
        """What this export changed on its own."""
        return self.export.events

    @property
    def events(self) -> list[Event]:
        """Everything that happened, in order: import notes, the stages' events, then what
        the export changed on its own."""
        return [*self.imported.events, *self.result.events, *self.export.events]

    @property
    def data(self) -> bytes:
        """The exported document as the bytes ``inspector normalize`` writes."""
        return self.export.data

    @property
    def changed(self) -> bool:
        """Whether writing the output back would change the input document, or the export
        says it changed something. Import notes alone (how a document was read) are not
        changes, nor is an export note (effect ``note``: how something was written, the
        document the same), so normalize's own output checks clean (hostile round 3, R3-28)."""
        return any(kind(e.kind).effect != "note" for e in self.export.events) \
            or self.export.document != self.imported.document


def outcome(imported: Imported, name: str = "<input>", to: str = "same", strict: bool = False,
            compact: bool = False, owned: bool = False, reasoning: str = "keep") -> Outcome:
    """Repair and export an import: the steps after :func:`load`."""
    result = repair(imported, EXTENSIONS if strict else (), owned)
    return Outcome(name, imported, result, export(imported, result, to, compact, reasoning), to, reasoning, compact)


def as_given(imported: Imported, name: str = "<input>") -> Outcome:
    """The history as given, as an outcome that changes nothing: its rows as read and its own
    document as the one sent. The provider checks read a body's native blocks and settings
    (an empty text block, a trailing space, ``thinking``) through it as they read a repair's,
    so the as-given moment judges what the provider receives, not only the flat rows."""
    rows = list(imported.messages)
    same = Result(rows, 0, [], [Stage("given", rows, list(range(len(rows))), [])])
    return Outcome(name, imported, same, Exported(imported.document))


def as_written_for(out: Outcome, target: str) -> Outcome:
    """What ``check --target`` judges: the document ``normalize --to`` writes for ``target``.
    A history in another request format (a flat list, OpenAI's body checked for Anthropic)
    is converted to the target's own format, as normalize writes it, and read back: the
    rules on its native blocks (Anthropic's empty content...) then judge what is sent, so
    ``check FILE --target T`` and ``check`` of ``normalize FILE --to T``'s output agree. A
    history already in that format, a session store (judged as the agent sends it) and a
    target with no format of its own (Mistral, xAI...) are judged as they are."""
    fmt = REGISTRY.get(target)
    if fmt is None or fmt.provider != target or fmt.is_session or out.imported.format == target \
            or formats.is_session_format(out.imported.format):
        return out
    written = export(out.imported, out.result, target, out.compact, out.reasoning)
    # Judged exactly as written: read back, not repaired again (what normalize --to T writes).
    return as_given(read(written.document, out.name, target), out.name)


def run(document: Any, name: str = "<input>", fmt: str = "auto", to: str = "same",
        strict: bool = False, compact: bool = False, session: str | None = None,
        owned: bool = False, reasoning: str = "keep") -> Outcome:
    """Every step on a parsed document (``bytes`` are parsed first, and then owned; ``session``
    picks one session in a file that holds several; ``owned``: see :func:`repair`)."""
    if isinstance(document, (bytes, bytearray, memoryview)):
        imported = load(bytes(document), name, fmt, session)
        owned = True
    else:
        imported = read(document, name, fmt, session)
    return outcome(imported, name, to, strict, compact, owned, reasoning)


def run_file(path: str | os.PathLike, fmt: str = "auto", to: str = "same", strict: bool = False,
             compact: bool = False, session: str | None = None, reasoning: str = "keep") -> Outcome:
    """:func:`run` on a file, or on standard input for ``-``."""
    return run(read_bytes(path), display_name(path), fmt, to, strict, compact, session, reasoning=reasoning)

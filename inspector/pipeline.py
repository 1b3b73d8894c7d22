"""Import → normalize → export: the one path every view takes.

The CLI's ``normalize``, ``explain`` and ``check``, each batch record (local and Dask) and the
TUI's export all call :func:`run` (or :func:`run_file`), so the same input gives the same
bytes everywhere. Nothing here decides what a rule does: the engine decides, the formats
apply its decisions through provenance, and this module only wires them together.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from .engine import EXTENSIONS, Event, Result, normalize
from . import formats
from .formats import REGISTRY, Imported, export_history, import_history, known
from .io import display_name, parse_json, read_bytes

__all__ = ["Outcome", "parse", "run", "run_file", "select_session"]


@dataclass(slots=True)
class Outcome:
    """Everything a view needs about one history: where it came from, what the engine did,
    and what is written back. ``data`` is computed on first use."""

    name: str
    imported: Imported
    result: Result
    exported: Any
    to: str
    compact: bool = False
    export_events: list[Event] = field(default_factory=list)   # what this export changed on its own
    _data: bytes | None = None

    @property
    def format(self) -> str:
        """The input's format, as detected or as given with ``--from``."""
        return self.imported.format

    @property
    def output_format(self) -> str:
        return self.imported.format if self.to == "same" else self.to

    @property
    def events(self) -> list[Event]:
        """Everything that happened, in order: import notes, the stages' events, then what
        the export changed on its own."""
        return [*self.imported.events, *self.result.events, *self.export_events]

    @property
    def data(self) -> bytes:
        """The exported document as the bytes ``inspector normalize`` writes."""
        if self._data is None:
            self._data = REGISTRY[self.output_format].dump(self.exported, self.compact)
        return self._data

    @property
    def changed(self) -> bool:
        """Whether writing the output back would change the input document, or the export
        says it changed something. Import notes alone (how a document was read) are not
        changes: normalize's own output checks clean."""
        return bool(self.export_events) or self.exported != self.imported.document


SNIFF_BYTES = 1 << 20   # what a format sees of the bytes when it is asked whether they are its own


def parse(data: bytes, name: str = "<input>", fmt: str = "auto") -> Any:
    """Bytes to a document: a format that claims raw bytes (``Format.sniff``) parses them
    itself; anything else is one JSON document."""
    if fmt != "auto":
        return REGISTRY[known(fmt, name)].parse(data, name)
    # Formats sniff the head only: a one-line JSON body of many megabytes is then not parsed
    # once per JSON Lines format before it is parsed as the document it is.
    head = data[:SNIFF_BYTES]
    for f in REGISTRY.values():
        if f.sniff(head, name):
            return f.parse(data, name)
    return parse_json(data, name)


def run(document: Any, name: str = "<input>", fmt: str = "auto", to: str = "same",
        strict: bool = False, compact: bool = False, session: str | None = None,
        owned: bool = False) -> Outcome:
    """Run the whole pipeline on a parsed document (``bytes`` are parsed first; ``session``
    picks one session in a file that holds several).

    ``owned`` says the caller hands the document over: nobody else holds it, and nobody
    will edit it or the outcome (bytes parsed here always are). The engine then runs in its
    zero-copy mode: the outcome's result may share objects (messages already flat, calls)
    with what was imported; otherwise it shares none, as ``normalize`` gives by default."""
    if isinstance(document, (bytes, bytearray, memoryview)):
        document = parse(bytes(document), name, fmt)
        owned = True
    if session is not None:
        document = select_session(document, session, name)
    imported = import_history(document, name, fmt)
    result = normalize(imported.messages, EXTENSIONS if strict else (), copy=not owned)
    exported = export_history(imported, result, to)
    return Outcome(name, imported, result, exported.document, to, compact, exported.events)


def select_session(document: Any, session: str, name: str) -> Any:
    """``--session ID``: one session of a file that holds several (an Agents SDK database)."""
    return formats.select_session(document, session, name)


def run_file(path: str | os.PathLike, fmt: str = "auto", to: str = "same", strict: bool = False,
             compact: bool = False, session: str | None = None) -> Outcome:
    """:func:`run` on a file, or on standard input for ``-``."""
    return run(read_bytes(path), display_name(path), fmt, to, strict, compact, session)

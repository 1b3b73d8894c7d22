"""Import → normalize → export: the one path every view takes.

The CLI's ``normalize``, ``explain`` and ``check``, each batch record (local and Dask) and the
TUI's export all call :func:`run` (or :func:`run_file`), so the same input gives the same
bytes everywhere. Nothing here decides what a rule does: the engine decides, the formats
apply its decisions through provenance, and this module only wires them together.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .engine import Result, normalize
from .engine.strict import normalize_strict
from .formats import Imported, dump_document, export_history, import_history, parse_bytes
from .io import InputError, display_name, read_bytes

__all__ = ["Outcome", "run", "run_file"]


@dataclass(slots=True)
class Outcome:
    """Everything a view needs about one history: where it came from, what the engine did,
    and what is written back. ``data`` and ``changed`` are computed on first use."""

    name: str
    imported: Imported
    result: Result
    exported: Any
    to: str
    compact: bool = False
    _data: bytes | None = None

    @property
    def data(self) -> bytes:
        """The exported document as the bytes ``inspector normalize`` writes."""
        if self._data is None:
            self._data = dump_document(self.exported, compact=self.compact)
        return self._data

    @property
    def changed(self) -> bool:
        """Whether writing the output back would change the input document."""
        return self.exported != self.imported.document


def run(document: Any, name: str = "<input>", fmt: str = "auto", to: str = "same",
        strict: bool = False, compact: bool = False, session: str | None = None) -> Outcome:
    """Run the whole pipeline on a parsed document (``bytes`` are parsed first; ``session``
    picks one session in a file that holds several)."""
    if isinstance(document, (bytes, bytearray, memoryview)):
        document = parse_bytes(bytes(document), name, fmt)
    if session is not None:
        document = select_session(document, session, name)
    imported = import_history(document, name, fmt)
    result = (normalize_strict if strict else normalize)(imported.messages)
    exported = export_history(imported, result, to)
    return Outcome(name, imported, result, exported, to, compact)


def select_session(document: Any, session: str, name: str) -> Any:
    """``--session ID``: one session of a file that holds several (an Agents SDK database)."""
    select = getattr(document, "select", None)
    if not callable(select):
        raise InputError(name, "--session is for files that hold several sessions (an Agents SDK database)")
    return select(session, name)


def run_file(path: str | os.PathLike, fmt: str = "auto", to: str = "same", strict: bool = False,
             compact: bool = False, session: str | None = None) -> Outcome:
    """:func:`run` on a file, or on standard input for ``-``."""
    return run(read_bytes(path), display_name(path), fmt, to, strict, compact, session)

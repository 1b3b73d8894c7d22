"""Turn a source (file, standard input bytes, sample) into a normalized document.

Runs in a worker thread, so it reports progress through a callback and raises
:class:`inspector.io.InputError` for anything the user must fix. No textual here.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Result
from ..formats import Imported, import_history
from ..io import InputError, read_bytes
from ..pipeline import parse
from .adapter import normalize
from .rows import Model

ReportProgress = Callable[[str, float], None]  # (phase, fraction done): the worker posts it as LoadProgress
CHUNK = 4 << 20


@dataclass(frozen=True, slots=True, repr=False)
class Source:
    """Where a history comes from; ``data`` holds standard input, read before the app starts."""

    name: str
    path: str | None = None
    data: bytes | None = None
    sample: bool = False
    fmt: str = "auto"  # an input format name from inspector.formats, or "auto" to detect

    @classmethod
    def file(cls, path: str | os.PathLike, sample: bool = False, fmt: str = "auto") -> Source:
        return cls(str(path) if not sample else Path(path).name, str(path), None, sample, fmt)

    def __repr__(self) -> str:  # never the whole of standard input
        return f"Source({self.name!r}, path={self.path!r}, sample={self.sample}, fmt={self.fmt!r})"

    @property
    def reloadable(self) -> bool:
        return self.path is not None


@dataclass(slots=True, repr=False)
class Document:
    source: Source
    raw: list[Any]
    result: Result
    model: Model
    imported: Imported  # the parsed document and its format: the seam for exports
    notes: list[str] = field(default_factory=list)
    strict: bool = False  # normalized with the strict stage (an extension beyond MEM-5)


def _read(path: str, name: str, progress: ReportProgress) -> bytes:
    """Read in chunks so a large file shows how far along it is."""
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    if size < CHUNK or os.path.isdir(path):
        return read_bytes(path)
    parts = []
    done = 0
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(CHUNK):
                parts.append(chunk)
                done += len(chunk)
                progress(f"Reading {name} ({done / 1e6:,.1f} of {size / 1e6:,.1f} MB)", 0.3 * done / size)
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None
    return b"".join(parts)


def load_document(source: Source, progress: ReportProgress = lambda phase, fraction: None,
                  strict: bool = False) -> Document:
    """Millions of small acyclic objects are born here: the cyclic collector would walk them
    all again and again (seconds on 200,000 messages), so it pauses, and the document is
    frozen out of every later collection before it resumes (see :func:`_frozen`)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _frozen(_load(source, progress, strict))
    finally:
        if collecting:
            gc.enable()


def _frozen(doc: Document) -> Document:
    """Freeze what the load made, before the collector resumes: otherwise the first
    allocation after it resumes walks the whole new document at once (0.2 s on 200,000
    messages, on the way to the first screen). What else the interface threw away while the
    collector paused is frozen too: a one-off of a few thousand objects per load."""
    gc.freeze()
    return doc


def _load(source: Source, progress: ReportProgress, strict: bool) -> Document:
    name = source.name
    if source.data is not None:
        data = source.data
    else:
        assert source.path is not None
        progress(f"Reading {name}", 0.0)
        data = _read(source.path, name, progress)
    progress(f"Parsing {len(data) / 1e6:,.1f} MB", 0.3)
    document = parse(data, name, source.fmt)   # a session file (JSONL, SQLite) is read by its format
    del data
    imported = import_history(document, name, source.fmt)
    return _normalized(source, imported, progress, strict)


def renormalize(doc: Document, strict: bool, progress: ReportProgress = lambda phase, fraction: None) -> Document:
    """The same imported history, normalized again with or without the strict stage."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _frozen(_normalized(doc.source, doc.imported, progress, strict))
    finally:
        if collecting:
            gc.enable()


def _normalized(source: Source, imported: Imported, progress: ReportProgress, strict: bool) -> Document:
    raw = imported.messages
    progress(f"Normalizing {len(raw):,} messages" + (" (strict)" if strict else ""), 0.55)
    result = normalize(raw, strict)
    progress("Preparing the view", 0.9)
    return Document(source, raw, result, Model(raw, result, imported), imported, list(imported.notes), strict)

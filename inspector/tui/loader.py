"""Turn a source (file, standard input bytes, sample; one session of a file that holds
several) into a repaired document, through the pipeline's steps, and run that in a worker.

:func:`load_document` and :func:`renormalize` run in a worker thread: they report progress
through a callback and raise :class:`inspector.io.InputError` for anything the user must
fix. :func:`start` is the worker itself, which the main screen starts and whose typed
messages it handles.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, get_current_worker

from .. import pipeline
from ..engine import Event, Result, gc_paused
from ..formats import Imported
from ..io import InputError, describe_error, read_bytes
from ..pipeline import Exported
from . import confine, facts
from .adapter import STRICT
from .messages import DocumentLoaded, LoadFailed, LoadProgress, SessionsOffered
from .rows import Model

if TYPE_CHECKING:
    from textual.dom import DOMNode

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
    session: str | None = None  # the session to open in a file that holds several (--session ID)

    @classmethod
    def file(cls, path: str | os.PathLike, sample: bool = False, fmt: str = "auto",
             session: str | None = None) -> Source:
        return cls(str(path) if not sample else Path(path).name, str(path), None, sample, fmt, session)

    def __repr__(self) -> str:  # never the whole of standard input
        return (f"Source({self.name!r}, path={self.path!r}, sample={self.sample}, fmt={self.fmt!r}, "
                f"session={self.session!r})")

    @property
    def reloadable(self) -> bool:
        return self.path is not None


class ChooseSession(Exception):
    """The file holds several sessions and none was named: the user picks one."""

    def __init__(self, source: Source, sessions: list[facts.SessionInfo], missing: str | None = None) -> None:
        super().__init__(f"{source.name}: {len(sessions)} sessions")
        self.source = source
        self.sessions = sessions
        self.missing = missing  # the session asked for (--session) that the file does not hold


@dataclass(slots=True, repr=False)
class Document(pipeline.Outcome):
    """The open history: the pipeline's :class:`~inspector.pipeline.Outcome` itself (the
    import, the repair's result, the export in the input's format under the reasoning
    policy, made when first asked for and kept), with what the screen adds: where it came
    from, the rows model, whether the strict stage ran. Nothing the pipeline holds is
    copied or worked out again here."""

    source: Source | None = None
    model: Model | None = None
    strict: bool = False  # normalized with the strict stage (an extension beyond MEM-5)

    @property
    def raw(self) -> list[Any]:
        """The flat messages the import read (view 0's rows)."""
        return self.imported.messages

    @property
    def notes(self) -> list[str]:
        """What the import says of the file (the chain it followed, what it carried unchanged)."""
        return list(self.imported.notes)

    @property
    def says_of_reasoning(self) -> bool:
        """Whether the export's events are the screen's to show: a history that holds
        reasoning, or any under ``--reasoning strip`` (the signed-turn notes, each block
        strip removes). For any other the screen never asks for the export."""
        return bool(self.imported.reasoning) or self.reasoning != "keep"

    @property
    def reasoning_events(self) -> list[Event]:
        """What the export says of the reasoning under the policy (empty when the history
        has none, or when no writer can write it: the export dialog then says why)."""
        if not self.says_of_reasoning:
            return []
        try:
            return self.export.events
        except Exception:  # noqa: BLE001 - the export dialog says why, when the user exports
            return []


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
                  strict: bool = False, reasoning: str = "keep") -> Document:
    """Read, load and repair ``source`` through the pipeline's steps. Millions of small
    acyclic objects are born here: the cyclic collector pauses (the engine's ``gc_paused``),
    and the document is frozen out of every later collection before it resumes (see
    :func:`_frozen`)."""
    with gc_paused():
        return _frozen(_load(source, progress, strict, reasoning))


def _frozen(doc: Document) -> Document:
    """Freeze what the load made, before the collector resumes: otherwise the first
    allocation after it resumes walks the whole new document at once (0.2 s on 200,000
    messages, on the way to the first screen). What else the interface threw away while the
    collector paused is frozen too: a one-off of a few thousand objects per load."""
    gc.freeze()
    return doc


def _load(source: Source, progress: ReportProgress, strict: bool, reasoning: str = "keep") -> Document:
    name = source.name
    if source.data is not None:
        data = source.data
    else:
        assert source.path is not None
        progress(f"Reading {name}", 0.0)
        data = _read(source.path, name, progress)
    progress(f"Parsing {len(data) / 1e6:,.1f} MB", 0.3)
    document = pipeline.parse(data, name, source.fmt)   # a session file is parsed by its format
    del data
    if source.session is None and (offered := facts.session_entries(document)):
        raise ChooseSession(source, offered)             # the screen offers them (a picker)
    if source.session is not None and (offered := facts.session_entries(document)) \
            and source.session not in {s.id for s in offered}:
        raise ChooseSession(replace(source, session=None), offered, missing=source.session)  # --session nope
    imported = pipeline.read(document, name, source.fmt, source.session)
    return _repaired(source, imported, progress, strict, reasoning)


def renormalize(doc: Document, strict: bool, progress: ReportProgress = lambda phase, fraction: None,
                reasoning: str | None = None) -> Document:
    """The same imported history, repaired again with or without the strict stage, exported
    under ``reasoning`` (None: the document's policy)."""
    with gc_paused():
        return _frozen(_repaired(doc.source, doc.imported, progress, strict,
                                 doc.reasoning if reasoning is None else reasoning))


def reread(doc: Document, imported: Imported, progress: ReportProgress = lambda phase, fraction: None) -> Document:
    """An edited history's new import (the playground's), repaired as ``doc`` was (strict or
    not, its reasoning policy)."""
    return _repaired(doc.source, imported, progress, doc.strict, doc.reasoning)


def _repaired(source: Source, imported: Imported, progress: ReportProgress, strict: bool,
              reasoning: str = "keep") -> Document:
    raw = imported.messages
    progress(f"Normalizing {len(raw):,} messages" + (" (strict)" if strict else ""), 0.55)
    # Owned: the TUI edits neither the import nor the result, and exports from both.
    result = pipeline.repair(imported, (STRICT,) if strict else (), owned=True)
    doc = Document(source.name, imported, result, None, "same", reasoning, source=source,
                   model=Model(raw, result, imported), strict=strict)
    if doc.says_of_reasoning:   # what the export says of the reasoning: made here, off the UI thread
        progress("Exporting the reasoning" + (" (--reasoning strip)" if reasoning != "keep" else ""), 0.8)
        doc.reasoning_events
    progress("Preparing the view", 0.9)
    return doc


def export(doc: Document, to: str = "same") -> Exported:
    """The open history's repair written in format ``to``: the bytes ``inspector normalize
    FILE --to TO --reasoning POLICY`` writes (the pipeline's own step), with the export's events
    and entry count. In the input's own format it is the document's own export, made once."""
    if to in ("same", doc.imported.format):
        return doc.export
    return pipeline.export(doc.imported, doc.result, to, reasoning=doc.reasoning)


def start(node: DOMNode, source: Source, strict: bool, again: Document | None = None,
          reasoning: str = "keep") -> Worker[None]:
    """Load ``source`` (or, given ``again``, repair that document's import again: the strict
    toggle) in a thread worker of ``node``; one load at a time, a new one cancels the last.
    The worker posts :class:`LoadProgress`, then :class:`DocumentLoaded` or
    :class:`LoadFailed` to ``node``, never once it is cancelled."""

    def run() -> None:
        worker = get_current_worker()

        def progress(phase: str, fraction: float) -> None:
            if not worker.is_cancelled:
                node.post_message(LoadProgress(phase, fraction))

        nonlocal source
        try:
            if again is None:
                source = confine.opened(node.app, source)  # served mode: read what was checked, by descriptor
            with confine.reading(node.app):   # served mode: sidecars and trees read inside the root too
                doc = (renormalize(again, strict, progress, reasoning) if again is not None
                       else load_document(source, progress, strict, reasoning))
        except ChooseSession as choice:
            if not worker.is_cancelled:
                node.post_message(SessionsOffered(choice.source, choice.sessions, choice.missing))
            return
        except InputError as exc:
            if not worker.is_cancelled:
                node.post_message(LoadFailed(source, str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - whatever a file does, the app stays up and says so
            if not worker.is_cancelled:
                node.post_message(LoadFailed(source, describe_error(exc, source.name)))
            return
        doc.model.rows(0).layout()  # measure the first view's columns here, off the UI thread
        if not worker.is_cancelled:
            node.post_message(DocumentLoaded(doc))

    return node.run_worker(run, thread=True, exclusive=True, group="load", description="load a history")

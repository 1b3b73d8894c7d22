"""What the workers tell the screen, as typed messages written as dataclasses (toolong's
``messages.py``): a worker thread posts them, the screen handles them on its own thread, in
order. A burst of progress collapses: a :class:`LoadProgress` still queued is replaced by the
next one (``can_replace``), so a slow screen paints the latest phase only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from .loader import Document, Source


@dataclass
class LoadProgress(Message):
    """A phase of reading, parsing or normalizing, and how far along the whole load is."""

    phase: str
    fraction: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgress)


@dataclass
class DocumentLoaded(Message):
    """A history is read and normalized (or normalized again for the strict toggle)."""

    document: Document


@dataclass
class LoadFailed(Message):
    """A history could not be opened: the sentence for the error dialog."""

    source: Source
    error: str


@dataclass
class SessionsOffered(Message):
    """The file holds several sessions and none was named (``--session``), or the one named is
    not there (``missing``): offer them."""

    source: Source
    sessions: list
    missing: str | None = None


@dataclass
class StagesPrepared(Message):
    """The warm-up worker has built every view's rows of ``document``."""

    document: Document


@dataclass
class EditRead(Message):
    """The editing worker has read and repaired an edited document: ``native`` is the edit
    history's state it read, ``focus``/``block`` the entry the cursor goes to, ``started``
    when the edit's key was handled (bench/tui.py)."""

    document: Document
    native: Any
    focus: Any
    block: int | None
    label: str
    started: float


@dataclass
class EditRefused(Message):
    """The edited document is not one its format reads: the edit is taken back."""

    native: Any
    error: str

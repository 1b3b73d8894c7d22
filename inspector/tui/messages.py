"""What the loading worker tells the screen, as typed messages (toolong's model): the worker
thread posts them, the screen handles them on its own thread, in order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from .loader import Document, Source


class LoadProgress(Message):
    """A phase of reading, parsing or normalizing, and how far along the whole load is."""

    def __init__(self, phase: str, fraction: float) -> None:
        super().__init__()
        self.phase = phase
        self.fraction = fraction


class DocumentLoaded(Message):
    """A history is read and normalized (or normalized again for the strict toggle)."""

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document


class LoadFailed(Message):
    """A history could not be opened: the sentence for the error dialog."""

    def __init__(self, source: Source, error: str) -> None:
        super().__init__()
        self.source = source
        self.error = error


class SessionsOffered(Message):
    """The file holds several sessions and none was named (``--session``): offer them."""

    def __init__(self, source: Source, sessions: list) -> None:
        super().__init__()
        self.source = source
        self.sessions = sessions


class StagesPrepared(Message):
    """The warm-up worker has built every view's rows of ``document``."""

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document

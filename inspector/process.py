"""How a command-line run meets its process: closed or failing standard streams, signals.

The CLI's ``main()`` uses these so that a closed standard output (``>&-``), a full one
(``>/dev/full``) or a SIGTERM ends in one line or a clean exit, never a traceback or a
temporary file left behind. No rule and no format lives here.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["Interrupted", "hold_interrupts", "interruptible", "interrupts_held", "mend_closed_streams",
           "release_interrupts", "silence_stdout", "terminated_cleanly"]


class _ClosedStream:
    """Stands in for a standard stream the shell closed (``>&-``): writing to it is an
    error the CLI reports, not a silent no-op (Python sets such a stream to None)."""

    def __getattr__(self, name: str) -> Any:
        raise OSError(errno.EBADF, "standard output is closed")

    def write(self, data: Any) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    buffer = property(lambda self: self)

    def flush(self) -> None:
        pass


def mend_closed_streams() -> None:
    """Give a closed standard stream a stand-in: output fails loudly, errors vanish quietly."""
    if sys.stdout is None:
        sys.stdout = _ClosedStream()  # type: ignore[assignment]
    if sys.stderr is None:  # print(file=None) would write errors to standard output
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process


def silence_stdout() -> None:
    """After a failed write to standard output, point it at /dev/null so that Python's
    final flush at exit cannot fail a second time with a traceback-like warning."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised where the main thread is, so everything unwinds as on Ctrl-C
    (an atomic write removes its temporary file, a batch its temporary folders)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_installed: list[int] = []  # the signals interruptible() handles now
_held: list[int] = []       # signals that came while interrupts were held
_holding = [0]              # depth of hold_interrupts() not yet released


def _interrupt(signum: int, frame: Any) -> None:
    # After the first signal the others are ignored until the clean-up is over: a second
    # one (a process group signalled twice, an impatient user) must not cut it short.
    for other in _installed:
        signal.signal(other, signal.SIG_IGN)
    if _holding[0]:
        _held.append(signum)
        return
    raise Interrupted(signum)


@contextlib.contextmanager
def interruptible(signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """The one signal policy of the command line: within the block each of ``signals``
    raises :class:`Interrupted` (once; later ones are ignored), except while interrupts are
    held (:func:`hold_interrupts`). Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = {s: signal.signal(s, _interrupt) for s in signals}
    except (ValueError, OSError):
        yield
        return
    _installed[:] = list(signals)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _installed.clear()
        _held.clear()
        _holding[0] = 0


def hold_interrupts() -> None:
    """From now on a signal is noted, not raised, until :func:`release_interrupts`: for a
    step that must finish once begun (outputs renamed into place, then the report)."""
    _holding[0] += 1


def release_interrupts(raising: bool = True) -> None:
    """End a hold; raise :class:`Interrupted` for a signal that came during it (unless
    ``raising`` is False: the caller is unwinding already)."""
    _holding[0] = max(0, _holding[0] - 1)
    if not _holding[0] and _held:
        signum = _held[0]
        _held.clear()
        if raising:
            raise Interrupted(signum)


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """:func:`hold_interrupts` for the block; a signal that came in it is raised at its end."""
    hold_interrupts()
    try:
        yield
    except BaseException:
        release_interrupts(raising=False)
        raise
    release_interrupts()


@contextlib.contextmanager
def terminated_cleanly(active: bool = True) -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C (:func:`interruptible`), so an atomic write removes its
    temporary file; the process then ends by the signal, as the sender expects."""
    if not active:
        yield
        return
    with interruptible((signal.SIGTERM,)):
        try:
            yield
        except Interrupted as exc:
            if exc.signum != signal.SIGTERM:
                raise
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            raise SystemExit(128 + signal.SIGTERM) from None

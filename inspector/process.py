"""How a command-line run meets its process: closed or failing standard streams, SIGTERM.

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

__all__ = ["mend_closed_streams", "silence_stdout", "terminated_cleanly"]


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


@contextlib.contextmanager
def terminated_cleanly(active: bool = True) -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C, so an atomic write removes its temporary file; the
    process then ends by the signal, as the sender expects."""
    if not active or threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        raise SystemExit(128 + signal.SIGTERM) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Terminated(BaseException):
    pass


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated()

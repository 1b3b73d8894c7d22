"""Outputs that appear whole or not at all.

A stream is written through :func:`inspector.io.atomic_stream` (the project's one atomic
writer: a temporary file beside the target, renamed over it only when the batch finishes);
a mirrored folder is built in a temporary sibling folder and renamed into place. Any
exception (Ctrl-C included) removes the temporary, so an interrupted run leaves neither a
partial file nor a stray temporary behind. A ``.gz`` target receives gzip members (each
task's output compressed where it ran), which together form one valid gzip file.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import BinaryIO

from ..io import InputError, OutputError, atomic_stream, check_output, describe_os_error, new_file_mode
from .worker import encode


def check_target(path: str, inputs: list[str], what: str = "output") -> None:
    """Refuse, before any work, a target that is an input or whose folder is missing."""
    if path != "-":
        check_output(path, inputs, f"refusing to write the {what} over an input; choose another path")


WRITEBACK = 16 << 20  # bytes between hints to start writing the output to disk


class StreamTarget:
    """A JSONL file written in pieces, atomically; ``-`` writes to standard output (no
    atomicity is possible there). A failed write (a full disk, a closed standard output)
    becomes one :class:`InputError` naming the target."""

    def __init__(self, path: str, inputs: tuple = ()):
        self.path = path
        self.name = "<stdout>" if path == "-" else path
        self.compress = path.endswith(".gz")
        self._inputs = inputs
        self._stack = ExitStack()
        self._out: BinaryIO | None = None
        self._written = self._hinted = 0

    def __enter__(self) -> StreamTarget:
        if self.path == "-":
            if sys.stdout is None:
                raise InputError(self.name, "cannot write: standard output is closed")
            self._out = sys.stdout.buffer
        else:
            self._out = self._stack.enter_context(atomic_stream(self.path, inputs=self._inputs))
        return self

    def write(self, data: bytes) -> None:
        """Write a task's output (compressed here when the target is ``.gz``)."""
        self.write_encoded(encode(data, self.compress))

    def write_encoded(self, data: bytes) -> None:
        if data:
            try:
                self._out.write(data)  # type: ignore[union-attr]
            except OSError as exc:
                raise self._failed(exc) from None
            self._wrote(len(data))

    def append_part(self, path: str) -> None:
        """Append a part file a worker wrote (already encoded), inside the kernel when it can."""
        try:
            with open(path, "rb") as source:
                self._out.flush()  # type: ignore[union-attr]
                size = copy_file(source, self._out)  # type: ignore[arg-type]
        except OSError as exc:
            raise self._failed(exc) from None
        self._wrote(size)

    def _wrote(self, size: int) -> None:
        """Every few megabytes, ask the kernel to start writing the output to disk while the
        batch goes on: the ``fsync`` that makes the final rename safe then has almost
        nothing left to wait for, instead of the whole file at the very end."""
        self._written += size
        if self.path != "-" and self._written - self._hinted >= WRITEBACK:
            try:
                os.posix_fadvise(self._out.fileno(), self._hinted, self._written - self._hinted,  # type: ignore[union-attr]
                                 os.POSIX_FADV_DONTNEED)
            except (AttributeError, OSError, ValueError):  # not Linux, or not a regular file
                pass
            self._hinted = self._written

    def _failed(self, exc: OSError) -> BaseException:
        if isinstance(exc, BrokenPipeError):
            return exc  # the reader of standard output left: the CLI ends quietly
        return OutputError(self.name, f"cannot write: {describe_os_error(exc)}")

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if self.path != "-":
                self._stack.__exit__(exc_type, exc, tb)  # renamed into place, or removed
            elif exc_type is None:
                self._out.flush()  # type: ignore[union-attr]
        except InputError:
            raise
        except OSError as error:
            raise self._failed(error) from None


def copy_file(source: BinaryIO, out: BinaryIO) -> int:
    """Append ``source`` to ``out`` (flushed): ``copy_file_range`` between files,
    ``sendfile`` to a pipe, a plain copy where neither works. Returns the bytes appended."""
    src, dst = source.fileno(), out.fileno()
    size = os.fstat(src).st_size
    sent = 0
    for move in (getattr(os, "copy_file_range", None), getattr(os, "sendfile", None)):
        if move is None:
            continue
        try:
            while sent < size:
                n = (move(src, dst, size - sent, sent) if move is not os.sendfile
                     else os.sendfile(dst, src, sent, size - sent))
                if n == 0:
                    break
                sent += n
            if sent >= size:
                return size
        except OSError as exc:
            if sent or exc.errno not in (errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EBADF,
                                         errno.EOPNOTSUPP, errno.ENOTSUP, errno.ESPIPE):
                raise
    source.seek(sent)
    while block := source.read(1 << 20):
        out.write(block)
        sent += len(block)
    return sent


def check_folder_target(path: str, input_folder: str) -> None:
    """A mirrored folder must not be, contain or sit inside its input, nor hold anything
    yet: the batch never mixes its output with files it did not write."""
    target = Path(path).resolve()
    source = Path(input_folder).resolve()
    if target == source or source in target.parents:
        raise InputError(path, "the output folder must not be the input folder or inside it")
    if target.exists():
        if not target.is_dir():
            raise InputError(path, "exists and is not a folder")
        if any(target.iterdir()):
            raise InputError(path, "output folder is not empty; choose a new or empty folder")
    elif not target.parent.is_dir():
        raise InputError(path, f"folder {str(target.parent)!r} does not exist")


class FolderTarget:
    """A folder of ``.json`` files built beside the target, then renamed into place."""

    def __init__(self, path: str):
        self.path = path.rstrip("/\\") or path
        self._tmp: str | None = None

    def __enter__(self) -> FolderTarget:
        target = Path(self.path)
        self._tmp = tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.resolve().parent)
        return self

    @property
    def temporary(self) -> str | None:
        """The folder being built: workers write the mirrored files straight into it."""
        return self._tmp

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._tmp is None:
            return
        try:
            if exc_type is None:
                os.chmod(self._tmp, new_file_mode(0o777))  # mkdtemp made it private
                os.replace(self._tmp, self.path)  # an empty existing folder is replaced
                self._tmp = None
        finally:
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)
                self._tmp = None

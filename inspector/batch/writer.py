"""Outputs that appear whole or not at all.

A stream goes to a temporary file in the target's folder and is renamed over the target
only when the batch finishes; a mirrored folder is built in a temporary sibling folder
and renamed into place. Any exception (Ctrl-C included) removes the temporary, so an
interrupted run leaves neither a partial file nor a stray temporary behind.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO

from ..io import InputError, check_output, new_file_mode


def check_target(path: str, inputs: list[str], what: str = "output") -> None:
    """Refuse, before any work, a target that is an input or whose folder is missing."""
    if path != "-":
        check_output(path, inputs, f"refusing to write the {what} over an input; choose another path")


class StreamTarget:
    """A file written in pieces, atomically. A ``.gz`` name gets gzip-compressed bytes;
    ``-`` writes to standard output (no atomicity is possible there)."""

    def __init__(self, path: str):
        self.path = path
        self._tmp: str | None = None
        self._raw: io.FileIO | None = None          # the temporary file itself
        self._buffered: io.BufferedWriter | None = None  # complete writes, even when large
        self._out: BinaryIO | None = None           # what records are written to (maybe gzip)

    def __enter__(self) -> StreamTarget:
        if self.path == "-":
            self._out = sys.stdout.buffer
            return self
        target = Path(self.path)
        try:
            fd, self._tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        except OSError as exc:
            raise InputError(self.path, f"cannot write here: {exc.strerror or exc}") from None
        self._raw = io.FileIO(fd, "wb")
        self._buffered = io.BufferedWriter(self._raw, 1 << 16)
        self._out = gzip.GzipFile(fileobj=self._buffered, mode="wb", compresslevel=6, mtime=0) \
            if self.path.endswith(".gz") else self._buffered
        return self

    def write(self, data: bytes | memoryview) -> None:
        self._out.write(data)  # type: ignore[union-attr]

    def append_file(self, path: str) -> None:
        """Append a file's bytes: in the kernel (``sendfile``) when nothing needs encoding."""
        with open(path, "rb") as source:
            size = os.fstat(source.fileno()).st_size
            if self._raw is not None and self._out is self._buffered:
                self._buffered.flush()  # type: ignore[union-attr]
                sent = 0
                try:
                    while sent < size:
                        n = os.sendfile(self._raw.fileno(), source.fileno(), sent, size - sent)
                        if n == 0:
                            raise OSError(f"{path}: ended after {sent} of {size} bytes")
                        sent += n
                    return
                except OSError:
                    if sent:
                        raise
            while block := source.read(1 << 20):
                self._out.write(block)  # type: ignore[union-attr]

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._tmp is None:
            if self._out is not None:
                self._out.flush()
            return
        try:
            if exc_type is None:
                if self._out is not self._buffered:
                    self._out.close()  # type: ignore[union-attr]  # writes the gzip trailer
                self._buffered.flush()  # type: ignore[union-attr]
                os.fsync(self._raw.fileno())  # type: ignore[union-attr]
                self._buffered.close()  # type: ignore[union-attr]
                target = Path(self.path)
                mode = target.stat().st_mode & 0o7777 if target.exists() else new_file_mode(0o666)
                os.chmod(self._tmp, mode)
                os.replace(self._tmp, self.path)
                self._tmp = None
        finally:
            if self._tmp is not None:
                try:
                    self._raw.close()  # type: ignore[union-attr]
                except OSError:
                    pass
                try:
                    os.unlink(self._tmp)
                except OSError:
                    pass
                self._tmp = None

    @property
    def temporary(self) -> str | None:
        return self._tmp


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

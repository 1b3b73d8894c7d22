"""Bytes in and out: decoding, JSON errors with file:line:col, atomic writes.

Nothing here knows a MEM-5 rule; it only turns files into Python values and back.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import orjson

BOM = b"\xef\xbb\xbf"
_BLANK = re.compile(rb"\s*")


class InputError(Exception):
    """A user-facing problem with an input or output path: one clear line, no traceback."""

    def __init__(self, where: str, reason: str, line: int | None = None, column: int | None = None):
        self.where = where
        self.reason = reason
        self.line = line
        self.column = column
        loc = f"{where}:{line}:{column}" if line is not None else where
        super().__init__(f"{loc}: {reason}")


def display_name(path: str | os.PathLike) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


def read_bytes(path: str | os.PathLike) -> bytes:
    name = display_name(path)
    if str(path) == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except IsADirectoryError:
        raise InputError(name, "is a directory, not a file") from None
    except PermissionError:
        raise InputError(name, "permission denied") from None
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def parse_json(data: bytes, name: str) -> Any:
    """Parse UTF-8 JSON (a BOM is allowed); errors carry line and column."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    if _BLANK.fullmatch(data):  # scans in place; data.strip() would copy a large file
        raise InputError(name, "empty file: expected a JSON array of messages")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            line, column = _line_col(data, bad.start)
            raise InputError(name, f"not valid UTF-8 (byte 0x{data[bad.start]:02x})", line, column) from None
        reason = exc.msg or "invalid JSON"
        if reason[:1].isupper() and reason[1:2].islower():
            reason = reason[0].lower() + reason[1:]
        raise InputError(name, reason, exc.lineno, exc.colno) from None


def load_json(path: str | os.PathLike) -> Any:
    return parse_json(read_bytes(path), display_name(path))


def dump_messages(messages: list[Any], compact: bool = False) -> bytes:
    """The one serialization of a history: the CLI and every export write these bytes."""
    option = orjson.OPT_APPEND_NEWLINE if compact else orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    return orjson.dumps(messages, option=option)


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    if str(a) == "-" or str(b) == "-":
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def new_file_mode(base: int = 0o666) -> int:
    """The mode a new file gets under the current umask (mkstemp makes files private)."""
    umask = os.umask(0)
    os.umask(umask)
    return base & ~umask


def check_output(
    path: str | os.PathLike,
    inputs: tuple | list = (),
    refusal: str = "refusing to write over the input file; choose another output path",
) -> Path:
    """Refuse, before any work, an output that is an input, a folder, or in a missing folder."""
    name = str(path)
    for source in inputs:
        if same_file(source, path):
            raise InputError(name, refusal)
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(name, f"folder {str(folder)!r} does not exist")
    if target.is_dir():
        raise InputError(name, "is a directory, not a file")
    return folder


def atomic_write(path: str | os.PathLike, data: bytes, *, inputs: tuple = ()) -> None:
    """Write to a temporary file in the same folder, then rename over the target.

    Refuses to write over any of ``inputs``: an input is never lost.
    """
    with atomic_stream(path, inputs=inputs) as handle:
        handle.write(data)


@contextmanager
def atomic_stream(path: str | os.PathLike, *, inputs: tuple = ()) -> Iterator[BinaryIO]:
    """:func:`atomic_write` for output made in pieces (a batch's JSONL): a binary file to
    write to, renamed over ``path`` only when the block ends without an exception. Any
    exception (Ctrl-C included) removes the temporary file instead, so an interrupted run
    leaves neither a partial output nor a stray file. Refuses to write over ``inputs``."""
    name = str(path)
    folder = check_output(path, inputs)
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(name, f"cannot write here: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(tmp, target.stat().st_mode & 0o7777 if target.exists() else new_file_mode())
        except OSError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

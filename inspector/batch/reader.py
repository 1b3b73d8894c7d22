"""Cutting a dataset into tasks, and reading a task's records with their provenance.

The parent process never reads an uncompressed JSONL file: it cuts it into byte ranges
(``Span``) and each worker reads the lines that *start* in its range, so any cut is
valid, no line is read twice, and memory stays bounded whatever the file size. Line
numbers are counted per task and made file-wide by the consumer, which sees tasks in
order (see ``LineCounter``). A gzip stream or standard input cannot be cut without
reading it, so the parent reads it in blocks of whole lines (``Block``). A folder is cut
into lists of ``.json`` files (``Files``), in sorted path order so runs are reproducible;
agent session files in it (a JSONL file or an SQLite database, by the suffixes the session
formats declare, that a session format recognises by its content: ``formats.is_session_file``,
as ``inspector check`` asks) are listed too, each one whole-file record. Gzip is
recognised by its magic bytes, not by the file name.

Nothing is skipped silently: a folder entry that cannot be read (a dangling link, a link
loop, a FIFO or device, a folder without permission) and a file that vanishes midway each
become one failed record naming it, and the rest of the dataset is processed.
"""

from __future__ import annotations

import errno
import gzip
import os
import sqlite3
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Union

from ..formats import (is_session_file, shadowed, skip_file, skip_folder, whole_database, whole_file_suffixes,
                       written_name)
from ..io import BOM, InputError, describe_os_error, file_kind, stdin_refusal

GZIP_MAGIC = b"\x1f\x8b"
FOLDER_SUFFIXES = (".json", ".json.gz")
# In a folder: one whole file each, when a session format claims it (the suffixes are the formats' own).
SESSION_SUFFIXES = whole_file_suffixes()
TASK_BYTES = 1 << 20   # about a megabyte of input per task: large pickles, small windows
FILES_PER_TASK = 64
SCAN = 1 << 16


@dataclass(frozen=True, slots=True)
class Input:
    """One input as given on the command line: a JSONL file, a folder, or standard input."""

    path: str
    kind: str  # "jsonl" | "folder" | "stdin"

    @property
    def name(self) -> str:
        return "<stdin>" if self.kind == "stdin" else self.path


@dataclass(slots=True)
class Span:
    """The lines of an uncompressed JSONL file that start in ``[start, end)``."""

    name: str
    path: str
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


@dataclass(slots=True)
class Block:
    """Whole lines already read by the parent (gzip or standard input)."""

    name: str
    data: bytes
    first: bool          # the stream's first block: a BOM may open it
    size: int = 0        # input bytes this block stands for (compressed, for gzip)
    error: str | None = None  # the stream broke after these lines: one more, failed, record
    spill: str | None = None  # a file holding ``data`` instead (removed once read)


@dataclass(slots=True)
class Files:
    """Some ``.json`` files of a folder: opened under ``root``, named under ``name``.
    ``problems`` holds the entries found unreadable while planning, with the reason."""

    name: str
    root: str
    relpaths: list[str] = field(default_factory=list)
    size: int = 0
    problems: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # files left alone (not records), with why


Task = Union[Span, Block, Files]


@dataclass(slots=True)
class Record:
    """One history's bytes and where it came from: ``line`` for JSONL (counted from the
    task's first line), ``relpath`` for a folder's file. ``data`` is a ``str`` reason
    instead of bytes when the record could not even be read; it then counts as failed."""

    source: str
    line: int | None
    data: bytes | str
    relpath: str | None = None


def classify(paths: list[str]) -> list[Input]:
    """Check every input up front, so a typo fails before any work (exit 2), not midway."""
    sources = []
    if paths.count("-") > 1:
        raise InputError("-", "standard input can be given only once")
    for path in paths:
        if path == "-":
            refused = stdin_refusal()      # < /dev/zero would be read forever, with no line to cut
            if refused:
                raise InputError("<stdin>", refused)
            sources.append(Input("-", "stdin"))
            continue
        p = Path(path)
        if any(s.kind != "stdin" and Path(s.path).resolve() == p.resolve() for s in sources):
            raise InputError(path, "given twice")
        if p.is_dir():
            sources.append(Input(path, "folder"))
        elif p.is_file():
            if not os.access(p, os.R_OK):
                raise InputError(path, "permission denied")
            sources.append(Input(path, "jsonl"))
        elif p.exists():
            mode = os.stat(p).st_mode
            raise InputError(path, f"is {file_kind(mode)}, not a regular file or folder" + (
                "; batch cuts a file into byte ranges, which a pipe has not: give its records on standard input "
                "(`inspector batch - < PIPE`)" if stat.S_ISFIFO(mode) else ""))
        else:
            raise InputError(path, "no such file or folder")
    return sources


def folder_files(folder: str, skipped: list[tuple[Path, str]] | None = None) -> Iterator[tuple[Path, str | None]]:
    """``.json`` and ``.json.gz`` entries and agent session files under ``folder``, depth
    first, sorted at each level, each with the reason it cannot be read (None when it looks
    readable). A subfolder that cannot be listed is an entry too (its path ends in ``/``), so
    nothing is skipped silently; a file with a session suffix that no session format claims
    (a JSONL dataset, another tool's log) is not a record, and goes to ``skipped`` with why."""
    unreadable: list[tuple[Path, str]] = []

    def listing_failed(exc: OSError) -> None:
        where = Path(exc.filename or folder)
        unreadable.append((where, f"cannot read this folder: {describe_os_error(exc)}"))

    for root, dirs, files in os.walk(folder, onerror=listing_failed):
        yield from _drain(unreadable)
        dirs[:] = sorted(d for d in dirs if not skip_folder(d))
        for name in sorted(files):
            if skip_file(name):
                continue
            if name.endswith(FOLDER_SUFFIXES):
                path = Path(root, name)
                yield path, _unreadable(path)
            elif name.endswith(SESSION_SUFFIXES):
                path = Path(root, name)
                problem = _unreadable(path)
                if problem is None and shadowed(path):
                    if skipped is not None:
                        skipped.append((path, SHADOWED))
                    continue
                if problem is None and not is_session_file(path):
                    if skipped is not None:
                        skipped.append((path, NOT_A_SESSION))
                    continue
                yield path, problem
    yield from _drain(unreadable)


NOT_A_SESSION = "skipped: not a session file Inspector knows (no session format recognises its first line)"
SHADOWED = ("skipped: a compressed copy of the plain session file beside it, which is the one the agent reads "
            "(and the one read here)")


def is_session_record(relpath: str | None) -> bool:
    """A folder record that is a whole agent session file (not one JSON document)."""
    return relpath is not None and relpath.endswith(SESSION_SUFFIXES)


def _drain(unreadable: list[tuple[Path, str]]) -> Iterator[tuple[Path, str]]:
    while unreadable:
        yield unreadable.pop(0)


def _unreadable(path: Path) -> str | None:
    """Why a folder entry is not a file to read, or None: a FIFO would block the batch
    forever, a device would never end, a broken link has nothing behind it."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return "a dangling symbolic link: its target does not exist"
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop"
        return f"cannot read: {describe_os_error(exc)}"
    if not stat.S_ISREG(info.st_mode):
        return f"not a regular file ({_file_type(info.st_mode)}); skipped"
    if not os.access(path, os.R_OK):
        return "cannot read: permission denied"
    return None


def _file_type(mode: int) -> str:
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
            "a folder" if stat.S_ISDIR(mode) else "not a file")


def mirror_clash(folder: str) -> tuple[str, str] | None:
    """Two entries of ``folder`` whose mirrored outputs would have the same name (``x.json``
    and ``x.json.gz``): the first such pair, in listing order, or None. Names only: nothing
    is opened."""
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        names = set(files)
        for name in sorted(files):
            if name.endswith(".json.gz") and not name.startswith(".") and name[:-len(".gz")] in names:
                rel = Path(root, name).relative_to(folder).as_posix()
                return rel[:-len(".gz")], rel
    return None


def mirrored_name(relpath: str) -> str:
    """A folder record's output path: the same relative path, ``.json.gz`` as plain ``.json``,
    a compressed Codex rollout as the plain ``.jsonl`` Codex reads (``written_name``)."""
    return relpath[: -len(".gz")] if relpath.endswith(".json.gz") else written_name(relpath)


def is_gzip(path: str) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def total_bytes(sources: list[Input]) -> int | None:
    """Input bytes as stored, for the progress bar's ETA (None when standard input)."""
    total = 0
    for s in sources:
        if s.kind == "stdin":
            return None
        if s.kind == "jsonl":
            total += os.path.getsize(s.path)
        else:
            total += sum(_size(p) for p, problem in folder_files(s.path) if problem is None)
    return total


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


# -- planning (the parent) ---------------------------------------------------------------

def plan(sources: list[Input], stdin: BinaryIO | None = None, task_bytes: int = TASK_BYTES) -> Iterator[Task]:
    """Tasks in input order, lazily: only blocks of gzip or stdin hold data."""
    for source in sources:
        if source.kind == "folder":
            yield from plan_folder(source, FILES_PER_TASK)
        elif source.kind == "stdin":
            import sys

            raw = stdin or sys.stdin.buffer
            yield from plan_stream(source.name, raw, task_bytes, counted=None)
        elif is_gzip(source.path):
            with open(source.path, "rb") as raw:
                yield from plan_stream(source.name, raw, task_bytes, counted=raw)
        else:
            yield from plan_spans(source.name, source.path, 0, os.path.getsize(source.path), task_bytes)


def plan_spans(name: str, path: str, start: int, end: int, task_bytes: int) -> Iterator[Span]:
    absolute = os.path.abspath(path)
    for at in range(start, end, task_bytes):
        yield Span(name, absolute, at, min(at + task_bytes, end))


def plan_folder(source: Input, per_task: int) -> Iterator[Files]:
    task = Files(source.name, os.path.abspath(source.path))
    skipped: list[tuple[Path, str]] = []
    for path, problem in folder_files(source.path, skipped):
        for other, why in skipped:
            task.skipped[other.relative_to(source.path).as_posix()] = why
        skipped.clear()
        rel = path.relative_to(source.path).as_posix() if path != Path(source.path) else "."
        task.relpaths.append(rel)
        if problem is None:
            task.size += _size(path)
        else:
            task.problems[rel] = problem
        if len(task.relpaths) >= per_task:
            yield task
            task = Files(source.name, task.root)
    for other, why in skipped:
        task.skipped[other.relative_to(source.path).as_posix()] = why
    if task.relpaths or task.skipped:
        yield task


class Damaged(Exception):
    """A stream that cannot be read further; everything before it was delivered."""


def plan_stream(name: str, raw: BinaryIO, task_bytes: int, counted: BinaryIO | None) -> Iterator[Block]:
    """Blocks of whole lines (about ``task_bytes`` each) from a stream, decompressing
    gzip on the way. Every byte decoded before damage is delivered: the whole lines
    before it are records, and the damage is one failed record at the line it cut."""
    pieces = _stream_pieces(raw)
    buffer = bytearray()
    first = True
    consumed = 0
    while True:
        error = None
        try:
            piece = next(pieces, b"")
        except Damaged as exc:
            piece, error = b"", f"cannot read further: {exc}"
        buffer += piece
        if piece and len(buffer) < task_bytes:
            continue
        cut = buffer.rfind(b"\n") + 1 if (piece or error) else len(buffer)
        if cut or error:
            now = _position(counted, consumed + cut)
            yield Block(name, bytes(buffer[:cut]), first, now - consumed, error)
            del buffer[:cut]
            consumed, first = now, False
        if not piece:
            return


def _position(counted: BinaryIO | None, fallback: int) -> int:
    try:
        return counted.tell() if counted is not None else fallback
    except (OSError, ValueError):
        return fallback


def _stream_pieces(raw: BinaryIO) -> Iterator[bytes]:
    """The stream's bytes, gunzipped when it starts with the gzip magic; raises
    :class:`Damaged` only after yielding every byte that could be decoded."""
    try:
        head = raw.read(SCAN)
    except OSError as exc:
        raise Damaged(describe_os_error(exc)) from None
    if head[:2] != GZIP_MAGIC:
        while head:
            yield head
            try:
                head = raw.read(SCAN)
            except OSError as exc:
                raise Damaged(describe_os_error(exc)) from None
        return
    yield from gunzip(head, raw)


def gunzip(head: bytes, raw: BinaryIO) -> Iterator[bytes]:
    """Decompress gzip members one after another (``zlib`` directly: ``GzipFile`` drops
    what it decoded in the read call that meets damage). Zero padding after a member is
    allowed, as gzip allows it; anything else after a member must be another member.
    Output comes in pieces of at most ``SCAN`` bytes, however well the input compresses."""
    decoder = zlib.decompressobj(31)
    between = False   # after a member's end, before the next member's first byte
    offset = 0        # compressed bytes consumed so far, to say where damage is
    data = head

    def more() -> bytes:
        try:
            return raw.read(SCAN)
        except OSError as exc:
            raise Damaged(f"{describe_os_error(exc)}, after {offset:,} compressed bytes") from None

    while True:
        if between:
            stripped = data.lstrip(b"\0")
            offset += len(data) - len(stripped)
            data = stripped or more()
            if not stripped:
                if not data:
                    return
                continue
            if data[:1] != GZIP_MAGIC[:1]:
                raise Damaged(f"bytes that are not gzip data follow the compressed data, at byte {offset:,}")
            decoder, between = zlib.decompressobj(31), False
        try:
            out = decoder.decompress(data, SCAN)
        except zlib.error as exc:
            raise Damaged(f"damaged gzip data after {offset:,} compressed bytes ({exc})") from None
        rest = decoder.unused_data if decoder.eof else decoder.unconsumed_tail
        offset += len(data) - len(rest)
        data = rest
        if out:
            yield out
        if decoder.eof:
            between = True
        elif not data and len(out) < SCAN:
            data = more()
            if not data:
                raise Damaged(f"the gzip data ends early, after {offset:,} compressed bytes (truncated)")


# -- reading (a worker) ------------------------------------------------------------------

class LineCounter:
    """Turns task-local line numbers into file line numbers, for tasks seen in order."""

    def __init__(self) -> None:
        self.before: dict[str, int] = {}

    def base(self, task: Task) -> int:
        return 0 if isinstance(task, Files) else self.before.get(task.name, 0)

    def advance(self, task: Task, lines: int) -> None:
        if not isinstance(task, Files):
            self.before[task.name] = self.before.get(task.name, 0) + lines


def task_records(task: Task, count: list[int]) -> Iterator[Record]:
    """A task's records; ``count[0]`` ends as the number of physical lines read."""
    if isinstance(task, Span):
        yield from _span_records(task, count)
    elif isinstance(task, Block):
        yield from _block_records(task, count)
    else:
        for rel in task.relpaths:
            name = str(Path(task.name, rel))
            problem = task.problems.get(rel)
            if problem is not None:
                yield Record(name, None, problem, rel)
            else:
                yield read_file_record(Path(task.root, rel), name, rel)


def read_span(task: Span) -> tuple[bytes, bool]:
    """The bytes of the lines that start in the task's range (one read, not a read per
    line), and whether they open the file (so a BOM may lead them)."""
    with open(task.path, "rb") as handle:
        if task.start > 0:
            handle.seek(task.start - 1)
            _skip_line(handle)  # finish the line that began before the range
        position = handle.tell()
        if position >= task.end:
            return b"", False
        data = handle.read(task.end - position)
        if data and not data.endswith(b"\n"):
            data += handle.readline()  # the last line starts in the range: read it whole
        return data, position == 0


def _span_records(task: Span, count: list[int]) -> Iterator[Record]:
    try:
        data, first = read_span(task)
    except OSError as exc:  # removed or unreadable since the batch started
        count[0] = 0
        yield Record(task.name, None, f"cannot read: {describe_os_error(exc)}")
        return
    yield from _lines(task.name, data, first, count)


def _lines(name: str, data: bytes, first: bool, count: list[int]) -> Iterator[Record]:
    """The records of a block of lines; ``count[0]`` ends as the number of lines. Lines are
    found with ``find`` (memchr), several times faster than ``split`` on a megabyte."""
    find, size = data.find, len(data)
    start = number = 0
    while start < size:
        end = find(b"\n", start)
        if end < 0:
            end = size
        line = data[start:end]
        start = end + 1
        number += 1
        count[0] = number
        if first and number == 1 and line.startswith(BOM):
            line = line[len(BOM):]
        if line and not line.isspace():  # no copy, unlike strip()
            yield Record(name, number, line)


def _skip_line(handle: BinaryIO) -> None:
    """Move past the next newline, a block at a time (a huge line never sits in memory)."""
    while True:
        block = handle.read(SCAN)
        if not block:
            return
        at = block.find(b"\n")
        if at >= 0:
            handle.seek(at + 1 - len(block), os.SEEK_CUR)
            return


def _block_records(task: Block, count: list[int]) -> Iterator[Record]:
    data = task.data
    if task.spill is not None:
        with open(task.spill, "rb") as handle:
            data = handle.read()
        os.unlink(task.spill)
    yield from _lines(task.name, data, task.first, count)
    if task.error is not None:
        count[0] += 1
        yield Record(task.name, count[0], task.error)


def read_file_record(path: Path, name: str, rel: str) -> Record:
    """One folder entry's record. Opened without blocking and checked once open, so an
    entry that became a FIFO or a device since planning cannot hang or flood the batch."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return Record(name, None, _unreadable(path) or f"cannot read: {describe_os_error(exc)}", rel)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Record(name, None, f"not a regular file ({_file_type(info.st_mode)}); skipped", rel)
        with open(fd, "rb", closefd=False) as raw:
            data = raw.read()
    except OSError as exc:
        return Record(name, None, f"cannot read: {describe_os_error(exc)}", rel)
    finally:
        os.close(fd)
    try:   # a live database: its newest commits may still be in its -wal (read as SQLite reads it)
        data = whole_database(str(path), data)
    except (OSError, sqlite3.Error) as exc:
        return Record(name, None, f"cannot read the database with its -wal: {exc}", rel)
    if data[:2] == GZIP_MAGIC:
        try:
            return Record(name, None, gzip.decompress(data), rel)
        except (OSError, EOFError, zlib.error) as exc:
            return Record(name, None, f"cannot decompress: {exc}", rel)  # one bad record, not the end
    return Record(name, None, data, rel)

"""Cutting a dataset into tasks, and reading a task's records with their provenance.

The parent process never reads an uncompressed JSONL file: it cuts it into byte ranges
(``Span``) and each worker reads the lines that *start* in its range, so any cut is
valid, no line is read twice, and memory stays bounded whatever the file size. Line
numbers are counted per task and made file-wide by the consumer, which sees tasks in
order (see ``LineCounter``). A gzip stream or standard input cannot be cut without
reading it, so the parent reads it in blocks of whole lines (``Block``). A folder is cut
into lists of ``.json`` files (``Files``), in sorted path order so runs are reproducible.
Gzip is recognised by its magic bytes, not by the file name.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Union

from ..io import BOM, InputError

GZIP_MAGIC = b"\x1f\x8b"
FOLDER_SUFFIXES = (".json", ".json.gz")
TASK_BYTES = 1 << 20   # about a megabyte of input per task: large pickles, small windows
FILES_PER_TASK = 64
SCAN = 1 << 16


@dataclass(frozen=True, slots=True)
class Source:
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


@dataclass(slots=True)
class Files:
    """Some ``.json`` files of a folder: opened under ``root``, named under ``name``."""

    name: str
    root: str
    relpaths: list[str] = field(default_factory=list)
    size: int = 0


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


def classify(paths: list[str]) -> list[Source]:
    """Check every input up front, so a typo fails before any work (exit 2), not midway."""
    sources = []
    if paths.count("-") > 1:
        raise InputError("-", "standard input can be given only once")
    for path in paths:
        if path == "-":
            sources.append(Source("-", "stdin"))
            continue
        p = Path(path)
        if any(s.kind != "stdin" and Path(s.path).resolve() == p.resolve() for s in sources):
            raise InputError(path, "given twice")
        if p.is_dir():
            sources.append(Source(path, "folder"))
        elif p.is_file():
            if not os.access(p, os.R_OK):
                raise InputError(path, "permission denied")
            sources.append(Source(path, "jsonl"))
        elif p.exists():
            raise InputError(path, "not a regular file or folder")
        else:
            raise InputError(path, "no such file or folder")
    return sources


def folder_files(folder: str) -> Iterator[Path]:
    """``.json`` and ``.json.gz`` files under ``folder``, depth first, sorted at each level."""
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in sorted(files):
            if name.endswith(FOLDER_SUFFIXES) and not name.startswith("."):
                yield Path(root, name)


def mirrored_name(relpath: str) -> str:
    """A folder record's output path: the same relative path, always plain ``.json``."""
    return relpath[: -len(".gz")] if relpath.endswith(".json.gz") else relpath


def is_gzip(path: str) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def total_bytes(sources: list[Source]) -> int | None:
    """Input bytes as stored, for the progress bar's ETA (None when standard input)."""
    total = 0
    for s in sources:
        if s.kind == "stdin":
            return None
        if s.kind == "jsonl":
            total += os.path.getsize(s.path)
        else:
            total += sum(p.stat().st_size for p in folder_files(s.path))
    return total


# -- planning (the parent) ---------------------------------------------------------------

def plan(sources: list[Source], stdin: BinaryIO | None = None, task_bytes: int = TASK_BYTES) -> Iterator[Task]:
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


def plan_folder(source: Source, per_task: int) -> Iterator[Files]:
    task = Files(source.name, os.path.abspath(source.path))
    for path in folder_files(source.path):
        task.relpaths.append(path.relative_to(source.path).as_posix())
        task.size += path.stat().st_size
        if len(task.relpaths) >= per_task:
            yield task
            task = Files(source.name, task.root)
    if task.relpaths:
        yield task


def plan_stream(name: str, raw: BinaryIO, task_bytes: int, counted: BinaryIO | None) -> Iterator[Block]:
    """Blocks of whole lines (about ``task_bytes`` each) from a stream, decompressing
    gzip on the way. Read in small pieces, so a broken stream loses nothing before it."""
    if not isinstance(raw, io.BufferedReader) and not hasattr(raw, "peek"):
        raw = io.BufferedReader(raw)  # type: ignore[arg-type]
    handle: BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb") if raw.peek(2)[:2] == GZIP_MAGIC else raw  # type: ignore[attr-defined,assignment]
    buffer = bytearray()
    first = True
    consumed = 0
    while True:
        error = None
        try:
            piece = handle.read(SCAN)
        except (OSError, EOFError) as exc:
            # A truncated or corrupt gzip stream: the whole lines before it stand; the rest
            # becomes one failed record and the batch goes on with the next input.
            piece, error = b"", f"cannot read further: {exc}"
        buffer += piece
        if piece and len(buffer) < task_bytes:
            continue
        cut = buffer.rfind(b"\n") + 1 if (piece or error) else len(buffer)
        if cut or error:
            now = counted.tell() if counted is not None else consumed + cut
            yield Block(name, bytes(buffer[:cut]), first, now - consumed, error)
            del buffer[:cut]
            consumed, first = now, False
        if not piece:
            return


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
            yield read_file_record(Path(task.root, rel), str(Path(task.name, rel)), rel)


def _span_records(task: Span, count: list[int]) -> Iterator[Record]:
    with open(task.path, "rb") as handle:
        if task.start > 0:
            handle.seek(task.start - 1)
            _skip_line(handle)  # finish the line that began before the range
        position = handle.tell()
        number = 0
        while position < task.end:
            line = handle.readline()
            if not line:
                break
            position += len(line)
            number += 1
            if task.start == 0 and number == 1 and line.startswith(BOM):
                line = line[len(BOM):]
            if line and not line.isspace():  # no copy, unlike strip()
                yield Record(task.name, number, line)
        count[0] = number


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
    lines = task.data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    count[0] = len(lines)
    for number, line in enumerate(lines, 1):
        if task.first and number == 1 and line.startswith(BOM):
            line = line[len(BOM):]
        if line and not line.isspace():
            yield Record(task.name, number, line)
    if task.error is not None:
        count[0] += 1
        yield Record(task.name, count[0], task.error)


def read_file_record(path: Path, name: str, rel: str) -> Record:
    try:
        with open(path, "rb") as raw:
            data = raw.read()
    except OSError as exc:
        return Record(name, None, f"cannot read: {exc.strerror or exc}", rel)
    if data[:2] == GZIP_MAGIC:
        try:
            return Record(name, None, gzip.decompress(data), rel)
        except (OSError, EOFError) as exc:
            return Record(name, None, f"cannot decompress: {exc}", rel)  # one bad record, not the end
    return Record(name, None, data, rel)

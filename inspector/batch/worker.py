"""The work each process does: parse, import, normalize and serialize a chunk of records.

A task names about a megabyte of input (a byte range of a file, a block of lines, or a
few files) and the worker reads it itself, so the parent neither reads nor pickles the
input; a task's output comes back as one joined buffer, through shared memory (or a
part file) rather than the pool's pipe, with a small tally, so the parent only writes
bytes and adds numbers up. Every tally is read off the
engine's events.
"""

from __future__ import annotations

import mmap
import signal
from pathlib import Path
from dataclasses import dataclass, field
from typing import Union

from ..io import InputError, parse_json
from ..pipeline import run
from .reader import Record, Task, mirrored_name, task_records

FAILED = -1
Handoff = Union[tuple[str, int, int], tuple[str, str], None]


@dataclass(slots=True)
class Failure:
    index: int          # position of the record inside its chunk
    reason: str
    line: int | None    # line and column inside the record's text, when JSON was invalid
    column: int | None
    excerpt: str = ""   # the record's first characters, to recognise it in the errors file


@dataclass(slots=True)
class ChunkResult:
    """What one task produced. ``output`` is the JSONL bytes of its good records, joined
    (empty when a mirrored folder's files were written directly)."""

    output: bytes
    drops: list[int]                      # per record; FAILED for a failed record
    where: list[tuple[str, int | None]] = field(default_factory=list)  # task-local lines
    lines: int = 0                        # physical lines the task read
    handoff: Handoff = None               # where ``output`` was put instead, if anywhere
    changed: int = 0
    failures: list[Failure] = field(default_factory=list)
    # (clause, kind) -> [events, records having at least one]
    kinds: dict[tuple[str, str], list[int]] = field(default_factory=dict)


def ignore_interrupts() -> None:
    """Pool initializer: Ctrl-C reaches the whole process group, but only the parent
    should react (it cleans up its temporary files and stops the pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler is not ours to run


EXCERPT = 120


def _excerpt(item: bytes | str) -> str:
    """The start of a failed record, to recognise it in the errors file."""
    if isinstance(item, str):
        return ""
    return item[:EXCERPT * 4].decode("utf-8", errors="replace").strip()[:EXCERPT]


# Shared memory the parent maps before forking its pool: one slot per task in flight.
SHARED: mmap.mmap | None = None


def run_task(task: Task, fmt: str = "auto", mirror: str | None = None, handoff: Handoff = None) -> ChunkResult:
    """Read a task's records and process them. With ``mirror``, each good record is
    written to its mirrored path under that folder. ``handoff`` says where the parent
    wants the output: ``("slot", offset, capacity)`` in ``SHARED``, or ``("part", path)``
    a file it appends with ``sendfile``. Piping megabytes back through the pool would cost
    the parent (the one serial process) more CPU than either."""
    count = [0]
    records = list(task_records(task, count))
    result = process_records(records, fmt, mirror)
    result.lines = count[0]
    size = len(result.output)
    if handoff is None or not size:
        return result
    if handoff[0] == "slot" and SHARED is not None and size <= handoff[2]:
        SHARED[handoff[1]:handoff[1] + size] = result.output
        result.handoff = ("slot", handoff[1], size)
        result.output = b""
    elif handoff[0] == "part":
        with open(handoff[1], "wb") as handle:
            handle.write(result.output)
        result.handoff = handoff
        result.output = b""
    return result  # an output too large for its slot travels back through the pipe


def process_records(records: list[Record], fmt: str = "auto", mirror: str | None = None) -> ChunkResult:
    parts: list[bytes] = []
    result = ChunkResult(output=b"", drops=[], where=[(r.source, r.line) for r in records])
    kinds = result.kinds
    for index, record in enumerate(records):
        item = record.data
        try:
            if isinstance(item, str):  # the reader could not read it at all
                raise InputError("<record>", item)
            document = parse_json(item, "<record>")
            outcome = run(document, "<record>", fmt, compact=True)
            normalized = outcome.result
        except InputError as exc:
            result.failures.append(Failure(index, exc.reason, exc.line, exc.column, _excerpt(item)))
            result.drops.append(FAILED)
            continue
        except Exception as exc:  # noqa: BLE001 - one record must never stop a batch
            reason = f"internal error: {type(exc).__name__}: {exc}"
            result.failures.append(Failure(index, reason, None, None, _excerpt(item)))
            result.drops.append(FAILED)
            continue
        data = outcome.data
        if mirror is None:
            parts.append(data)
        else:
            dest = Path(mirror, mirrored_name(record.relpath or ""))
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        result.drops.append(normalized.dropped)
        events = normalized.events
        if outcome.changed:
            result.changed += 1
        seen: set[tuple[str, str]] = set()
        for event in events:
            key = (event.clause, event.kind)
            tally = kinds.get(key)
            if tally is None:
                tally = kinds[key] = [0, 0]
            tally[0] += 1
            if key not in seen:
                seen.add(key)
                tally[1] += 1
    result.output = b"".join(parts)
    return result

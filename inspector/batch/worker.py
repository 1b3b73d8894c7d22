"""The work each process does: every record of a task through the one pipeline.

Each record goes through :func:`inspector.pipeline.run` with the options of
``inspector normalize --compact`` (``--from``, ``--to``, ``--strict``), so an output line
is exactly what that command prints for the record, in the local job and on Dask alike.
An agent session file in a folder (``.jsonl``, ``.db``) is one record too, the whole file,
written to the mirrored folder as ``inspector normalize FILE -o OUT`` writes it (a
database holding several sessions: every session repaired, see :func:`run_session_file`).
A task names about a megabyte of input (a byte range of a file, a block of lines, or a
few files) and the worker reads it itself, so the parent neither reads nor pickles the
input. The worker also puts the task's output where the parent writes it from, gzip-
compressed already when the output is (so compression runs in parallel too): into a slot
of memory shared with the parent, or, when it does not fit there, a part file the parent
appends inside the kernel. Either way no output byte is pickled or piped; the parent
writes it and adds up the small tally each task sends back, a :class:`Health` of the
task's own records, read off the pipeline's events.
"""

from __future__ import annotations

import os
import signal
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import formats, pipeline
from ..engine import gc_paused
from ..io import InputError, JSONWriteError, write_failure
from .cells import repair_line
from .changes import change_entry, tally
from .heap import keep_freed_memory
from .parquet import Group, run_group
from .reader import Record, Span, Task, is_session_record, mirrored_name, task_records
from .report import Health
from ..verdict import resume_verdict

RECORD = "<record>"  # the name a record carries inside the pipeline; failures name the file
EXCERPT = 120
SESSION_NEEDS_FOLDER = ("an agent session file is repaired into a mirrored output folder, not into one "
                        "JSONL stream; give a folder as the output")


@dataclass(frozen=True, slots=True)
class Conversion:
    """How every record is converted (the options ``inspector normalize`` takes), where its
    history is, and what the change log says of it."""

    fmt: str = "auto"     # --from
    to: str = "same"      # --to
    strict: bool = False  # --strict
    column: str | None = None     # --column: the history is this field of each record (Parquet: messages)
    id_column: str | None = None  # --id-column: named in the change log
    target: str | None = None     # --target: the provider problems left, in the change log and report
    changes: bool = False         # --changes: keep each changed record's change-log entry
    reasoning: str = "keep"      # --reasoning


@dataclass(frozen=True, slots=True)
class Destination:
    """Where a task's output goes: ``mirror``, a folder that receives each record as a file
    of its own; else a part file in ``parts`` (None: kept in memory, for the parent to write
    itself), gzip-compressed when ``compress``."""

    mirror: str | None = None
    parts: str | None = None
    compress: bool = False


@dataclass(slots=True)
class ChunkResult:
    """What one task produced. ``health`` counts its records with ordinals from 0 and lines
    from the task's first line; ``errors`` holds every failed record's errors-file entry."""

    health: Health
    errors: list[dict[str, Any]] = field(default_factory=list)
    output: bytes = b""        # the task's output, when kept in memory
    part: str | None = None    # or the file that holds it
    slot: tuple[int, int] | None = None  # or (offset, size) in the memory shared with the parent
    lines: int = 0             # physical lines the task read
    unreadable: bool = False   # its input could not be opened at all (one failed record says why)
    changes: list[dict[str, Any]] = field(default_factory=list)  # change-log entries, lines from the task's first


def ignore_interrupts() -> None:
    """In a worker: Ctrl-C reaches the whole process group, but only the parent reacts (it
    stops the workers and removes the temporary files); SIGTERM ends a worker at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _excerpt(item: bytes | str) -> str:
    """The start of a failed record, to recognise it in the errors file."""
    if isinstance(item, str):
        return ""
    return item[:EXCERPT * 4].decode("utf-8", errors="replace").strip()[:EXCERPT]


def encode(data: bytes, compress: bool) -> bytes:
    """A task's output as stored: with ``compress``, a gzip member of its own. Members
    concatenate into one valid gzip stream, so each task is compressed where it ran."""
    if not compress or not data:
        return data
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: a gzip header and trailer, mtime 0
    return packer.compress(data) + packer.flush()


def run_task(task: Task, conversion: Conversion = Conversion(), destination: Destination = Destination(),
             number: int = 0, shared: Any = None, slot: tuple[int, int] | None = None) -> ChunkResult:
    """Read a task's records, process them, and put the output where ``destination`` says,
    or in ``shared`` memory at ``slot`` (offset, capacity) when given and large enough.
    A Parquet row group's rows go to an Arrow IPC part file (see ``parquet.run_group``)."""
    keep_freed_memory()
    if isinstance(task, Group):
        part = os.path.join(destination.parts, f"{number:09d}.arrow") if destination.parts is not None else None
        return run_group(task, conversion, part)  # type: ignore[return-value]
    count = [0]
    with gc_paused():  # many small acyclic objects per record: the cyclic collector only costs time
        result = process_records(task_records(task, count), conversion, destination.mirror)
    result.lines = count[0]
    # A byte range that could not be opened reads no line and yields one failed record.
    result.unreadable = isinstance(task, Span) and not result.lines and bool(result.errors)
    data = encode(result.output, destination.compress)
    if shared is not None and slot is not None and 0 < len(data) <= slot[1]:
        shared[slot[0]:slot[0] + len(data)] = data
        result.slot = (slot[0], len(data))
        result.output = b""
    elif destination.parts is not None and data:
        result.part = os.path.join(destination.parts, f"{number:09d}.part")
        with open(result.part, "wb") as handle:
            handle.write(data)
        result.output = b""
    else:
        result.output = data
    return result


def process_records(records, conversion: Conversion = Conversion(), mirror: str | None = None) -> ChunkResult:
    parts: list[bytes] = []
    health = Health()
    result = ChunkResult(health)
    fmt, to, strict, column = conversion.fmt, conversion.to, conversion.strict, conversion.column
    for record in records:
        item = record.data
        where: dict[str, Any] = {}
        try:
            if isinstance(item, str):  # the reader could not read it at all
                raise InputError(RECORD, item)
            if mirror is None and is_session_record(record.relpath):
                raise InputError(RECORD, SESSION_NEEDS_FOLDER)
            if is_session_record(record.relpath):
                outcomes = run_session_file(item, conversion)
            elif column is not None:      # --column: the record is an object holding its history
                data, outcome, where = repair_line(item, conversion.column, conversion.id_column, fmt, to, strict,
                                                    conversion.reasoning)
                outcomes = [outcome]
            else:
                # A record is one JSON document: no session format's sniffing of raw bytes
                # applies to it (and a sniff would parse every line twice).
                imported = pipeline.load(item, RECORD, fmt, sniff=False)
                outcomes = [pipeline.outcome(imported, RECORD, to, strict, compact=True, owned=True,
                                             reasoning=conversion.reasoning)]
            if column is None or is_session_record(record.relpath):
                data = outcomes[-1].data
            change = tally(outcomes, conversion.target)
            # the one resume verdict, per agent session (a session file, or a record an agent wrote)
            verdicts = [(pipeline.chosen_session(o.imported.document) if len(outcomes) > 1 else None,
                         resume_verdict(o, conversion.target))
                        for o in outcomes if formats.get(o.imported.format).is_session]
        except InputError as exc:
            _failed(result, record, exc.reason, exc.line, exc.column)
            continue
        except (JSONWriteError, RecursionError) as exc:  # orjson reads deeper nesting than it writes
            _failed(result, record, write_failure(exc))
            continue
        except Exception as exc:  # noqa: BLE001 - one record must never stop a batch
            _failed(result, record, f"internal error: {type(exc).__name__}: {exc}")
            continue
        if mirror is None:
            # One record a line, whatever the format's writer ends its document with (a
            # Cline-family task is written as JSON.stringify writes it, with no newline).
            parts.append(data if data.endswith(b"\n") else data + b"\n")
        else:
            dest = Path(mirror, mirrored_name(record.relpath or ""))
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        for session, verdict in verdicts:
            health.add_resume(record.source if record.relpath is None else record.relpath, session, verdict)
        # The report and the change log count from this one tally.
        health.add_record(change.dropped, change.kinds, change.changed, record.source, record.line,
                          problems=change.problems)
        if conversion.changes and change.logged:
            result.changes.append(change_entry(change, {"source": record.source, "line": record.line, **where}))
    result.output = b"".join(parts)
    return result


def run_session_file(data: bytes, conversion: Conversion) -> list[pipeline.Outcome]:
    """A whole agent session file through the pipeline, as ``inspector normalize FILE`` runs it.
    A database holding several sessions has each repaired in turn, every one read from the
    database the one before it wrote (``normalize --session ID`` run once per session, without
    writing and parsing the bytes in between); the last outcome holds the bytes to write."""
    fmt, to, strict = conversion.fmt, conversion.to, conversion.strict
    document = pipeline.parse(data, RECORD, fmt)
    sessions = [s.id for s in pipeline.held_sessions(document)]
    if len(sessions) < 2:
        return [pipeline.outcome(pipeline.read(document, RECORD, fmt), RECORD, to, strict, compact=True, owned=True,
                                 reasoning=conversion.reasoning)]
    if to != "same":
        raise InputError(RECORD, f"the database holds {len(sessions)} sessions; they are repaired together "
                                 "only into a database (without --to)")
    outcomes = []
    for session in sessions:
        imported = pipeline.read(document, RECORD, fmt, session)
        outcome = pipeline.outcome(imported, RECORD, to, strict, compact=True, owned=True,
                                             reasoning=conversion.reasoning)
        outcomes.append(outcome)
        document = outcome.exported
    return outcomes


def _failed(result: ChunkResult, record: Record, reason: str, line: int | None = None,
            column: int | None = None) -> None:
    if record.line is not None:  # a JSONL record: the position is the record's line
        line = record.line
    entry = {"source": record.source, "line": line, "column": column, "reason": reason,
             "excerpt": _excerpt(record.data)}
    result.errors.append(entry)
    result.health.add_failed(dict(entry))


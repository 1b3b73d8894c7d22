"""The same batch job on a Dask cluster (``--dask ADDRESS``, or ``--dask local``).

The client plans partitions without reading the data: an uncompressed JSONL file is cut
into byte ranges (each partition takes the lines that start in its range), a gzip file is
one partition, a folder is cut into lists of files. Each partition is one element of a
``dask.bag``; a worker streams its records through the same ``run_task`` as the local
job (the one pipeline, record by record) and writes its own part files (output and
errors) into a temporary folder beside the output, which must be on storage the workers
share. The client then adds up
the partial reports, turns each partition's local line numbers into file line numbers
(only known once earlier partitions have counted their lines), and concatenates the
parts in order into the output: the bytes equal those of a single-process run.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

import orjson

from ..io import InputError
from ..process import hold_interrupts, interrupts_held
from .job import Job, change_lines, scratch_folder
from .progress import ProgressBar
from .reader import (FILES_PER_TASK, TASK_BYTES, Files, Input, LineCounter, Task, is_gzip, plan_folder,
                     plan_spans, plan_stream)
from .report import Health, shift_line
from .worker import Conversion, Destination, run_task
from .writer import FolderTarget, StreamTarget

FILES_PER_PART = 1024


@dataclass(slots=True)
class Part:
    """One partition's share of the input: a byte range, a whole (gzip) file, or files."""

    index: int
    kind: str              # "range" | "whole" | "files"
    name: str              # the source as the user named it (for provenance)
    path: str              # absolute path to open on a worker
    start: int = 0
    end: int = 0
    files: list[str] = field(default_factory=list)
    size: int = 0
    problems: dict[str, str] = field(default_factory=dict)  # unreadable entries (see reader.Files)
    skipped: dict[str, str] = field(default_factory=dict)   # files left alone, with why (not sent)


@dataclass(slots=True)
class PartResult:
    index: int
    health: Health
    lines: int             # physical lines of a byte range (to number the next range's lines)


def parse_blocksize(text: str) -> int:
    from dask.utils import parse_bytes

    try:
        size = parse_bytes(text)
    except (ValueError, TypeError):
        raise InputError("--blocksize", f"not a size: {text!r} (try 64MiB)") from None
    if size < 1:
        raise InputError("--blocksize", "must be at least one byte")
    return size


def plan_parts(sources: list[Input], blocksize: int) -> list[Part]:
    """Partitions, planned from file sizes and names only: the client reads no data."""
    parts: list[Part] = []
    for source in sources:
        if source.kind == "stdin":
            raise InputError("-", "standard input cannot be split across a cluster; save it to a file "
                                  "(or run without --dask)")
        path = os.path.abspath(source.path)
        if source.kind == "jsonl":
            size = os.path.getsize(path)
            if is_gzip(path):
                parts.append(Part(len(parts), "whole", source.name, path, 0, size, size=size))
            else:
                for start in range(0, max(size, 1), blocksize):
                    end = min(start + blocksize, size)
                    parts.append(Part(len(parts), "range", source.name, path, start, end, size=end - start))
        else:
            for task in plan_folder(source, FILES_PER_PART):
                parts.append(Part(len(parts), "files", source.name, path, files=task.relpaths, size=task.size,
                                  problems=task.problems, skipped=task.skipped))
    return parts


def part_tasks(part: Part) -> Iterator[Task]:
    """The same tasks a local run would make, restricted to this partition."""
    if part.kind == "range":
        yield from plan_spans(part.name, part.path, part.start, part.end, TASK_BYTES)
    elif part.kind == "whole":
        with open(part.path, "rb") as raw:
            yield from plan_stream(part.name, raw, TASK_BYTES, counted=raw)
    else:
        for at in range(0, len(part.files), FILES_PER_TASK):
            chunk = part.files[at:at + FILES_PER_TASK]
            yield Files(part.name, part.path, chunk,
                        problems={rel: part.problems[rel] for rel in chunk if rel in part.problems})


def run_part(part: Part, conversion: Conversion, scratch: str, mirror: str | None, compress: bool = False) -> PartResult:
    """Runs on a Dask worker: one partition, streamed task by task into its part files."""
    health = Health()
    lines = LineCounter()
    destination = Destination(mirror, None, compress)
    with open(os.path.join(scratch, f"part-{part.index:06d}.jsonl"), "wb") as out, \
         open(os.path.join(scratch, f"errors-{part.index:06d}.jsonl"), "wb") as errors, \
         open(os.path.join(scratch, f"changes-{part.index:06d}.jsonl"), "wb") as changes:
        for task in part_tasks(part):
            result = run_task(task, conversion, destination)
            base = lines.base(task)
            lines.advance(task, result.lines)
            result.health.shift(task.name, base, health.read)
            health.merge(result.health)
            out.write(result.output)
            for entry in result.errors:
                shift_line(entry, task.name, base)
                errors.write(orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE))
            changes.write(change_lines(result.changes, task.name, base))
    return PartResult(part.index, health, lines.before.get(part.name, 0))


def connect(address: str, workers: int, stack: ExitStack):
    from distributed import Client, LocalCluster

    if address == "local":
        # Ctrl-C signals the whole process group: the local workers must leave it to this
        # process, which closes them (a worker process killed by it while the cluster starts
        # fails the start with "Nanny failed to start", and each prints its own traceback:
        # R3-21). The worker processes are started with SIGINT and SIGTERM ignored, which
        # they keep across exec (Python installs its KeyboardInterrupt handler only where
        # SIGINT is not ignored); see _workers_ignore_signals for how this process keeps its own.
        with _workers_ignore_signals():
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                # CRITICAL: a worker losing its scheduler as an interrupted run closes the cluster
                # logs an ERROR with a traceback; a task that fails reaches the client anyway.
                dashboard_address=":0", silence_logs=logging.CRITICAL))
            return stack.enter_context(Client(cluster))
    try:
        return stack.enter_context(Client(address, timeout="20s"))
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(address, f"cannot reach the Dask scheduler: {exc}") from None


@contextmanager
def _workers_ignore_signals() -> Iterator[None]:
    """Within the block, processes started (from any thread) ignore SIGINT and SIGTERM. The
    signals are ignored process-wide (the only disposition a process keeps across exec) and
    blocked in this thread at the same time: Linux never discards a blocked signal as ignored,
    so one sent to this process meanwhile stays pending and reaches its own handler when the
    block ends (handlers first, then the mask: signal(7), "Signal mask and pending signals")."""
    signals = (signal.SIGINT, signal.SIGTERM)
    try:
        # multiprocessing's resource tracker, started with the first worker, unblocks these
        # two signals in the thread that starts it (multiprocessing/resource_tracker.py,
        # ensure_running): started first, it leaves the block alone.
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    except (ImportError, OSError):
        pass
    try:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(signals))
    except (AttributeError, OSError, ValueError):   # no signal masks here
        yield
        return
    try:
        handlers = {s: signal.signal(s, signal.SIG_IGN) for s in signals}
    except (OSError, ValueError):                   # not the main thread
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        yield
        return
    try:
        yield
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def run_dask(job: Job, address: str, *, blocksize: int = 64 << 20, live: bool | None = None) -> Health:
    import dask.bag as db
    from distributed import as_completed

    parts = plan_parts(job.sources, blocksize)
    for part in parts:  # named one by one as a local run names them (batch.cli prints them)
        job.unreadable.extend((os.path.join(part.name, rel), why) for rel, why in {**part.problems, **part.skipped}.items())
    job.unreadable.sort()
    health = Health([s.name for s in job.sources])
    with ExitStack() as stack:
        inputs = tuple(s.path for s in job.sources)
        out = stack.enter_context(FolderTarget(job.output) if job.mirror else StreamTarget(job.output, inputs))
        errors = stack.enter_context(StreamTarget(job.errors, inputs)) if job.errors else None
        changes = stack.enter_context(StreamTarget(job.changes, inputs)) if job.changes else None
        scratch = stack.enter_context(scratch_folder(job.output.rstrip("/\\") or job.output))
        mirror = out.temporary if job.mirror else None  # workers write mirrored files straight into it
        # The cluster is entered last, so it closes first: no worker still writes into the
        # temporary folders when they are removed. A signal while it starts waits until it
        # is up (a cluster cut short in its start cannot be closed cleanly).
        with interrupts_held():
            client = connect(address, job.workers, stack)

        progress = stack.enter_context(ProgressBar(sum(p.size for p in parts), live=live))
        bag = db.from_sequence(parts, npartitions=max(1, len(parts))).map(
            run_part, conversion=job.conversion, scratch=scratch, mirror=mirror,
            compress=not job.mirror and job.output.endswith(".gz"))
        futures = client.compute(bag.to_delayed())
        results: dict[int, PartResult] = {}
        records = done_bytes = 0
        for future in as_completed(futures):
            for result in future.result():
                results[result.index] = result
                records += result.health.read
                done_bytes += parts[result.index].size
            progress.update(records, done_bytes)

        lines_before: dict[str, int] = {}
        ordinals = 0
        for part in parts:
            result = results[part.index]
            shift = lines_before.get(part.name, 0) if part.kind == "range" else 0
            result.health.shift(part.name, shift, ordinals)
            health.merge(result.health)
            ordinals += result.health.read
            if part.kind == "range":
                lines_before[part.name] = shift + result.lines
            if not job.mirror:
                out.append_part(os.path.join(scratch, f"part-{part.index:06d}.jsonl"))
            for target, kind in ((errors, "errors"), (changes, "changes")):
                if target is None:
                    continue
                with open(os.path.join(scratch, f"{kind}-{part.index:06d}.jsonl"), "rb") as handle:
                    entries = handle.read()
                if shift and entries:
                    moved = [orjson.loads(line) for line in entries.splitlines()]
                    for entry in moved:
                        shift_line(entry, part.name, shift)
                    entries = b"".join(orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE) for e in moved)
                target.write(entries)
        progress.update(records, done_bytes, force=True)
        health.seconds = progress.elapsed
        hold_interrupts()  # as a local run: outputs and report are written whole (see batch.cli)
    return health

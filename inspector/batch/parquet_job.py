"""A batch job over Parquet files: row groups in, row groups out, in input order.

Every input's footer is read while the job is checked (its schema, its row groups, the
columns asked for), so a wrong ``--column`` or a file that is not Parquet stops the run
before any row is repaired. Row groups are then repaired in order, here and by the local
worker processes (each leaves a group's output rows in an Arrow IPC file in a scratch
folder beside the output; the parent appends them to the Parquet writer), or by the
workers of a Dask cluster; each group's change-log entries, errors and health are added up
in input order, so every way of running writes the same files.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from ..process import hold_interrupts, interrupts_held
from .parquet import Group, GroupResult, Layout, parquet_target, plan_groups, read_part, run_group, write_group
from .report import Health
from .writer import StreamTarget

if TYPE_CHECKING:
    from .job import Job


def plan(layouts: list[Layout]) -> Iterator[Group]:
    for layout in layouts:
        yield from plan_groups(layout)


@dataclass
class ParquetSink:
    """Where results go, in input order: the Parquet output, the change log, the errors."""

    writer: Any
    output: str
    health: Health
    changes: Any = None
    errors: Any = None
    bytes_done: int = 0

    def consume(self, group: Group, result: GroupResult) -> None:
        part = result.health
        part.shift(group.name, 0, self.health.read)
        self.health.merge(part)
        table = result.table if result.part is None else read_part(result.part)
        write_group(self.writer, table, self.output)
        if result.part is not None:
            del table
            os.unlink(result.part)
        if self.changes is not None and result.changes:
            self.changes.write(result.changes)
        if self.errors is not None and result.errors:
            self.errors.write(b"".join(orjson.dumps(e, default=str, option=orjson.OPT_APPEND_NEWLINE)
                                       for e in result.errors))
        self.bytes_done += group.size


def open_sink(stack: ExitStack, job: Job) -> ParquetSink:
    layouts = job.layouts
    inputs = tuple(layout.path for layout in layouts)
    writer = stack.enter_context(parquet_target(job.output, layouts[0], inputs))
    sink = ParquetSink(writer, job.output, Health([layout.name for layout in layouts]))
    if job.changes is not None:
        sink.changes = stack.enter_context(StreamTarget(job.changes, inputs))
    if job.errors is not None:
        sink.errors = stack.enter_context(StreamTarget(job.errors, inputs))
    return sink


def run_parquet(job: Job, *, live: bool | None = None) -> Health:
    """The job on this machine. With ``--workers`` above one the parent is one of them (as
    for JSONL) and the others leave each group's rows in an IPC file in a scratch folder."""
    import sys

    from .job import WINDOW, run_parallel, scratch_folder
    from .pool import Workers
    from .progress import ProgressBar
    from .worker import Destination

    if live is None:
        live = sys.stderr.isatty()
    conversion = job.conversion
    with ExitStack() as stack:
        pool = None
        if job.workers > 1:
            scratch = stack.enter_context(scratch_folder(job.output))
            # Started before any thread exists (the progress bar has one): fork and threads do not mix.
            pool = stack.enter_context(Workers(job.workers - 1, conversion, Destination(None, scratch)))
        sink = open_sink(stack, job)
        total = sum(sum(layout.sizes) for layout in job.layouts)
        progress = stack.enter_context(ProgressBar(total if live else None, live=live))
        groups = plan(job.layouts)
        if pool is None:
            for group in groups:
                sink.consume(group, run_group(group, conversion))
                progress.update(sink.health.read, sink.bytes_done)
        else:
            run_parallel(groups, pool, sink, progress, job.workers * WINDOW, lambda group: run_group(group, conversion))
        progress.update(sink.health.read, sink.bytes_done, force=True)
        sink.health.seconds = progress.elapsed
        hold_interrupts()   # as a local JSONL run: the outputs are renamed into place whole (see batch.cli)
    return sink.health


def run_parquet_dask(job: Job, address: str, *, live: bool | None = None) -> Health:
    """The job on a Dask cluster, one task per row group: the worker that runs it reads the
    group from the file where it lies (so inputs must be at a path every worker can open)
    and sends the repaired rows back as an Arrow table; they are written here in input
    order. ``2 x workers`` groups are in flight at most, so memory stays bounded."""
    from collections import deque

    from .dask_runner import connect
    from .progress import ProgressBar

    conversion = job.conversion
    with ExitStack() as stack:
        sink = open_sink(stack, job)
        with interrupts_held():       # a cluster cut short in its start cannot be closed cleanly
            client = connect(address, job.workers, stack)
        progress = stack.enter_context(ProgressBar(sum(sum(layout.sizes) for layout in job.layouts), live=live))
        window = 2 * max(1, len(client.scheduler_info().get("workers", {})) or job.workers)
        pending: deque = deque()

        def consume_oldest() -> None:
            group, future = pending.popleft()
            sink.consume(group, future.result())
            progress.update(sink.health.read, sink.bytes_done)

        for group in plan(job.layouts):
            pending.append((group, client.submit(run_group, group, conversion, pure=False)))
            if len(pending) >= window:
                consume_oldest()
        while pending:
            consume_oldest()
        progress.update(sink.health.read, sink.bytes_done, force=True)
        sink.health.seconds = progress.elapsed
        hold_interrupts()
    return sink.health

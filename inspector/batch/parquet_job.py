"""A batch job over Parquet files: row groups in, row groups out, in input order.

Every input's footer is read first (its schema, its row groups, the columns asked for), so a
wrong ``--column`` or a file that is not Parquet stops the run before any row is repaired.
Row groups are then repaired in order, here or by worker processes (each leaves its output
rows in an Arrow IPC file beside the output; the parent appends them to the Parquet
writer), and each group's change-log lines, errors and health are added up in input order.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import orjson

from ..io import InputError, atomic_stream
from .cells import Columns
from .parquet import Group, GroupResult, Layout, open_layout, parquet_target, plan_groups, read_part, run_group, \
    same_schema, write_group
from .report import Health
from .worker import Conversion


def check_inputs(inputs: list[str], columns: Columns) -> list[Layout]:
    """Every input's layout; all must share the first one's schema (one output file)."""
    layouts = []
    for path in inputs:
        if path == "-":
            raise InputError("-", "Parquet is read from files (it is not a stream); save standard input to a file")
        layout = open_layout(path, columns, path)
        if layouts:
            same_schema(layouts[0], layout)
        layouts.append(layout)
    return layouts


def plan(layouts: list[Layout], columns: Columns) -> Iterator[Group]:
    for layout in layouts:
        yield from plan_groups(layout, columns)


@dataclass
class ParquetSink:
    """Where results go, in input order: the Parquet output, the change log, the errors."""

    writer: Any
    output: str
    health: Health
    changes: Any = None
    errors: Any = None
    rows_done: int = 0
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
        self.rows_done += group.rows
        self.bytes_done += group.size


def open_sink(stack: ExitStack, layouts: list[Layout], output: str, changes: str | None = None,
              errors: str | None = None) -> ParquetSink:
    inputs = tuple(layout.path for layout in layouts)
    writer = stack.enter_context(parquet_target(output, layouts[0], inputs))
    sink = ParquetSink(writer, output, Health([layout.name for layout in layouts]))
    if changes is not None:
        sink.changes = stack.enter_context(atomic_stream(changes, inputs=inputs))
    if errors is not None:
        sink.errors = stack.enter_context(atomic_stream(errors, inputs=inputs))
    return sink


def run_parquet(inputs: list[str], output: str, conversion: Conversion = Conversion(),
                columns: Columns = Columns(), changes: str | None = None, errors: str | None = None,
                workers: int = 1, live: bool = False) -> Health:
    """The whole job on this machine: every row group of every input, in order. With
    ``workers`` above one, the parent is one of them (as for JSONL); the others leave each
    group's output rows in an Arrow IPC file in a scratch folder beside the output."""
    from .job import WINDOW, interrupts_as_keyboard, run_parallel, scratch_folder
    from .pool import Workers
    from .progress import ProgressBar
    from .worker import Destination

    layouts = check_inputs(inputs, columns)
    with ExitStack() as stack:
        stack.enter_context(interrupts_as_keyboard())
        pool = None
        if workers > 1:
            scratch = stack.enter_context(scratch_folder(output))
            pool = stack.enter_context(Workers(workers - 1, conversion, Destination(None, scratch)))
        sink = open_sink(stack, layouts, output, changes, errors)
        progress = stack.enter_context(ProgressBar(sum(sum(layout.sizes) for layout in layouts) if live else None,
                                                   live=live))
        groups = plan(layouts, columns)
        if pool is None:
            for group in groups:
                sink.consume(group, run_group(group, conversion))
                progress.update(sink.health.read, sink.bytes_done)
        else:
            run_parallel(groups, pool, sink, progress, workers * WINDOW, lambda group: run_group(group, conversion))
        progress.update(sink.health.read, sink.bytes_done, force=True)
        sink.health.seconds = progress.elapsed
    return sink.health


def run_parquet_dask(inputs: list[str], output: str, address: str, workers: int,
                     conversion: Conversion = Conversion(), columns: Columns = Columns(),
                     changes: str | None = None, errors: str | None = None) -> Health:
    """The job on a Dask cluster: each row group is a task that a worker reads from the
    file where it lies (a path every worker can open) and repairs; the output rows come
    back as Arrow tables and are written here in input order. A window of ``2 x workers``
    groups is in flight, so neither side holds more than that many groups."""
    from collections import deque

    from .dask_runner import connect
    from .job import interrupts_as_keyboard

    layouts = check_inputs(inputs, columns)
    with ExitStack() as stack:
        stack.enter_context(interrupts_as_keyboard())
        client = connect(address, workers, stack)
        sink = open_sink(stack, layouts, output, changes, errors)
        window = max(2, 2 * max(1, len(client.scheduler_info().get("workers", {})) or workers))
        pending: deque = deque()
        groups = plan(layouts, columns)
        for group in groups:
            pending.append((group, client.submit(run_group, group, conversion, pure=False)))
            if len(pending) >= window:
                done, future = pending.popleft()
                sink.consume(done, future.result())
        while pending:
            done, future = pending.popleft()
            sink.consume(done, future.result())
    return sink.health

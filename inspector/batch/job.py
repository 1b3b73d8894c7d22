"""A batch job on one machine: cut the input into tasks, fan them out to worker
processes, write their results in input order.

The parent keeps a fixed window of tasks in flight and waits for the oldest before
planning more: order is kept and memory is bounded by ``workers x WINDOW`` tasks of about
a megabyte each. A worker puts its task's output into that task's slot of memory shared
with the parent (or, too large for it, a part file the parent appends inside the kernel
with ``copy_file_range``), so no output byte is pickled or piped and the parent writes
each byte once, as a single process would. The parent is one of the ``--workers``
processes: whenever the others hold enough tasks it runs the next one itself. With one
worker everything runs in-process (no processes, no shared memory, no pickling).
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import shutil
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import orjson

from ..io import InputError
from ..process import hold_interrupts
from .pool import Workers
from .progress import ProgressBar
from .reader import (TASK_BYTES, Block, Files, Input, LineCounter, Task, classify, mirror_clash, mirrored_name, plan,
                     total_bytes)
from .changes import entry_line as change_line_bytes
from .report import Health, shift_line
from .cells import Columns
from .parquet import check_inputs, is_parquet
from .worker import ChunkResult, Conversion, Destination, run_task
from .writer import FolderTarget, StreamTarget, check_folder_target, check_target

WINDOW = 4       # tasks in flight (or done, waiting for an earlier one) per process
SLOT_FACTOR = 4  # a task's slot of shared memory holds four times its input; larger output uses a file


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass
class Job:
    """Everything a run needs, checked before any record is read (errors exit 2 early)."""

    inputs: list[str]
    output: str
    workers: int = field(default_factory=default_workers)
    fmt: str = "auto"     # --from
    to: str = "same"      # --to
    strict: bool = False  # --strict
    errors: str | None = None
    report: str | None = None
    changes: str | None = None    # --changes: the change log
    column: str | None = None     # --column (Parquet: messages by default)
    id_column: str | None = None  # --id-column
    target: str | None = None     # --target
    task_bytes: int = TASK_BYTES  # input per task; small in tests to get many tasks
    sources: list[Input] = field(default_factory=list)
    mirror: bool = False
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # folder entries not read, with why
    parquet: bool = False         # Parquet in and out (by suffix): row groups, not lines
    layouts: list = field(default_factory=list)  # each Parquet input's footer (parquet.Layout)

    @property
    def conversion(self) -> Conversion:
        return Conversion(self.fmt, self.to, self.strict, self.column, self.id_column, self.target,
                          self.changes is not None)

    def check(self) -> None:
        if self.workers < 1:
            raise InputError("--workers", "must be at least 1")
        self.sources = classify(self.inputs)
        out = self.output
        self.parquet = is_parquet(out) or any(is_parquet(p) for p in self.inputs)
        self.mirror = not self.parquet and out != "-" and (out.endswith(("/", os.sep)) or Path(out).is_dir())
        if self.parquet:
            self._check_parquet()
        elif self.mirror:
            if len(self.sources) != 1 or self.sources[0].kind != "folder":
                raise InputError(out, "a folder output mirrors one input folder; for JSONL input "
                                      "give an output file (.jsonl, or .jsonl.gz to compress)")
            check_folder_target(out, self.sources[0].path)
            if (clash := mirror_clash(self.sources[0].path)) is not None:
                first, second = (str(Path(self.sources[0].path, rel)) for rel in clash)
                raise InputError(second, f"its output would have the same name as {first}'s "
                                         f"({mirrored_name(clash[1])}): rename one of them, or write JSONL")
        else:
            check_target(out, self.inputs)
        extras = [(p, what) for p, what in ((self.errors, "errors file"), (self.report, "report"),
                                            (self.changes, "change log")) if p]
        for path, what in extras:
            if path == "-":
                raise InputError(path, f"the {what} must be a file")
            check_target(path, self.inputs, what)
        targets = [out] + [p for p, _ in extras]
        for i, a in enumerate(targets):
            for b in targets[i + 1:]:
                if a != "-" and Path(a).resolve() == Path(b).resolve():
                    raise InputError(b, "the output, errors file, report and change log must be different files")
        for source in self.sources:
            if source.kind != "folder":
                continue
            root = Path(source.path).resolve()
            for path in targets:
                if path != "-" and root in Path(path).resolve().parents:
                    raise InputError(path, f"refusing to write inside the input folder {source.path!r}")
        if self.parquet:   # every footer read (pyarrow needed): a wrong column fails before any row
            self.layouts = check_inputs(self.inputs, Columns.of(self.conversion))

    def _check_parquet(self) -> None:
        """Parquet in, Parquet out: a table is not split into JSONL lines, nor lines into rows."""
        for source in self.sources:
            if source.kind != "jsonl" or not is_parquet(source.path):
                raise InputError(source.name, "a Parquet output is written from Parquet inputs only (.parquet files; "
                                              "not folders, JSONL or standard input)")
        if not is_parquet(self.output):
            raise InputError(self.output, "Parquet inputs are written to a Parquet output: give OUT.parquet")
        check_target(self.output, self.inputs)


class Sink:
    """Where results go, in input order: the output, the errors file and the report."""

    def __init__(self, job: Job, stack: ExitStack):
        self.job = job
        self.health = Health([s.name for s in job.sources])
        inputs = tuple(s.path for s in job.sources if s.kind != "stdin")
        self.out = stack.enter_context(FolderTarget(job.output) if job.mirror else StreamTarget(job.output, inputs))
        self.errors = stack.enter_context(StreamTarget(job.errors, inputs)) if job.errors else None
        self.changes = stack.enter_context(StreamTarget(job.changes, inputs)) if job.changes else None
        self.mirror = self.out.temporary if job.mirror else None  # workers write files straight in
        self.compress = not job.mirror and self.out.compress  # type: ignore[union-attr]
        self.lines = LineCounter()
        self.bytes_done = 0
        self.shared: mmap.mmap | None = None  # the workers' output slots, when they have them
        self._unreadable: set[str] = set()

    def consume(self, task: Task, result: ChunkResult) -> None:
        self.bytes_done += task.size
        if result.unreadable:
            # One failed record says the file cannot be read; its later ranges say it again.
            if task.name in self._unreadable:
                return
            self._unreadable.add(task.name)
        if isinstance(task, Files):
            self.job.unreadable.extend(unread_entries(task, result))
        base = self.lines.base(task)
        self.lines.advance(task, result.lines)
        part = result.health
        part.shift(task.name, base, self.health.read)
        self.health.merge(part)
        if result.slot is not None:
            offset, size = result.slot
            with memoryview(self.shared) as whole, whole[offset:offset + size] as view:  # type: ignore[arg-type]
                self.out.write_encoded(view)  # type: ignore[union-attr, arg-type]
        elif result.part is not None:
            self.out.append_part(result.part)  # type: ignore[union-attr]
            os.unlink(result.part)
        elif result.output:
            self.out.write_encoded(result.output)  # type: ignore[union-attr]
        if self.errors is not None and result.errors:
            for entry in result.errors:
                shift_line(entry, task.name, base)
            self.errors.write(b"".join(orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE) for e in result.errors))
        if self.changes is not None and result.changes:
            self.changes.write(change_lines(result.changes, task.name, base))


def change_lines(entries: list[dict], source: str, lines: int) -> bytes:
    """A task's change-log entries as lines, their line numbers made file-wide (see shift_line)."""
    for entry in entries:
        shift_line(entry, source, lines)
    return b"".join(change_line_bytes(e) for e in entries)


def unread_entries(task: Files, result: ChunkResult) -> list[tuple[str, str]]:
    """The entries of a folder's task that were not read at all, each with the reason: those
    found unreadable while planning and those that failed to open in the worker."""
    found = [(str(Path(task.name, rel)), reason) for rel, reason in {**task.problems, **task.skipped}.items()]
    named = {name for name, _ in found}
    found += [(e["source"], e["reason"]) for e in result.errors
              if e["reason"].startswith("cannot read") and e["source"] not in named]
    return sorted(found)


@contextmanager
def scratch_folder(output: str):
    """A hidden folder beside the output (same file system, so copies stay in the kernel)
    for the workers' part files; removed however the run ends."""
    parent = Path(output).resolve().parent if output != "-" else Path(tempfile.gettempdir())
    folder = tempfile.mkdtemp(prefix=".inspector-batch.", suffix=".parts", dir=parent)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_local(job: Job, *, live: bool | None = None, stdin=None) -> Health:
    if live is None:
        live = sys.stderr.isatty()
    with ExitStack() as stack:
        workers = None
        if job.workers > 1:
            scratch = stack.enter_context(scratch_folder(job.output.rstrip("/\\") or job.output))
        sink = Sink(job, stack)
        if job.workers > 1:
            parts = Destination(sink.mirror, None if job.mirror else scratch, sink.compress)
            if not job.mirror and multiprocessing.get_start_method() == "fork":
                # Forked workers share this mapping: outputs come back through memory, each
                # byte copied once into it and written once from it. Only pages written are
                # ever allocated. It is never closed explicitly (a view still held while an
                # interrupt unwinds would make closing fail); it goes with the process.
                sink.shared = mmap.mmap(-1, job.workers * WINDOW * max(1, SLOT_FACTOR * job.task_bytes))
            # The parent is one of the ``workers`` processes (it runs tasks while the others
            # are busy). Start the rest before any thread exists (the progress bar has one):
            # fork and threads do not mix.
            workers = stack.enter_context(Workers(job.workers - 1, job.conversion, parts, sink.shared))
        progress = stack.enter_context(ProgressBar(total_bytes(job.sources) if live else None, live=live))
        tasks = plan(job.sources, stdin, job.task_bytes)
        here = Destination(sink.mirror, None, sink.compress)  # a task run here keeps its output in memory
        if workers is None:
            for task in tasks:
                sink.consume(task, run_task(task, job.conversion, here))
                progress.update(sink.health.read, sink.bytes_done)
        else:
            run_parallel(tasks, workers, sink, progress, job.workers * WINDOW,
                         lambda task: run_task(task, job.conversion, here),
                         max(1, SLOT_FACTOR * job.task_bytes) if sink.shared is not None else 0)
        progress.update(sink.health.read, sink.bytes_done, force=True)
        sink.health.seconds = progress.elapsed
        # Every record is in: the outputs are renamed into place as the stack closes, and the
        # caller writes the report. A signal from here on waits until both are done (the
        # caller releases it), so a run ends with all of its files or, before this, none.
        hold_interrupts()
        return sink.health


def run_parallel(tasks, workers: Workers, sink: Sink, progress: ProgressBar, window: int, run_here,
                 slot: int = 0) -> None:
    """Keep the workers supplied, run a task in this process whenever they all have enough
    to do, and consume results in input order, never more than ``window`` tasks ahead of
    the oldest one not yet consumed. Task ``n`` may use shared slot ``n % window`` (of
    ``slot`` bytes): the task that used it before, ``window`` tasks ago, is consumed."""
    planned: dict[int, Task] = {}
    done: dict[int, ChunkResult] = {}
    oldest = sent = 0
    tasks = iter(tasks)
    more = True

    def consume_ready() -> None:
        nonlocal oldest
        while oldest in done:
            sink.consume(planned.pop(oldest), done.pop(oldest))
            oldest += 1
            progress.update(sink.health.read, sink.bytes_done)

    while more or oldest < sent:
        room = more and sent - oldest < window
        index = workers.free() if room else None
        task = next(tasks, None) if room else None
        if room and task is None:
            more = False
        if task is not None:
            planned[sent] = replace(task, data=b"") if isinstance(task, Block) else task
            if index is not None:
                workers.send(index, sent, task, ((sent % window) * slot, slot) if slot else None)
            else:
                done[sent] = run_here(task)
            sent += 1
        for number, result in workers.receive(block=task is None and oldest not in done):
            done[number] = result
        consume_ready()

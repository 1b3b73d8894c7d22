"""A batch job on one machine: cut the input into tasks, fan them out to worker
processes, write their results in input order.

``multiprocessing.Pool.imap`` would keep the order but pulls its whole input ahead of the
workers, so memory would grow with the dataset. Here the parent keeps a fixed window of
tasks in flight (``apply_async`` into a deque) and waits for the oldest before planning
more: order is kept and memory is bounded by ``workers x WINDOW`` tasks of about a
megabyte each. With one worker everything runs in-process (no pickling at all).
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
from collections import deque
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..io import InputError
from .progress import Progress
from .reader import TASK_BYTES, LineCounter, Source, Task, classify, plan, total_bytes
from .report import Health
from . import worker
from .worker import ChunkResult, Conversion, ignore_interrupts, run_task
from .writer import FolderTarget, StreamTarget, check_folder_target, check_target

WINDOW = 4       # tasks in flight per worker
SLOT_FACTOR = 4  # a slot holds four times a task's input; a larger output uses the pipe


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
    task_bytes: int = TASK_BYTES  # input per task; small in tests to get many tasks
    sources: list[Source] = field(default_factory=list)
    mirror: bool = False

    @property
    def conversion(self) -> Conversion:
        return Conversion(self.fmt, self.to, self.strict)

    def check(self) -> None:
        if self.workers < 1:
            raise InputError("--workers", "must be at least 1")
        self.sources = classify(self.inputs)
        out = self.output
        self.mirror = out != "-" and (out.endswith(("/", os.sep)) or Path(out).is_dir())
        if self.mirror:
            if len(self.sources) != 1 or self.sources[0].kind != "folder":
                raise InputError(out, "a folder output mirrors one input folder; for JSONL input "
                                      "give an output file (.jsonl, or .jsonl.gz to compress)")
            check_folder_target(out, self.sources[0].path)
        else:
            check_target(out, self.inputs)
        extras = [(p, what) for p, what in ((self.errors, "errors file"), (self.report, "report")) if p]
        for path, what in extras:
            if path == "-":
                raise InputError(path, f"the {what} must be a file")
            check_target(path, self.inputs, what)
        targets = [out] + [p for p, _ in extras]
        for i, a in enumerate(targets):
            for b in targets[i + 1:]:
                if a != "-" and Path(a).resolve() == Path(b).resolve():
                    raise InputError(b, "the output, errors file and report must be different files")
        for source in self.sources:
            if source.kind != "folder":
                continue
            root = Path(source.path).resolve()
            for path in targets:
                if path != "-" and root in Path(path).resolve().parents:
                    raise InputError(path, f"refusing to write inside the input folder {source.path!r}")


class Sink:
    """Where results go, in input order: the output, the errors file and the report."""

    def __init__(self, job: Job, stack: ExitStack):
        self.job = job
        self.health = Health([s.name for s in job.sources])
        self.out = stack.enter_context(FolderTarget(job.output) if job.mirror else StreamTarget(job.output))
        self.errors = stack.enter_context(StreamTarget(job.errors)) if job.errors else None
        self.mirror = self.out.temporary if job.mirror else None  # workers write files straight in
        self.lines = LineCounter()
        self.bytes_done = 0

    def consume(self, task: Task, result: ChunkResult, shared: mmap.mmap | None = None) -> None:
        entries = self.health.add_chunk(result, self.health.read, self.lines.base(task))
        self.lines.advance(task, result.lines)
        self.bytes_done += task.size
        handoff = result.handoff
        if handoff is not None and handoff[0] == "slot":
            with memoryview(shared)[handoff[1]:handoff[1] + handoff[2]] as view:  # type: ignore[arg-type,misc]
                self.out.write(view)  # type: ignore[union-attr, arg-type]
        elif handoff is not None:
            self.out.append_file(handoff[1])  # type: ignore[union-attr, arg-type]
            os.unlink(handoff[1])  # type: ignore[arg-type]
        elif result.output:
            self.out.write(result.output)  # type: ignore[union-attr]
        if self.errors is not None and entries:
            self.errors.write(b"".join(orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE) for e in entries))


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


@contextmanager
def interrupts_as_keyboard():
    """SIGTERM unwinds like Ctrl-C, so temporary files are removed on either."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_local(job: Job, *, live: bool | None = None, stdin=None) -> Health:
    if live is None:
        live = sys.stderr.isatty()
    with ExitStack() as stack:
        stack.enter_context(interrupts_as_keyboard())
        pool = shared = None
        limit = job.workers * WINDOW
        slot = max(1, int(SLOT_FACTOR * job.task_bytes))
        if job.workers > 1:
            if multiprocessing.get_start_method() == "fork" and not job.mirror:
                # Workers inherit this mapping: outputs come back through memory, no copies
                # through pipes or files. Only pages actually written are ever allocated.
                shared = worker.SHARED = stack.enter_context(mmap.mmap(-1, limit * slot))
                stack.callback(setattr, worker, "SHARED", None)
            # Start the workers before any thread exists (the progress bar has one): fork
            # and threads do not mix.
            pool = stack.enter_context(multiprocessing.Pool(job.workers, initializer=ignore_interrupts))
        sink = Sink(job, stack)
        progress = stack.enter_context(Progress(total_bytes(job.sources) if live else None, live=live))
        tasks = plan(job.sources, stdin, job.task_bytes)
        if pool is None:
            for task in tasks:
                sink.consume(task, run_task(task, job.conversion, sink.mirror))
                progress.update(sink.health.read, sink.bytes_done)
        else:
            scratch = None if job.mirror or shared else stack.enter_context(scratch_folder(job.output))
            window: deque = deque()
            for number, task in enumerate(tasks):
                # A task's slot is free again: the task that used it, ``limit`` tasks ago,
                # has been consumed (the window never holds more than ``limit``).
                handoff = (("slot", (number % limit) * slot, slot) if shared is not None else
                           ("part", os.path.join(scratch, f"{number:09d}.part")) if scratch is not None else None)
                window.append((task, pool.apply_async(run_task, (task, job.conversion, sink.mirror, handoff))))
                if len(window) >= limit:
                    done, pending = window.popleft()
                    sink.consume(done, pending.get(), shared)
                    progress.update(sink.health.read, sink.bytes_done)
            while window:
                done, pending = window.popleft()
                sink.consume(done, pending.get(), shared)
                progress.update(sink.health.read, sink.bytes_done)
        progress.update(sink.health.read, sink.bytes_done, force=True)
        sink.health.seconds = progress.elapsed
        return sink.health

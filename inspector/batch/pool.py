"""Worker processes for a local batch, each talking to the parent over a pipe of its own.

``multiprocessing.Pool`` shares one task queue and one result queue among its workers,
each guarded by a lock. A worker killed while it holds one (SIGTERM to the process group,
the kernel's OOM killer) leaves the other workers and the parent waiting forever, and the
pool respawns workers that wait too. Here nothing is shared: the parent sees a worker's
end at once (its pipe closes, its process sentinel fires) and stops the batch; a worker
whose parent is gone (killed with SIGKILL) notices within a second and leaves quietly.
Messages from the parent are a few hundred bytes (a block of standard input or gzip
travels as a file), so the parent never blocks on a send while a worker waits to report.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
from collections import deque
from dataclasses import dataclass, replace
from typing import Any
from multiprocessing.connection import Connection, wait

from ..io import InputError
from .reader import Block, Task
from .worker import ChunkResult, Conversion, Destination, ignore_interrupts, run_task

DEPTH = 3      # tasks a worker holds: one it works on, two waiting, so it never idles
POLL = 0.5     # seconds between a waiting worker's checks that its parent still lives
STOP = 2.0     # seconds a stopped worker gets to end before it is killed


@dataclass(slots=True)
class Crash:
    """A task that raised outside the per-record handling (a bug): reported, not hidden."""

    reason: str


class Workers:
    """``count`` worker processes running tasks for one job; results come back per worker
    in the order its tasks were sent, and the caller puts them in input order."""

    def __init__(self, count: int, conversion: Conversion, destination: Destination, shared: Any = None):
        context = multiprocessing.get_context()
        inherit = context.get_start_method() == "fork"
        self.destination = destination
        self.procs: list = []
        self.conns: list[Connection] = []
        self.queued: list[deque[int]] = []
        parent = os.getpid()
        for _ in range(count):
            ours, theirs = context.Pipe(duplex=True)
            # A forked worker inherits the parent's end of its own pipe and of earlier
            # workers' pipes: it closes them, so that the parent's death closes its pipe.
            inherited = [*self.conns, ours] if inherit else []
            proc = context.Process(target=serve, args=(theirs, parent, inherited, conversion, destination,
                                                       shared if inherit else None),
                                   daemon=True, name="inspector-batch-worker")
            proc.start()
            theirs.close()
            self.procs.append(proc)
            self.conns.append(ours)
            self.queued.append(deque())

    def free(self) -> int | None:
        """The worker holding the fewest tasks, if it can take one more."""
        index = min(range(len(self.procs)), key=lambda i: len(self.queued[i]))
        return index if len(self.queued[index]) < DEPTH else None

    def send(self, index: int, number: int, task: Task, slot: tuple[int, int] | None = None) -> None:
        if isinstance(task, Block) and task.data:
            # Blocks of standard input or gzip travel as files: pipes carry small messages only.
            spill = os.path.join(self.destination.parts or ".", f"{number:09d}.in")
            with open(spill, "wb") as handle:
                handle.write(task.data)
            task = replace(task, data=b"", spill=spill)
        self.conns[index].send((number, task, slot))
        self.queued[index].append(number)

    def receive(self, block: bool = True) -> list[tuple[int, ChunkResult]]:
        """The results ready (with ``block``, at least one if any task is out); a worker
        that ended stops the batch."""
        busy = [i for i in range(len(self.procs)) if self.queued[i]]
        handles = {self.conns[i]: i for i in busy}
        handles.update({self.procs[i].sentinel: i for i in busy})
        results = []
        if not handles:
            return results
        for ready in wait(list(handles), timeout=None if block else 0):
            i = handles[ready]
            conn = self.conns[i]
            if ready is not conn and conn.poll():
                continue  # it ended after sending: the result is read through its pipe
            try:
                if ready is not conn:
                    raise EOFError
                number, result = conn.recv()
            except (EOFError, OSError):
                self._ended(i)
            self.queued[i].popleft()
            if isinstance(result, Crash):
                raise InputError("batch", f"a worker failed: {result.reason}")
            results.append((number, result))
        return results

    def _ended(self, index: int) -> None:
        proc = self.procs[index]
        proc.join(STOP)
        code = proc.exitcode
        if code is not None and code < 0 and -code in (signal.SIGTERM, signal.SIGINT):
            raise KeyboardInterrupt  # the signal was meant for the whole batch
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        raise InputError("batch", f"a worker process ended unexpectedly ({how}); no output written")

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            for conn in self.conns:
                try:
                    conn.send(None)
                except OSError:
                    pass
        else:
            for proc in self.procs:
                if proc.is_alive():
                    proc.terminate()
        for proc in self.procs:
            proc.join(STOP)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self.conns:
            conn.close()


def serve(conn: Connection, parent: int, inherited: list[Connection], conversion: Conversion,
          destination: Destination, shared: Any = None) -> None:
    """A worker's life: run tasks until told to stop, or until the parent is gone.
    ``shared`` is memory mapped by the parent before the fork (the task says which slot)."""
    for other in inherited:
        other.close()
    ignore_interrupts()
    try:
        while True:
            while not conn.poll(POLL):
                if os.getppid() != parent:
                    raise EOFError
            message = conn.recv()
            if message is None:
                return
            number, task, slot = message
            try:
                result: ChunkResult | Crash = run_task(task, conversion, destination, number, shared, slot)
            except Exception as exc:  # noqa: BLE001 - reported by the parent, with its type
                result = Crash(f"{type(exc).__name__}: {exc}")
            conn.send((number, result))
    except (EOFError, OSError):
        # The parent is gone (killed): nobody will read this, nor clean up the parts.
        if destination.parts is not None:
            shutil.rmtree(destination.parts, ignore_errors=True)

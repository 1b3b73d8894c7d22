"""Progress on a terminal, silence in a pipe or a log.

The live bar (records, records per second, bytes, ETA) is drawn only when standard error
is a terminal; otherwise the batch prints one summary line at the end, so logs stay
small. The ETA follows input bytes, the only total known before the records are read.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    def __init__(self, total_bytes: int | None, *, stream: TextIO | None = None, live: bool | None = None):
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.total_bytes = total_bytes
        self.started = time.perf_counter()
        self._bar = None
        self._task = None
        self._last = 0.0

    def __enter__(self) -> ProgressBar:
        if self.live:
            from rich.console import Console
            from rich.progress import (BarColumn, DownloadColumn, Progress as Bar, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            self._bar = Bar(
                BarColumn(bar_width=24),
                TextColumn("{task.fields[records]:,} records"),
                TextColumn("{task.fields[rate]:,.0f}/s"),
                DownloadColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(file=self.stream),
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task("batch", total=self.total_bytes, records=0, rate=0.0)
        return self

    def update(self, records: int, bytes_read: int, force: bool = False) -> None:
        if self._bar is None:
            return
        now = time.perf_counter()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        elapsed = max(now - self.started, 1e-9)
        self._bar.update(self._task, completed=bytes_read, records=records, rate=records / elapsed)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started


"""Round 3, R3-10: ``--watch`` on a file replaced by a link to a FIFO or to ``/dev/zero``
neither blocks in ``open`` nor hashes forever, so ``q`` still ends the app. Reproducer:
``repro.sh`` R3-10. Each look runs in a thread with a deadline, so a regression fails."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from inspector.tui import watch

from .harness import RUNS

SUITE = "round 3: watch on non-regular files"


def within(seconds: float, fn, *args):
    box: list = []
    t = threading.Thread(target=lambda: box.append(fn(*args)), daemon=True)
    t.start()
    t.join(seconds)
    RUNS[SUITE] += 1
    if t.is_alive():
        if fn is watch.digest and Path(args[0]).exists():
            try:      # unblock a reader stuck on the FIFO, so the thread ends
                os.close(os.open(args[0], os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        pytest.fail(f"{fn.__name__} did not return within {seconds} s")
    return box[0]


@pytest.fixture
def watched(tmp_path: Path) -> Path:
    path = tmp_path / "h.json"
    path.write_text('[{"role": "user", "content": "hi"}]')
    return path


def swap_for_link(path: Path, target: str) -> None:
    link = path.with_name("l")
    link.symlink_to(target)
    os.replace(link, path)


def test_a_fifo_swapped_in_is_nothing_to_read(watched):
    os.mkfifo(watched.parent / "pipe")
    assert within(5, watch.digest, str(watched)) is not None
    swap_for_link(watched, "pipe")
    assert within(5, watch.stamp, str(watched)) is None
    assert within(5, watch.digest, str(watched)) is None


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_dev_zero_swapped_in_is_never_hashed(watched):
    swap_for_link(watched, "/dev/zero")
    assert within(5, watch.stamp, str(watched)) is None
    assert within(5, watch.digest, str(watched)) is None

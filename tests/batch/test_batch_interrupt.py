"""An interrupted batch leaves no partial output and no temporary file.

The run reads standard input from a pipe the test keeps open, so the interruption lands
deterministically mid-run: after some records were written to the temporary output,
before the input ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from batchdata import dataset_lines


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("signum,workers", [(signal.SIGINT, 2), (signal.SIGTERM, 1)])
def test_interrupted_run_leaves_no_output(tmp_path, signum, workers):
    out = tmp_path / "out.jsonl"
    errors = tmp_path / "errors.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "inspector", "batch", "-", "-o", str(out), "--errors", str(errors),
         "--report", str(tmp_path / "report.json"), "--workers", str(workers)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    try:
        # Enough lines to fill a few tasks (over a megabyte), then keep the pipe open.
        block = b"".join(line + b"\n" for line in dataset_lines(300, bad_every=50))
        while True:
            proc.stdin.write(block)
            proc.stdin.flush()
            temporaries = [p for p in tmp_path.iterdir() if p.name.startswith(".")]
            if any(p.is_file() and p.stat().st_size > 0 for p in temporaries if p.suffix == ".tmp"):
                break
            time.sleep(0.05)
        assert wait_for(lambda: any(p.name.startswith(".out.jsonl.") for p in tmp_path.iterdir()))
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert b"interrupted" in err
    assert sorted(os.listdir(tmp_path)) == []  # no output, no errors file, no report, no temporaries

"""An interrupted batch leaves no partial output and no temporary file, ends promptly, and
prints no traceback, whatever the signal, its target (the process, or its whole group as
``timeout`` and service managers send it) and the output (plain or gzip).

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

BLOCK = b"".join(line + b"\n" for line in dataset_lines(300, bad_every=50))


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def start_mid_run(folder, output: str, workers: int, **popen):
    """A batch reading standard input, fed until its temporary output holds some records."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "inspector", "batch", "-", "-o", str(folder / output), "--errors",
         str(folder / "errors.jsonl"), "--report", str(folder / "report.json"), "--workers", str(workers)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=folder, **popen)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        proc.stdin.write(BLOCK)
        proc.stdin.flush()
        temporaries = [p for p in folder.iterdir() if p.name.startswith(f".{output}.")]
        if any(p.is_file() and p.stat().st_size > 0 for p in temporaries):
            return proc
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the batch wrote nothing within a minute")


def interrupt(proc, signum, group: bool = False) -> bytes:
    """Send the signal (to the whole process group with ``group``); standard error once the
    batch ended, within a bound. A batch that hangs is killed and fails the test."""
    try:
        if group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        return proc.communicate(timeout=15)[1]
    finally:
        if proc.poll() is None:
            if group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
            proc.wait()


def no_process_left(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("signum,workers,output", [
    (signal.SIGINT, 2, "out.jsonl"), (signal.SIGTERM, 1, "out.jsonl"),
    (signal.SIGINT, 2, "out.jsonl.gz"), (signal.SIGTERM, 2, "out.jsonl.gz"),
])
def test_interrupted_run_leaves_no_output(tmp_path, signum, workers, output):
    proc = start_mid_run(tmp_path, output, workers)
    err = interrupt(proc, signum)
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err and b"Error" not in err, err
    assert sorted(os.listdir(tmp_path)) == []  # no output, no errors file, no report, no temporaries


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_gzip_output_from_a_file_with_two_workers(tmp_path, signum):
    # The parent compressing workers' output when the signal came used to fail with
    # "BufferError: cannot close exported pointers exist" (exit 1) instead of cleaning up.
    source = tmp_path / "in.jsonl"
    source.write_bytes(BLOCK * 80)  # about 20 MB: the run outlasts the first output bytes
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "batch", str(source), "-o", str(work / "out.jsonl.gz"),
                             "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert wait_for(lambda: any(p.stat().st_size > 0 for p in work.iterdir() if p.name.startswith(".out")))
    time.sleep(0.3)  # well into the run, while output is being appended
    assert proc.poll() is None
    err = interrupt(proc, signum)
    assert proc.returncode == 130, err
    assert b"Traceback" not in err and b"Error" not in err, err
    assert os.listdir(work) == []


@pytest.mark.parametrize("output", ["out.jsonl", "out.jsonl.gz"])
def test_sigterm_to_the_process_group_ends_promptly_and_cleanly(tmp_path, output):
    # What `timeout`, `kill -- -PGID` and service managers do: every process of the group,
    # the workers included, gets the signal at once. Repeated: it used to hang now and then.
    for attempt in range(3):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        proc = start_mid_run(folder, output, 2, start_new_session=True)
        err = interrupt(proc, signal.SIGTERM, group=True)
        assert proc.returncode == 130, err
        assert b"Traceback" not in err, err
        assert wait_for(lambda: no_process_left(proc.pid), timeout=10)
        assert sorted(os.listdir(folder)) == []


def test_workers_of_a_killed_parent_exit_quietly(tmp_path):
    proc = start_mid_run(tmp_path, "out.jsonl", 3, start_new_session=True)
    try:
        proc.kill()  # SIGKILL: the parent cannot clean up or tell its workers
        proc.wait(timeout=10)
        proc.stdin.close()
        # Standard error reaches its end once every worker (they share it) has exited.
        err = proc.stderr.read()
        assert wait_for(lambda: no_process_left(proc.pid), timeout=10)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert err == b"", err
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".parts")]  # the workers' parts are gone

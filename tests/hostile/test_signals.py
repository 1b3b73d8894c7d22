"""Signals at several points of a batch run: a run ends with all of its files or none, says
which, never prints a traceback and leaves no temporary behind (R2-14, R2-17, R2-18).

The end of a run is hit exactly: the signal is sent to this process from inside the rename
that puts an output in place (the handler runs right there). Dask runs are real command
lines, signalled by pid while the cluster starts or while workers write."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .harness import RUNS, cli_run

SUITE = "signals during batch runs"
RECORD = json.dumps([{"role": "user", "content": "q"},
                     {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "f"}]}])


def dataset(tmp_path: Path, n: int = 300) -> Path:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(RECORD + "\n" for _ in range(n)) + "not json\n")
    return src


def folder(tmp_path: Path, n: int, name: str = "in") -> Path:
    src = tmp_path / name
    for i in range(n):
        sub = src / f"d{i % 20:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{i:05d}.json").write_text(RECORD)
    return src


def temporaries(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith("."))


def signal_on_rename(monkeypatch, target: Path, after: bool = True) -> None:
    """SIGTERM to this process as ``target`` is renamed into place (after, or just before)."""
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if not after and Path(dst) == target:
            os.kill(os.getpid(), signal.SIGTERM)
        real(src, dst, *args, **kwargs)
        if after and Path(dst) == target:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("moment", ["output", "errors"])
def test_a_signal_as_the_outputs_are_renamed_still_writes_the_report(tmp_path, monkeypatch, workers, moment):
    src = dataset(tmp_path)
    out, errors, report = tmp_path / "o" / "out.jsonl", tmp_path / "o" / "err.jsonl", tmp_path / "o" / "rep.json"
    out.parent.mkdir()
    signal_on_rename(monkeypatch, out if moment == "output" else errors)
    code, _, err = cli_run("batch", str(src), "-o", str(out), "--errors", str(errors), "--report", str(report),
                           "--workers", workers, "-q")
    RUNS[SUITE] += 1
    assert code == 130, err
    assert "Traceback" not in err and "no output written" not in err, err
    assert "interrupted after the run finished" in err, err
    assert out.exists() and errors.exists() and report.exists()
    assert json.loads(report.read_text())["records"]["read"] == 301
    assert temporaries(out.parent) == []


def test_a_signal_before_the_first_rename_writes_nothing(tmp_path, monkeypatch):
    src = folder(tmp_path, 40)
    out = tmp_path / "o" / "mirror"
    out.parent.mkdir()
    signal_on_rename(monkeypatch, out, after=False)
    report = tmp_path / "o" / "rep.json"
    code, _, err = cli_run("batch", str(src), "-o", str(out) + "/", "--report", str(report), "-q")
    RUNS[SUITE] += 1
    # Held like every signal once the last record is in: the run completes, and says so.
    assert code == 130 and "Traceback" not in err, err
    assert "interrupted after the run finished" in err
    assert len(list(out.rglob("*.json"))) == 40 and report.exists()
    assert temporaries(out.parent) == []


def test_a_signal_mid_run_writes_nothing_and_says_so(tmp_path, monkeypatch):
    src = dataset(tmp_path, 50)
    out = tmp_path / "o" / "out.jsonl"
    out.parent.mkdir()
    from inspector.batch import job

    real = job.Sink.consume
    seen = [0]

    def consume(self, task, result):
        seen[0] += 1
        if seen[0] == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(self, task, result)

    monkeypatch.setattr(job.Sink, "consume", consume)
    code, _, err = cli_run("batch", str(src), "-o", str(out), "--workers", "1", "-q")
    RUNS[SUITE] += 1
    assert code == 130 and "batch: interrupted; no output written" in err and "Traceback" not in err, err
    assert not out.exists() and temporaries(out.parent) == []


def dask_batch(src: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "inspector", "batch", str(src), "-o", str(out) + "/",
                             "--dask", "local", "--workers", "2", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=src.parent)


def ended(proc: subprocess.Popen) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the batch did not end within 90 s of the signal") from None
    return proc.returncode, err.decode(errors="replace")


@pytest.mark.parametrize("delay", [1.0, 2.0])
def test_dask_a_signal_while_the_cluster_starts_is_one_line(tmp_path, delay):
    pytest.importorskip("distributed")
    src = folder(tmp_path, 300)
    out = tmp_path / "o" / "out"
    out.parent.mkdir()
    proc = dask_batch(src, out)
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    code, err = ended(proc)
    RUNS[SUITE] += 1
    assert "Traceback" not in err and "Error" not in err, err
    # 130: interrupted; -15: the signal came before Python installed its handlers (nothing
    # was created yet); 0: the run was over already.
    assert code in (130, -signal.SIGTERM) or (code == 0 and out.is_dir()), (code, err)
    if code == 130:
        assert err.strip().splitlines()[-1].startswith("batch: interrupted"), err
    time.sleep(1)  # a worker that outlived its cluster would write now
    assert temporaries(out.parent) == [], temporaries(out.parent)


def test_dask_a_signal_mid_run_leaves_no_temporary_folder(tmp_path):
    pytest.importorskip("distributed")
    src = folder(tmp_path, 6000)
    out = tmp_path / "o" / "out"
    out.parent.mkdir()
    proc = dask_batch(src, out)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:  # until workers write mirrored files
        building = [p for p in out.parent.iterdir() if p.name.startswith(".out.")]
        if building and any(building[0].rglob("*.json")):
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before any file was written; make the folder larger"
    proc.send_signal(signal.SIGTERM)
    code, err = ended(proc)
    RUNS[SUITE] += 1
    assert code == 130 and "Traceback" not in err, (code, err)
    time.sleep(2)
    assert temporaries(out.parent) == [] and not out.exists(), temporaries(out.parent)

"""Faults in the data and the file system: each is reported where it is, and the rest of
the dataset is processed (issue 12: damaged gzip, records too deep to write, unreadable
folder entries, FIFOs, a full or closed standard output)."""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys
import zlib

import orjson
import pytest

from inspector.batch import reader
from inspector.batch.job import Job, run_local

from batchdata import cli_output, oracle, write_jsonl


def small_lines(count: int) -> list[bytes]:
    """Short flat histories (a few hundred bytes each, hard to compress)."""
    rng = random.Random(count)
    return [orjson.dumps([{"role": "user", "content": f"question {i} {rng.randbytes(rng.randint(0, 150)).hex()}"},
                          {"role": "assistant", "content": f"answer {i}"}]) for i in range(count)]


def run_job(inputs, output, **kw):
    job = Job(inputs=[str(p) for p in inputs], output=str(output), **kw)
    job.check()
    return run_local(job, live=False)


def errors_of(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


@pytest.mark.parametrize("damage", ["garbage after the end", "truncated"])
def test_damaged_gzip_keeps_every_complete_line_before_the_damage(tmp_path, damage):
    lines = small_lines(3000)
    packed = gzip.compress(b"".join(line + b"\n" for line in lines))
    data = packed + b"this is not gzip\n" * 3 if damage.startswith("garbage") else packed[: len(packed) * 2 // 3]
    # What can be decoded before the damage, by zlib itself: every complete line of it counts.
    decodable = zlib.decompressobj(31).decompress(data)
    complete = decodable.count(b"\n")
    assert complete > 100
    source = tmp_path / "in.jsonl.gz"
    source.write_bytes(data)
    health = run_job([source], tmp_path / "out.jsonl", workers=1, errors=str(tmp_path / "e.jsonl"), task_bytes=8192)
    out = (tmp_path / "out.jsonl").read_bytes().splitlines(keepends=True)
    assert len(out) == complete
    assert out[:3] + out[-3:] == oracle(lines[:3] + lines[complete - 3:complete]).output
    [entry] = errors_of(tmp_path / "e.jsonl")
    assert entry["source"] == str(source) and entry["line"] == complete + 1
    assert entry["reason"].startswith("cannot read further") and "byte" in entry["reason"]
    assert health.read == complete + 1 and health.failed == 1


def deep_record(depth: int) -> bytes:
    """Call arguments ``depth`` objects deep, as text (orjson itself cannot write it)."""
    arguments = b'{"a":' * depth + b'"bottom"' + b"}" * depth
    return (b'[{"role":"user","content":"go"},{"role":"assistant","content":"","tool_calls":'
            b'[{"tool_call_id":"c1","name":"f","arguments":' + arguments + b'}]},'
            b'{"role":"tool","tool_call_id":"c1","content":"done"}]')


def test_a_record_too_deep_to_write_is_one_failed_record(tmp_path):
    lines = small_lines(3)
    lines.insert(1, deep_record(300))  # orjson reads it, but writes at most 255 levels
    data = write_jsonl(tmp_path / "in.jsonl", lines)
    for workers in (1, 2):
        errors = tmp_path / f"e{workers}.jsonl"
        code, _ = cli_output(["batch", str(data), "-o", str(tmp_path / f"o{workers}.jsonl"), "-q",
                              "--errors", str(errors), "--workers", str(workers)])
        assert code == 0
        [entry] = errors_of(errors)
        assert (entry["source"], entry["line"]) == (str(data), 2)
        assert "JSON" in entry["reason"] or "nested" in entry["reason"]
        assert len((tmp_path / f"o{workers}.jsonl").read_bytes().splitlines()) == 3


def test_unreadable_folder_entries_are_reported_and_the_rest_processed(tmp_path, monkeypatch):
    src = tmp_path / "in"
    (src / "locked").mkdir(parents=True)
    (src / "locked" / "hidden.json").write_bytes(b"[]")
    (src / "a.json").write_bytes(small_lines(1)[0])
    (src / "z.json").write_bytes(small_lines(2)[1])
    os.symlink(src / "missing.json", src / "dangling.json")
    os.symlink(src / "loop.json", src / "loop.json")
    os.mkfifo(src / "pipe.json")  # opening it to read would wait for a writer forever
    real_scandir = os.scandir

    def scandir(path="."):  # what a folder without read permission does (even for root)
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(reader.os, "scandir", scandir)
    errors = tmp_path / "e.jsonl"
    health = run_job([src], tmp_path / "out.jsonl", workers=1, errors=str(errors))
    assert len((tmp_path / "out.jsonl").read_bytes().splitlines()) == 2
    reasons = {os.path.relpath(e["source"], src): e["reason"] for e in errors_of(errors)}
    assert set(reasons) == {"dangling.json", "loop.json", "pipe.json", "locked"}
    assert "dangling" in reasons["dangling.json"] and "loop" in reasons["loop.json"]
    assert "FIFO" in reasons["pipe.json"] and "permission denied" in reasons["locked"].lower()
    assert health.read == 6 and health.failed == 4


def test_an_entry_that_became_a_fifo_after_planning_does_not_block(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    os.mkfifo(src / "late.json")
    record = reader.read_file_record(src / "late.json", "in/late.json", "late.json")
    assert isinstance(record.data, str) and "FIFO" in record.data


def test_an_input_removed_during_the_batch_is_reported_once(tmp_path, monkeypatch):
    data = write_jsonl(tmp_path / "in.jsonl", small_lines(400))
    other = write_jsonl(tmp_path / "other.jsonl", small_lines(5))
    tasks = reader.plan

    def plan_then_remove(*args, **kwargs):
        for number, task in enumerate(tasks(*args, **kwargs)):
            if number == 2:
                data.unlink()  # removed while the batch runs
            yield task

    monkeypatch.setattr("inspector.batch.job.plan", plan_then_remove)
    errors = tmp_path / "e.jsonl"
    run_job([data, other], tmp_path / "out.jsonl", workers=1, errors=str(errors), task_bytes=4096)
    entries = errors_of(errors)
    assert [(e["source"], e["line"]) for e in entries] == [(str(data), None)]
    assert "no such file" in entries[0]["reason"].lower()
    out = (tmp_path / "out.jsonl").read_bytes().splitlines(keepends=True)
    assert out[-5:] == oracle(small_lines(5)).output  # the next input is processed


@pytest.mark.parametrize("records_to", ["file", "stdout"])
@pytest.mark.parametrize("stdout", ["full", "closed"])
def test_a_full_or_closed_standard_output_is_one_line(tmp_path, records_to, stdout):
    data = write_jsonl(tmp_path / "in.jsonl", small_lines(20))
    target = "-" if records_to == "stdout" else str(tmp_path / "out.jsonl")
    command = [sys.executable, "-m", "inspector", "batch", str(data), "-o", target, "--workers", "1"]
    if stdout == "full":
        with open("/dev/full", "w") as full:
            proc = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, timeout=60)
    else:
        proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60,
                              preexec_fn=lambda: os.close(1))
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "Exception" not in err, err
    assert ("no space left" if stdout == "full" else "closed") in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"] + (["out.jsonl"] if target != "-" else [])

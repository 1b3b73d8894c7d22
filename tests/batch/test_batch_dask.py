"""The batch job on a real Dask cluster: a ``distributed.LocalCluster`` with two worker
processes. Its output, errors file and report must equal the single-process run's,
record for record, however the input was cut into partitions."""

from __future__ import annotations

import gzip
import json
import shutil

import orjson
import pytest

from extras import need

need("distributed", "dask")

from distributed import LocalCluster  # noqa: E402

from inspector import cli  # noqa: E402
from inspector.batch.dask_runner import plan_parts, run_dask  # noqa: E402
from inspector.batch.job import Job, run_local  # noqa: E402
from inspector.batch.reader import classify  # noqa: E402
from inspector.bundled import samples_dir  # noqa: E402

from batchdata import dataset_lines, oracle, write_jsonl  # noqa: E402

DROP_TIMING = ("seconds", "records_per_second")


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as c:
        yield c


def both(tmp_path, inputs, address, *, mirror=False, blocksize=4096):
    """Run single-process and on the cluster; return both (output, errors, report)."""
    runs = []
    for name, runner in (("local", None), ("dask", address)):
        output = str(tmp_path / name) + ("/" if mirror else ".jsonl")
        job = Job([str(p) for p in inputs], output, workers=1, errors=str(tmp_path / f"{name}-errors.jsonl"))
        job.check()
        health = run_local(job, live=False) if runner is None else run_dask(job, runner, blocksize=blocksize, live=False)
        report = {k: v for k, v in health.to_json().items() if k not in DROP_TIMING}
        if mirror:
            out = {p.relative_to(tmp_path / name).as_posix(): p.read_bytes()
                   for p in sorted((tmp_path / name).rglob("*.json"))}
        else:
            out = (tmp_path / f"{name}.jsonl").read_bytes()
        runs.append((out, (tmp_path / f"{name}-errors.jsonl").read_bytes(), report))
    return runs


def test_jsonl_cut_into_many_partitions_equals_single_process(tmp_path, cluster):
    lines = dataset_lines(300, seed=21, bad_every=23)
    first = write_jsonl(tmp_path / "a.jsonl", lines[:200])
    second = tmp_path / "b.jsonl.gz"
    second.write_bytes(gzip.compress(b"".join(line + b"\n" for line in lines[200:])))
    parts = plan_parts(classify([str(first), str(second)]), 4096)
    assert len(parts) > 10 and parts[-1].kind == "whole"
    (local_out, local_err, local_rep), (dask_out, dask_err, dask_rep) = both(
        tmp_path, [first, second], cluster.scheduler_address)
    assert dask_out == local_out
    assert dask_out.splitlines(keepends=True) == oracle(lines[:200]).output + oracle(lines[200:]).output
    assert dask_err == local_err and dask_err.count(b"\n") == len(oracle(lines).failed_lines)
    assert dask_rep == local_rep
    assert dask_rep["records"]["read"] == 300


def test_folder_partitions_mirror_like_single_process(tmp_path, cluster, monkeypatch):
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    for i, p in enumerate(sorted(samples_dir().glob("*.json"))):
        shutil.copy(p, (src if i % 2 else src / "sub") / p.name)
    (src / "sub" / "zz-bad.json").write_text("[\n  {oops}\n]")
    import inspector.batch.dask_runner as runner

    monkeypatch.setattr(runner, "FILES_PER_PART", 3)  # several partitions
    (local_out, local_err, local_rep), (dask_out, dask_err, dask_rep) = both(
        tmp_path, [src], cluster.scheduler_address, mirror=True)
    assert dask_out == local_out
    assert len(dask_out) == local_rep["records"]["read"] - local_rep["records"]["failed"] > 0
    assert dask_err == local_err
    assert [orjson.loads(x)["line"] for x in dask_err.splitlines() if b"zz-bad" in x] == [2]
    assert dask_rep == local_rep


def test_dask_local_from_the_command_line(tmp_path, capsys):
    # Records of every format (the samples among them), with --strict: each output line is
    # what `normalize --compact --strict` prints for the record, on Dask as locally.
    lines = dataset_lines(120, seed=5, bad_every=30)
    data = write_jsonl(tmp_path / "in.jsonl", lines)
    code = cli.main(["batch", str(data), "-o", str(tmp_path / "d.jsonl"), "--dask", "local", "--workers", "2",
                     "--blocksize", "8KiB", "--report", str(tmp_path / "d.json"), "-q", "--strict"])
    assert code == 0
    assert cli.main(["batch", str(data), "-o", str(tmp_path / "l.jsonl"), "--workers", "1",
                     "--report", str(tmp_path / "l.json"), "-q", "--strict"]) == 0
    capsys.readouterr()
    assert (tmp_path / "d.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()
    assert (tmp_path / "d.jsonl").read_bytes().splitlines(keepends=True) == oracle(lines, strict=True).output
    d, loc = (json.loads((tmp_path / f).read_text()) for f in ("d.json", "l.json"))
    assert {k: v for k, v in d.items() if k not in DROP_TIMING} == {k: v for k, v in loc.items() if k not in DROP_TIMING}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("to,strict", [("same", False), ("same", True), ("openai-chat", False), ("gemini", True)])
def test_mixed_formats_on_dask_equal_normalize_from_format(tmp_path, cluster, to, strict):
    from test_batch_formats import expected_lines, mixed_records

    records = mixed_records()
    data = write_jsonl(tmp_path / "in.jsonl", [line for line, _ in records])
    job = Job([str(data)], str(tmp_path / "out.jsonl"), workers=2, to=to, strict=strict)
    job.check()
    run_dask(job, cluster.scheduler_address, blocksize=2048, live=False)
    options = ("--to", to) + (("--strict",) if strict else ())
    assert (tmp_path / "out.jsonl").read_bytes().splitlines(keepends=True) == expected_lines(records, options)


def test_a_record_too_deep_to_write_fails_alone_on_dask(tmp_path, cluster):
    from test_batch_faults import deep_record, small_lines

    lines = small_lines(4)
    lines.insert(2, deep_record(300))
    data = write_jsonl(tmp_path / "in.jsonl", lines)
    job = Job([str(data)], str(tmp_path / "out.jsonl"), workers=2, errors=str(tmp_path / "e.jsonl"))
    job.check()
    health = run_dask(job, cluster.scheduler_address, blocksize=512, live=False)
    [entry] = [orjson.loads(x) for x in (tmp_path / "e.jsonl").read_bytes().splitlines()]
    assert (entry["source"], entry["line"]) == (str(data), 3)
    assert health.read == 5 and health.failed == 1
    assert len((tmp_path / "out.jsonl").read_bytes().splitlines()) == 4

"""``inspector batch`` on one machine: order, provenance of failures, inputs of every
kind, the health report's counts against the engine's events, and safe outputs."""

from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path

import orjson
import pytest

from inspector import cli
from inspector.batch import job as job_module
from inspector.batch.job import Job, run_local
from inspector.batch.reader import classify, folder_files, plan
from inspector.bundled import samples_dir
from inspector.engine import KINDS

from batchdata import dataset_lines, one_record, oracle, write_jsonl
from extras import need


def run_job(inputs, output, *, stdin=None, **kw) -> object:
    job = Job(inputs=[str(p) for p in inputs], output=str(output), **kw)
    job.check()
    return run_local(job, live=False, stdin=stdin)


def cli_run(capsys, *argv):
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def lines_of(path: Path) -> list[bytes]:
    return [line + b"\n" for line in path.read_bytes().splitlines()]


@pytest.mark.parametrize("workers,handoff", [(1, "in-process"), (2, "slot"), (3, "slot"), (3, "part"),
                                             (2, "no fork")])
def test_output_is_in_input_order_whatever_the_workers(tmp_path, monkeypatch, workers, handoff):
    # Small tasks (about 40 of them) and several processes: tasks finish out of order, and
    # the output must still be record for record what the CLI prints, in input order,
    # however a task's output reaches the parent: in its memory (a task it ran itself), a
    # slot of memory shared with the workers, or a part file (an output too large for its
    # slot, or no shared memory where workers are not forked).
    if handoff == "part":
        monkeypatch.setattr(job_module, "SLOT_FACTOR", 0.0001)  # one-byte slots
    if handoff == "no fork":
        monkeypatch.setattr(job_module.multiprocessing, "get_start_method", lambda: "spawn")
    seen = set()
    consume = job_module.Sink.consume

    def spy(self, task, result):
        if result.slot or result.part or result.output:  # a task may hold no record
            seen.add("slot" if result.slot else "part" if result.part else "in-process")
        return consume(self, task, result)

    monkeypatch.setattr(job_module.Sink, "consume", spy)
    lines = dataset_lines(600, seed=7)
    data = write_jsonl(tmp_path / "in.jsonl", lines)
    health = run_job([data], tmp_path / "out.jsonl", workers=workers, task_bytes=4096)
    expected = oracle(lines)
    assert lines_of(tmp_path / "out.jsonl") == expected.output
    wanted = {"in-process"} if workers == 1 else {"part"} if handoff == "no fork" else {handoff}
    assert wanted <= seen <= wanted | {"in-process"}  # the parent runs some tasks itself
    assert health.read == 600 and health.failed == 0
    assert len(list(plan(classify([str(data)]), task_bytes=4096))) > 20


def test_records_equal_the_normalize_command(tmp_path, capsys):
    lines = dataset_lines(12, seed=2)
    data = write_jsonl(tmp_path / "in.jsonl", lines)
    code, _, _ = cli_run(capsys, "batch", data, "-o", tmp_path / "out.jsonl", "--workers", "2", "-q")
    assert code == 0
    produced = lines_of(tmp_path / "out.jsonl")
    for i, line in enumerate(lines):
        one = tmp_path / f"{i}.json"
        one.write_bytes(line)
        assert cli.main(["normalize", str(one), "--compact", "-q"]) == 0
        assert capsys.readouterr().out.encode() == produced[i]


def test_bad_line_in_the_middle_is_reported_and_the_rest_processed(tmp_path, capsys):
    lines = dataset_lines(300, seed=5)
    lines[149] = b'{"messages": [{"role": "user", "content": "cut here'
    data = write_jsonl(tmp_path / "in.jsonl", lines)
    errors = tmp_path / "errors.jsonl"
    code, out, err = cli_run(capsys, "batch", data, "-o", tmp_path / "out.jsonl", "--errors", errors,
                             "--workers", "3")
    assert code == 0
    entries = [orjson.loads(line) for line in errors.read_bytes().splitlines()]
    assert [(e["source"], e["line"]) for e in entries] == [(str(data), 150)]
    assert entries[0]["reason"] and entries[0]["excerpt"].startswith('{"messages"')
    produced = lines_of(tmp_path / "out.jsonl")
    assert len(produced) == 299
    assert produced == oracle(lines).output
    assert "299 changed" not in out and "1 failed" in out
    assert "299" in err or "300 records" in err


def test_fail_on_error_exits_2_but_still_writes_everything(tmp_path, capsys):
    data = write_jsonl(tmp_path / "in.jsonl", [b"[]", b"nope", b'[{"role": "user", "content": "x"}]'])
    out = tmp_path / "out.jsonl"
    assert cli_run(capsys, "batch", data, "-o", out, "-q")[0] == 0
    out.unlink()
    code, _, _ = cli_run(capsys, "batch", data, "-o", out, "-q", "--fail-on-error")
    assert code == 2
    assert len(lines_of(out)) == 2
    clean = write_jsonl(tmp_path / "clean.jsonl", [b"[]"])
    assert cli_run(capsys, "batch", clean, "-o", tmp_path / "c.jsonl", "-q", "--fail-on-error")[0] == 0


def test_line_numbers_count_blank_lines_and_survive_many_small_tasks(tmp_path):
    lines = dataset_lines(200, seed=9)
    lines.insert(0, b"")
    lines[50] = b"   "
    lines[120] = b"{oops"
    lines[180] = b"true"
    data = tmp_path / "in.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + b"".join(line + b"\n" for line in lines))
    errors = tmp_path / "e.jsonl"
    for workers, task_bytes in ((1, 1 << 20), (3, 777)):
        health = run_job([data], tmp_path / f"o{workers}.jsonl", workers=workers, task_bytes=task_bytes,
                         errors=str(errors))
        found = [orjson.loads(x)["line"] for x in errors.read_bytes().splitlines()]
        assert found == [121, 181]
        assert health.read == 199  # 201 lines, two of them blank: not records
        errors.unlink()


def test_gzip_input_and_output(tmp_path):
    lines = dataset_lines(150, seed=4, bad_every=40)
    plain = write_jsonl(tmp_path / "in.jsonl", lines)
    packed = tmp_path / "in.data"  # no .gz suffix: recognised by its magic bytes
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    run_job([plain], tmp_path / "plain.jsonl", workers=2, errors=str(tmp_path / "e1.jsonl"))
    run_job([packed], tmp_path / "packed.jsonl.gz", workers=2, errors=str(tmp_path / "e2.jsonl"), task_bytes=2048)
    run_job([plain], tmp_path / "one.jsonl.gz", workers=1)
    for name in ("packed.jsonl.gz", "one.jsonl.gz"):  # gzip members, by workers or in-process
        assert gzip.decompress((tmp_path / name).read_bytes()) == (tmp_path / "plain.jsonl").read_bytes()
    e1 = [orjson.loads(x) for x in (tmp_path / "e1.jsonl").read_bytes().splitlines()]
    e2 = [orjson.loads(x) for x in (tmp_path / "e2.jsonl").read_bytes().splitlines()]
    assert [e["line"] for e in e1] == [e["line"] for e in e2] == oracle(lines).failed_lines


def test_truncated_gzip_keeps_what_came_before(tmp_path):
    lines = dataset_lines(400, seed=8)
    packed = gzip.compress(b"".join(line + b"\n" for line in lines))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) * 2 // 3])
    health = run_job([cut], tmp_path / "out.jsonl", workers=1, errors=str(tmp_path / "e.jsonl"))
    good = lines_of(tmp_path / "out.jsonl")
    assert 0 < len(good) < 400 and good == oracle(lines).output[: len(good)]
    entry = orjson.loads((tmp_path / "e.jsonl").read_bytes().splitlines()[-1])
    assert entry["reason"].startswith("cannot read further")
    assert health.failed == 1


def test_standard_input(tmp_path):
    lines = dataset_lines(80, seed=6, bad_every=30)
    data = b"".join(line + b"\n" for line in lines)
    health = run_job(["-"], tmp_path / "out.jsonl", workers=2, stdin=io.BytesIO(data),
                     errors=str(tmp_path / "e.jsonl"))
    assert lines_of(tmp_path / "out.jsonl") == oracle(lines).output
    sources = {orjson.loads(x)["source"] for x in (tmp_path / "e.jsonl").read_bytes().splitlines()}
    assert sources == {"<stdin>"} and health.failed == len(oracle(lines).failed_lines)


def test_folder_input_and_mirrored_folder_output(tmp_path):
    src = tmp_path / "in"
    (src / "deep" / "er").mkdir(parents=True)
    samples = sorted(samples_dir().glob("*.json"))
    for i, p in enumerate(samples):
        folder = src if i % 3 == 0 else src / "deep" if i % 3 == 1 else src / "deep" / "er"
        target = folder / p.name
        if i == 4:
            (folder / (p.name + ".gz")).write_bytes(gzip.compress(p.read_bytes()))
        else:
            target.write_bytes(p.read_bytes())
    (src / "deep" / "broken.json").write_bytes(b'[{"role": "user",\n  "content": }]')
    (src / "README.txt").write_text("not a history")
    errors = tmp_path / "e.jsonl"
    health = run_job([src], str(tmp_path / "out") + "/", workers=2, errors=str(errors))
    out = tmp_path / "out"
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
    expected = {}
    for source in src.rglob("*.json*"):
        raw = gzip.decompress(source.read_bytes()) if source.suffix == ".gz" else source.read_bytes()
        written_by_cli, _ = one_record(raw.replace(b"\n", b" "))   # a mirrored file is normalize's file
        if written_by_cli is not None:
            expected[source.relative_to(src).as_posix().removesuffix(".gz")] = written_by_cli
    assert len(expected) >= len(samples) - 1
    assert written == sorted(expected)
    for rel in written:
        assert (out / rel).read_bytes() == expected[rel]
    entries = [orjson.loads(x) for x in errors.read_bytes().splitlines()]
    assert {"source": str(src / "deep" / "broken.json"), "line": 2} in [
        {"source": e["source"], "line": e["line"]} for e in entries]
    assert health.read == len(samples) + 1 and health.failed == len(samples) + 1 - len(expected)
    # the same folder into one JSONL file, in sorted path order
    run_job([src], tmp_path / "all.jsonl", workers=1)
    in_walk_order = [p.relative_to(src).as_posix().removesuffix(".gz") for p, _ in folder_files(str(src))]
    as_lines = [expected[rel] if expected[rel].endswith(b"\n") else expected[rel] + b"\n"   # one record a line
                for rel in in_walk_order if rel in expected]
    assert lines_of(tmp_path / "all.jsonl") == as_lines


def test_report_counts_are_the_sum_of_the_engines_events(tmp_path, capsys):
    lines = dataset_lines(500, seed=11, bad_every=45)
    data = write_jsonl(tmp_path / "in.jsonl", lines)
    report_path = tmp_path / "report.json"
    code, table, _ = cli_run(capsys, "batch", data, "-o", tmp_path / "out.jsonl", "--report", report_path,
                             "--workers", "2")
    assert code == 0
    report = json.loads(report_path.read_text())
    expected = oracle(lines, counts=True)
    assert report["records"] == {"read": expected.read, "changed": expected.changed,
                                 "unchanged": expected.read - expected.changed - len(expected.failed_lines),
                                 "failed": len(expected.failed_lines)}
    counted = {(k["clause"], k["kind"]): k["events"] for k in report["kinds"] if k["events"]}
    assert counted == dict(expected.kinds)
    assert {(k["clause"], k["kind"]): k["records"] for k in report["kinds"] if k["events"]} == dict(expected.records_with)
    assert {k["kind"] for k in report["kinds"]} >= set(KINDS)
    for row in report["kinds"]:  # import and export kinds included, as the engine's table lists them
        known = KINDS.get(row["kind"])
        assert (row["label"], row["drop"]) == ((known.label, known.drop) if known else (row["kind"], None))
    assert report["drops_per_history"]["histogram"] == {str(k): v for k, v in sorted(expected.drops.items())}
    assert report["events"]["drops"] == sum(k * v for k, v in expected.drops.items())
    worst = max(expected.drops)
    assert report["most_drops"][0]["drops"] == worst
    top_line = report["most_drops"][0]["line"]
    assert oracle([lines[top_line - 1]], counts=True).drops == {worst: 1}
    assert sum(report["failures"]["reasons"].values()) == len(expected.failed_lines)
    assert [f["line"] for f in report["failures"]["first"]] == expected.failed_lines[:10]
    # the table shows the same figures
    assert f"{expected.read:,} records read" in table
    for (clause, kind), n in expected.kinds.most_common(3):
        row = next(line for line in table.splitlines() if f" {kind} " in line)
        assert f"{n:,}" in row and row.strip().startswith(clause)


def test_usage_errors_exit_2_before_any_output(tmp_path, capsys):
    data = write_jsonl(tmp_path / "in.jsonl", dataset_lines(5))
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.json").write_text("[]")
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    cases = [
        (["batch", data, "-o", data], "over an input"),
        (["batch", folder, "-o", folder / "out.jsonl"], "inside the input folder"),
        (["batch", folder, "-o", str(full) + "/"], "not empty"),
        (["batch", data, "-o", str(tmp_path / "dir") + "/"], "mirrors one input folder"),
        (["batch", tmp_path / "missing.jsonl", "-o", tmp_path / "o.jsonl"], "no such file"),
        (["batch", data, "-o", tmp_path / "nowhere" / "o.jsonl"], "does not exist"),
        (["batch", data, "-o", tmp_path / "o.jsonl", "--errors", data], "over an input"),
        (["batch", data, data, "-o", tmp_path / "o.jsonl"], "given twice"),
        (["batch", data, "-o", tmp_path / "o.jsonl", "--report", tmp_path / "o.jsonl"], "different files"),
        (["batch", data, "-o", tmp_path / "o.jsonl", "--workers", "0"], "at least 1"),
    ]
    for argv, words in cases:
        code, out, err = cli_run(capsys, *argv)
        assert code == 2, argv
        assert words in err, (argv, err)
    assert not (tmp_path / "o.jsonl").exists()
    assert (full / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "full", "in.jsonl"]


def test_dask_refuses_standard_input_before_any_output(tmp_path, capsys):
    need("distributed", "dask")
    code, out, err = cli_run(capsys, "batch", "-", "-o", tmp_path / "o.jsonl", "--dask", "local")
    assert code == 2 and "standard input" in err
    assert not (tmp_path / "o.jsonl").exists()


def test_output_to_stdout_moves_the_table_to_stderr(tmp_path, capfd):
    lines = dataset_lines(10, seed=12)
    data = write_jsonl(tmp_path / "in.jsonl", lines)
    assert cli.main(["batch", str(data), "-o", "-", "--workers", "1"]) == 0
    out, err = capfd.readouterr()
    assert [line + "\n" for line in out.splitlines()] == [x.decode() for x in oracle(lines).output]
    assert "Dataset health" in err


def test_no_temporary_files_are_left_after_a_run(tmp_path):
    data = write_jsonl(tmp_path / "in.jsonl", dataset_lines(100, bad_every=20))
    run_job([data], tmp_path / "out.jsonl", workers=2, task_bytes=1000,
            errors=str(tmp_path / "e.jsonl"), report=None)
    assert sorted(os.listdir(tmp_path)) == ["e.jsonl", "in.jsonl", "out.jsonl"]


@pytest.mark.parametrize("data", [b"", b"\n", b"a\n", b"a", b"a\n\n", b"\n\nb", b"a\nb", b" \n\t\r\nx\n", b"\xef\xbb\xbfa\nb\n",
                                  b"a\r\nb\r\n"])
@pytest.mark.parametrize("first", [True, False])
def test_lines_are_split_and_counted_as_split_would(data, first):
    """The line reader finds newlines with ``find``: the records, their numbers and the line
    count are those of ``bytes.split``."""
    from inspector.batch.reader import BOM, _lines

    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    expected = []
    for number, line in enumerate(lines, 1):
        if first and number == 1 and line.startswith(BOM):
            line = line[len(BOM):]
        if line and not line.isspace():
            expected.append((number, line))
    count = [0]
    got = [(r.line, r.data) for r in _lines("f", data, first, count)]
    assert got == expected and count[0] == len(lines)


def test_the_health_tables_columns_never_run_together():
    """A clause longer than the column (strict:early-result, import:claude-code) once ran into
    its kind: ``strict:early-resultstrict-early-result``."""
    from inspector.batch.changes import tally
    from inspector.batch.report import Health
    from inspector.pipeline import run_file

    health = Health()
    for name in ("02-result-before-call.json", "21-claude-code-session.jsonl"):
        change = tally([run_file(samples_dir() / name, strict=True)])
        health.add_record(change.dropped, change.kinds, change.changed, name, None)
    table = health.render()
    rows = [line for line in table.splitlines() if "strict-early-result" in line or "result-recovered" in line]
    assert rows
    for line in rows:
        clause, kind = line.split()[:2]
        assert clause.startswith(("strict:", "import:", "1", "2", "3", "4")) and kind[0].isalpha(), line

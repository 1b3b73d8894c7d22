"""A JSONL record that holds its history under ``--column`` is repaired in place: the field
becomes what ``inspector normalize --compact`` prints for the history alone (JSON text
stays JSON text), every other field is kept, in its place."""

from __future__ import annotations

import orjson
import pytest

from inspector.batch.cells import repair_line
from inspector.io import InputError

from batchdata import one_record
from parquetdata import rows


@pytest.mark.parametrize("as_text", [False, True], ids=["value", "json-string"])
def test_the_history_field_is_what_normalize_prints_and_the_rest_is_kept(as_text):
    for row in rows(60, seed=5):
        history = row["messages"]
        record = {"id": row["id"], "trajectory": orjson.dumps(history).decode() if as_text else history,
                  "tools": [{"type": "function", "function": {"name": "search"}}], "score": row["score"]}
        line, outcome, where = repair_line(orjson.dumps(record), "trajectory", "id")
        expected, _ = one_record(orjson.dumps(history))
        out = orjson.loads(line)
        assert list(out) == list(record) and where == {"id": row["id"]}
        assert {k: v for k, v in out.items() if k != "trajectory"} == \
            {k: v for k, v in record.items() if k != "trajectory"}
        if as_text:
            assert out["trajectory"] == expected.rstrip(b"\n").decode()
        else:
            assert orjson.dumps(out["trajectory"]) == expected.rstrip(b"\n")
        assert line.endswith(b"}\n")
        assert outcome.changed == (orjson.loads(expected) != history)


def test_a_record_without_the_field_says_so():
    with pytest.raises(InputError, match="no 'trajectory' field"):
        repair_line(b'{"messages": []}', "trajectory")
    with pytest.raises(InputError, match="expected an object with a 'trajectory' field"):
        repair_line(b'[{"role": "user", "content": "x"}]', "trajectory")
    with pytest.raises(InputError, match="the 'trajectory' value is null"):
        repair_line(b'{"trajectory": null}', "trajectory")


def test_without_pyarrow_a_parquet_file_gets_a_clear_error(monkeypatch):
    import sys

    from inspector.batch.parquet import arrow

    monkeypatch.setitem(sys.modules, "pyarrow", None)       # as if the extra were not installed
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(InputError, match=r"pip install 'inspector\[parquet\]'"):
        arrow()


HOW = {"one process": [], "--workers 2": ["--workers", "2"], "--dask local": ["--workers", "2", "--dask", "local"]}


@pytest.mark.parametrize("how", list(HOW))
def test_batch_repairs_the_column_of_each_record_and_logs_each_changed_one(tmp_path, how):
    if "--dask" in HOW[how]:
        from extras import need

        need("distributed", "dask")
    from inspector import cli

    data = rows(150, seed=9)
    lines = [orjson.dumps({"id": r["id"], "messages": r["messages"], "score": r["score"]}) for r in data]
    lines.insert(40, b'{"id": "broken", "messages": ')                       # one bad line: line 41
    (tmp_path / "in.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    code = cli.main(["batch", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "-q", "--column",
                     "messages", "--id-column", "id", "--changes", str(tmp_path / "changes.jsonl"),
                     "--errors", str(tmp_path / "errors.jsonl"), "--report", str(tmp_path / "report.json"),
                     *HOW[how]] + (["--blocksize", "8KiB"] if "--dask" in HOW[how] else []))
    assert code == 0
    out = [orjson.loads(line) for line in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    assert [o["id"] for o in out] == [r["id"] for r in data]
    log = [orjson.loads(line) for line in (tmp_path / "changes.jsonl").read_bytes().splitlines()]
    expected = []
    for number, (row, written) in enumerate(zip(data, out)):
        printed, _ = one_record(orjson.dumps(row["messages"]))
        assert orjson.dumps(written["messages"]) == printed.rstrip(b"\n")
        assert written["score"] == row["score"]
        if orjson.loads(printed) != row["messages"]:
            expected.append((number + 1 + (number >= 40), row["id"]))           # lines after the bad one move down
    assert [(e["line"], e["id"]) for e in log] == expected and all(e["source"] == str(tmp_path / "in.jsonl") for e in log)
    (error,) = [orjson.loads(line) for line in (tmp_path / "errors.jsonl").read_bytes().splitlines()]
    assert error["line"] == 41
    report = orjson.loads((tmp_path / "report.json").read_bytes())
    assert report["records"]["changed"] == len(log)
    assert sum(r["events"] for r in report["kinds"]) == sum(k["events"] for e in log for k in e["kinds"])

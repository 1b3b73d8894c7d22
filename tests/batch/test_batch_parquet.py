"""Parquet datasets through the batch job: each output row is what ``inspector normalize
--compact`` prints for that row's history (asked of the CLI, one file per history), in the
column's own representation; every other column, the schema and the row order are kept;
the change log has one line per changed row with the kinds ``explain --json`` reports."""

from __future__ import annotations

import io
import sys
from collections import Counter
from pathlib import Path

import orjson
import pytest

from extras import need

need("pyarrow", "parquet")

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from inspector import cli  # noqa: E402

from batchdata import one_record  # noqa: E402
from parquetdata import rows, write  # noqa: E402


def batch(inputs, output, *options, workers=1, dask=False, quiet=True):
    """``inspector batch`` through the CLI's entry point: exit status, the JSON report (None
    when the run failed), standard output and standard error."""
    report = Path(str(output) + ".report.json")
    argv = ["batch", *map(str, inputs), "-o", str(output), "--workers", str(workers), "--report", str(report),
            *map(str, options), *(["-q"] if quiet else []), *(["--dask", "local"] if dask else [])]
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    finally:
        out, err = sys.stdout.getvalue(), sys.stderr.getvalue()
        sys.stdout, sys.stderr = saved
    return code, (orjson.loads(report.read_bytes()) if code == 0 else None), out, err


def run(inputs, output, *options, **how):
    code, report, _, err = batch(inputs, output, *options, **how)
    assert code == 0, err
    return report


def normalized(history) -> tuple[bytes, dict]:
    """What the CLI prints for this history: ``normalize --compact`` and ``explain --json``."""
    out, explained = one_record(orjson.dumps(history), counts=True)
    assert out is not None
    return out, explained


def event_kinds(explained: dict) -> Counter:
    events = [*explained["import"]["events"], *explained["events"], *explained["export"]["events"]]
    return Counter((e["clause"], e["kind"]) for e in events)


def changes_of(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture(scope="module")
def dataset():
    return rows(400)


HOW = {"one process": {}, "--workers 2": {"workers": 2}, "--dask local": {"dask": True, "workers": 2}}


@pytest.mark.parametrize("how", list(HOW))
@pytest.mark.parametrize("text", [False, True], ids=["struct", "json-string"])
def test_every_row_is_what_normalize_prints_and_the_rest_is_kept(tmp_path, dataset, text, how):
    if HOW[how].get("dask"):
        need("distributed", "dask")
    source = write(tmp_path / "in.parquet", dataset, text)
    health = run([source], tmp_path / "out.parquet", "--id-column", "id", "--changes", tmp_path / "changes.jsonl",
                 **HOW[how])
    before, after = pq.read_table(source), pq.read_table(tmp_path / "out.parquet")

    assert after.schema.equals(before.schema, check_metadata=True)      # huggingface metadata too
    assert after.drop_columns(["messages"]).equals(before.drop_columns(["messages"]))   # ids, scores, order
    meta_in, meta_out = pq.read_metadata(source), pq.read_metadata(tmp_path / "out.parquet")
    assert [meta_out.row_group(i).num_rows for i in range(meta_out.num_row_groups)] == \
        [meta_in.row_group(i).num_rows for i in range(meta_in.num_row_groups)]
    assert meta_out.row_group(0).column(0).compression == "ZSTD"

    typ = before.schema.field("messages").type
    cells = after.column("messages").combine_chunks()
    changed = {}
    for i, row in enumerate(dataset):
        out, explained = normalized(row["messages"])
        if text:
            assert cells[i].as_py() == out.rstrip(b"\n").decode(), i
        else:
            # The CLI's output stored in the column's type, by pyarrow itself.
            assert cells.slice(i, 1).equals(pa.array([orjson.loads(out)], type=typ)), i
        if orjson.loads(out) != row["messages"]:
            changed[i] = event_kinds(explained), explained["dropped"]
    assert 100 < len(changed) < 400                                   # the dataset is broken, not all of it

    log = changes_of(tmp_path / "changes.jsonl")
    assert [e["row"] for e in log] == sorted(changed)                 # one line per changed row, in order
    for entry in log:
        kinds, dropped = changed[entry["row"]]
        assert entry["id"] == f"row-{entry['row']}" and entry["changed"] is True
        assert Counter({(k["clause"], k["kind"]): k["events"] for k in entry["kinds"]}) == kinds
        assert entry["dropped"] == dropped
    seen = Counter()
    for e in log:
        seen.update({k["kind"]: k["events"] for k in e["kinds"]})
    assert {"result-synthesized", "result-duplicate", "result-orphan"} <= set(seen)
    records = health["records"]
    assert records["read"] == 400 and records["changed"] == len(changed) and records["failed"] == 0
    most = health["most_drops"]
    assert most and all(m["source"] == str(source) for m in most)
    assert [m["drops"] for m in most] == sorted((d for _, d in changed.values()), reverse=True)[:len(most)]
    assert all(changed[m["row"]][1] == m["drops"] for m in most)       # each names its row
    assert {r["kind"]: r["events"] for r in health["kinds"] if r["events"]} == dict(seen)


def fails(inputs, output, message, *options) -> bool:
    """The run exits 2 before any row, with ``message`` in its one line of error."""
    code, _, _, err = batch(inputs, output, *options)
    assert code == 2 and message in err, (code, err)
    return not Path(output).exists() or Path(output) in map(Path, inputs)


def struct_table(histories, typ=None):
    return pa.table({"n": list(range(len(histories))), "messages": pa.array(histories, type=typ)})


def test_nulls_arrow_added_are_absent_keys_and_a_null_entry_is_a_real_null(tmp_path):
    # One struct type for every message: the user row holds a null tool_calls and
    # tool_call_id because Arrow added them, not because the JSON said null. Read as
    # absent, the valid history comes back unchanged; read as JSON null, the flat shape
    # would discard those keys (a change, and a line in the log). A null *entry* is
    # different: Arrow never adds one, so it is the JSON null (not-a-map), and an entry
    # whose every field is null is the empty object (no-role).
    valid = [{"role": "user", "content": "hi"},
             {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "f"}]},
             {"role": "tool", "content": "ok", "tool_call_id": "c1"}]
    typ = pa.array([valid]).type
    assert pa.array([valid], type=typ).to_pylist()[0][0]["tool_call_id"] is None
    histories = [valid, [*valid, None], [*valid, {}]]
    pq.write_table(struct_table(histories, typ), tmp_path / "in.parquet")
    run([tmp_path / "in.parquet"], tmp_path / "out.parquet", "--changes", tmp_path / "changes.jsonl")
    log = {e["row"]: [k["kind"] for k in e["kinds"]] for e in changes_of(tmp_path / "changes.jsonl")}
    assert log == {1: ["not-a-map"], 2: ["no-role"]}
    out = pq.read_table(tmp_path / "out.parquet").column("messages")
    for i in range(3):
        assert out.slice(i, 1).equals(pa.chunked_array([pa.array([valid], type=typ)])), i


def test_a_json_string_column_keeps_its_real_nulls(tmp_path):
    history = [{"role": "user", "content": "hi", "name": None},
               {"role": "assistant", "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]
    text = orjson.dumps(history).decode()
    pq.write_table(pa.table({"messages": [text, None]}), tmp_path / "in.parquet")
    health = run([tmp_path / "in.parquet"], tmp_path / "out.parquet", "--errors", tmp_path / "errors.jsonl")
    out, _ = normalized(history)
    assert b'"content":null' in out
    assert pq.read_table(tmp_path / "out.parquet").column("messages").to_pylist() == [out.rstrip(b"\n").decode()]
    (error,) = changes_of(tmp_path / "errors.jsonl")                  # the null cell: no history at all
    assert error["row"] == 1 and "null" in error["reason"] and health["records"]["failed"] == 1


def test_a_repair_the_column_type_cannot_hold_fails_that_row_only(tmp_path):
    # The message struct has no tool_call_id: the interrupted result MEM-5 adds to the
    # first history has nowhere to go. pyarrow would drop the key without a word.
    typ = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string()),
                              ("tool_calls", pa.list_(pa.struct([("id", pa.string()), ("type", pa.string()),
                                                                 ("function", pa.struct([("name", pa.string())]))])))]))
    broken = [{"role": "user", "content": "q"},
              {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
                                                                    "function": {"name": "f"}}]}]
    fine = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    pq.write_table(struct_table([broken, fine], typ), tmp_path / "in.parquet")
    health = run([tmp_path / "in.parquet"], tmp_path / "out.parquet", "--errors", tmp_path / "errors.jsonl")
    (error,) = changes_of(tmp_path / "errors.jsonl")
    assert error["row"] == 0 and "[2]" in error["reason"] and "'tool_call_id'" in error["reason"]
    out = pq.read_table(tmp_path / "out.parquet")
    assert out.column("n").to_pylist() == [1] and health["records"]["failed"] == 1 and health["records"]["read"] == 2


def test_a_bad_json_string_names_its_row_line_and_column(tmp_path):
    pq.write_table(pa.table({"messages": ['[{"role": "user",\n "content": }]', "[]"]}), tmp_path / "in.parquet")
    run([tmp_path / "in.parquet"], tmp_path / "out.parquet", "--errors", tmp_path / "errors.jsonl")
    (error,) = changes_of(tmp_path / "errors.jsonl")
    assert (error["row"], error["line"], error["column"]) == (0, 2, 13)
    assert pq.read_table(tmp_path / "out.parquet").column("messages").to_pylist() == ["[]"]


def test_target_problems_are_logged_for_rows_left_unacceptable(tmp_path):
    # MEM-5 leaves a result that other rows separate from its call (semantics.md, known
    # limits): the row is unchanged, yet Anthropic would refuse it; the log says so.
    separated = [{"role": "user", "content": "q"},
                 {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
                                                                      "function": {"name": "f", "arguments": "{}"}}]},
                 {"role": "user", "content": "meanwhile"},
                 {"role": "tool", "tool_call_id": "c1", "content": "late"}]
    fine = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    pq.write_table(pa.table({"messages": [orjson.dumps(fine).decode(), orjson.dumps(separated).decode()]}),
                   tmp_path / "in.parquet")
    health = run([tmp_path / "in.parquet"], tmp_path / "out.parquet", "--target", "anthropic",
                 "--changes", tmp_path / "changes.jsonl")
    (entry,) = changes_of(tmp_path / "changes.jsonl")
    assert entry["row"] == 1 and entry["changed"] is False
    assert entry["problems"] and {p["target"] for p in entry["problems"]} == {"anthropic"}
    assert any(p["severity"] == "error" for p in entry["problems"])
    # The report counts what the log lists.
    left = health["left"]
    assert left["rejected"] == 1
    assert sum(r["problems"] for r in left["rules"]) == len(entry["problems"])
    assert {(r["rule"], r["severity"]) for r in left["rules"]} == {(p["rule"], p["severity"]) for p in entry["problems"]}
    code, _, table, _ = batch([tmp_path / "in.parquet"], tmp_path / "again.parquet", "--target", "anthropic",
                              quiet=False)
    assert code == 0 and "Left for the provider (--target): 1 records would still be rejected" in table


def test_several_files_need_one_schema_and_rows_are_numbered_per_file(tmp_path, dataset):
    a = write(tmp_path / "a.parquet", dataset[:50], text=True)
    b = write(tmp_path / "b.parquet", dataset[50:100], text=True)
    run([a, b], tmp_path / "out.parquet", "--changes", tmp_path / "changes.jsonl")
    assert pq.read_table(tmp_path / "out.parquet").column("id").to_pylist() == [r["id"] for r in dataset[:100]]
    log = changes_of(tmp_path / "changes.jsonl")
    assert {(e["source"], e["row"]) for e in log} >= {(str(b), e["row"]) for e in log if e["source"] == str(b)}
    assert max(e["row"] for e in log if e["source"] == str(b)) < 50
    other = write(tmp_path / "c.parquet", dataset[:10], text=False)
    assert fails([a, other], tmp_path / "out2.parquet", "c.parquet: its schema differs")


def test_bad_inputs_stop_before_any_row(tmp_path, dataset):
    source = write(tmp_path / "in.parquet", dataset[:5], text=True)
    assert fails([source], tmp_path / "out.parquet", "no column 'conversations' (--column); the file has: id, "
                  "messages, score", "--column", "conversations")
    assert fails([source], tmp_path / "out.parquet", "no column 'uuid' (--id-column)", "--id-column", "uuid")
    (tmp_path / "not.parquet").write_bytes(b"PAR1 not really")
    assert fails([tmp_path / "not.parquet"], tmp_path / "out.parquet", "not.parquet: not a Parquet file")
    assert fails([source], source, "refusing to write the output over an input")
    assert fails([source], tmp_path / "out.jsonl", "Parquet inputs are written to a Parquet output")
    (tmp_path / "in.jsonl").write_bytes(b"[]\n")
    assert fails([tmp_path / "in.jsonl"], tmp_path / "out.parquet", "written from Parquet inputs only")
    assert fails([source], tmp_path / "out.parquet", "must be different files", "--changes", tmp_path / "out.parquet")
    assert pq.read_table(source).num_rows == 5
    assert not (tmp_path / "out.parquet").exists()


def test_a_value_pyarrow_refuses_in_the_column_type_fails_that_row_only(tmp_path):
    # Integer ids: MEM-5 casts a result's id to text, which an int64 field cannot hold.
    call = pa.struct([("tool_call_id", pa.int64()), ("name", pa.string())])
    typ = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string()), ("tool_calls", pa.list_(call)),
                              ("tool_call_id", pa.int64())]))
    cast = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": 7, "name": "f"}]},
            {"role": "tool", "content": "r", "tool_call_id": 7}]
    fine = [{"role": "user", "content": "q"}]
    pq.write_table(struct_table([fine, cast, fine], typ), tmp_path / "in.parquet")
    health = run([tmp_path / "in.parquet"], tmp_path / "out.parquet", "--errors", tmp_path / "errors.jsonl")
    (error,) = changes_of(tmp_path / "errors.jsonl")
    assert error["row"] == 1 and "does not fit the column's type" in error["reason"]
    assert pq.read_table(tmp_path / "out.parquet").column("n").to_pylist() == [0, 2]
    assert health["records"]["failed"] == 1


def test_an_empty_file_gives_an_empty_file_of_the_same_schema(tmp_path, dataset):
    source = write(tmp_path / "in.parquet", dataset[:3], text=False)
    empty = tmp_path / "empty.parquet"
    pq.write_table(pq.read_table(source).slice(0, 0), empty)
    code, _, _, err = batch([empty], tmp_path / "out.parquet")
    out = pq.read_table(tmp_path / "out.parquet")
    assert out.num_rows == 0 and out.schema.equals(pq.read_schema(empty))
    assert code == 2 and "nothing was read: no record" in err           # as for an empty JSONL file

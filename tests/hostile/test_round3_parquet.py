"""Round 3, Parquet: a JSON-text history column stored dictionary-encoded is read as JSON
text (R3-32); a damaged page fails the rows of its row group, named by file and group, and
the batch goes on (R3-34); generated damage anywhere in a file never stops a batch with a
traceback or "a worker failed". Reproducers: ``repro.sh`` R3-32, R3-34 (``parquet3.py``).
Default counts are small; ``HOSTILE_SCALE=N`` multiplies the generated cases."""

from __future__ import annotations

import io
import os
import random
import sys
from pathlib import Path

import orjson
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from inspector import cli  # noqa: E402

from .harness import RUNS, TALLIES  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "batch"))
from parquetdata import rows  # noqa: E402

SCALE = max(1, int(os.environ.get("HOSTILE_SCALE", "1")))
SUITE = "round 3: parquet"
BROKEN = [{"role": "user", "content": "q"},
          {"role": "assistant", "content": None,
           "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]


def batch(*argv: str) -> tuple[int, str]:
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        code = cli.main(["batch", *argv, "-q"])
    except SystemExit as exc:
        code = exc.code
    finally:
        err = sys.stderr.getvalue()
        sys.stdout, sys.stderr = saved
    RUNS[SUITE] += 1
    return code, err


@pytest.mark.parametrize("value_type", ["string", "large_string", "binary"])
def test_a_dictionary_encoded_json_text_column_is_read(tmp_path, value_type):
    text = orjson.dumps(BROKEN)
    cells = [text if value_type == "binary" else text.decode()] * 3
    column = pa.array(cells, type=getattr(pa, value_type)()).dictionary_encode()
    pq.write_table(pa.table({"id": [1, 2, 3], "messages": column}), tmp_path / "d.parquet")
    code, err = batch(str(tmp_path / "d.parquet"), "-o", str(tmp_path / "out.parquet"),
                      "--errors", str(tmp_path / "err.jsonl"))
    assert code == 0, err
    out = pq.read_table(tmp_path / "out.parquet")
    kept = pq.read_schema(tmp_path / "d.parquet").field("messages").type     # as Parquet gives it back
    assert out.num_rows == 3 and out.schema.field("messages").type == kept
    for cell in out.column("messages").to_pylist():
        history = orjson.loads(cell)
        assert [m["role"] for m in history] == ["user", "assistant", "tool"]      # the result made up
    assert not (tmp_path / "err.jsonl").exists() or (tmp_path / "err.jsonl").read_bytes() == b""


def _with_groups(path: Path, n: int = 300, per_group: int = 50) -> None:
    pq.write_table(pa.Table.from_pylist(rows(n)), path, row_group_size=per_group)


def _damage(path: Path, start: int, size: int, rng: random.Random | None = None) -> None:
    data = bytearray(path.read_bytes())
    noise = bytes(rng.randrange(256) for _ in range(size)) if rng else b"\xff" * size
    data[start:start + size] = noise[:max(0, min(size, len(data) - start))]
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_damaged_page_fails_its_row_group_only(tmp_path, workers):
    path = tmp_path / "g.parquet"
    _with_groups(path)
    meta = pq.read_metadata(path)
    group = meta.row_group(2)
    chunk = max((group.column(j) for j in range(group.num_columns)
                 if group.column(j).path_in_schema.startswith("messages")), key=lambda c: c.total_compressed_size)
    _damage(path, chunk.data_page_offset + 40, min(200, chunk.total_compressed_size - 60))
    code, err = batch(str(path), "-o", str(tmp_path / "out.parquet"), "--errors", str(tmp_path / "err.jsonl"),
                      "--workers", str(workers))
    assert "Traceback" not in err and "worker failed" not in err, err
    errors = [orjson.loads(line) for line in (tmp_path / "err.jsonl").read_bytes().splitlines()]
    assert {e["row"] for e in errors} == set(range(100, 150))
    assert all("row group 2" in e["reason"] and "g.parquet" in e["reason"] for e in errors)
    assert pq.read_table(tmp_path / "out.parquet").num_rows == 250


def test_generated_damage_never_stops_a_batch(tmp_path):
    """Random bytes over random spans of a file of several row groups: every run ends with an
    exit status of 0, 1 or 2, no traceback, and no "a worker failed"."""
    rng = random.Random(3200)
    clean = tmp_path / "clean.parquet"
    _with_groups(clean, 120, 20)
    size = clean.stat().st_size
    for case in range(12 * SCALE):
        path = tmp_path / f"c{case}.parquet"
        path.write_bytes(clean.read_bytes())
        _damage(path, rng.randrange(4, size - 8), rng.choice([1, 8, 64, 300]), rng)
        out = tmp_path / f"c{case}.out.parquet"
        code, err = batch(str(path), "-o", str(out), "--errors", str(tmp_path / f"c{case}.err.jsonl"))
        assert code in (0, 1, 2), (case, code, err)
        assert "Traceback" not in err and "worker failed" not in err, (case, err)
        if code == 2 and not out.exists():
            assert len(err.strip().splitlines()) >= 1
        TALLIES["parquet damage: runs that failed some rows"] += int((tmp_path / f"c{case}.err.jsonl").exists())


def test_with_q_the_last_line_names_the_damaged_row_group(tmp_path):
    """``repro.sh`` R3-34 with ``-q``: one row group, damaged past reading. The last line on
    standard error names the file and the row group, as the report without ``-q`` does (it
    said only "none of the 300 records ... could be processed")."""
    path = tmp_path / "g.parquet"
    pq.write_table(pa.Table.from_pylist(rows(300)), path)
    data = path.read_bytes()
    path.write_bytes(data[:2000] + b"\xff" * 500 + data[2500:])
    code, err = batch(str(path), "-o", str(tmp_path / "out.parquet"))
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert "nothing was read" in last and "row group 0" in last and str(path) in last, err


def test_with_q_a_damaged_row_group_of_a_batch_that_goes_on_is_named(tmp_path):
    """One damaged row group of six: the batch writes the other rows and exits 0, and even with
    ``-q`` one line names the group that was not read (as an unreadable file is named)."""
    path = tmp_path / "g.parquet"
    _with_groups(path)
    group = pq.read_metadata(path).row_group(2)
    chunk = max((group.column(j) for j in range(group.num_columns)
                 if group.column(j).path_in_schema.startswith("messages")), key=lambda c: c.total_compressed_size)
    _damage(path, chunk.data_page_offset + 40, min(200, chunk.total_compressed_size - 60))
    code, err = batch(str(path), "-o", str(tmp_path / "out.parquet"))
    assert code == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "row group 2" in lines[0] and str(path) in lines[0], err
    assert "rows 100 to 149" in lines[0], err

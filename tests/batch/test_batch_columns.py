"""A JSONL record that holds its history under ``--column`` is repaired in place: the field
becomes what ``inspector normalize --compact`` prints for the history alone (JSON text
stays JSON text), every other field is kept, in its place."""

from __future__ import annotations

import orjson
import pytest

from inspector.batch.cells import Columns, repair_line
from inspector.io import InputError

from batchdata import one_record
from parquetdata import rows


@pytest.mark.parametrize("as_text", [False, True], ids=["value", "json-string"])
def test_the_history_field_is_what_normalize_prints_and_the_rest_is_kept(as_text):
    for row in rows(60, seed=5):
        history = row["messages"]
        record = {"id": row["id"], "trajectory": orjson.dumps(history).decode() if as_text else history,
                  "tools": [{"type": "function", "function": {"name": "search"}}], "score": row["score"]}
        line, outcome, where = repair_line(orjson.dumps(record), Columns("trajectory", "id"))
        expected, _ = one_record(orjson.dumps(history))
        out = orjson.loads(line)
        assert list(out) == list(record) and where == {"id": row["id"]}
        assert {k: v for k, v in out.items() if k != "trajectory"} == \
            {k: v for k, v in record.items() if k != "trajectory"}
        if as_text:
            assert out["trajectory"] == expected.rstrip(b"\n").decode()
        else:
            assert orjson.dumps(out["trajectory"]) == expected.rstrip(b"\n")
        assert outcome.changed == (orjson.loads(expected) != history)


def test_a_record_without_the_field_says_so():
    with pytest.raises(InputError, match="no 'trajectory' field"):
        repair_line(b'{"messages": []}', Columns("trajectory"))
    with pytest.raises(InputError, match="expected an object with a 'trajectory' field"):
        repair_line(b'[{"role": "user", "content": "x"}]', Columns("trajectory"))
    with pytest.raises(InputError, match="the 'trajectory' value is null"):
        repair_line(b'{"trajectory": null}', Columns("trajectory"))


def test_without_pyarrow_a_parquet_file_gets_a_clear_error(monkeypatch):
    import sys

    from inspector.batch.parquet import arrow

    monkeypatch.setitem(sys.modules, "pyarrow", None)       # as if the extra were not installed
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(InputError, match=r"pip install 'inspector\[parquet\]'"):
        arrow()

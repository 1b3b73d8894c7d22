"""``inspector batch --reasoning strip`` reaches every record, also those read with
``--column`` (JSONL records and Parquet rows): each loses its thinking blocks, with one
event per block in the change log, as ``normalize --reasoning strip`` does for the history alone."""

from __future__ import annotations

import orjson
import pytest

from inspector import cli
from inspector.batch.cells import repair_line

ANTHROPIC = {"model": "claude-sonnet-4-5", "messages": [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "call it", "signature": "SIG1"},
                                      {"type": "tool_use", "id": "t1", "name": "w", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sun"}]},
    {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "ENC"}, {"type": "text", "text": "ok"}]}]}


@pytest.mark.parametrize("as_text", [False, True], ids=["value", "json-string"])
def test_a_column_record_is_stripped_when_asked_and_kept_otherwise(as_text):
    history = orjson.dumps(ANTHROPIC).decode() if as_text else ANTHROPIC
    record = orjson.dumps({"id": "r1", "trajectory": history})
    kept, outcome, _ = repair_line(record, "trajectory", "id")
    assert orjson.loads(kept)["trajectory"] == history and not outcome.changed
    line, outcome, _ = repair_line(record, "trajectory", "id", reasoning="strip")
    written = orjson.loads(line)["trajectory"]
    text = written if as_text else orjson.dumps(written).decode()
    assert "SIG1" not in text and "redacted_thinking" not in text
    assert [e.kind for e in outcome.export_events].count("reasoning-stripped") == 2


def test_batch_column_and_parquet_pass_the_policy(tmp_path):
    (tmp_path / "in.jsonl").write_bytes(orjson.dumps({"id": "a", "messages": ANTHROPIC}) + b"\n")
    code = cli.main(["batch", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "-q",
                     "--column", "messages", "--reasoning", "strip",
                     "--changes", str(tmp_path / "changes.jsonl")])
    assert code == 0
    out = orjson.loads((tmp_path / "out.jsonl").read_bytes())
    assert "SIG1" not in orjson.dumps(out).decode()
    (entry,) = [orjson.loads(x) for x in (tmp_path / "changes.jsonl").read_bytes().splitlines()]
    kinds = {k["kind"]: k["events"] for k in entry["kinds"]}
    assert kinds.get("reasoning-stripped") == 2
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"messages": [orjson.dumps(ANTHROPIC).decode()]}), tmp_path / "in.parquet")
    code = cli.main(["batch", str(tmp_path / "in.parquet"), "-o", str(tmp_path / "out.parquet"), "-q",
                     "--reasoning", "strip"])
    assert code == 0
    (cell,) = pq.read_table(tmp_path / "out.parquet").column("messages").to_pylist()
    assert "SIG1" not in cell and "redacted_thinking" not in cell

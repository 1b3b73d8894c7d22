"""Every line ``inspector batch`` writes is what ``inspector normalize --compact`` prints for
that record, whatever its provider format, with and without ``--to`` and ``--strict``."""

from __future__ import annotations

import orjson
import pytest

from inspector import cli
from inspector.bundled import samples_dir
from inspector.formats import FORMATS, REGISTRY

from batchdata import cli_output, one_record, write_jsonl

# Batch records are one JSON document a line: formats whose files are JSON Lines or SQLite
# (agent sessions) are neither read nor written as records.
# Records of a JSON Lines batch: every format whose document is not a whole file of its own, but
# a Cline task's history, which is told by its file name (a record has none).
RECORD_FORMATS = [name for name in FORMATS if not REGISTRY[name].whole_file and name != "cline"]
OPTIONS = [(), ("--strict",)] + [("--to", name) for name in RECORD_FORMATS] + [("--to", "anthropic", "--strict")]


def mixed_records() -> list[tuple[bytes, str]]:
    """Each bundled sample on one line, with the format the samples' index names for it."""
    index = orjson.loads((samples_dir() / "index.json").read_bytes())
    records = [(orjson.dumps(orjson.loads((samples_dir() / entry["file"]).read_bytes())), entry["format"])
               for entry in index if entry["format"] in RECORD_FORMATS]
    assert set(fmt for _, fmt in records) == set(RECORD_FORMATS)  # all six formats, mixed in one file
    return records


def expected_lines(records, options) -> list[bytes]:
    """What ``normalize --compact --from FORMAT`` prints for each record (failed ones: nothing)."""
    to = options[options.index("--to") + 1] if "--to" in options else "same"
    outs = [one_record(line, fmt, to, "--strict" in options)[0] for line, fmt in records]
    return [out for out in outs if out is not None]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: " ".join(o) or "plain")
def test_mixed_formats_equal_normalize_from_format(tmp_path, options):
    records = mixed_records()
    data = write_jsonl(tmp_path / "in.jsonl", [line for line, _ in records])
    expected = expected_lines(records, options)
    assert len(expected) >= len(records) - 1
    out = tmp_path / "out.jsonl"
    workers = "2" if options in ((), ("--strict",)) else "1"
    code, _ = cli_output(["batch", str(data), "-o", str(out), "--workers", workers, "-q", *options])
    assert code == 0
    assert out.read_bytes().splitlines(keepends=True) == expected


def test_provider_record_is_not_written_flat(tmp_path):
    # The defect this guards against: a request body came back as a flat message list.
    line, fmt = next(r for r in mixed_records() if r[1] == "anthropic")
    data = write_jsonl(tmp_path / "in.jsonl", [line])
    assert cli.main(["batch", str(data), "-o", str(tmp_path / "o.jsonl"), "-q", "--workers", "1"]) == 0
    written = orjson.loads((tmp_path / "o.jsonl").read_bytes())
    assert isinstance(written, dict) and "messages" in written

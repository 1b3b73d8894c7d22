"""The format registry: every format is one module and one line in it, and everything that
lists formats (detection, the pipeline, the CLI) reads it. A toy seventh format, registered
here with one line, goes through detection, import, the engine, export and the CLI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
import pytest

from inspector import cli
from inspector.engine import INTERRUPTED, Result
from inspector.formats import REGISTRY, Format, Imported, Loc, evidence, import_history
from inspector.formats.base import Decisions
from inspector.pipeline import run, run_file

from .fixtures import CLEAN, clone

# -- a toy session format: one JSON object per line, {"who", "text", "call" | "answers"} ----
ROLES = {"me": "user", "bot": "assistant", "out": "tool"}


def _sniff(data: bytes, name: str) -> bool:
    return data.lstrip().startswith(b'{"who"')


def _parse(data: bytes, name: str) -> Any:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def _dump(rows: Any, compact: bool) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in rows)


def _evidence(document: Any) -> list[str]:
    if isinstance(document, list) and document and all(isinstance(r, Mapping) and "who" in r for r in document):
        return ['rows with "who"']
    return []


def _import(document: Any, name: str) -> Imported:
    im = Imported("toy", [], document, history=document)
    for i, row in enumerate(document):
        flat: dict[str, Any] = {"role": ROLES.get(row["who"], row["who"]), "content": row.get("text", "")}
        calls = []
        if "call" in row:
            flat["tool_calls"] = [{"tool_call_id": row["call"], "name": "f"}]
            calls = [Loc(i, "call", (0,))]
        if "answers" in row:
            flat["tool_call_id"] = row["answers"]
        im.add(flat, Loc(i), calls)
    return im


def _export_same(im: Imported, result: Result, notes: Any) -> Any:
    d = Decisions.of(result)
    out = []
    for msg, o in d.rows:
        if o is None:
            out.append({"who": "out", "text": msg["content"], "answers": msg["tool_call_id"]})
            continue
        row = im.history[o]
        if d.dropped_calls.get(o):
            row = {k: v for k, v in row.items() if k != "call"}
        out.append(row)
    return out


TOY = Format("toy", "Toy session rows", "A session file with one row per line", _evidence, _import,
             _export_same, lambda im, result, notes: result.messages, sniff=_sniff, parse=_parse, dump=_dump)

SESSION = [{"who": "me", "text": "weather?"}, {"who": "bot", "text": "", "call": "c1"},
           {"who": "me", "text": "and tomorrow?"}]


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(REGISTRY, "toy", TOY)      # the one line a seventh format adds
    return TOY


def test_a_seventh_format_is_detected_repaired_and_written_in_its_own_shape(toy, tmp_path, capsys):
    path = tmp_path / "session.jsonl"
    path.write_bytes(_dump(SESSION, True))
    outcome = run_file(path)
    assert outcome.format == "toy" and outcome.changed
    assert outcome.exported[2] == {"who": "out", "text": INTERRUPTED, "answers": "c1"}
    assert outcome.data.count(b"\n") == 4                    # written by the format's own dump
    assert cli.main(["normalize", "-q", str(path)]) == 0
    assert capsys.readouterr().out.encode() == outcome.data
    assert cli.main(["check", "--from", "toy", str(path)]) == 1


def test_the_seventh_format_is_named_in_detection_errors(toy):
    both = [{"who": "me", "text": "hi", "tool_calls": [{"tool_call_id": "a", "name": "f"}]}]
    assert set(evidence(both)) == {"flat", "toy"}
    with pytest.raises(Exception) as err:
        import_history(both, "x.json")
    assert "toy" in str(err.value) and "flat" in str(err.value)


def test_every_registered_format_describes_itself():
    for name, fmt in REGISTRY.items():
        assert fmt.name == name and fmt.label and fmt.summary and "\n" not in fmt.summary
        assert fmt.evidence(clone(CLEAN[name])), name
        if isinstance(CLEAN[name], (dict, list)):      # session files are not one JSON document
            data = orjson.dumps(CLEAN[name])
            # A JSON format may claim its bytes only to keep them (Gemini CLI records): it
            # reads them as the very document JSON does.
            assert not fmt.sniff(data, "x.json") or fmt.parse(data, "x.json") == CLEAN[name], name


def test_evidence_belongs_to_one_format_for_each_clean_document():
    for name in REGISTRY:
        assert list(evidence(clone(CLEAN[name]))) == [name]


@pytest.mark.parametrize("fmt, block, words", [
    ("anthropic", {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {"q": 1}}, 'tool_use toolu_1 get {"q":1}'),
    ("bedrock", {"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}}, 'toolResult t1 [{"text":"ok"}]'),
    ("gemini", {"functionCall": {"name": "get", "args": {}}}, "functionCall get {}"),
    ("openai-responses", {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}, "function_call c1 f {}"),
    ("openai-chat", {"type": "text", "text": "hi"}, "text hi"),
    ("flat", ["not", "a", "block"], "an array"),
])
def test_each_format_names_its_blocks(fmt, block, words):
    assert REGISTRY[fmt].describe_block(block) == words

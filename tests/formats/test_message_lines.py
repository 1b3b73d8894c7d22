"""One chat message per line (a common log export) is one flat history: detected, read with
each row pointing at its line, repaired back as lines (every unchanged line its own bytes),
and no longer sent to ``batch``, which reads one history per line (issue 35, item 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector import cli
from inspector.pipeline import load, run

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
CLEAN = (b'{"role": "system", "content": "Be brief."}\n'
         b'{"role":"user","content":"Weather in Lyon?"}\n'
         b'{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function",'
         b'"function":{"name":"weather","arguments":"{\\"city\\":\\"Lyon\\"}"}}]}\n'
         b'{"role":"tool","tool_call_id":"c1","content":"sunny"}\n'
         b'{"role":"assistant","content":"Sunny in Lyon."}\n')
BROKEN = (b'{"role":"user","content":"go"}\n'
          b'{"role":"tool","tool_call_id":"x","content":"early"}\n'
          b'{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function",'
          b'"function":{"name":"f","arguments":"{}"}}]}\n'
          b'{"role": "system",  "content": "late"}\n'
          b'{"role":"user","content":"more"}\n')


def test_message_lines_are_read_as_one_flat_history_pointing_at_their_lines():
    im = load(CLEAN, "log.jsonl")
    assert im.format == "flat" and len(im.messages) == 5
    assert [im.where(i) for i in (0, 4)] == ["line 1", "line 5"]


def test_a_clean_file_comes_back_byte_identical(tmp_path, capsys):
    path = tmp_path / "log.jsonl"
    path.write_bytes(CLEAN)
    assert cli.main(["check", str(path)]) == 0
    out = run(CLEAN, "log.jsonl")
    assert not out.changed and out.data == CLEAN


def test_a_broken_file_is_repaired_as_lines_keeping_each_unchanged_lines_bytes():
    out = run(BROKEN, "log.jsonl")
    assert out.changed and out.result.dropped == 1 and out.result.synthesized == 1
    lines = out.data.split(b"\n")
    assert lines[0] == b'{"role": "system",  "content": "late"}'          # hoisted, its bytes kept
    assert b'{"role":"user","content":"more"}' in lines and b'"early"' not in out.data
    assert [json.loads(line)["role"] for line in lines if line] == ["system", "user", "assistant", "tool", "user"]
    again = run(out.data, "log.jsonl")
    assert not again.changed and again.data == out.data                     # a fixed point


def test_a_cut_last_line_is_kept_and_ended():
    out = run(CLEAN + b'{"role":"user","cont', "log.jsonl")
    assert [e.kind for e in out.imported.events] == ["entry-skipped"]
    assert out.data == CLEAN + b'{"role":"user","cont\n'
    assert [e.kind for e in out.export_events] == ["line-ended"]


@pytest.mark.parametrize("sample, fmt", [("21-claude-code-session.jsonl", "claude-code"),
                                         ("22-codex-rollout.jsonl", "codex-rollout"),
                                         ("30-gemini-cli-session.jsonl", "gemini-cli-log")])
def test_agent_sessions_stay_their_own_formats(sample, fmt):
    assert load((SAMPLES / sample).read_bytes(), sample).format == fmt


def test_normalize_reads_it_instead_of_pointing_at_batch(tmp_path, capsys):
    path = tmp_path / "log.jsonl"
    path.write_bytes(BROKEN)
    code = cli.main(["normalize", str(path), "-o", str(tmp_path / "fixed.jsonl"), "-q"])
    assert code == 0, capsys.readouterr().err
    assert "inspector batch" not in capsys.readouterr().err


def test_batch_on_such_a_file_says_what_reads_it(tmp_path, capsys):
    path = tmp_path / "log.jsonl"
    path.write_bytes(CLEAN)
    errors = tmp_path / "errors.jsonl"
    cli.main(["batch", str(path), "-o", str(tmp_path / "out.jsonl"), "--errors", str(errors), "-q"])
    capsys.readouterr()
    said = [json.loads(line) for line in errors.read_text().splitlines()]
    assert len(said) == 5 and all("'inspector normalize FILE' read" in json.dumps(e) for e in said), said[0]


def test_a_line_in_the_middle_that_is_not_json_is_an_error_at_its_line_and_column(tmp_path, capsys):
    """check said "ok, nothing to change" and explain and the TUI showed the other messages,
    the line's message lost without a word (only --json's repair counts named it): no agent
    reads this file and skips the line, so it is bad input, as a broken JSON document is."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"role":"user","content":"a"}\n{"role":"assistant","content":"b"\n{"role":"user","content":"c"}\n')
    assert cli.main(["check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"{path}:2:34: line 2 is not JSON")
    assert cli.main(["normalize", str(path), "-o", str(tmp_path / "out.jsonl")]) == 2
    assert not (tmp_path / "out.jsonl").exists()

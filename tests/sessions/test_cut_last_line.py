"""A session whose last line was cut short (the agent died mid-write, the file has no final
line break): the repaired copy ends every line, so the agent's next append starts a line of
its own instead of joining the cut one (and being lost on the following resume); the ending
is an export event; ``explain`` names the skipped line without a ``#None``; and the doctor
does not call such a session ok (issue 35, item 5)."""

from __future__ import annotations

from pathlib import Path

from inspector import cli
from inspector.doctor import scan
from inspector.pipeline import load, run

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _cut(sample: str, keep: int, tail: int = 60) -> bytes:
    """The first ``keep`` lines of a sample, then ``tail`` bytes of the next, unended."""
    lines = (SAMPLES / sample).read_bytes().split(b"\n")
    return b"\n".join(lines[:keep]) + b"\n" + lines[keep][:tail]


def test_a_codex_rollout_cut_in_its_tenth_line_comes_back_with_every_line_ended():
    data = _cut("22-codex-rollout.jsonl", 9)
    outcome = run(data, "rollout.jsonl")
    written = outcome.data
    assert written.endswith(b"\n")
    [ended] = [e for e in outcome.export_events if e.kind == "line-ended"]
    assert "Line 10" in ended.message
    # The agent appends its next record: it must read back as a line of its own.
    appended = load(written + b'{"timestamp":"2025-10-12T09:20:00.000Z","type":"event_msg","payload":'
                              b'{"type":"user_message","message":"next"}}\n', "rollout.jsonl")
    assert len(appended.document.bad) == 1            # only the cut line, kept as it was
    assert appended.document.entries[-1]["payload"]["message"] == "next"


def test_the_ended_copy_is_a_fixed_point():
    once = run(_cut("22-codex-rollout.jsonl", 9), "rollout.jsonl").data
    again = run(once, "rollout.jsonl")
    assert not [e for e in again.export_events if e.kind == "line-ended"]
    assert again.data == once


def test_a_session_that_ends_with_a_line_break_gets_no_such_event():
    outcome = run((SAMPLES / "22-codex-rollout.jsonl").read_bytes(), "rollout.jsonl")
    assert not [e for e in outcome.export_events if e.kind == "line-ended"]


def test_explain_names_the_cut_line_without_a_none_row(tmp_path, capsys):
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(_cut("22-codex-rollout.jsonl", 9))
    assert cli.main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert "#None" not in out
    assert "entry-skipped Line 10 is not JSON" in out and "line-ended" in out


def test_the_doctor_does_not_call_a_clean_claude_code_session_with_a_cut_last_line_ok(tmp_path):
    data = _cut("21-claude-code-session.jsonl", 3)
    whole = b"\n".join((SAMPLES / "21-claude-code-session.jsonl").read_bytes().split(b"\n")[:3]) + b"\n"
    assert not run(whole, "s.jsonl").changed              # the same session, uncut, is clean
    folder = tmp_path / ".claude" / "projects" / "-home-dana-shop"
    folder.mkdir(parents=True)
    (folder / "0f9c1d2e-cut.jsonl").write_bytes(data)
    [row] = scan([str(tmp_path)], env={"HOME": str(tmp_path)}).rows
    assert row.verdict.status != "ok", row.verdict
    assert row.verdict.repair.get("line-ended") == 1 and "line-ended" in row.verdict.sentence

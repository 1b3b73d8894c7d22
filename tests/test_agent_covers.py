"""Where the agent repairs it itself, Inspector writes nothing by default (issue 29).

One rule: a session whose verdict is "resumes because the agent repairs it itself", and where
every change MEM-5 would make is to a case the agent's own repairs cover, needs nothing from
Inspector: ``check`` exits 0 with the verdict's note, and ``normalize`` writes nothing beside
it and says so (``--even-if-agent-repairs`` writes the repair anyway). Where MEM-5 changes
anything the agent does not repair itself, ``check`` exits 1 and ``normalize`` writes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sessions import codex_builder

from inspector.cli import main
from inspector.pipeline import run_file
from inspector.verdict import resume_verdict

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_codex_answers_the_crashed_call_itself_so_nothing_is_written(tmp_path, capsys):
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(codex_builder.crash_missing_output())
    verdict = resume_verdict(run_file(path))
    assert verdict.status == "agent-repairs" and verdict.agent_covers and verdict.not_covered == ()
    assert main(["check", str(path)]) == 0
    assert "repairs it itself" in capsys.readouterr().out
    assert main(["normalize", str(path)]) == 0
    err = capsys.readouterr().err
    assert "nothing written" in err and "--even-if-agent-repairs" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rollout.jsonl"]
    assert main(["normalize", str(path), "--even-if-agent-repairs"]) == 0
    assert (tmp_path / "rollout.repaired.jsonl").exists()


def test_a_change_the_agent_does_not_make_keeps_exit_1_and_is_written(tmp_path, capsys):
    """OpenCode answers its running call itself, but the call stored twice under one id in one
    step is refused by Anthropic (tool-use-id-duplicate) and is Inspector's repair alone: the old
    behaviour stands."""
    db = tmp_path / "opencode.db"
    shutil.copyfile(SAMPLES / "26-opencode-session.db", db)
    verdict = resume_verdict(run_file(db))
    assert verdict.status == "fails" and not verdict.agent_covers
    assert "tool-use-id-duplicate" in {r.rule for r in verdict.refusals}
    assert "call-redeclared" in verdict.not_covered
    assert main(["check", str(db)]) == 1
    assert main(["normalize", str(db)]) == 0
    capsys.readouterr()
    assert (tmp_path / "opencode.repaired.db").exists()


def test_a_failing_session_is_never_covered(tmp_path):
    verdict = resume_verdict(run_file(SAMPLES / "21-claude-code-session.jsonl"))
    assert verdict.status == "fails" and not verdict.agent_covers

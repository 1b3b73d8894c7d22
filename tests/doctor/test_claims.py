"""One statement of what each agent repairs itself: the formats declare it, and ``check``,
``doctor`` and the README say the same from it."""

from __future__ import annotations

import re
from pathlib import Path

from inspector import formats
from inspector.doctor import AGENTS, claims_table, scan
from inspector.pipeline import run
from inspector.verdict import resume_verdict

from . import fakehome


def _leading_orphan(version: str) -> bytes:
    """A chain that starts at a tool result whose call is gone (Claude Code 2.1.69's case)."""
    s = fakehome.Session(version=version)
    s.result("toolu_01Gone", "made build", parent=None)
    s.user("Let's run the tests instead.")
    s.assistant("msg_01P1lo1", fakehome.text("Running them."))
    return s.data()


def test_the_doctor_reads_each_agents_claims_from_its_format():
    for agent in AGENTS.values():
        assert agent.repairs == formats.self_repairs(agent.format)
    assert {r.rule for r in AGENTS["claude-code"].repairs} >= {"tool-use-without-result", "result-without-tool-use",
                                                               "lone-surrogate", "signature-other-model"}
    assert [r.rule for r in AGENTS["codex"].repairs] == ["call-without-output", "output-without-call"]


def test_check_and_doctor_say_the_same_of_an_orphan_result_opening_the_conversation(tmp_path):
    data = _leading_orphan("2.1.90")
    outcome = run(data, "s.jsonl")
    said = resume_verdict(outcome).sentence()
    assert "fails on resume" not in said
    assert "Claude Code 2.1.90 (which wrote it) leaves out the orphaned tool result a conversation starts with" in said
    (tmp_path / "s.jsonl").write_bytes(data)
    [row] = scan([str(tmp_path)], env={"HOME": str(tmp_path)}).rows
    assert row.verdict.status == "agent-repairs"
    assert "leaves out the orphaned tool result a conversation starts with" in row.verdict.sentence


def test_check_names_the_older_version_that_did_not_repair_it():
    outcome = run(_leading_orphan("2.0.14"), "s.jsonl")
    said = resume_verdict(outcome).sentence()
    assert "Claude Code 2.0.14 (which wrote it) sends it, and the provider refuses it" in said
    assert "since 2.1.69 it leaves out the orphaned tool result" in said


def test_the_readme_table_lists_every_claim():
    readme = Path(__file__).resolve().parents[2] / "docs" / "doctor.md"   # moved from the README (issue 35)
    text = readme.read_text("utf-8")
    rows = re.findall(r"^\| ([^|]+) \| `?([^|`]+)`? \| ([^|]+) \| ([^|]+) \|", text, flags=re.M)
    listed = {(a.strip(), rule.strip(), since.strip(), does.strip()) for a, rule, since, does in rows}
    for claim in claims_table():
        assert (claim["agent"], claim["rule"], claim["since"], claim["does"]) in listed, claim

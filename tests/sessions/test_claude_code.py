"""Claude Code sessions: broken in each way the issue lists, repaired, then resumed by the
simulator (which walks the chain as Claude Code does and builds the Anthropic request)."""

from __future__ import annotations

import orjson
import pytest

from inspector.cli import main
from inspector.formats import claude_code, import_history
from inspector.pipeline import parse as parse_bytes, run

from . import scenarios, simulate

CASES = sorted(scenarios.BROKEN.items())


@pytest.mark.parametrize("name, make", CASES, ids=[c[0] for c in CASES])
def test_broken_session_fails_before_and_resumes_after(name, make):
    data = make()
    assert simulate.problems(data), "the scenario must really break a resume"
    out = run(data, f"{name}.jsonl")
    assert out.imported.format == "claude-code"
    repaired = out.data
    assert simulate.problems(repaired) == []
    assert simulate.dangling(repaired) == []
    assert simulate.duplicate_uuids(repaired) == []
    # Repairing the repaired session changes nothing more.
    again = run(repaired, name)
    assert not again.result.events and not again.imported.events and again.data == repaired


@pytest.mark.parametrize("name, make", CASES, ids=[c[0] for c in CASES])
def test_only_lines_an_event_touches_change(name, make):
    data = make()
    out = run(data, name)
    before = data.split(b"\n")[:-1]
    after = out.data.split(b"\n")[:-1]
    notes = simulate.export_notes(out)
    touched = {int(n[1].split()[1].rstrip(":")) for n in notes if n[1].startswith("Line ")}
    added = sum(1 for n in notes if n[0] == "entry-added")
    removed = {int(n[1].split()[1]) for n in notes if n[0] == "entry-removed"}
    kept = [line for k, line in enumerate(before, 1) if k not in touched]
    # Every untouched line is in the output byte for byte, in the same order.
    it = iter(after)
    assert all(any(line == other for other in it) for line in kept)
    assert len(after) == len(before) - len(removed) + added
    assert len(touched) >= 1


def test_clean_session_comes_back_byte_identical():
    data = scenarios.split_and_clean()
    out = run(data, "clean.jsonl")
    assert not out.changed and out.data == data
    assert not out.result.events
    # The split assistant lines are one turn; text and call in one flat message.
    turns = [m for m in out.imported.messages if m["role"] == "assistant"]
    assert [len(m.get("tool_calls", [])) for m in turns] == [1, 1, 0]
    assert out.imported.where(1) == "lines 3, 4"


def test_provenance_names_line_and_block():
    im = run(scenarios.crash_missing_result(), "s").imported
    tools = [i for i, m in enumerate(im.messages) if m["role"] == "tool"]
    assert im.where(tools[0]) == "line 5, content[0]"
    assert im.calls[1][0].describe(None) == "line 4, content[0]"


def test_off_chain_result_is_recovered_by_an_import_event_not_synthesized():
    out = run(scenarios.result_off_chain(), "s")
    kinds = [e.kind for e in out.imported.events]
    assert kinds == ["result-recovered"]
    assert out.imported.events[0].stage == "import"
    assert out.result.synthesized == 0 and out.result.dropped == 0
    request = simulate.request(out.data)
    results = [b["tool_use_id"] for m in request["messages"] for b in m["content"] if b.get("type") == "tool_result"]
    assert set(results) >= {"toolu_01Cart", "toolu_01Tax"}


def test_compaction_sends_only_what_follows_the_boundary():
    im = run(scenarios.orphan_after_compaction(), "s").imported
    chain = im.state.chain
    assert chain.start > 0
    assert im.messages[0]["content"].startswith("This session is being continued")
    assert any("compacted at line" in n for n in im.notes)


def test_synthesized_line_is_a_fresh_user_line_chained_in():
    data = scenarios.parallel_one_lost()
    out = run(data, "s")
    entries = [orjson.loads(x) for x in out.data.splitlines()]
    new = [e for e in entries if e.get("type") == "user" and isinstance(e["message"]["content"], list)
           and e["message"]["content"][0].get("is_error") is True]
    assert len(new) == 1
    block = new[0]["message"]["content"][0]
    assert block["tool_use_id"] == "toolu_01Cart" and block["type"] == "tool_result"
    uuids = {e.get("uuid") for e in orjson.loads(b"[" + data.replace(b"\n", b",").rstrip(b",") + b"]")}
    assert new[0]["uuid"] not in uuids
    child = [e for e in entries if e.get("parentUuid") == new[0]["uuid"]]
    # It goes right after the turn, ahead of the real result of the same turn.
    assert len(child) == 1 and child[0]["message"]["content"][0]["tool_use_id"] == "toolu_01Tax"


def test_sidechain_and_non_conversation_lines_untouched():
    data = scenarios.split_and_clean()
    doc = parse_bytes(data, "s")
    im = import_history(doc, "s")
    kinds = {e.get("type") for e in doc.entries}
    assert {"summary", "file-history-snapshot"} <= kinds
    assert any("sidechains: 1" in n for n in im.notes)
    assert all("Search the repo" not in m["content"] for m in im.messages)


def test_sniff_claims_sessions_and_nothing_else():
    assert claude_code.sniff(scenarios.crash_missing_result())
    assert not claude_code.sniff(b'[{"role": "user", "content": "hi"}]')
    assert not claude_code.sniff(b'{"messages": []}\n')
    assert not claude_code.sniff(b'{"timestamp": "t", "type": "response_item", "payload": {}}\n')


def test_truncated_last_line_is_skipped_and_kept(tmp_path):
    data = scenarios.split_and_clean() + b'{"parentUuid":"x","type":"assist'
    out = run(data, "s")
    assert [e.kind for e in out.imported.events] == ["entry-skipped"]
    # Kept byte for byte, and ended (issue 35 item 5): the agent's next line must not join it.
    assert out.data == data + b"\n" and [e.kind for e in out.export_events] == ["line-ended"]


def test_cli_writes_beside_never_over_and_in_place_keeps_a_backup(tmp_path, capsys):
    path = tmp_path / "abc.jsonl"
    data = scenarios.crash_missing_result()
    path.write_bytes(data)
    assert main(["normalize", "-q", str(path)]) == 0
    assert path.read_bytes() == data
    repaired = (tmp_path / "abc.repaired.jsonl").read_bytes()
    assert simulate.problems(repaired) == []
    assert main(["normalize", "-q", str(path), "-o", str(path)]) == 2
    assert main(["normalize", "-q", "--in-place", str(path)]) == 0
    assert (tmp_path / "abc.jsonl.bak").read_bytes() == data
    assert path.read_bytes() == repaired


def test_check_folder_lists_each_session_once(tmp_path, capsys):
    (tmp_path / "p1").mkdir()
    (tmp_path / "p2" / "deep").mkdir(parents=True)
    (tmp_path / "p1" / "a.jsonl").write_bytes(scenarios.crash_missing_result())
    (tmp_path / "p2" / "deep" / "b.jsonl").write_bytes(scenarios.split_and_clean())
    (tmp_path / "p2" / "c.jsonl").write_bytes(scenarios.orphan_after_compaction())
    (tmp_path / "p2" / "other.jsonl").write_bytes(b'{"a": 1}\n')
    assert main(["check", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    by_name = {line.split(":")[0].rsplit("/", 1)[-1]: line for line in lines}
    assert ": fails: " in by_name["a.jsonl"] and "result-synthesized" in by_name["a.jsonl"]
    assert "fails on resume: anthropic refuses it (tool-use-without-result at lines 6, 7" in by_name["a.jsonl"]
    assert ": ok" in by_name["b.jsonl"]
    assert ": fails: " in by_name["c.jsonl"] and "result-orphan" in by_name["c.jsonl"]
    assert "anthropic refuses it (result-without-tool-use at line 9, content[0]" in by_name["c.jsonl"]


def test_strict_moves_a_separated_result_and_relinks_the_chain():
    data = scenarios.separated_result()
    assert simulate.problems(data)
    plain = run(data, "s")
    assert not plain.result.events        # MEM-5 matches ids as sets: a known limit
    out = run(data, "s", strict=True)
    assert out.result.moved == 1
    assert simulate.problems(out.data) == []
    assert simulate.dangling(out.data) == [] and simulate.duplicate_uuids(out.data) == []
    assert len(out.data.splitlines()) == len(data.splitlines())   # no line lost: only parents re-linked
    request = simulate.request(out.data)["messages"]
    answer = request[4]["content"]
    assert answer[0]["type"] == "tool_result" and answer[1]["text"] == "also check the linter when done"


def test_a_dropped_result_leaves_the_rest_of_its_line():
    data = scenarios.orphan_in_mixed_line()
    assert simulate.problems(data)
    out = run(data, "s")
    assert out.result.dropped == 1
    assert simulate.problems(out.data) == []
    kinds = [k for k, _ in simulate.export_notes(out)]
    assert "entry-rewritten" in kinds and "entry-removed" not in kinds
    line = [x for x in out.data.splitlines() if b"Request interrupted" in x][0]
    content = orjson.loads(line)["message"]["content"]
    assert content == [{"type": "text", "text": "[Request interrupted by user for tool use]"}]


def test_a_broken_chain_is_said_and_only_what_follows_is_read():
    out = run(scenarios.broken_parent(), "s")
    assert [e.kind for e in out.imported.events] == ["chain-broken"]
    assert out.imported.messages[0]["content"] == "Next question."
    assert out.result.synthesized == 1
    assert simulate.problems(out.data) == []


def test_compaction_from_another_file_is_not_a_broken_chain():
    out = run(scenarios.compacted_elsewhere(), "s")
    assert out.imported.events == []
    assert out.imported.messages[0]["content"].startswith("This session is being continued")
    assert not out.changed


def test_trailing_system_lines_stay_on_the_chain_whatever_the_leaf():
    data = scenarios.crash_with_trailing_system_line()
    out = run(data, "s")
    assert out.result.synthesized == 1
    assert simulate.problems(out.data) == [] and simulate.dangling(out.data) == []
    lines = [orjson.loads(x) for x in out.data.splitlines()]
    # The last line of the file is the new result, chained after the system line: a resume
    # that starts from the last line of any type walks the same chain.
    assert lines[-1]["message"]["content"][0]["is_error"] is True
    assert lines[-1]["parentUuid"] == lines[-2]["uuid"] and lines[-2]["type"] == "system"

"""Copilot CLI sessions (``~/.copilot/session-state/<id>/events.jsonl``): what the importer reads
is what Copilot CLI sends on resume (a simulator written apart, ``sessions/copilot_simulate.py``,
agrees), on Copilot CLI's real published sessions and on files written as it writes them
(``sessions/copilot_builder.py``); a broken session is refused by the simulator before and
accepted after the repair; untouched lines keep their bytes; the output is a fixed point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sessions import copilot_builder as cb
from sessions import copilot_simulate as sim

from inspector.cli import main as inspector
from inspector.doctor import scan
from inspector.formats import anthropic, import_history, on_resume, ran_on, resume_command
from inspector.pipeline import run, run_file

FIXTURES = Path(__file__).parent / "sessions" / "copilot_fixtures"
REAL = sorted(FIXTURES.glob("*.jsonl"))
SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "35-copilot-cli-events.jsonl"
BROKEN = ("interrupted", "compacted", "orphan")


def shape(messages: list) -> list[tuple]:
    """Roles and pairing of flat messages, turns merged as the API reads them."""
    out: list[tuple] = []
    for m in messages:
        role = "user" if m["role"] == "tool" else m["role"]
        calls = tuple(c["tool_call_id"] for c in m.get("tool_calls") or ())
        results = (m["tool_call_id"],) if m["role"] == "tool" else ()
        if out and out[-1][0] == role:
            out[-1] = (role, out[-1][1] + calls, out[-1][2] + results)
        else:
            out.append((role, calls, results))
    return out


def sent(data: bytes) -> list[tuple]:
    body = {"model": "claude-sonnet-4.5", "max_tokens": 1024, "messages": sim.request(data)}
    return shape(anthropic.import_(body, "<sim>").messages)


def lines_of(data: bytes) -> list[bytes]:
    return data.split(b"\n")


@pytest.mark.parametrize("path", REAL, ids=[p.stem[:8] for p in REAL])
def test_real_sessions_are_read_as_copilot_sends_them_and_come_back_whole(path):
    data = path.read_bytes()
    out = run(data, path.name)
    assert out.imported.format == "copilot-cli"
    assert shape(out.imported.messages) == sent(data) and out.imported.messages
    assert sim.problems(data) == []
    if data.endswith(b"\n"):
        assert not out.changed and out.data == data
    else:   # the only change is the missing last line break, so the next event starts a line
        assert [e.kind for e in out.export_events] == ["line-ended"] and out.data == data + b"\n"
    assert not run(out.data, path.name).changed


@pytest.mark.parametrize("name", sorted(cb.ALL))
def test_the_importer_reads_what_copilot_cli_sends(name):
    data = cb.ALL[name]().bytes()
    assert shape(run(data, name).imported.messages) == sent(data)


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_session_is_refused_before_and_resumes_after_with_every_other_line_kept(name):
    data = cb.ALL[name]().bytes()
    assert sim.problems(data)
    out = run(data, name)
    assert out.changed and sim.problems(out.data) == []
    again = run(out.data, name)
    assert not again.changed and again.data == out.data
    before, after = lines_of(data), lines_of(out.data)
    removed = {int(e.message.split()[1]) for e in out.export_events if e.kind == "entry-removed"}
    added = sum(1 for e in out.export_events if e.kind == "entry-added")
    kept = [line for k, line in enumerate(before, 1) if k not in removed]
    assert [line for line in after if line in set(kept)] == kept
    assert len(after) == len(before) - len(removed) + added


def test_an_interrupted_call_gets_a_failed_completion_written_as_copilot_writes_it():
    data = cb.interrupted().bytes()
    out = run(data, "interrupted")
    new = [json.loads(line) for line in lines_of(out.data) if line and line not in set(lines_of(data))]
    assert len(new) == 1
    event = new[0]
    assert event["type"] == "tool.execution_complete" and set(event) == {"type", "data", "id", "timestamp", "parentId"}
    assert event["data"]["toolCallId"] == "toolu_02" and event["data"]["success"] is False
    assert event["data"]["error"]["message"]
    events = [json.loads(line) for line in lines_of(out.data) if line]
    at = events.index(event)
    # After the turn's real result (toolu_03), before the next user message, chained to the event before it.
    assert events[at - 1]["id"] == event["parentId"] and events[at + 1]["type"] == "user.message"
    assert any(e["data"].get("toolCallId") == "toolu_03" and e["type"] == "tool.execution_complete"
               for e in events[:at])
    assert len({e["id"] for e in events}) == len(events)


def test_a_late_result_is_copilots_own_repair_and_strict_moves_its_line():
    data = cb.late().bytes()
    assert sim.problems(data) and sim.problems(data, fixes=True) == []
    out = run(data, "late")
    assert [e.kind for e in out.imported.events] == ["result-late-on-resume"]
    strict = run(data, "late", strict=True)
    assert sim.problems(strict.data) == [] and "entry-moved" in [e.kind for e in strict.export_events]
    assert sorted(lines_of(strict.data)) == sorted(lines_of(data))        # moved, not rewritten


def test_sub_agent_events_stay_out_of_the_main_conversation():
    data = cb.subagent().bytes()
    im = run(data, "subagent").imported
    ids = {c["tool_call_id"] for m in im.messages for c in m.get("tool_calls") or ()} | \
        {m.get("tool_call_id") for m in im.messages if m["role"] == "tool"}
    assert "toolu_05" in ids and not ids & {"call_s1", "call_s2"}
    # The sub-agent's own call call_s2 has no result, yet nothing in the main conversation breaks.
    assert sim.problems(data) == [] and not run(data, "subagent").changed
    assert any("sub-agent explore-1" in n for n in im.notes)


def test_a_compaction_sends_its_summary_and_what_follows_its_cut():
    im = run(cb.compacted().bytes(), "compacted").imported
    assert im.messages[0] == {"role": "user", "content": "The user asked about cart.py; it sums the cart."}
    assert [m["role"] for m in im.messages] == ["user", "user", "assistant"]
    assert any("stands for the 4 message(s)" in n for n in im.notes)
    # What a compaction leaves out is a reading, not a change: no event says it.
    assert [e.kind for e in im.events] == ["call-interrupted-on-resume"]


def test_what_copilot_does_itself_is_said_by_the_version_that_wrote_the_session():
    old = " ".join(on_resume(run(cb.interrupted().bytes(), "a").imported).sentences())
    new = " ".join(on_resume(run(cb.fixed().bytes(), "b").imported).sentences())
    assert "Copilot CLI 1.0.44 (which wrote it)" in old and "since 1.0.78" in old
    assert "Copilot CLI 1.0.80 (which wrote it) answers a call left without a result" in new


def test_a_session_copilot_repairs_itself_needs_nothing_written_even_after_a_compaction(tmp_path, capsys):
    log = cb.fixed()
    log.compact(4, "summary")
    log.user("and now?")
    path = cb.write(tmp_path / "events.jsonl", log)
    assert inspector(["check", str(path)]) == 0
    assert "1.0.80 (which wrote it) answers a call left without a result" in capsys.readouterr().out


def test_the_resume_command_and_the_provider_come_from_the_session(tmp_path):
    path = cb.write(tmp_path / "session-state" / cb.SESSION / "events.jsonl", cb.interrupted())
    im = run_file(path).imported
    assert resume_command(im, str(path)) == f"copilot --resume {cb.SESSION}"
    assert ran_on(im)[0] == "anthropic"
    log = cb.clean()
    log.add("session.model_change", {"newModel": "gpt-5", "previousModel": "claude-sonnet-4.5"})
    target, words = ran_on(run(log.bytes(), "x").imported)
    assert target == "openai-chat" and "claude-sonnet-4.5" in words and "gpt-5" in words


def test_reasoning_is_not_sent_and_strip_removes_it():
    data = cb.reasoning().bytes()
    out = run(data, "r")
    assert not out.changed and not out.imported.reasoning
    assert any("reasoning" in n for n in out.imported.notes)
    stripped = run(data, "r", reasoning="strip")
    assert b"reasoningOpaque" not in stripped.data and b"reasoningOpaque" in data


def test_a_line_cut_by_a_crash_is_named_and_left_out_of_the_copy_copilot_would_refuse():
    cut = b'{"type":"assistant.message","data":{"messageId":"m-9","con'
    whole = cb.clean().bytes()
    for data, line in ((whole + cut, 7), (whole.replace(b"\n", b"\n" + cut + b"\n", 1), 2)):
        out = run(data, "cut")
        said = [e.message for e in out.imported.events if e.kind == "entry-skipped"]
        assert len(said) == 1 and f"Line {line} is not JSON" in said[0]
        assert [e.kind for e in out.export_events] == ["entry-removed"] and f"Line {line} " in \
            out.export_events[0].message
        assert out.data == whole and cut not in out.data


def test_the_doctor_finds_sessions_in_the_default_home_and_under_copilot_home(tmp_path):
    home, other = tmp_path / "home", tmp_path / "elsewhere"
    cb.write(home / ".copilot/session-state" / cb.SESSION / "events.jsonl", cb.interrupted())
    cb.write(other / "session-state/0a1b2c3d-0000-4000-8000-000000000001/events.jsonl", cb.clean())
    rows = scan(env={"HOME": str(home)}, cwd=tmp_path).rows
    # written by 1.0.44, before Copilot CLI answered a lost call itself (1.0.78): it fails
    assert [(r.agent, r.status) for r in rows] == [("copilot-cli", "fails")]
    rows = scan(env={"HOME": str(home), "COPILOT_HOME": str(other)}, cwd=tmp_path).rows
    assert [(r.agent, r.status) for r in rows] == [("copilot-cli", "ok")]
    # 0.0.421 and earlier honoured $XDG_CONFIG_HOME/.copilot: read beside the default home.
    legacy = tmp_path / "config"
    cb.write(legacy / ".copilot/session-state/0a1b2c3d-0000-4000-8000-000000000002/events.jsonl", cb.orphan())
    rows = scan(env={"HOME": str(home), "XDG_CONFIG_HOME": str(legacy)}, cwd=tmp_path).rows
    assert sorted(r.path.split("/")[-2] for r in rows) == ["0a1b2c3d-0000-4000-8000-000000000002", cb.SESSION]


def test_the_sample_checks_repairs_and_normalizes_to_a_fixed_point(tmp_path, capsys):
    data = SAMPLE.read_bytes()
    assert sim.problems(data) == ["tool-use-without-result"]
    assert inspector(["check", str(SAMPLE)]) == 1
    said = capsys.readouterr().out
    assert "synthesized 1" in said and "copilot --resume b7e2c9d4-1f3a-4e8b-a6c5-2d9f0e7b3a81" in said
    out = tmp_path / "events.jsonl"
    assert inspector(["normalize", str(SAMPLE), "-o", str(out)]) == 0
    assert sim.problems(out.read_bytes()) == [] and SAMPLE.read_bytes() == data
    assert inspector(["check", str(out)]) == 0
    again = tmp_path / "again.jsonl"
    assert inspector(["normalize", str(out), "-o", str(again)]) == 0 and again.read_bytes() == out.read_bytes()


def test_another_format_converts_into_events_copilot_reads():
    body = [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "ls", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "a.txt"}]
    out = run(json.dumps(body).encode(), "flat.json", to="copilot-cli")
    assert shape(import_history(out.data, "<out>", "copilot-cli").messages) == shape(body)

"""Gemini CLI saved sessions and checkpoints: repaired so the resumed history has one
function response per function call."""

from __future__ import annotations

import orjson

from inspector.formats import gemini_cli, import_history
from inspector.pipeline import run

from . import gemini_builder


def test_crashed_session_resumes_after_repair():
    data = gemini_builder.crash_lost_response()
    assert "response-count" in gemini_builder.problems(orjson.loads(data))
    out = run(data, "session.json")
    assert out.imported.format == "gemini-cli"
    assert out.result.synthesized == 1
    repaired = orjson.loads(out.data)
    assert gemini_builder.problems(repaired) == []
    # Only the crashed call's record changed: it has a result now and says it was cancelled.
    before = orjson.loads(data)
    changed = [i for i, (a, b) in enumerate(zip(before["messages"], repaired["messages"])) if a != b]
    assert changed == [1]
    tc = repaired["messages"][1]["toolCalls"][1]
    assert tc["status"] == "cancelled"
    assert tc["result"][0]["functionResponse"]["id"] == "run_shell_command-1760260800001-c3d4"
    assert repaired["messages"][1]["toolCalls"][0] == before["messages"][1]["toolCalls"][0]
    again = run(out.data, "session.json")
    assert not again.result.events


def test_provenance_names_record_call_and_result():
    im = run(gemini_builder.crash_lost_response(), "s").imported
    assert [im.where(i) for i in range(len(im.messages))] == [
        "messages[0]", "messages[1]", "messages[1].toolCalls[0].result[0]", "messages[3]"]
    assert im.calls[1][1].describe(None) == "messages[1].toolCalls[1]"


def test_clean_session_is_unchanged_and_skips_what_resume_skips():
    data = gemini_builder.clean()
    out = run(data, "s")
    assert not out.changed
    assert [m["role"] for m in out.imported.messages] == ["user", "assistant", "tool", "assistant"]


def test_checkpoint_with_history_key():
    doc = {"history": [
        {"role": "user", "parts": [{"text": "run the tests"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "run_shell_command", "args": {}}},
                                    {"functionCall": {"id": "c2", "name": "run_shell_command", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                                         "response": {"output": "ok"}}}]},
    ]}
    assert gemini_cli.evidence(doc)
    out = run(orjson.dumps(doc), "checkpoint-fix.json")
    assert out.imported.format == "gemini-cli" and out.result.synthesized == 1
    history = orjson.loads(out.data)["history"]
    ids = [p["functionResponse"]["id"] for p in history[2]["parts"]]
    assert sorted(ids) == ["c1", "c2"]


def test_bare_content_list_stays_gemini():
    doc = [{"role": "user", "parts": [{"text": "hi"}]}]
    assert not gemini_cli.evidence(doc)
    assert import_history(doc, "x").format == "gemini"


def test_check_finds_gemini_sessions_in_a_folder_and_in_place_keeps_a_backup(tmp_path, capsys):
    from inspector.cli import main
    from inspector.sessions import PASSED_OVER

    chats = tmp_path / "tmp" / "c0ffee" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2025-10-12T09-10-8e1f5c2a.json"
    data = gemini_builder.crash_lost_response()
    path.write_bytes(data)
    (tmp_path / "tmp" / "settings.json").write_bytes(b'{"theme": "dark"}')
    assert main(["check", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "session-2025" in lines[0] and "result-synthesized" in lines[0]
    assert lines[1].endswith("settings.json: passed over, " + PASSED_OVER)      # named, never a session
    assert main(["normalize", "-q", "--in-place", str(path)]) == 0
    assert (chats / (path.name + ".bak")).read_bytes() == data
    assert gemini_builder.problems(orjson.loads(path.read_bytes())) == []


def test_a_call_recorded_twice_with_its_result_is_two_pairs_gemini_takes():
    """Issue 30: the second record reuses the id of a pair already complete, so it is a pair of its
    own (an import note), not a redeclaration; the session comes back byte for byte and Gemini
    takes it. (Before: clause 3 dropped the second call and its response.)"""
    r = gemini_builder.Record()
    r.user("List the tests.")
    r.gemini("", gemini_builder.call("run_shell_command-1", "ls tests", "test_cart.py"))
    r.gemini("Listing again.", gemini_builder.call("run_shell_command-1", "ls tests", "test_cart.py"))
    r.user("Thanks.")
    data = r.data()
    out = run(data, "s.json")
    assert out.result.events == [] and [e.kind for e in out.imported.events] == ["id-reused"]
    assert not out.changed and out.data == data
    repaired = orjson.loads(out.data)
    assert gemini_builder.problems(repaired) == []

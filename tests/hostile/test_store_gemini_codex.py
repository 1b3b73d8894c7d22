"""Round 2's Gemini CLI and Codex findings (issue 25), through the CLI as a user meets them:
a synthesized result written onto the wrong call after a drop, a current record read as
ambiguous, a newline added to a record with nothing to change, and Codex ``--strict``
across a compaction."""

from __future__ import annotations

import json
from pathlib import Path

from sessions import gemini_builder as gb

from .harness import cli_run


def _record(tmp_path: Path, r: gb.Record, name: str = "session.json") -> Path:
    path = tmp_path / name
    path.write_bytes(r.data())
    return path


def test_a_dropped_call_does_not_move_the_synthesized_result_onto_the_next_call(tmp_path):
    """R2-04: calls [a-1 (declared again), b-2 (no result), c-3 (result)]: c-3's real result
    was replaced by b-2's "interrupted" error while b-2 kept no result."""
    r = gb.Record()
    r.user("go")
    r.gemini("", gb.call("a-1", "ls", "first"))
    r.gemini("", gb.call("a-1", "ls", "again"), gb.call("b-2", "cat x", None, "executing"),
             gb.call("c-3", "grep y", "REAL GREP OUTPUT"))
    path = _record(tmp_path, r)
    code, _, err = cli_run("normalize", str(path), "-o", str(tmp_path / "out.json"), "-q")
    assert code == 0, err
    calls = {tc["id"]: tc for tc in json.loads((tmp_path / "out.json").read_bytes())["messages"][2]["toolCalls"]}
    assert calls["c-3"]["status"] == "success"
    assert calls["c-3"]["result"][0]["functionResponse"]["response"] == {"output": "REAL GREP OUTPUT"}
    assert calls["b-2"]["status"] == "cancelled"
    assert calls["b-2"]["result"][0]["functionResponse"]["id"] == "b-2"
    assert cli_run("check", str(tmp_path / "out.json"))[0] == 0


def test_a_user_record_whose_content_is_a_list_of_parts_is_a_gemini_cli_session(tmp_path):
    """R2-21: current Gemini CLI writes ``content: [{"text": ...}]``; it was "ambiguous
    format: ... bedrock (content blocks without a type key); gemini-cli ..."."""
    r = gb.Record()
    r.user("placeholder")
    r.messages[-1]["content"] = [{"text": "List the tests."}]
    r.gemini("", gb.call("run_shell_command-1", "ls tests", "test_cart.py"))
    r.gemini("There is one test file.")
    path = _record(tmp_path, r)
    code, out, err = cli_run("check", str(path))
    assert code == 0 and "ok" in out.decode(), (out, err)
    code, out, err = cli_run("explain", str(path), "--json")
    assert code == 0 and json.loads(out)["format"] == "gemini-cli", err


def test_a_record_with_nothing_to_change_comes_back_byte_identical(tmp_path):
    """Issue 25: the output gained a trailing newline the CLI never writes."""
    path = tmp_path / "session.json"
    path.write_bytes(gb.clean())
    assert not gb.clean().endswith(b"\n")
    code, _, err = cli_run("normalize", str(path), "-o", str(tmp_path / "out.json"), "-q")
    assert code == 0, err
    assert (tmp_path / "out.json").read_bytes() == path.read_bytes()


def _line(kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": "2025-10-12T09:14:01.000Z", "type": kind, "payload": payload})


def test_codex_strict_across_a_compaction_is_a_fixed_point_that_resumes(tmp_path):
    """R2-24: two calls kept by a compaction's ``replacement_history`` are answered after it;
    ``--strict`` moved the compaction line itself (everything between call and result moved,
    not the results), so the output still resumed with a call without output."""
    call = lambda cid: {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": cid}  # noqa: E731
    out = lambda cid: {"type": "function_call_output", "call_id": cid, "output": f"out {cid}"}  # noqa: E731
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go on"}]}
    lines = [_line("session_meta", {"id": "sess", "cwd": "/w"}),
             _line("response_item", user),
             _line("compacted", {"message": "summary", "replacement_history": [call("a"), call("b"), user]}),
             _line("turn_context", {"cwd": "/w"}),
             _line("response_item", user),
             _line("response_item", call("c")),
             _line("response_item", out("a")),
             _line("response_item", out("b")),
             _line("response_item", out("c"))]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    first, second = tmp_path / "s1.jsonl", tmp_path / "s2.jsonl"
    assert cli_run("normalize", str(path), "--strict", "-o", str(first), "-q")[0] == 0
    code, text, err = cli_run("check", str(first), "--strict")
    assert code == 0, (text, err)
    assert cli_run("normalize", str(first), "--strict", "-o", str(second), "-q")[0] == 0
    assert second.read_bytes() == first.read_bytes()
    for cid in "abc":
        assert first.read_text().count(f'"out {cid}"') == 1

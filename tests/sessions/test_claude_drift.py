"""Claude Code's 2026 drift (issue 21 item 2) and verdicts that know the agent (item 3),
each built from a public example of the shape:

- sub-agent transcripts ``<session>/subagents/agent-<id>.jsonl``, every line
  ``isSidechain: true`` with an ``agentId`` (kamp-us/phoenix #8404, daintreehq/daintree
  #11949; letta-ai/trajectory PR #26 reads them as conversations of their own);
- one API message's lines rejoined by ``message.id`` (issue 21, two real sessions);
- new entry types such as ``file-history-delta`` (daaain/claude-code-log #295);
- ``/fork`` pointers (CHANGELOG 2.1.118; the ``fork-pointer`` entry with ``parentSessionId``
  and ``forkSource`` as delexw/claude-code-trace PR #62 reads it);
- the leaf a resume starts from: the newest timestamp, then ``parentUuid`` back
  (anthropics/claude-code #62301, #48270);
- the parallel-call layout of 2.1.x, which Claude Code 2.1.80 and later recover themselves
  (CHANGELOG 2.1.80, "Fixed --resume dropping parallel tool results").
"""

from __future__ import annotations

import orjson

from inspector import formats
from inspector.cli import main
from inspector.pipeline import run

from . import scenarios, simulate
from .claude_builder import Session, text, tool


def _lines(data: bytes) -> list[dict]:
    return [orjson.loads(line) for line in data.splitlines()]


def _jsonl(lines: list[dict]) -> bytes:
    return b"".join(orjson.dumps(e) + b"\n" for e in lines)


def _as_subagent(data: bytes) -> bytes:
    out = []
    for e in _lines(data):
        if "isSidechain" in e:
            e = {**e, "isSidechain": True, "agentId": "a3f2c1d0"}
        out.append(e)
    return _jsonl(out)


def test_a_subagent_transcript_is_checked_as_a_session_of_its_own(tmp_path, capsys):
    broken = _as_subagent(scenarios.crash_missing_result())
    assert simulate.problems(broken), "the sub-agent's resume must really break"
    folder = tmp_path / "7d9f2c1e" / "subagents"
    folder.mkdir(parents=True)
    path = folder / "agent-a3f2c1d0.jsonl"
    path.write_bytes(broken)
    assert main(["check", str(path)]) == 1
    assert "fails on resume: anthropic refuses it (tool-use-without-result" in capsys.readouterr().out
    out = run(broken, "agent-a3f2c1d0.jsonl")
    assert out.imported.messages, "a sub-agent transcript is not empty"
    assert simulate.problems(out.data) == []
    new = [e for e in _lines(out.data) if e not in _lines(broken)]
    assert new and all(e["isSidechain"] is True for e in new)


def test_a_clean_subagent_transcript_comes_back_byte_identical():
    clean = _as_subagent(scenarios.split_and_clean())
    out = run(clean, "agent-a.jsonl")
    assert len(out.imported.messages) > 2
    assert not out.changed and out.data == clean


def _cut_turn() -> bytes:
    """A turn written as a text line and a tool_use line; the user typed a new prompt while the
    call ran, and it hung off the text line, so the tool_use line is off the chain."""
    s = Session(version="2.1.88")
    scenarios.opening(s)
    first, _ = s.assistant("msg_01Cut9", text("Running the linter."), tool("toolu_01Lint", "ruff check shop/"))
    s.user("Stop, run the tests instead.", parent=first["uuid"])
    s.assistant("msg_01Nxt1", text("Running the tests."))
    return s.data()


def test_a_line_cut_off_its_turn_is_read_with_its_message_id():
    data = _cut_turn()
    assert simulate.problems(data) == ["tool-use-without-result"]   # what Claude Code sends
    out = run(data, "cut.jsonl")
    assert any(e.kind == "sibling-recovered" for e in out.imported.events)
    assert any(c["tool_call_id"] == "toolu_01Lint" for m in out.imported.messages for c in m.get("tool_calls") or ())
    assert simulate.problems(out.data) == []
    again = run(out.data, "cut.jsonl")
    assert not again.changed and again.data == out.data


def test_unknown_entry_types_are_carried_untouched():
    s = Session()
    scenarios.opening(s)
    s.lines.insert(1, {"type": "file-history-delta", "messageId": "m-1", "delta": {"shop/cart.py": {"op": "edit"}},
                       "timestamp": "2025-10-12T09:10:00.500Z"})
    last = s.assistant("msg_01Z", text("Done."))[-1]
    # An entry of a new type may name a conversation line as its parent: it is no child of it.
    s.lines.append({"type": "file-history-delta", "parentUuid": last["uuid"], "uuid": "d-1",
                    "timestamp": "2025-10-12T09:30:00.000Z"})
    data = s.data()
    out = run(data, "delta.jsonl")
    assert out.imported.format == "claude-code"
    assert out.imported.messages[-1]["content"] == "Done."        # resumed from the live leaf
    assert [e.get("message", {}).get("content") for e in simulate.chain(data)][-1] == [text("Done.")]
    assert not out.changed and out.data == data
    call = {**last, "uuid": "x-1", "parentUuid": last["uuid"], "timestamp": "2025-10-12T09:31:00.000Z",
            "message": {**last["message"], "id": "msg_02", "content": [tool("toolu_02", "ls")]}}
    broken = data + _jsonl([call])
    out = run(broken, "delta.jsonl")
    assert any(e.kind == "result-synthesized" for e in out.result.events)   # the live leaf was read
    for k in (1, len(data.splitlines()) - 1):
        assert data.splitlines()[k] in out.data.splitlines()     # the unknown lines, byte for byte
    assert simulate.problems(out.data) == []


def test_a_fork_pointer_is_not_a_broken_chain():
    s = Session(session="f0f0f0f0-0000-4000-8000-000000000001", version="2.1.118")
    parent = "0e3b2f6a-1111-4222-8333-444455556666"
    s.last = "9a8b7c6d-aaaa-4bbb-8ccc-dddddddddddd"     # the last line of the parent session
    s.lines.append({"type": "fork-pointer", "parentSessionId": parent, "forkSource": {"sessionId": parent},
                    "sessionId": s.session, "timestamp": "2025-10-12T09:10:00.000Z"})
    s.user("Now try it with Decimal.")
    s.assistant("msg_01Fk", text("Switching to Decimal."))
    out = run(s.data(), "fork.jsonl")
    assert not any(e.kind == "chain-broken" for e in out.imported.events)
    assert any(f"forked from session {parent}" in n for n in out.imported.notes)
    assert not out.changed
    # Without the pointer, the same file is a chain that stops at a parent no line has.
    bare = run(_jsonl([e for e in _lines(s.data()) if e.get("type") != "fork-pointer"]), "bare.jsonl")
    assert any(e.kind == "chain-broken" for e in bare.imported.events)


def _stale_branch_later_in_the_file() -> bytes:
    """A live branch ending in an interrupted call, and an older branch (rewound from) written
    later in the file with older timestamps: a resume takes the newest leaf."""
    s = Session(version="2.1.150")
    scenarios.opening(s)
    fork_at = s.last
    s.user("Look at the tax code too.")
    s.assistant("msg_01Live", text("Reading tax.py."), tool("toolu_01Tax", "cat shop/tax.py"))
    stale = s.user("Old question from before the rewind.", parent=fork_at)
    stale["timestamp"] = "2025-10-12T09:10:02.500Z"      # between the opening and the live branch
    return s.data()


def test_the_newest_leaf_resumes_and_a_repair_keeps_it():
    data = _stale_branch_later_in_the_file()
    sent = [e.get("message", {}).get("content") for e in simulate.chain(data)]
    assert "Look at the tax code too." in sent and "Old question from before the rewind." not in sent
    out = run(data, "live.jsonl")
    assert out.imported.messages[-1]["tool_calls"][0]["tool_call_id"] == "toolu_01Tax"
    assert any(e.kind == "result-synthesized" for e in out.result.events)
    after = simulate.chain(out.data)
    assert "Look at the tax code too." in [e.get("message", {}).get("content") for e in after]
    assert simulate.problems(out.data) == []
    # The synthesized line never takes a timestamp newer than the line it follows.
    new = [e for e in _lines(out.data) if e not in _lines(data)]
    assert new and all(e["timestamp"] <= max(x.get("timestamp", "") for x in _lines(data)) for e in new)


def _off_chain(version: str | None) -> bytes:
    lines = _lines(scenarios.result_off_chain())
    for e in lines:
        if "version" in e:
            if version is None:
                del e["version"]
            else:
                e["version"] = version
    return _jsonl(lines)


def test_the_verdict_knows_which_claude_code_wrote_the_file(tmp_path, capsys):
    for version, says in [("2.0.14", 'Claude Code 2.0.14 (which wrote it) sends a "[Tool result missing]" '
                                     "placeholder in its place (no API error): 1 case (result-recovered); "
                                     "since 2.1.80 it puts back"),
                          ("2.1.88", "Claude Code 2.1.88 (which wrote it) puts back a result that hangs off its "
                                     "own tool_use line"),
                          (None, "Claude Code before 2.1.80 (no version recorded) sends")]:
        path = tmp_path / f"s-{version}.jsonl"
        path.write_bytes(_off_chain(version))
        main(["check", str(path)])
        line = capsys.readouterr().out
        assert says in line, line
        assert "refuse" not in line and "fails" not in line
    path = tmp_path / "crash.jsonl"
    path.write_bytes(scenarios.crash_missing_result())
    main(["check", str(path)])
    assert "fails on resume: anthropic refuses it (tool-use-without-result" in capsys.readouterr().out


def test_what_claude_code_does_itself_is_a_function_of_the_format():
    imported = run(_off_chain("2.1.79"), "s.jsonl").imported
    agent = formats.on_resume(imported)
    assert agent.agent == "Claude Code" and agent.version == "2.1.79"
    (repair, n), = agent.cases
    assert (repair.kind, repair.since, n) == ("result-recovered", "2.1.80", 1)
    assert repair.covers("2.1.79") is False and repair.covers("2.1.80") is True and repair.covers("2.10.1") is True
    assert "CHANGELOG 2.1.80" in repair.source
    assert formats.on_resume(run(b'[{"role": "user", "content": "hi"}]', "x.json").imported) is None

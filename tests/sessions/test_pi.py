"""pi v3 sessions built as pi writes them (``pi_builder``): what the importer reads is what pi
sends (``pi_simulate``, apart from it, agrees); a broken session's repair is a branch appended
after every original line, which the simulated resume sends without pi's own placeholder and
without an orphan; the output is a fixed point; what a provider signed is copied byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli import main as inspector
from inspector.formats import pi
from inspector.formats.detect import detect
from inspector.pipeline import load_file, parse, run_file

from . import pi_builder as pb
from . import pi_simulate as sim

SCENARIOS = ("clean", "crash", "aborted", "compacted", "responses", "branched")
BROKEN = ("crash", "aborted")
PLACEHOLDER = "No result provided"


def write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text(pb.scenario(name).text(), encoding="utf-8")
    return path


def flat_pairs(im) -> list[tuple[str, str]]:
    out = []
    for m in im.messages:
        if m.get("role") == "tool":
            out.append(("result", im.identity.get(m.get("tool_call_id"), m.get("tool_call_id"))))
        elif m.get("role") == "assistant":
            out += [("call", im.identity.get(c.get("tool_call_id"), c.get("tool_call_id")))
                    for c in m.get("tool_calls") or []]
    return out


def sim_pairs(text: str, own: bool = False) -> list[tuple[str, str]]:
    """The simulated resume's calls and results; ``own``: with pi's own placeholders."""
    sent = sim.sent(text)
    if not own:
        sent = [m for m in sent if not (m["role"] == "toolResult" and m["content"][0].get("text") == PLACEHOLDER)]
    return [p for p in sim.pairs(sent) if p[0] != "user"]


def problems(text: str) -> list[str]:
    """What a provider refuses in the simulated resume: a placeholder pi had to send, a result
    that answers no call of the turn before it."""
    out = []
    open_calls: set[str] = set()
    for m in sim.sent(text):
        if m["role"] == "assistant":
            open_calls = {b["id"] for b in m["content"] if b.get("type") == "toolCall"}
        elif m["role"] == "toolResult":
            if m["content"][0].get("text") == PLACEHOLDER:
                out.append(f"placeholder for {m['toolCallId']}")
            if m["toolCallId"] not in open_calls:
                out.append(f"orphan {m['toolCallId']}")
            open_calls.discard(m["toolCallId"])
    return out


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_importer_reads_what_pi_sends(name, tmp_path):
    path = write(tmp_path, name)
    im = load_file(path)
    assert im.format == "pi-session"
    assert flat_pairs(im) == sim_pairs(path.read_text())


def test_detected_by_its_header_and_entries(tmp_path):
    path = write(tmp_path, "clean")
    assert detect(parse(path.read_bytes(), str(path)), str(path)) == "pi-session"


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_session_is_repaired_as_a_branch_pi_resumes(name, tmp_path):
    path = write(tmp_path, name)
    data = path.read_bytes()
    assert problems(data.decode())             # broken as pi would send it
    out = run_file(path)
    assert out.changed and path.read_bytes() == data
    # Every original line is kept byte for byte, in place; the repair is appended after them.
    assert out.data.startswith(data)
    assert problems(out.data.decode()) == []
    # What a provider signed is copied with the very same bytes (the signature string as written).
    new = out.data[len(data):].decode().splitlines()
    for line in new:
        for sig in ("EqQBCkYIBxgCKkD1",):
            if sig in line:
                assert f'"thinkingSignature":"{sig}"' in line
    kinds = [e.kind for e in out.export_events]
    assert "entry-branched" in kinds
    # A fixed point: the repaired copy repaired again is the same bytes.
    again = tmp_path / "again.jsonl"
    again.write_bytes(out.data)
    second = run_file(again)
    assert not second.changed and second.data == out.data


def test_crash_is_answered_by_pi_itself_since_0_25(tmp_path):
    im = load_file(write(tmp_path, "crash"))
    kinds = [e.kind for e in im.events]
    assert kinds.count("call-answered-on-resume") == 1
    told = pi.FORMAT.on_resume(im).sentences()
    assert any("0.25.0" in s for s in told)


@pytest.mark.parametrize("name", ("clean", "compacted", "responses", "branched"))
def test_a_valid_session_comes_back_byte_identical(name, tmp_path):
    path = write(tmp_path, name)
    out = run_file(path)
    assert not out.changed and out.data == path.read_bytes()


def test_compaction_sends_its_summary_then_the_kept_turn(tmp_path):
    im = load_file(write(tmp_path, "compacted"))
    first = im.messages[0]
    assert first["role"] == "user" and "list and fix failing tests" in json.dumps(first["content"])
    # The first turn (before firstKeptEntryId) is not sent; the kept call and result are.
    assert flat_pairs(im) == [("call", "toolu_04"), ("result", "toolu_04")]


def test_the_abandoned_branch_is_not_sent(tmp_path):
    im = load_file(write(tmp_path, "branched"))
    assert ("call", "toolu_05") not in flat_pairs(im)


def test_the_copy_keeps_a_compaction_pointing_into_the_branch(tmp_path):
    s = pb.Session()
    s.user("start")
    kept = s.assistant([pb.call("toolu_a", "bash", {})], stop="toolUse")
    s.user("crashed before the result")          # the call is left without a result
    s.append("compaction", summary="earlier", firstKeptEntryId=kept, tokensBefore=10)
    s.user("after")
    path = tmp_path / "c.jsonl"
    path.write_text(s.text())
    out = run_file(path)
    assert out.changed and out.data.startswith(path.read_bytes())
    assert problems(out.data.decode()) == []
    # The compaction copied onto the branch still keeps the call's turn: pi sends the call and
    # the repair's result after it.
    new = [json.loads(x) for x in out.data[len(path.read_bytes()):].decode().splitlines()]
    assert any(e["type"] == "compaction" for e in new)
    assert sim_pairs(out.data.decode()) == [("call", "toolu_a"), ("result", "toolu_a")]


def test_cli_check_says_how_to_resume(tmp_path, capsys):
    path = write(tmp_path, "crash")
    assert inspector(["check", str(path)]) == 1
    said = capsys.readouterr().out
    assert "pi --session" in said and "0.25.0" in said


@pytest.mark.parametrize("fixture", ("before-compaction.jsonl", "large-session.jsonl"))
def test_pi_s_own_fixtures(fixture, tmp_path):
    """pi's published sessions (packages/coding-agent/test/fixtures/ @ 83378aad, version 1; see
    pi_fixtures/SOURCE.md): the importer pairs what pi's own walk would send."""
    from inspector.formats.codex_zst import decompress      # the one zstd reader (zstandard or compression.zstd)

    packed = Path(__file__).parent / "pi_fixtures" / (fixture + ".zst")
    path = tmp_path / fixture
    path.write_bytes(decompress(packed.read_bytes(), packed.name))
    pairs = sim_pairs(path.read_text())
    assert len(pairs) > 100                      # the fixture is the long session it claims to be
    assert flat_pairs(load_file(path)) == pairs


def test_strict_moves_a_late_result_next_to_its_call_as_its_own_text(tmp_path):
    s = pb.Session()
    s.user("go")
    s.assistant([pb.call("t1", "bash", {"command": "make"})], stop="toolUse")
    s.user("meanwhile")
    s.result("t1", "bash", "built")              # written after the user's next message
    s.assistant([{"type": "text", "text": "ok"}])
    path = tmp_path / "late.jsonl"
    path.write_text(s.text())
    out = run_file(path, strict=True)
    assert out.changed and out.data.startswith(path.read_bytes())
    kinds = [e.kind for e in out.export_events]
    assert "entry-moved" in kinds and "entry-removed" not in kinds
    new = [json.loads(x) for x in out.data[len(path.read_bytes()):].decode().splitlines()]
    assert [tree_role(e) for e in new] == ["toolResult", "user", "assistant"]
    assert new[0]["message"] == s.entries[-2]["message"]
    assert sim_pairs(out.data.decode(), own=True) == [("call", "t1"), ("result", "t1")]


def tree_role(entry):
    return entry["message"]["role"]


def test_a_dropped_call_is_cut_from_a_copy_whose_other_blocks_keep_their_text(tmp_path):
    s = pb.Session()
    s.user("go")
    s.assistant([pb.thinking("plan", "EqQBCkYIBxgCKkD9"), {"type": "text", "text": "two"},
                 pb.call("t1", "bash", {"a": 1}), pb.call("t1", "bash", {"a": 2})], stop="toolUse")
    s.result("t1", "bash", "done")
    s.assistant([{"type": "text", "text": "ok"}])
    path = tmp_path / "dup.jsonl"
    path.write_text(s.text())
    data = path.read_bytes()
    out = run_file(path)
    assert out.changed and out.data.startswith(data)
    original = data.decode().splitlines()[2]
    copy = out.data[len(data):].decode().splitlines()[0]
    # The copy is the original line's text with its id, parent and the redeclared call cut out.
    kept = original[original.index('"message":{'):original.index(',{"type":"toolCall","id":"t1","name":"bash","arguments":{"a":2}}')]
    assert kept in copy and '"arguments":{"a":2}' not in copy
    assert json.loads(copy)["message"]["content"][:3] == s.entries[2]["message"]["content"][:3]
    assert [e.kind for e in out.export_events].count("entry-rewritten") == 1
    assert not run_file_bytes(tmp_path, out.data).changed


def run_file_bytes(tmp_path, data):
    again = tmp_path / "again.jsonl"
    again.write_bytes(data)
    return run_file(again)


def test_reasoning_strip_appends_the_path_without_thinking(tmp_path):
    path = write(tmp_path, "crash")
    data = path.read_bytes()
    out = tmp_path / "out.jsonl"
    assert inspector(["normalize", str(path), "--reasoning", "strip", "-o", str(out)]) == 0
    written = out.read_bytes()
    assert written.startswith(data)
    sent = sim.sent(written.decode())
    assert not [b for m in sent if m["role"] == "assistant" for b in m["content"] if b.get("type") == "thinking"]
    assert problems(written.decode()) == []
    again = tmp_path / "again.jsonl"
    assert inspector(["normalize", str(out), "--reasoning", "strip", "-o", str(again)]) == 0
    assert again.read_bytes() == written

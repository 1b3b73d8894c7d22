"""Goose stores built from Goose's schema (``sessions.db``) and its older ``.jsonl`` layout: what
the importer reads is what Goose sends after ``fix_conversation`` (a simulator of the OpenAI
request, written apart, agrees); what Goose repairs itself is a note and leaves the file as it
is; what it does not repair is refused by the simulator before and accepted after; untouched
rows and lines keep their bytes; the original is never written."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from inspector.cli import main as inspector
from inspector.formats import goose, import_history, on_resume, openai_chat
from inspector.formats.detect import detect
from inspector.pipeline import export, load, parse, repair, run_file

from . import goose_builder as gb
from . import goose_simulate as sim


def digest(*paths: Path) -> list[str | None]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None for p in paths]


def rows(path: Path) -> set[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return set(conn.execute("SELECT message_id, session_id, role, content_json, created_timestamp, timestamp, "
                                "tokens, metadata_json FROM messages"))
    finally:
        conn.close()


def stores(tmp_path: Path, name: str) -> tuple[Path, Path]:
    return gb.one(tmp_path / "sessions.db", name), gb.write_jsonl(tmp_path / f"{name}.jsonl", gb.ALL[name]())


def shape(messages: list) -> list[tuple]:
    """Roles and pairing of flat messages (what both request spellings share)."""
    return [(m["role"], tuple(c["tool_call_id"] for c in m.get("tool_calls") or ()), m.get("tool_call_id"))
            for m in messages]


@pytest.mark.parametrize("name", sorted(gb.ALL))
def test_the_importer_reads_what_goose_sends(name, tmp_path):
    db, lines = stores(tmp_path, name)
    for path, body in ((db, sim.resume_db(db)), (lines, sim.resume_jsonl(lines))):
        # Read as the provider pairs it: ids reused by complete pairs get their identities (issue 30).
        sent = import_history(body, "<sim>", "openai-chat").messages
        assert shape(run_file(path).imported.messages) == shape(sent), (name, path.suffix)


@pytest.mark.parametrize("name", sorted(gb.SELF_REPAIRED) + ["clean", "hidden", "reused"])
def test_what_goose_repairs_itself_is_noted_and_the_files_come_back_as_they_were(name, tmp_path):
    for path in stores(tmp_path, name):
        assert sim.problems(sim.resume_db(path) if path.suffix == ".db" else sim.resume_jsonl(path)) == []
        out = run_file(path)
        assert not out.changed and out.data == path.read_bytes()
        if name in gb.SELF_REPAIRED:
            said = " ".join(on_resume(out.imported).sentences())
            assert said.startswith("Goose leaves out") and "itself on resume" in said


def test_a_crashed_call_is_left_out_by_goose_with_a_note_naming_it(tmp_path):
    im = run_file(stores(tmp_path, "crash")[0]).imported
    notes = [e for e in im.events if e.kind == "call-dropped-on-resume"]
    assert [e.tool_call_id for e in notes] == ["toolu_k02"]
    assert not any(c["tool_call_id"] == "toolu_k02" for m in im.messages for c in m.get("tool_calls") or ())


def test_a_call_id_twice_in_one_turn_is_refused_and_repaired_into_a_copy_goose_resumes(tmp_path):
    db, lines = stores(tmp_path, "redeclared")
    before = digest(db, lines)
    assert "duplicate-tool-call-id" in sim.problems(sim.resume_db(db))
    out = run_file(db)
    assert out.changed and digest(db, lines) == before
    assert [e.kind for e in out.result.events] == ["call-redeclared"]   # Goose drops the second response itself
    fixed = tmp_path / "fixed.db"
    fixed.write_bytes(out.data)
    assert sim.problems(sim.resume_db(fixed)) == []
    assert len(rows(fixed)) == len(rows(db))        # the second request cut from its row, no row added
    assert not run_file(fixed).changed
    out = run_file(lines)
    fixed_lines = tmp_path / "fixed.jsonl"
    fixed_lines.write_bytes(out.data)
    assert sim.problems(sim.resume_jsonl(fixed_lines)) == []
    assert len(fixed_lines.read_bytes().splitlines()) == len(lines.read_bytes().splitlines())


def test_a_call_id_reused_by_a_later_complete_pair_comes_back_as_it_was(tmp_path):
    """Issue 30 (aaif-goose/goose #11823's shape): each use answered, so both pairs are kept under
    identities of their own; the database and the lines come back byte for byte."""
    for path in stores(tmp_path, "reused"):
        out = run_file(path)
        assert not out.changed and out.data == path.read_bytes() and out.result.events == []
        assert [e.kind for e in out.imported.events] == ["id-reused"]


def test_a_response_after_a_later_prompt_is_refused_and_strict_moves_it(tmp_path):
    """aaif-goose/goose #7914: ``fix_conversation`` keeps the pair, the API refuses the gap."""
    db, lines = stores(tmp_path, "separated")
    assert "tool-calls-unanswered" in sim.problems(sim.resume_db(db))
    assert not run_file(db).changed                # MEM-5 alone cannot tell; --strict can
    assert inspector(["check", str(db), "--target", "openai-chat"]) != 0
    fixed = tmp_path / "fixed.db"
    assert inspector(["normalize", "--strict", str(db), "-o", str(fixed)]) == 0
    assert sim.problems(sim.resume_db(fixed)) == []
    assert inspector(["check", str(fixed), "--target", "openai-chat"]) == 0
    moved = {r for r in rows(db) if "toolu_s29" in r[3] and r[2] == "user"}
    assert len(moved) == 1 and moved.isdisjoint(rows(fixed))
    assert rows(db) - moved <= rows(fixed)
    fixed_lines = tmp_path / "fixed.jsonl"
    assert inspector(["normalize", "--strict", str(lines), "-o", str(fixed_lines)]) == 0
    assert sim.problems(sim.resume_jsonl(fixed_lines)) == []


def test_signed_thinking_is_recorded_at_its_item(tmp_path):
    im = run_file(stores(tmp_path, "clean")[0]).imported
    signed = [r for r in im.reasoning if r.signed]
    assert len(signed) == 1
    assert im.history[signed[0].loc.message]["parts"][signed[0].loc.blocks[0]]["type"] == "thinking"


def test_hidden_messages_are_not_sent(tmp_path):
    im = run_file(stores(tmp_path, "hidden")[0]).imported
    assert [m["content"] for m in im.messages if m["role"] == "user"] == ["Summary: src has a.py and b.py.\nContinue"]
    assert any(e.kind == "entry-not-sent" for e in im.events)


def test_both_layouts_are_detected_without_from(tmp_path):
    db, lines = stores(tmp_path, "clean")
    assert detect(parse(db.read_bytes(), str(db)), str(db)) == "goose"
    assert detect(parse(lines.read_bytes(), str(lines)), str(lines)) == "goose-jsonl"
    other = tmp_path / "renamed.db"
    other.write_bytes(db.read_bytes())
    assert goose.sniff(other.read_bytes(), str(other))


def test_a_database_of_several_sessions_is_repaired_one_session_at_a_time(tmp_path):
    db = gb.write_db(tmp_path / "sessions.db", {"20261201_1": gb.redeclared(), "20261201_2": gb.clean()})
    out = run_file(db, session="20261201_1")
    fixed = tmp_path / "fixed.db"
    fixed.write_bytes(out.data)
    assert sim.problems(sim.resume_db(fixed, "20261201_1")) == []
    assert {r for r in rows(db) if r[1] == "20261201_2"} <= rows(fixed)
    assert not run_file(db, session="20261201_2").changed


def test_another_format_becomes_a_goose_database_goose_resumes(tmp_path):
    history = b'[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"c1",' \
              b'"type":"function","function":{"name":"ls","arguments":"{}"}}]}]'
    im = load(history, "h.json")
    path = tmp_path / "new.db"
    path.write_bytes(export(im, repair(im), to="goose").data)
    body = sim.resume_db(path)
    assert sim.problems(body) == [] and [m["role"] for m in body["messages"]] == ["user", "assistant", "tool"]


def test_a_new_goose_database_is_the_same_bytes_every_run_and_keeps_order_past_an_hour(tmp_path):
    """No clock in a written database (SQLite's CURRENT_TIMESTAMP defaults included), and the
    timestamps Goose orders by keep the written order past 3,600 messages."""
    turns = []
    for i in range(1900):
        turns += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    im = load(json.dumps(turns).encode(), "h.json")
    first = export(im, repair(im), to="goose").data
    path = tmp_path / "new.db"
    path.write_bytes(export(im, repair(im), to="goose").data)
    assert path.read_bytes() == first
    with sqlite3.connect(path) as conn:
        sent = [r[0] for r in conn.execute("SELECT content_json FROM messages ORDER BY timestamp, rowid")]
        applied = conn.execute("SELECT applied_at FROM schema_version").fetchone()[0]
    assert [json.loads(c)[0]["text"] for c in sent] == [t["content"] for t in turns]
    assert applied == "1970-01-01 00:00:00"


def test_in_place_writes_the_repair_into_the_database_itself(tmp_path):
    db = gb.one(tmp_path / "sessions.db", "redeclared")
    assert inspector(["normalize", "--in-place", str(db)]) == 0
    assert sim.problems(sim.resume_db(db)) == []
    assert "duplicate-tool-call-id" in sim.problems(sim.resume_db(tmp_path / "sessions.db.bak"))


def test_reasoning_strip_cuts_thinking_from_rows_and_lines(tmp_path):
    db, lines = stores(tmp_path, "clean")
    for path in (db, lines):
        out = tmp_path / f"stripped{path.suffix}"
        assert inspector(["normalize", str(path), "--reasoning", "strip", "-o", str(out)]) == 0
        assert b'"thinking"' not in (out.read_bytes() if path.suffix == ".jsonl" else
                                     "".join(r[3] for r in rows(out)).encode())
        back = run_file(out)
        assert not back.changed and not back.imported.reasoning
    assert inspector(["normalize", str(db), "--reasoning", "strip", "--in-place"]) == 0
    assert rows(db) == rows(tmp_path / "stripped.db")

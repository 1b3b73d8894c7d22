"""Crush databases built from Crush's migrations: what the importer reads is what Crush sends
(the simulator, apart from it, agrees); broken sessions are refused by Crush before 0.59.0
and by no version after the repair; the repair is row edits with every other row as it was;
a session with nothing to change comes back byte for byte; the original is never written."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from inspector.cli import main as inspector
from inspector.formats import anthropic, crush, on_resume
from inspector.formats.detect import detect
from inspector.io import InputError
from inspector.pipeline import parse, run_file

from . import crush_builder as cb
from . import crush_simulate as sim

OLD = (0, 56)


def digest(*paths: Path) -> list[str | None]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None for p in paths]


def rows(path: Path, table: str = "messages") -> set[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return set(conn.execute(f"SELECT * FROM {table}"))
    finally:
        conn.close()


@pytest.mark.parametrize("name", sorted(cb.BROKEN))
def test_a_broken_session_is_repaired_into_a_copy_every_crush_resumes(name, tmp_path):
    db = cb.one(tmp_path / "crush.db", name)
    before = digest(db)
    if name != "duplicate":
        assert sim.problems(sim.resume(db, version=OLD))
    out = run_file(db)
    assert digest(db) == before
    assert out.imported.format == "crush" and out.changed
    fixed = tmp_path / "crush.repaired.db"
    fixed.write_bytes(out.data)
    for version in (OLD, None):
        assert sim.problems(sim.resume(fixed, version=version)) == []
    # Rows not edited keep every column; an edited row lost parts, nothing else.
    edited = {e.message.split()[1].rstrip(":") for e in out.export_events if e.kind in ("entry-removed",
                                                                                       "entry-rewritten")}
    kept = {r for r in rows(db) if r[0] not in edited}
    assert kept <= rows(fixed)
    assert not run_file(fixed).changed


def test_the_importer_reads_what_crush_sends(tmp_path):
    for name in sorted({**cb.BROKEN, **cb.FINE}):
        db = cb.one(tmp_path / f"{name}.db", name)
        sent = anthropic.import_(sim.resume(db, version=OLD), "<sim>").messages
        assert run_file(db).imported.messages == sent, name


@pytest.mark.parametrize("name", sorted(cb.FINE))
def test_a_session_with_nothing_to_change_comes_back_byte_for_byte(name, tmp_path):
    db = cb.one(tmp_path / "crush.db", name)
    out = run_file(db)
    assert not out.changed and out.data == db.read_bytes()


def test_a_synthesized_result_is_a_tool_row_as_crush_writes_one(tmp_path):
    db = cb.one(tmp_path / "crush.db", "crash")
    fixed = tmp_path / "fixed.db"
    fixed.write_bytes(run_file(db).data)
    conn = sqlite3.connect(fixed)
    try:
        order = [r for r, in conn.execute("SELECT id FROM messages ORDER BY created_at")]
        new = conn.execute("SELECT role, parts, model, provider, finished_at FROM messages WHERE id = ?",
                           (order[order.index("k-a3") + 1],)).fetchone()
        count = conn.execute("SELECT message_count FROM sessions").fetchone()[0]
        triggers = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()[0]
    finally:
        conn.close()
    assert order[-1] == "k-u3"                    # the result sits between the call and the next prompt
    role, parts, model, provider, finished = new
    assert (role, model, provider, finished) == ("tool", "", None, None)
    assert parts.startswith('[{"type":"tool_result","data":{"tool_call_id":"toolu_k02","name":"bash",')
    assert parts.endswith('"is_error":true}},{"type":"finish","data":{"reason":"stop","time":0}}]')
    assert count == len(order) and triggers == 5


def test_a_crash_is_refused_by_old_crush_and_answered_by_current_crush(tmp_path):
    db = cb.one(tmp_path / "crush.db", "crash")
    assert sim.problems(sim.resume(db, version=OLD)) == ["tool-use-without-result"]
    body = sim.resume(db)
    assert sim.problems(body) == []
    assert {"type": "tool_result", "tool_use_id": "toolu_k02", "content": sim.SYNTHETIC, "is_error": True} in \
        body["messages"][-1]["content"]
    said = " ".join(on_resume(run_file(db).imported).sentences())
    assert "before 0.59.0" in said and "since 0.59.0" in said


def test_a_cancel_is_clean_because_crush_writes_the_results_itself(tmp_path):
    db = cb.one(tmp_path / "crush.db", "cancelled")
    assert sim.problems(sim.resume(db, version=OLD)) == []
    assert not run_file(db).imported.events


def test_provenance_names_the_row_and_the_part(tmp_path):
    im = run_file(cb.one(tmp_path / "crush.db", "crash")).imported
    turn = next(i for i, m in enumerate(im.messages) if any(c["tool_call_id"] == "toolu_k02"
                                                             for c in m.get("tool_calls") or ()))
    loc = im.calls[turn][0]
    assert im.history[loc.message]["id"] == "k-a3"
    assert im.history[loc.message]["parts"][loc.blocks[0]]["data"]["id"] == "toolu_k02"


def test_signed_reasoning_is_recorded_at_its_part_and_its_row_is_never_edited(tmp_path):
    db = cb.one(tmp_path / "crush.db", "reasoning_crash")
    out = run_file(db)
    signed = [r for r in out.imported.reasoning if r.signed]
    assert len(signed) == 2 and all(r.kind == "thinking" for r in signed)
    assert {out.imported.history[r.loc.message]["parts"][r.loc.blocks[0]]["type"] for r in signed} == {"reasoning"}
    fixed = tmp_path / "fixed.db"
    fixed.write_bytes(out.data)
    assert {r for r in rows(db) if r[0] == "r-a3"} <= rows(fixed)


def test_a_summary_starts_what_is_sent(tmp_path):
    im = run_file(cb.one(tmp_path / "crush.db", "summarized")).imported
    assert im.messages[0]["role"] == "user" and im.messages[0]["content"].startswith("Summary: listed src")
    assert not any(m.get("tool_calls") for m in im.messages)          # the turn before the summary is not sent
    assert any(e.kind == "entry-not-sent" for e in im.events)


def test_a_database_in_wal_mode_is_read_with_its_log_and_never_written(tmp_path):
    db = cb.write_db(tmp_path / "crush.db", {"ses-crash": cb.crash(), "ses-clean": cb.clean()}, wal=True)
    side = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    copy_dir = tmp_path / "copy"
    copy_dir.mkdir()
    for p in side:
        shutil.copyfile(p, copy_dir / p.name)
    cb._leave_open.pop().close()
    for p in side:                                 # the pair as a running Crush leaves it
        shutil.copyfile(copy_dir / p.name, p)
    assert Path(f"{db}-wal").stat().st_size > 0
    before = digest(*side)
    with pytest.raises(InputError, match="--session"):
        run_file(db)
    out = run_file(db, session="ses-crash")
    assert digest(*side) == before
    assert out.data[18:20] == b"\x02\x02"          # the copy keeps WAL mode
    fixed = tmp_path / "fixed.db"
    fixed.write_bytes(out.data)
    assert sim.problems(sim.resume(fixed, "ses-crash", version=OLD)) == []
    clean = run_file(db, session="ses-clean")
    assert not clean.changed and clean.data[18:20] == b"\x02\x02"


def test_detected_without_from_and_checked_against_anthropic(tmp_path, capsys):
    db = cb.one(tmp_path / "crush.db", "crash")
    assert detect(parse(db.read_bytes(), str(db)), str(db)) == "crush"
    named = tmp_path / "other.db"
    named.write_bytes(db.read_bytes())
    assert crush.sniff(named.read_bytes(), str(named))
    fixed = tmp_path / "fixed.db"
    assert inspector(["normalize", str(db), "-o", str(fixed)]) == 0
    assert inspector(["check", str(db), "--target", "anthropic"]) != 0
    assert inspector(["check", str(fixed), "--target", "anthropic"]) == 0
    capsys.readouterr()


def test_another_format_becomes_a_crush_database_crush_resumes(tmp_path):
    from inspector.pipeline import export, load, repair
    history = b'[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"c1",' \
              b'"type":"function","function":{"name":"ls","arguments":"{}"}}]}]'
    im = load(history, "h.json")
    out = export(im, repair(im), to="crush")
    path = tmp_path / "new.db"
    path.write_bytes(out.data)
    assert sim.problems(sim.resume(path, version=OLD)) == []
    assert [m["role"] for m in sim.resume(path)["messages"]] == ["user", "assistant", "user"]


def test_in_place_writes_the_repair_into_the_live_database_under_its_lock(tmp_path):
    db = cb.write_db(tmp_path / "crush.db", {"ses-crash": cb.crash()}, wal=True)
    live = cb._leave_open.pop()                    # Crush still has it open, its rows in the -wal
    try:
        assert Path(f"{db}-wal").stat().st_size > 0
        assert inspector(["normalize", "--in-place", str(db)]) == 0
        assert sim.problems(sim.resume(db, version=OLD)) == []
        assert live.execute("SELECT count(*) FROM messages").fetchone()[0] == 8     # Crush sees the new row
        backup = tmp_path / "crush.db.bak"
        assert sim.problems(sim.resume(backup, version=OLD))                       # the backup is the original
        assert not run_file(db).changed
    finally:
        live.close()


def test_reasoning_strip_cuts_each_reasoning_part_and_keeps_every_other_row(tmp_path):
    db = cb.one(tmp_path / "crush.db", "reasoning_crash")
    out = tmp_path / "stripped.db"
    assert inspector(["normalize", str(db), "--reasoning", "strip", "-o", str(out)]) == 0
    parts = [json.loads(p) for p, in sqlite3.connect(out).execute("SELECT parts FROM messages")]
    assert not [p for row in parts for p in row if p["type"] == "reasoning"]
    assert sim.problems(sim.resume(out, version=OLD)) == []
    untouched = {r for r in rows(db) if '"reasoning"' not in r[3]}
    assert untouched <= rows(out)
    # --in-place applies the repair and the strip to the live file, as -o wrote them.
    assert inspector(["normalize", str(db), "--reasoning", "strip", "--in-place"]) == 0
    assert rows(db) == rows(out)

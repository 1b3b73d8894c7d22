"""OpenClaw agent databases (``openclaw_builder``): the rows of ``transcript_events`` read as pi
reads its file (the simulator, fed the rows in ``seq`` order, agrees); a repair appends rows
after the last ``seq`` and every row already there keeps every column; the copy is a fixed
point; ``--in-place`` writes the same rows into the live file; sessions are chosen by id."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from inspector.cli import main as inspector
from inspector.io import InputError
from inspector.pipeline import load_file, run_file

from . import openclaw_builder as ob
from . import pi_builder as pb
from . import pi_simulate as sim
from .test_pi import flat_pairs, problems, sim_pairs

SID = "s-crash"


def rows(path: Path, table: str = "transcript_events") -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.execute(f"SELECT * FROM {table} ORDER BY rowid"))
    finally:
        conn.close()


def as_text(path: Path, sid: str = SID) -> str:
    """The session's rows as the JSON Lines file they stand for."""
    return "".join(r[2] + "\n" for r in rows(path) if r[0] == sid)


def db(tmp_path: Path, *names: str) -> Path:
    path = tmp_path / "openclaw-agent.sqlite"
    return ob.build(path, {(SID if n == "crash" else f"s-{n}"): pb.scenario(n) for n in names})


@pytest.mark.parametrize("name", ("crash", "aborted", "compacted", "branched"))
def test_the_rows_read_as_pi_reads_its_file(name, tmp_path):
    path = db(tmp_path, name)
    im = load_file(path)
    assert im.format == "openclaw-agent-db"
    sid = SID if name == "crash" else f"s-{name}"
    assert flat_pairs(im) == sim_pairs(as_text(path, sid))


def test_a_repair_appends_rows_and_keeps_every_row_there(tmp_path):
    path = db(tmp_path, "crash")
    before, ids_before = rows(path), rows(path, "transcript_event_identities")
    assert problems(as_text(path))
    out = run_file(path)
    assert out.changed and rows(path) == before                     # the input is never written
    fixed = tmp_path / "fixed.sqlite"
    fixed.write_bytes(out.data)
    after = rows(fixed)
    assert after[:len(before)] == before                            # every row kept, every column
    assert [r[1] for r in after[len(before):]] == list(range(before[-1][1] + 1, before[-1][1] + 1 + len(after)
                                                              - len(before)))
    assert problems(as_text(fixed)) == []
    # Each appended event has its identity row, as OpenClaw indexes the tail.
    ids_after = rows(fixed, "transcript_event_identities")
    assert ids_after[:len(ids_before)] == ids_before and len(ids_after) == len(ids_before) + len(after) - len(before)
    again = run_file(fixed)
    assert not again.changed and again.data == fixed.read_bytes()


def test_several_sessions_need_a_choice_and_the_other_is_untouched(tmp_path, capsys):
    path = db(tmp_path, "crash", "clean")
    with pytest.raises(InputError, match="choose one with --session"):
        load_file(path)
    out = tmp_path / "out.sqlite"
    assert inspector(["normalize", str(path), "--session", SID, "-o", str(out)]) == 0
    other = [r for r in rows(path) if r[0] == "s-clean"]
    assert [r for r in rows(out) if r[0] == "s-clean"] == other
    assert problems(as_text(out)) == []


def test_in_place_appends_the_same_rows_into_the_live_file(tmp_path):
    path = db(tmp_path, "crash")
    copy = run_file(path).data
    assert inspector(["normalize", "--in-place", str(path)]) == 0
    assert problems(as_text(path)) == []
    expected = tmp_path / "expected.sqlite"
    expected.write_bytes(copy)
    assert rows(path) == rows(expected)
    assert not run_file(path).changed


def test_a_clean_database_comes_back_byte_for_byte(tmp_path):
    path = db(tmp_path, "clean")
    out = run_file(path)
    assert not out.changed and out.data == path.read_bytes()


def test_a_database_that_materializes_active_paths_is_refused_with_a_reason(tmp_path):
    path = db(tmp_path, "crash")
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE session_transcript_active_events (session_id TEXT, active_position INTEGER, "
                 "event_seq INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(InputError, match="session_transcript_active_events"):
        run_file(path)


def test_the_simulator_agrees_on_the_sample(tmp_path):
    sample = Path(__file__).resolve().parents[2] / "samples" / "32-openclaw-agent.sqlite"
    sid = rows(sample)[0][0]
    assert flat_pairs(load_file(sample)) == sim_pairs(as_text(sample, sid))
    assert sim.sent(as_text(sample, sid))

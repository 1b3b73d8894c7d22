"""OpenCode stores (database, export, legacy tree) built from OpenCode's schema: broken ones
are refused by the resume simulator before repair and accepted after; what OpenCode repairs
itself is left alone; untouched rows, parts and bytes stay as they were; the originals are
never written."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from inspector.formats import anthropic, detect, import_history
from inspector.formats import opencode as oc
from inspector.io import InputError
from inspector.pipeline import parse, run, run_file

from . import opencode_builder as ob
from . import opencode_simulate as sim
from .simulate import rejected

BROKEN = sorted(ob.BROKEN)
FINE = sorted({"clean": ob.clean, **ob.OLD_BUILDS_REFUSE, **ob.SELF_REPAIRED, **ob.REUSED})
ALL = {"clean": ob.clean, **ob.BROKEN, **ob.OLD_BUILDS_REFUSE, **ob.SELF_REPAIRED, **ob.REUSED}


def digest(*paths: Path) -> list[str | None]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None for p in paths]


def rows(path: Path, table: str) -> set[tuple]:
    conn = sqlite3.connect(path)
    try:
        return set(conn.execute(f"SELECT * FROM {table}"))
    finally:
        conn.close()


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_database_is_repaired_into_a_copy_opencode_resumes(name, tmp_path):
    s = ob.BROKEN[name]()
    db = ob.write_db(tmp_path / "opencode.db", s, wal=True)
    sidecars = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    assert sim.problems(sim.resume_db(db))
    before = digest(*sidecars)
    out = run_file(db)
    assert digest(*sidecars) == before
    assert out.imported.format == "opencode" and out.changed
    repaired = tmp_path / "opencode.repaired.db"
    repaired.write_bytes(out.data)
    assert sim.problems(sim.resume_db(repaired)) == []
    # Only the dropped parts' rows are gone; every other row of every table is as it was.
    removed = {e.message.split()[1] for e in out.export_events if e.kind == "entry-removed"}
    assert removed and rows(db, "part") - rows(repaired, "part") == {r for r in rows(db, "part") if r[0] in removed}
    assert rows(repaired, "part") <= rows(db, "part")
    for table in ("message", "session", "project"):
        assert rows(repaired, table) == rows(db, table)
    again = run_file(repaired)
    assert not again.changed and not again.result.events


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_export_is_repaired_with_every_other_byte_kept(name):
    s = ob.BROKEN[name]()
    data = s.export()
    assert sim.problems(sim.resume_export(data))
    out = run(data, f"{name}.json")
    assert out.imported.format == "opencode-export" and out.changed
    assert sim.problems(sim.resume_export(out.data)) == []
    # OpenCode's own printing of the repaired document is what was written, byte for byte.
    assert out.data.decode() == oc.pretty(json.loads(out.data)) + "\n"
    kept = [p for m in json.loads(out.data)["messages"] for p in m["parts"]]
    every = [p for m in json.loads(data)["messages"] for p in m["parts"]]
    assert len(kept) < len(every) and all(p in every for p in kept)
    assert not run(out.data, "again.json").changed


def test_an_export_printed_another_way_keeps_its_own_bytes():
    """A compact re-print of an export: the repair cuts the part out; the rest is not re-printed."""
    doc = json.loads(ob.duplicate_call().export())
    data = json.dumps(doc, separators=(",", ":")).encode()
    out = run(data, "compact.json")
    gone = json.loads(data)["messages"][2]["parts"][-2]     # the second tool part (then step-finish)
    assert out.data == data.replace(b"," + json.dumps(gone, separators=(",", ":")).encode(), b"")


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_tree_session_becomes_an_export_opencode_imports(name, tmp_path):
    s = ob.BROKEN[name]()
    root = ob.write_storage(tmp_path / "storage", s)
    path = root / "session" / ob.PROJECT / f"{s.id}.json"
    files = sorted(root.rglob("*.json"))
    before = digest(*files)
    assert sim.problems(sim.resume_storage(root, s.id))
    out = run_file(path)
    assert out.imported.format == "opencode-export" and out.changed
    assert digest(*files) == before
    assert json.loads(out.data)["info"]["id"] == s.id
    assert sim.problems(sim.resume_export(out.data)) == []


@pytest.mark.parametrize("name", FINE)
def test_what_needs_nothing_comes_back_byte_identical(name, tmp_path):
    s = ALL[name]()
    data = s.export()
    out = run(data, f"{name}.json")
    assert not out.changed and out.data == data and not out.result.events
    db = ob.write_db(tmp_path / "opencode.db", s)
    out = run_file(db)
    assert not out.changed and out.data == db.read_bytes()


@pytest.mark.parametrize("name", sorted(ALL))
def test_import_reads_what_opencode_sends(name):
    """The importer and the simulator are written apart; their requests must agree."""
    data = ALL[name]().export()
    # Read as Anthropic pairs it: ids reused by complete pairs get their identities (issue 30).
    expected = import_history(sim.resume_export(data)["messages"], "<sim>", "anthropic").messages
    assert run(data, "s.json").imported.messages == expected


def test_an_interrupted_call_is_the_agents_own_repair_not_a_change():
    out = run(ob.crash_running().export(), "crash.json")
    notes = [e for e in out.imported.events if e.kind == "agent-placeholder"]
    assert len(notes) == 1 and notes[0].tool_call_id == "toolu_01Cat" and "side effects unknown" in notes[0].message
    assert rejected(out.imported.messages, "anthropic") == []
    assert not out.changed and out.result.synthesized == 0


def test_text_after_a_call_is_moved_by_opencode_and_noted():
    out = run(ob.text_after_call().export(), "t.json")
    assert [e.kind for e in out.imported.events] == ["agent-reordered"]
    assert "PR #22646" in out.imported.events[0].message and not out.changed


def test_provenance_names_the_message_and_part():
    out = run(ob.duplicate_call().export(), "d.json")
    im = out.imported
    tools = [i for i, m in enumerate(im.messages) if m["role"] == "tool"]
    assert im.where(tools[0]) == "messages[1].parts[2]"
    assert im.calls[1][0].describe("messages") == "messages[1].parts[2]"


def test_an_export_is_detected_as_opencode_not_read_as_a_flat_history():
    """Issue 25: an opencode export was read as flat messages and "repaired" into nothing."""
    document = json.loads(ob.clean().export())
    assert detect(document, "s.json") == "opencode-export"
    assert run(document, "s.json").imported.messages


def test_the_database_is_read_with_its_uncheckpointed_wal_and_left_alone(tmp_path):
    s = ob.clean()
    db = ob.write_db(tmp_path / "opencode.db", s, wal=True)
    keep = sqlite3.connect(db)                 # an OpenCode still running keeps its WAL
    keep.execute("PRAGMA wal_autocheckpoint=0")
    late = s.user("One more thing: check the tax rounding too.")
    mid, part = late["info"]["id"], late["parts"][0]
    keep.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, s.id, s.now, s.now, ob.compact(
        {k: v for k, v in late["info"].items() if k not in ("id", "sessionID")})))
    keep.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (part["id"], mid, s.id, s.now, s.now, ob.compact(
        {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")})))
    keep.commit()
    try:
        sidecars = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
        assert sidecars[1].stat().st_size > 0
        before = digest(*sidecars)
        out = run_file(db)
        assert out.imported.messages[-1] == {"role": "user", "content": "One more thing: check the tax rounding too."}
        assert "the WAL was read from a copy" in out.imported.notes[0]
        assert digest(*sidecars) == before
    finally:
        keep.close()


def test_a_database_of_several_sessions_needs_a_choice(tmp_path):
    broken, fine = ob.duplicate_call(), _renamed(ob.clean(), ob.Ids(seed=11))
    db = ob.write_db(tmp_path / "opencode.db", broken, fine)
    with pytest.raises(InputError, match="holds 2 sessions; choose one with --session ID"):
        run_file(db)
    with pytest.raises(InputError, match="no session 'ses_nope'"):
        run_file(db, session="ses_nope")
    assert run_file(db, session=broken.id).changed
    assert not run_file(db, session=fine.id).changed


def _renamed(s: ob.Session, ids: ob.Ids) -> ob.Session:
    """The same session under another id (its messages keep theirs; ids are unique per table)."""
    other = s
    other.id = ids.make("ses", ob.T0 + 10, descending=True)
    other.info["id"] = other.id
    for m in other.messages:
        m["info"]["id"] = m["info"]["id"][:-3] + "zzz"
        m["info"]["sessionID"] = other.id
        for p in m["parts"]:
            p["id"], p["messageID"], p["sessionID"] = p["id"][:-3] + "zzz", m["info"]["id"], other.id
    return other


def test_cli_check_lists_each_session_and_normalize_writes_a_repaired_copy(tmp_path, capsys):
    from inspector.cli import main

    broken = ob.duplicate_call()
    db = ob.write_db(tmp_path / "opencode.db", broken, _renamed(ob.clean(), ob.Ids(seed=5)))
    assert main(["check", str(db)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and sum("ok" in line for line in lines) == 1
    assert main(["normalize", "-q", "--session", broken.id, str(db)]) == 0
    assert sim.problems(sim.resume_db(tmp_path / "opencode.repaired.db", broken.id)) == []


def test_bytes_that_are_not_opencode_are_refused_clearly(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE part (`id` text)")
    conn.commit()
    conn.close()
    with pytest.raises(InputError, match="not an OpenCode database"):
        oc.parse(path.read_bytes(), str(path))
    assert parse(ob.clean().export(), "s.json").format == "opencode-export"


def test_check_target_anthropic_accepts_the_repaired_copy(tmp_path, capsys):
    from inspector.cli import main

    db = ob.write_db(tmp_path / "opencode.db", ob.duplicate_call())
    assert main(["normalize", "-q", str(db)]) == 0
    capsys.readouterr()
    assert main(["check", "--target", "anthropic", str(tmp_path / "opencode.repaired.db")]) == 0
    assert "anthropic would accept it" in capsys.readouterr().out


def test_a_row_opencode_cannot_read_is_noted_and_kept(tmp_path):
    s = ob.clean()
    db = ob.write_db(tmp_path / "opencode.db", s)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE part SET data = '{not json' WHERE id = ?", (s.messages[2]["parts"][1]["id"],))
    conn.commit()
    conn.close()
    out = run_file(db)
    notes = [e.message for e in out.imported.events if e.kind == "entry-skipped"]
    assert len(notes) == 1 and s.messages[2]["parts"][1]["id"] in notes[0]
    assert not out.changed


def test_a_failed_step_is_not_sent_so_its_duplicate_breaks_nothing():
    s = ob.Session()
    ob.opening(s)
    s.assistant(ob.tool("toolu_01Run", "bash", {"command": "pytest"}, "1 failed"), finish=None,
                error={"name": "APIError", "data": {"message": "Overloaded", "isRetryable": True}})
    s.user("Try again.")
    out = run(s.export(), "failed.json")
    assert not out.changed and "entry-not-sent" in [e.kind for e in out.imported.events]
    assert sim.problems(sim.resume_export(s.export())) == []


def test_the_bundled_sample_is_repaired_and_resumes(tmp_path):
    from inspector.bundled import samples_dir

    sample = samples_dir() / "26-opencode-session.db"
    copy = tmp_path / "opencode.db"
    copy.write_bytes(sample.read_bytes())
    assert sim.problems(sim.resume_db(copy))
    out = run_file(copy)
    assert (out.result.dropped, out.result.synthesized) == (2, 0)
    assert [e.kind for e in out.imported.events] == ["agent-placeholder", "id-reused"]
    repaired = tmp_path / "opencode.repaired.db"
    repaired.write_bytes(out.data)
    assert sim.problems(sim.resume_db(repaired)) == []


def test_another_formats_history_becomes_an_export_opencode_imports():
    history = (b'[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Faro?"}, '
               b'{"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "get_weather", '
               b'"arguments": "{\\"city\\": \\"Faro\\"}"}]}]')
    out = run(history, "h.json", to="opencode-export")
    doc = json.loads(out.data)
    assert [m["info"]["role"] for m in doc["messages"]] == ["user", "assistant"]
    assert doc["messages"][0]["info"]["system"] == "Be brief."
    tool = next(p for p in doc["messages"][1]["parts"] if p["type"] == "tool")
    assert tool["state"] == {"status": "error", "input": {"city": "Faro"}, "error": oc.NO_RESULT,
                             "time": {"start": 2000, "end": 2000}}
    assert sim.problems(sim.resume_export(out.data)) == []
    back = run(out.data, "back.json")
    assert back.imported.format == "opencode-export" and not back.changed


def test_an_export_with_a_byte_order_mark_keeps_it():
    data = b"\xef\xbb\xbf" + ob.duplicate_call().export()
    out = run(data, "bom.json")
    assert out.changed and out.data.startswith(b"\xef\xbb\xbf{\n")
    assert out.data[3:] == run(data[3:], "plain.json").data


def test_reading_a_database_again_reads_what_it_holds_now(tmp_path):
    """``check`` reads a database once per session; the bytes are parsed once, and a database
    that changed in between is read anew."""
    s = ob.clean()
    db = ob.write_db(tmp_path / "opencode.db", s)
    first, second = oc.parse(db.read_bytes(), str(db)), oc.parse(db.read_bytes(), str(db))
    assert first is not second and first.messages(s.id) == second.messages(s.id)
    assert first.messages(s.id) is not second.messages(s.id)
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM part WHERE id = ?", (s.messages[-1]["parts"][1]["id"],))
    conn.commit()
    conn.close()
    third = oc.parse(db.read_bytes(), str(db))
    assert len(third.messages(s.id)[-1]["parts"]) == len(first.messages(s.id)[-1]["parts"]) - 1

"""Agents SDK SQLite sessions: the chosen session is repaired into a new database that the
SDK's own query reads back as a history the Responses API accepts; the input is untouched."""

from __future__ import annotations

import hashlib
import json

import pytest

from inspector.formats import agents_sqlite, openai_responses
from inspector.io import InputError
from inspector.pipeline import run_file

from . import agents_builder as ab
from .simulate import rejected


def problems(items):
    return rejected(openai_responses.import_(items, "<resume>").messages, "openai-responses")


@pytest.fixture
def db(tmp_path):
    return ab.make(tmp_path / "agents.db", {"support-42": ab.orphan_output(), "faro": ab.clean()})


def test_session_is_repaired_into_a_new_database(db, tmp_path):
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert problems(ab.items(db, "support-42"))
    out = run_file(db, session="support-42")
    assert out.imported.format == "agents-sqlite"
    assert (out.result.dropped, out.result.synthesized) == (1, 1)
    target = tmp_path / "agents.repaired.db"
    target.write_bytes(out.data)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    repaired = ab.items(target, "support-42")
    assert problems(repaired) == []
    kept = [i for i in ab.orphan_output() if i.get("call_id") != "call_Po27"]
    assert [i for i in repaired if i.get("output") != "Tool call was interrupted; no result."] == kept
    assert ab.items(target, "faro") == ab.items(db, "faro")
    # Kept rows keep their exact JSON text.
    assert json.dumps(ab.orphan_output()[0]) in out.data.decode("latin-1")


def test_provenance_is_the_row_id(db):
    im = run_file(db, session="support-42").imported
    assert im.where(0) == "row 1"
    assert im.where(3) == "row 4"
    assert im.calls[1][0].describe(None) == "row 2"


def test_many_sessions_need_a_choice(db):
    with pytest.raises(InputError, match="support-42 .8 items., faro .4 items."):
        run_file(db)
    with pytest.raises(InputError, match="no session 'nope'"):
        run_file(db, session="nope")


def test_one_session_is_chosen_without_asking_and_a_clean_one_is_unchanged(tmp_path):
    path = ab.make(tmp_path / "one.sqlite", {"faro": ab.clean()})
    out = run_file(path)
    assert not out.changed and not out.result.events


def test_uncheckpointed_wal_is_read(tmp_path):
    import sqlite3

    path = ab.make(tmp_path / "wal.db", {"s": ab.clean()}, wal=True)
    keep = sqlite3.connect(path)                   # an open connection keeps the -wal file
    keep.execute("PRAGMA wal_autocheckpoint=0")
    keep.execute("INSERT INTO agent_messages (session_id, message_data, created_at) VALUES (?, ?, ?)",
                 ("s", json.dumps({"content": "more", "role": "user"}), "2025-10-12 09:09:00"))
    keep.commit()
    try:
        assert (tmp_path / "wal.db-wal").stat().st_size > 0
        out = run_file(path)
        assert len(out.imported.history) == 5
    finally:
        keep.close()


def test_sniff():
    assert not agents_sqlite.sniff(b'{"a": 1}')
    assert agents_sqlite.sniff(b"SQLite format 3\x00" + b"\x00" * 100 + b"message_data")


def test_cli_session_option_and_default_output(db, tmp_path, capsys):
    from inspector.cli import main

    assert main(["check", str(db)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "support-42" in lines[0] and ": fails: " in lines[0] and "would change" not in lines[0]
    assert "faro" in lines[1] and "ok" in lines[1]
    assert main(["normalize", "-q", "--session", "support-42", str(db)]) == 0
    repaired = tmp_path / "agents.repaired.db"
    assert problems(ab.items(repaired, "support-42")) == []


def test_in_place_keeps_the_original_database(db, tmp_path):
    from inspector.cli import main

    original = db.read_bytes()
    assert main(["normalize", "-q", "--in-place", "--session", "support-42", str(db)]) == 0
    assert (tmp_path / "agents.db.bak").read_bytes() == original
    assert problems(ab.items(db, "support-42")) == []
    assert ab.items(db, "faro") == ab.clean()


def test_session_option_on_a_file_with_one_history_is_an_error(tmp_path):
    from . import scenarios

    path = tmp_path / "s.jsonl"
    path.write_bytes(scenarios.crash_missing_result())
    with pytest.raises(InputError, match="--session is for"):
        run_file(path, session="x")


def test_a_history_from_another_format_becomes_a_new_database(tmp_path):
    from inspector.formats import Exported, agents_sqlite
    from inspector.pipeline import run

    out = run(b'[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", '
              b'"tool_calls": [{"tool_call_id": "c1", "name": "f", "arguments": "{}"}]}]', "h.json")
    db = agents_sqlite.export_new(out.imported, out.result, Exported())
    path = tmp_path / "new.db"
    path.write_bytes(db.to_bytes())
    assert [i.get("type", "message") for i in ab.items(path, "imported")] == [
        "message", "function_call", "function_call_output"]


def _rows(path):
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        return [json.loads(t) for (t,) in conn.execute("SELECT message_data FROM agent_messages ORDER BY id")]
    finally:
        conn.close()


def test_empty_call_ids_are_paired_by_position_and_a_clean_session_is_unchanged(tmp_path):
    """Issue 21: sessions of OpenAIChatCompletionsModel store ``"call_id": ""`` on every call
    and output; they were read as unusable ids and most of their rows removed."""
    path = ab.make(tmp_path / "chatcmpl.db", {"s": ab.empty_call_ids(crashed=False)})
    out = run_file(path)
    assert not out.changed and not out.result.events
    assert out.data == path.read_bytes()
    derived = [e for e in out.imported.events if e.kind == "id-derived"]
    assert len(derived) == 6                       # three calls, three outputs


def test_empty_call_ids_lose_no_row_and_the_derived_names_are_never_written(tmp_path):
    path = ab.make(tmp_path / "chatcmpl.db", {"s": ab.empty_call_ids()})
    before = _rows(path)
    out = run_file(path)
    assert [e.kind for e in out.result.events] == ["result-synthesized"]
    target = tmp_path / "out.db"
    target.write_bytes(out.data)
    after = _rows(target)
    assert len(after) == len(before) + 1
    assert after[:12] == before[:12] and after[13:] == before[12:]     # every row kept, in order
    assert after[12]["type"] == "function_call_output" and after[12]["call_id"] == ""
    assert b"inspector-position" not in out.data
    assert not run_file(target).changed


def test_an_advanced_session_keeps_its_structure_rows(tmp_path):
    """openai/openai-agents-python #4729: AdvancedSQLiteSession hides a row with no
    message_structure entry (and deletes it on the first pop_item), so a repaired database
    writes those entries: every row, the synthesized output included, is read through them."""
    path = ab.make_advanced(tmp_path / "advanced.db", "s", ab.orphan_output())
    out = run_file(path)
    assert out.changed
    target = tmp_path / "out.db"
    target.write_bytes(out.data)
    plain = ab.items(target, "s")
    assert ab.advanced_items(target, "s") == plain
    assert any(i.get("type") == "function_call_output" and i["call_id"] == "call_Tm03" for i in plain)
    import sqlite3

    conn = sqlite3.connect(target)
    kinds = conn.execute("SELECT s.message_type FROM message_structure s JOIN agent_messages m ON m.id = s.message_id "
                         "WHERE json_extract(m.message_data, '$.call_id') = 'call_Tm03' ORDER BY s.sequence_number"
                         ).fetchall()
    conn.close()
    assert kinds == [("function_call",), ("function_call_output",)]

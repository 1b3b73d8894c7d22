"""Round 2's data-loss findings on the session stores (issue 25), each as a user meets it
through the CLI: a live SQLite database with rows still in its ``-wal``, rows whose ``id``
is not unique, a session id without TEXT affinity, a damaged page, a schema the SDK did not
write, and an agent line appended while ``--in-place`` writes the repaired file."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .harness import cli_run

SCHEMA = """
CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                             updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
                             message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
"""


def turns(first: int, n: int) -> list[dict]:
    """Questions with calls; every third call is left unanswered, so a repair is needed."""
    out: list[dict] = []
    for i in range(first, first + n):
        out.append({"role": "user", "content": f"question {i}"})
        out.append({"type": "function_call", "call_id": f"c{i}", "name": "f", "arguments": "{}"})
        if i % 3:
            out.append({"type": "function_call_output", "call_id": f"c{i}", "output": f"r{i}"})
    return out


def crashed_wal(path: Path, checkpointed: int, pending: int) -> None:
    """What a crashed SDK process leaves: WAL mode, some rows in the main file, the newest
    only in ``NAME-wal`` (the process died before any checkpoint)."""
    data = path.parent.parent / f"{path.name}.items.json"
    data.write_text(json.dumps([turns(0, checkpointed), turns(checkpointed, pending)]))
    code = f"""
import json, os, sqlite3
c = sqlite3.connect({str(path)!r}); c.executescript({SCHEMA!r})
c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("INSERT INTO agent_sessions(session_id) VALUES ('s1')")
first, second = json.load(open({str(data)!r}))
for it in first:
    c.execute("INSERT INTO agent_messages(session_id, message_data) VALUES ('s1', ?)", (json.dumps(it),))
c.commit(); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
for it in second:
    c.execute("INSERT INTO agent_messages(session_id, message_data) VALUES ('s1', ?)", (json.dumps(it),))
c.commit()
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", code], check=True)
    assert os.path.getsize(f"{path}-wal") > 0


def sdk_items(path: Path) -> tuple[str, list[dict]]:
    """What the SDK reads on its next open (its own query), and SQLite's integrity verdict."""
    conn = sqlite3.connect(path)
    try:
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rows = [json.loads(t) for (t,) in conn.execute(
            "SELECT message_data FROM agent_messages WHERE session_id = 's1' ORDER BY id ASC")]
        return ok, rows
    finally:
        conn.close()


def unanswered(items: list[dict]) -> list[str]:
    outs = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
    return [i["call_id"] for i in items if i.get("type") == "function_call" and i["call_id"] not in outs]


@pytest.mark.parametrize("checkpointed", [5, 300])
def test_in_place_on_a_database_with_an_unmerged_wal_keeps_the_repair_and_every_row(tmp_path, checkpointed):
    """R2-01: the repair was undone by the stale ``-wal`` (or the file left malformed), and
    the backup lacked the rows that were only in the ``-wal``."""
    db = tmp_path / "conv.db"
    crashed_wal(db, checkpointed, 5)
    calls = checkpointed + 5
    code, _, err = cli_run("normalize", str(db), "--in-place", "-q")
    assert code == 0, err
    ok, items = sdk_items(db)
    assert ok == "ok"
    assert sum(i.get("type") == "function_call" for i in items) == calls
    assert unanswered(items) == []
    ok, kept = sdk_items(tmp_path / "conv.db.bak")
    assert ok == "ok" and sum(i.get("type") == "function_call" for i in kept) == calls
    assert len(unanswered(kept)) == len([i for i in range(calls) if i % 3 == 0])
    assert open(db, "rb").read(20)[18:20] == b"\x02\x02"     # still a WAL-mode database


def test_batch_over_a_folder_reads_the_rows_still_in_the_wal(tmp_path):
    """R2-02: the repaired copy lacked the rows of the ``-wal``, and the run said success."""
    (tmp_path / "in").mkdir()
    db = tmp_path / "in" / "conv.db"
    crashed_wal(db, 5, 5)
    code, _, err = cli_run("batch", str(tmp_path / "in"), "-o", f"{tmp_path / 'out'}/", "-q", "--workers", "1")
    assert code == 0, err
    ok, items = sdk_items(tmp_path / "out" / "conv.db")
    assert ok == "ok"
    assert sum(i.get("type") == "function_call" for i in items) == 10 and unanswered(items) == []


def test_a_line_appended_while_the_repaired_file_is_written_is_never_lost(tmp_path, monkeypatch):
    """R2-03: the agent appends a line while ``--in-place`` writes and syncs the repaired
    copy (here: at the sync of that copy). Before: "replaced", and the line was in neither
    the file nor the backup. Now the swap is refused and the line is in the file."""
    session = tmp_path / "s.jsonl"
    lines, parent = [], None
    for i in range(2000):    # Claude Code lines, each call left without its result
        entry = {"parentUuid": parent, "isSidechain": False, "type": "user" if i % 2 == 0 else "assistant",
                 "uuid": f"u{i}", "sessionId": "s",
                 "message": {"role": "user", "content": "q" * 200} if i % 2 == 0 else
                 {"id": f"m{i}", "role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "x",
                                                                   "input": {}}]}}
        lines.append(json.dumps(entry))
        parent = f"u{i}"
    session.write_text("\n".join(lines) + "\n")
    late = b'{"type":"user","uuid":"u-late","parentUuid":null,"message":{"role":"user","content":"THE LATE LINE"}}\n'
    real_fsync = os.fsync
    state = {"done": False}

    def agent_writes_during_the_sync(fd):
        if not state["done"] and Path(tmp_path / "s.jsonl.bak").exists():
            state["done"] = True
            with open(session, "ab") as handle:
                handle.write(late)
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", agent_writes_during_the_sync)
    code, _, err = cli_run("normalize", str(session), "--in-place", "-q")
    assert state["done"]
    assert code == 2 and len(err.splitlines()) == 1 and "changed" in err, err
    assert session.read_bytes().endswith(late)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_rows_whose_id_is_not_unique_are_written_back_as_they_were(tmp_path):
    """R2-05: every kept row became the last row ("later" three times), and the question
    and the call were gone."""
    db = tmp_path / "dupid.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE agent_messages (id INTEGER, session_id TEXT, message_data TEXT, created_at TEXT)")
    rows = [{"role": "user", "content": "first question"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"role": "user", "content": "later"}]
    conn.executemany("INSERT INTO agent_messages VALUES (1, 's1', ?, ?)",
                     [(json.dumps(r), str(n)) for n, r in enumerate(rows)])
    conn.commit()
    conn.close()
    code, _, err = cli_run("normalize", str(db), "-o", str(tmp_path / "out.db"), "-q")
    assert code == 0, err
    conn = sqlite3.connect(tmp_path / "out.db")
    got = [json.loads(t) for (t,) in conn.execute("SELECT message_data FROM agent_messages ORDER BY id, rowid")]
    conn.close()
    assert got[:2] == rows[:2] and got[3] == rows[2]
    assert got[2]["type"] == "function_call_output" and got[2]["call_id"] == "c1"


def test_an_fts5_table_is_rewritten_once(tmp_path):
    """R2-05 (FTS5): the output held the orphan twice."""
    db = tmp_path / "fts.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE VIRTUAL TABLE agent_messages USING fts5(id, session_id, message_data, created_at)")
    items = [{"role": "user", "content": "q"},
             {"type": "function_call_output", "call_id": "orphan", "output": "x"},
             {"role": "user", "content": "again"}]
    conn.executemany("INSERT INTO agent_messages (session_id, message_data, created_at) VALUES ('s1', ?, '2025')",
                     [(json.dumps(i),) for i in items])   # the id column left NULL on every row
    conn.commit()
    conn.close()
    assert cli_run("normalize", str(db), "-o", str(tmp_path / "out.db"), "-q")[0] == 0
    conn = sqlite3.connect(tmp_path / "out.db")
    got = [json.loads(t) for (t,) in conn.execute("SELECT message_data FROM agent_messages ORDER BY rowid")]
    conn.close()
    assert got == [items[0], items[2]]


@pytest.mark.parametrize("value", [42, None])
def test_a_session_id_without_text_affinity_is_rewritten_not_doubled(tmp_path, value):
    """R2-20: the repaired rows were added as a new session '42' beside the broken ones."""
    db = tmp_path / "sid.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id, message_data TEXT, created_at TEXT)")
    conn.executemany("INSERT INTO agent_messages (session_id, message_data, created_at) VALUES (?, ?, '1')",
                     [(value, json.dumps(i)) for i in turns(0, 1)])
    conn.commit()
    conn.close()
    out = tmp_path / "out.db"
    assert cli_run("normalize", str(db), "-o", str(out), "-q")[0] == 0
    code, text, err = cli_run("check", str(out))
    assert code == 0, (text, err)
    conn = sqlite3.connect(out)
    kinds = conn.execute("SELECT DISTINCT typeof(session_id) FROM agent_messages").fetchall()
    conn.close()
    assert kinds == [(type(value).__name__.replace("NoneType", "null").replace("int", "integer"),)]


def test_a_damaged_page_is_refused_naming_the_damage(tmp_path):
    """R2-23: ``normalize`` exited 0 and wrote a database SQLite cannot open."""
    good = tmp_path / "good.db"
    conn = sqlite3.connect(good)
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', ?)",
                     [(json.dumps(i) + " " * 900,) for i in turns(0, 30)])
    conn.commit()
    conn.close()
    data = good.read_bytes()
    bad = tmp_path / "bad.db"
    bad.write_bytes(data[:8192] + bytes(range(256)) * 16 + data[12288:])
    for argv in (["check", str(bad)], ["normalize", str(bad), "-o", str(tmp_path / "out.db")]):
        code, _, err = cli_run(*argv)
        assert code == 2 and len(err.splitlines()) == 1, (argv, err)
        assert err.startswith(str(bad)) and ("damaged" in err or "malformed" in err), err
    assert not (tmp_path / "out.db").exists()


@pytest.mark.parametrize("schema", [
    "CREATE TABLE agent_messages (session_id TEXT, message_data TEXT, created_at TEXT)",          # no id
    "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT)",   # no created_at
    "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, created_at TEXT, "
    "owner TEXT NOT NULL)",                                                                       # extra NOT NULL
    'CREATE TABLE "agent""s" (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, created_at TEXT)',
])
def test_schemas_the_sdk_did_not_write_give_an_answer_not_a_traceback(tmp_path, schema):
    """R2-12: these were Python tracebacks with exit 1 (``no such column``, ``NOT NULL
    constraint failed``, a syntax error on a quoted name)."""
    db = tmp_path / "odd.db"
    conn = sqlite3.connect(db)
    conn.execute(schema)
    table = conn.execute("SELECT name FROM sqlite_master").fetchone()[0]
    cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table.replace(chr(34), chr(34) * 2)}")') if r[1] != "id"]
    for item in turns(0, 1):
        values = {"session_id": "s1", "message_data": json.dumps(item), "created_at": "1", "owner": "me"}
        conn.execute(f'INSERT INTO "{table.replace(chr(34), chr(34) * 2)}" ({", ".join(cols)}) '
                     f'VALUES ({", ".join("?" * len(cols))})', [values[c] for c in cols])
    conn.commit()
    conn.close()
    out = tmp_path / "out.db"
    for argv in (["check", str(db)], ["explain", str(db)], ["normalize", str(db), "-o", str(out), "-q"]):
        code, _, err = cli_run(*argv)
        assert "Traceback" not in err and code in (0, 1), (argv, code, err)
    code, _, err = cli_run("check", str(out))
    assert code == 0, err


def test_a_wal_mode_database_comes_back_in_wal_mode_and_unchanged_bytes_when_clean(tmp_path):
    """Issue 25: a WAL-mode database was written back in rollback-journal mode (header
    bytes 18-19), even with nothing to change."""
    for name, items in (("clean.db", turns(1, 2)[:2] + [{"type": "function_call_output", "call_id": "c1",
                                                          "output": "r1"}]), ("broken.db", turns(0, 3))):
        db = tmp_path / name
        conn = sqlite3.connect(db)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(SCHEMA)
        conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', ?)",
                         [(json.dumps(i),) for i in items])
        conn.commit()
        conn.close()                     # the last connection merges the -wal and removes it
        assert not Path(f"{db}-wal").exists()
        out = tmp_path / f"out-{name}"
        assert cli_run("normalize", str(db), "-o", str(out), "-q")[0] == 0
        assert out.read_bytes()[18:20] == b"\x02\x02"
        if name == "clean.db":
            assert out.read_bytes() == db.read_bytes()
        else:
            assert unanswered(sdk_items(out)[1]) == []

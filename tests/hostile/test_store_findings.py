"""What the store-file, SQLite-fault and serve suites found (issue 25), each as a user meets
it through the CLI; every one failed before its fix."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.bundled import samples_dir

from .harness import cli_run
from .stores import STORES, make_file
from .test_sqlite_faults import intact, opencode_db, rows
from .test_store_data_loss import SCHEMA, sdk_items, turns

CODEX = samples_dir() / "22-codex-rollout.jsonl"
CLINE = samples_dir() / "25-roo-code-task.api_conversation_history.json"


def one_line_naming(err: str, path: Path) -> bool:
    return len(err.splitlines()) == 1 and err.startswith(str(path)) and "Traceback" not in err


def test_explain_names_a_run_of_whole_lines(tmp_path):
    """``explain`` on a rollout whose resumed items include consecutive whole lines: the
    mapping assumed ``messages[i..j]`` and raised ValueError (a traceback)."""
    lines = CODEX.read_bytes().splitlines()
    k = max(i for i, line in enumerate(lines) if b'"role":"user"' in line and b"response_item" in line)
    path = tmp_path / "rollout-x.jsonl"
    path.write_bytes(b"\n".join([*lines[:k + 1], lines[k], *lines[k + 1:]]) + b"\n")
    code, out, err = cli_run("explain", str(path))
    assert code == 0, err
    assert b"lines " in out and b".." in out


@pytest.mark.parametrize("store, value", [("codex", {"a": 1}), ("codex", ["function_call"]),
                                          ("cline", ["tool_use"]), ("cline", {"k": "tool_use"})])
def test_a_type_field_that_is_not_text(tmp_path, store, value):
    """A Codex item or a Cline block whose ``type`` is a list or an object: ``unhashable
    type`` (TypeError, a traceback) before."""
    path = tmp_path / STORES[store].file
    if store == "codex":
        lines = [json.loads(line) for line in CODEX.read_text().splitlines()]
        for entry in reversed(lines):          # a call the resume sends (after the compaction)
            if entry.get("type") == "response_item" and entry["payload"].get("call_id"):
                entry["payload"]["type"] = value
                break
        path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    else:
        records = json.loads(CLINE.read_text())
        records[-1]["content"][0]["type"] = value
        path.write_text(json.dumps(records))
    for argv in (["check", str(path)], ["explain", str(path)], ["normalize", str(path), "-o", str(tmp_path / "o")]):
        code, _, err = cli_run(*argv)
        assert code in (0, 1) and "Traceback" not in err, (argv, err)


def test_a_placeholder_whose_call_is_removed_gives_its_declaration_a_result(tmp_path):
    """A Roo Code task whose last turn redeclares an earlier call's id (the agent answers that
    call itself on resume): the repair dropped the redeclared call, which took the agent's
    placeholder with it, and left the first declaration unanswered; ``check`` on the output
    said "resume fails now"."""
    records = json.loads(CLINE.read_text())
    answered = {b.get("tool_use_id") for r in records if isinstance(r["content"], list) for b in r["content"]}
    first = next(b["id"] for r in records[:-1] if r["role"] == "assistant" for b in r["content"]
                 if b.get("type") == "tool_use" and b["id"] not in answered)     # a call left unanswered
    tail = [b for b in records[-1]["content"] if b.get("type") == "tool_use"]
    assert tail, "the sample's last turn has a call"
    tail[0]["id"] = first
    task = tmp_path / "t" / "api_conversation_history.json"
    task.parent.mkdir()
    task.write_text(json.dumps(records))
    out = tmp_path / "out.json"
    assert cli_run("normalize", str(task), "-o", str(out), "-q")[0] == 0
    code, report, err = cli_run("check", str(out), "--from", "cline")
    assert code == 0, (report, err)


@pytest.mark.parametrize("damage", [b"\xff", b"\x00"])
def test_an_opencode_export_that_is_not_json_names_line_and_column(tmp_path, damage):
    """Before: ``FILE: 1:1: opencode-export: not JSON (...)``: the place after the name's
    colon and space, and 1:1 for any byte that is not UTF-8."""
    data = (samples_dir() / "27-opencode-export.json").read_bytes()
    at = data.index(b'"text": "') + 9
    path = tmp_path / "export.json"
    path.write_bytes(data[:at] + damage + data[at:])
    line = data[:at].count(b"\n") + 1
    code, _, err = cli_run("check", str(path), "--from", "opencode-export")
    assert code == 2 and one_line_naming(err, path), err
    assert err.startswith(f"{path}:{line}:"), err


def test_a_part_nested_too_deeply_is_kept_and_check_names_the_file(tmp_path):
    """An OpenCode part whose JSON is nested 1,000 levels deep: ``check`` said "<stdin>:
    nested too deeply" and every command refused the whole database."""
    db = opencode_db(tmp_path / "opencode.db")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE part SET data = ? WHERE rowid = 1", ('{"type":"text","text":' + "[" * 1000 + "]" * 1000 + "}",))
    conn.commit()
    conn.close()
    code, out, err = cli_run("check", str(db))
    assert code in (0, 1) and "<stdin>" not in err and out.startswith(str(db).encode()), (out, err)
    assert cli_run("normalize", str(db), "-o", str(tmp_path / "out.db"), "-q")[0] == 0


def test_a_damaged_opencode_database_is_one_line(tmp_path):
    """A zeroed page: ``sqlite3.DatabaseError: database disk image is malformed``, a traceback."""
    db = opencode_db(tmp_path / "opencode.db")
    data = db.read_bytes()
    db.write_bytes(data[:4096 * 3] + bytes(4096) + data[4096 * 4:])
    for argv in (["check", str(db)], ["normalize", str(db), "-o", str(tmp_path / "out.db")]):
        code, _, err = cli_run(*argv)
        assert code == 2 and one_line_naming(err, db), (argv, err)
        assert "damaged" in err or "readable" in err, err
    assert not (tmp_path / "out.db").exists()


def test_in_place_on_a_live_opencode_database_keeps_the_repair(tmp_path):
    """OpenCode died with commits still in ``opencode.db-wal``: ``--in-place`` swapped a new
    file in beside the old ``-wal``, whose frames the next open laid over it, so the repair
    was undone ("ok" before, "would change" after), and the backup lacked the WAL's rows."""
    db = opencode_db(tmp_path / "opencode.db")
    code = f"""
import json, os, sqlite3
c = sqlite3.connect({str(db)!r}); c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("UPDATE part SET time_updated = time_updated + 1")
mid, sid = c.execute("SELECT id, session_id FROM message ORDER BY time_created DESC LIMIT 1").fetchone()
c.execute("INSERT INTO part VALUES ('prt_zlive', ?, ?, 1, 1, ?)", (mid, sid, json.dumps({{"type": "text", "text": "LIVE"}})))
c.commit()
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", code], check=True)
    assert os.path.getsize(f"{db}-wal") > 0       # (no open here: the last connection would merge it)
    code, _, err = cli_run("normalize", str(db), "--in-place", "-q")
    assert code == 0, err
    assert intact(db)
    code, report, err = cli_run("check", str(db))
    assert code == 0, (report, err)
    now = rows(db, "opencode")
    assert sum("LIVE" in r for r in now) == 1
    kept = rows(Path(f"{db}.bak"), "opencode")
    assert sum("LIVE" in r for r in kept) == 1 and len(kept) > len(now)     # the repair removes a part


def test_a_hot_journal_is_rolled_back_before_anything_is_read(tmp_path):
    """An Agents SDK process died mid-transaction in rollback mode, with 400 uncommitted rows
    already spilled into the main file and their old pages in ``conv.db-journal``: Inspector
    read the main file alone and repaired rows that were never committed (the SDK's next
    open rolls them back)."""
    db = tmp_path / "conv.db"
    conn = sqlite3.connect(db)
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', ?)",
                     [(json.dumps(i),) for i in turns(0, 3)])
    conn.commit()
    conn.close()
    code = f"""
import json, os, sqlite3
c = sqlite3.connect({str(db)!r}); c.execute("PRAGMA cache_size=1"); c.execute("BEGIN")
c.execute("UPDATE agent_messages SET message_data = json_object('type', 'function_call_output', "
          "'call_id', 'ghost-' || id, 'output', 'never committed')")
for i in range(400):
    c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', ?)",
              (json.dumps({{"type": "function_call_output", "call_id": "ghost%d" % i, "output": "x" * 500}}),))
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", code], check=True)
    assert os.path.getsize(f"{db}-journal") > 0
    before = db.read_bytes()
    out = tmp_path / "out.db"
    code_, _, err = cli_run("normalize", str(db), "-o", str(out), "-q")
    assert code_ == 0, err
    assert db.read_bytes() == before and os.path.getsize(f"{db}-journal") > 0    # nothing written beside it
    ok, items = sdk_items(out)
    assert ok == "ok" and not [i for i in items if str(i.get("call_id", "")).startswith("ghost")]
    assert sum(i.get("type") == "function_call" for i in items) == 3


def test_an_sqlite_file_no_store_reads_is_said_to_be_one(tmp_path):
    """Before: ``FILE:1:103: not valid UTF-8 (byte 0xf8)``, the file read as JSON text."""
    db = tmp_path / "other.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.commit()
    conn.close()
    code, _, err = cli_run("check", str(db))
    assert code == 2 and one_line_naming(err, db) and "SQLite database" in err and ":1:" not in err, err


def test_a_backup_killed_while_written_leaves_no_temporary(tmp_path):
    """``--in-place`` writes ``NAME.bak`` before it touches the session; a kill (SIGKILL
    cannot be caught) while the backup is synced left a hidden ``.NAME.bak.XXXX.tmp``."""
    session = tmp_path / "s.jsonl"
    session.write_bytes(make_file(STORES["claude-code"], [], 0))
    script = ("import os, signal, sys\n"
              "from inspector import cli, io\n"
              "def fsync(fd):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
              "io.os.fsync = fsync\n"
              "sys.exit(cli.main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", script, "normalize", str(session), "--in-place", "-q"],
                          capture_output=True, timeout=60)
    assert done.returncode == -9
    left = sorted(p.name for p in tmp_path.iterdir())
    if not _nameless_files_here(tmp_path):
        pytest.skip("files without a name cannot be linked here (no O_TMPFILE, or no right to link them)")
    assert left == ["s.jsonl"], left


def _nameless_files_here(folder: Path) -> bool:
    from inspector import io

    if not hasattr(io, "_anonymous"):       # before the fix: every backup had a name from the start
        return True
    fd = io._anonymous(str(folder))
    if fd is None:
        return False
    os.close(fd)
    return True

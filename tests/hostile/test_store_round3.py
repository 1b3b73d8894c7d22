"""The store failures of the third hostile round (issue 32, R3-xx in the round's README), as a
user meets them through the CLI and the doctor. Each failed before its fix."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.bundled import samples_dir

from sessions import agents_builder as A, cline_builder as CL, goose_builder as G, opencode_builder as O
from .harness import cli_run

CRUSH = samples_dir() / "28-crush-session.db"
SQLITE_FILES = ("-wal", "-shm", "-journal")


def live_pair(dest: Path, build) -> Path:
    """A database whose newest commits are still in its ``-wal``: ``build(conn)`` runs on a WAL
    database with checkpoints off, and the main file and its ``-wal`` are copied to ``dest``
    while the writer still holds them open (as an agent that is running, or died, leaves them)."""
    work = dest.parent / ("." + dest.name + ".build")
    work.mkdir()
    src = work / dest.name
    conn = sqlite3.connect(src)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    build(conn)
    conn.commit()
    for suffix in ("", "-wal"):
        shutil.copyfile(str(src) + suffix, str(dest) + suffix)
    conn.close()
    shutil.rmtree(work)
    assert os.path.getsize(str(dest) + "-wal") > 0
    return dest


def opencode_sessions(monkeypatch, n: int) -> list:
    shared = O.Ids()
    monkeypatch.setattr(O, "Ids", lambda *a: shared)      # ids unique across the sessions
    return [O.duplicate_call() for _ in range(n)]


def opencode_build(sessions: list):
    def build(conn: sqlite3.Connection) -> None:
        conn.executescript(O.SCHEMA)
        conn.execute("INSERT INTO project (id, worktree, vcs, name, time_created, time_updated, sandboxes) "
                     "VALUES (?, ?, 'git', 'shop', ?, ?, '[]')", (O.PROJECT, O.CWD, O.T0, O.T0))
        for s in sessions:
            session, messages, parts = s.rows()
            conn.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
                         "time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", session)
            conn.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", messages)
            conn.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", parts)
    return build


def session_parts(path: Path, sid: str) -> list[tuple[str, str]]:
    """A session's part rows, read with plain sqlite3 (no Inspector)."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT id, data FROM part WHERE session_id = ? ORDER BY id", (sid,)).fetchall()
    finally:
        conn.close()


# -- R3-08: doctor --fix writes every session of a live database -------------------------------

def test_doctor_fix_writes_both_sessions_of_a_live_database(tmp_path, monkeypatch):
    """Two broken sessions, their rows still in the ``-wal``: the copy ``--fix`` writes holds
    both repairs, as its manifest says (it held only the last: each session was read again
    from the live file and its ``-wal``, not from the previous session's output)."""
    sessions = opencode_sessions(monkeypatch, 2)
    app = tmp_path / "app"
    app.mkdir()
    db = live_pair(app / "opencode.db", opencode_build(sessions))
    fix = tmp_path / "fix"
    code, out, err = cli_run("doctor", str(app), "--fix", str(fix))
    manifest = json.loads((fix / "manifest.json").read_text())
    [source] = manifest["sources"]
    copy = Path(source["output"]["path"])
    listed = {s["session"] for s in source["sessions"]}
    assert len(listed) == 2 and source["untouched"]
    changed = {c["session"] for c in source["changes"]}
    assert changed == listed
    for sid in listed:
        # What normalize writes for this session alone is what the copy holds for it.
        alone = tmp_path / f"alone-{sid}.db"
        code, _, err = cli_run("normalize", str(db), "--session", sid, "-o", str(alone))
        assert code == 0, err
        assert session_parts(copy, sid) == session_parts(alone, sid) != session_parts(db, sid)
    for sid in listed:
        code, out, err = cli_run("check", str(copy), "--session", sid)
        assert code == 0 and b"nothing to change" in out, (out, err)


# -- R3-31: a hot journal reads as SQLite reads it, the same from every command ---------------

def hot_journal(folder: Path) -> Path:
    """The review's recipe: Crush's sample in rollback mode, a writer that deleted every message
    and spilled its pages before dying, its hot ``-journal`` left beside the file."""
    scratch = folder.parent / ("." + folder.name)
    scratch.mkdir()
    src = scratch / "crush.db"
    shutil.copyfile(CRUSH, src)
    c = sqlite3.connect(src)
    c.execute("PRAGMA journal_mode=delete")
    c.close()
    c = sqlite3.connect(src, isolation_level=None)
    c.execute("PRAGMA cache_size=1")
    c.execute("BEGIN")
    c.execute("DELETE FROM messages")
    c.execute("CREATE TABLE filler(x)")
    for _ in range(3000):
        c.execute("INSERT INTO filler VALUES (?)", ("x" * 1000,))
    folder.mkdir()
    for name in ("crush.db", "crush.db-journal"):
        shutil.copyfile(scratch / name, folder / name)
    c.execute("ROLLBACK")
    c.close()
    assert (folder / "crush.db-journal").stat().st_size > 0
    return folder / "crush.db"


def test_a_hot_journal_gives_one_answer_from_check_batch_and_doctor(tmp_path):
    db = hot_journal(tmp_path / "hot")
    before = {p.name: p.read_bytes() for p in db.parent.iterdir()}
    conn = sqlite3.connect(f"file:{tmp_path / 'probe.db'}?mode=memory", uri=True)
    conn.close()
    code, out, err = cli_run("check", str(db))
    assert code == 1 and b"dropped 1, synthesized 1" in out, (out, err)       # it said "ok, nothing to change"
    code, out, err = cli_run("batch", str(db.parent), "-o", str(tmp_path / "out") + "/")
    assert code in (0, 1) and "1 changed" in err + out.decode(), (out, err)
    code, out, err = cli_run("doctor", str(db.parent))
    assert b"nothing to do" not in out and b"crush.db" in out, out
    written = tmp_path / "repaired.db"
    code, out, err = cli_run("normalize", str(db), "-o", str(written))
    conn = sqlite3.connect(written)
    try:
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] > 0
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'filler'").fetchone()[0] == 0
    finally:
        conn.close()
    assert {p.name: p.read_bytes() for p in db.parent.iterdir()} == before        # nothing written beside it


# -- R3-02: the Agents SDK writer sets triggers aside and checks what it wrote ------------------

def test_agents_sdk_in_place_is_not_rewritten_by_a_trigger(tmp_path):
    db = tmp_path / "t.db"
    conn = sqlite3.connect(db)
    conn.executescript(A.SCHEMA)
    conn.execute("INSERT INTO agent_sessions (session_id) VALUES ('s')")
    items = [{"role": "user", "content": "KEEP ME 1"},
             {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
             {"role": "user", "content": "KEEP ME 2"}]
    conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?)",
                     [(json.dumps(i),) for i in items])
    conn.execute("CREATE TRIGGER stamp AFTER INSERT ON agent_messages BEGIN UPDATE agent_messages SET "
                 "message_data = json_set(message_data, '$.content', 'REWRITTEN') WHERE id = new.id; END")
    conn.commit()
    conn.close()
    code, out, err = cli_run("normalize", str(db), "--in-place")
    assert code == 0, err
    conn = sqlite3.connect(db)
    try:
        texts = [r[0] for r in conn.execute("SELECT message_data FROM agent_messages ORDER BY id")]
        triggers = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")]
    finally:
        conn.close()
    assert not any("REWRITTEN" in t for t in texts), texts
    assert "KEEP ME 1" in texts[0] and "KEEP ME 2" in texts[-1] and len(texts) == 4
    assert triggers == ["stamp"]                  # put back as it was


# -- R3-26: a store with no session yet ---------------------------------------------------------

@pytest.mark.parametrize("store", ["opencode", "goose", "agents-sqlite"])
def test_a_database_with_no_session_is_ok_and_written_back_as_it_was(tmp_path, store):
    db = tmp_path / {"opencode": "opencode.db", "goose": "sessions.db", "agents-sqlite": "conversations.db"}[store]
    conn = sqlite3.connect(db)
    if store == "opencode":
        conn.executescript(O.SCHEMA)
    elif store == "goose":
        for sql in G.SCHEMA:
            conn.execute(sql)
    else:
        conn.executescript(A.SCHEMA)
    conn.commit()
    conn.close()
    code, out, err = cli_run("check", str(db), "--from", store)
    assert code == 0 and "choose one" not in err, (out, err)
    code, out, err = cli_run("normalize", str(db), "--from", store, "-o", str(tmp_path / "out.db"))
    assert code == 0 and (tmp_path / "out.db").read_bytes() == db.read_bytes(), err


def test_the_doctor_lists_a_fresh_opencode_database_as_ok(tmp_path):
    home = tmp_path / "home"
    store = home / ".local/share/opencode"
    store.mkdir(parents=True)
    conn = sqlite3.connect(store / "opencode.db")
    conn.executescript(O.SCHEMA)
    conn.commit()
    conn.close()
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share"),
           "XDG_CONFIG_HOME": str(home / ".config")}
    proc = subprocess.run([sys.executable, "-m", "inspector", "doctor"], env=env, cwd=tmp_path,
                          capture_output=True, timeout=120)
    line = next(line for line in proc.stdout.decode().splitlines() if "opencode.db" in line)
    assert "UNREADABLE" not in line and "ok" in line, proc.stdout
    assert proc.returncode == 0, proc.stderr


# -- R3-25: a store whose schema and rows are all in its -wal -----------------------------------

def goose_build(conn: sqlite3.Connection) -> None:
    for sql in G.SCHEMA:
        conn.execute(sql)
    sid = "20261201_1"
    messages = G.redeclared()
    conn.execute("INSERT INTO sessions (id, name, working_dir, extension_data, created_at, updated_at, provider_name) "
                 "VALUES (?, ?, '/home/dana/shop', '{}', ?, ?, 'anthropic')",
                 (sid, f"session {sid}", G.stamp(messages[0][2]), G.stamp(messages[-1][2])))
    for j, (role, content, when, meta) in enumerate(messages):
        conn.execute("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, timestamp, "
                     "metadata_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (f"msg_{sid}_{j:04d}", sid, role, G.compact(content), when, G.stamp(when), G.compact(meta)))


def test_a_store_all_in_its_wal_is_found_in_a_folder(tmp_path):
    folder = tmp_path / "app"
    folder.mkdir()
    db = live_pair(folder / "sessions.db", goose_build)
    assert b"content_json" not in db.read_bytes()          # the main file holds no schema yet
    code, out, err = cli_run("check", str(folder))
    assert code == 1 and b"sessions.db" in out, (out, err)  # "is a directory, not a file" before
    code, out, err = cli_run("batch", str(folder), "-o", str(tmp_path / "out") + "/", "-q")
    assert code in (0, 1) and "nothing was read" not in err, err


# -- R3-11: side files that are not regular files ----------------------------------------------

def test_a_fifo_beside_a_store_is_named_or_skipped_not_waited_on(tmp_path):
    root = O.write_storage(tmp_path / "oc/storage", O.clean())
    fifo = next((root / "message").iterdir()) / "msg_zz.json"
    os.mkfifo(fifo)
    session = next(p for p in (root / "session").rglob("*.json"))
    folder = CL.SCENARIOS["truncated"]("cline").write(tmp_path / "cl/saoudrizwan.claude-dev")
    state = folder.parent.parent / "state" / "taskHistory.json"
    state.unlink(missing_ok=True)
    state.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(state)
    for path, want in ((session, 2), (folder / "api_conversation_history.json", None)):
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "inspector", "check", str(path)], capture_output=True,
                              timeout=60)
        assert time.monotonic() - started < 60
        assert b"Traceback" not in proc.stderr
        if want is not None:
            assert proc.returncode == want and b"msg_zz.json" in proc.stderr, proc.stderr


# -- R3-20: Cline ids that are not text ---------------------------------------------------------

@pytest.mark.parametrize("where", ["truncationParent", "condenseParent", "tool_use id", "tool_result id"])
def test_a_cline_id_that_is_a_list_is_one_line(tmp_path, where):
    records = [{"role": "user", "content": [{"type": "text", "text": "go"}], "ts": 1},
               {"role": "assistant", "content": [{"type": "text", "text": "ok"},
                                                 {"type": "tool_use", "id": "t1", "name": "f", "input": {}}], "ts": 2},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}], "ts": 3}]
    if where in ("truncationParent", "condenseParent"):
        records[1][where] = ["t1"]
    elif where == "tool_use id":
        records[1]["content"][1]["id"] = ["t1"]
    else:
        records[2]["content"][0]["tool_use_id"] = {"id": "t1"}
    path = tmp_path / "api_conversation_history.json"
    path.write_text(json.dumps(records))
    code, out, err = cli_run("check", "--from", "cline", str(path))
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith(str(path)), err
    assert "Traceback" not in err and "not text" in err


# -- R3-29: an unreadable subfolder is named -----------------------------------------------------

def test_an_unreadable_subfolder_is_named(tmp_path, monkeypatch):
    from inspector import formats
    root = tmp_path / "in"
    (root / "proj").mkdir(parents=True)
    (root / "locked").mkdir()
    shutil.copyfile(samples_dir() / "21-claude-code-session.jsonl", root / "proj" / "ok.jsonl")
    shutil.copyfile(samples_dir() / "21-claude-code-session.jsonl", root / "locked" / "hidden.jsonl")
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(root / "locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)
    monkeypatch.setattr(os, "scandir", scandir)
    found = list(formats.session_files(root))
    assert str(root / "locked") in found and str(root / "proj" / "ok.jsonl") in found


# -- R3-09 and the journal mode: a repaired copy keeps what the agent needs ---------------------

def test_the_opencode_and_agents_steps_say_to_set_the_old_wal_aside():
    from inspector.doctor.agents import AGENTS
    for name in ("opencode", "agents-sdk", "crush", "goose"):
        step = AGENTS[name].resume
        assert "-wal" in step and ("keep" in step or "aside" in step), (name, step)
    for agent in AGENTS.values():
        assert "keep" in agent.resume, agent.name


def test_a_repaired_opencode_database_keeps_wal_mode(tmp_path, monkeypatch):
    sessions = opencode_sessions(monkeypatch, 1)
    db = O.write_db(tmp_path / "opencode.db", *sessions, wal=True)
    assert db.read_bytes()[18:20] == b"\x02\x02"
    out = tmp_path / "out.db"
    code, _, err = cli_run("normalize", str(db), "-o", str(out))
    assert code == 0, err
    assert out.read_bytes()[18:20] == b"\x02\x02"      # it came back in rollback-journal mode


# -- R3-01: served mode reads a store's sidecars and trees inside the served folder only --------

MARK = "VICTIM-SECRET-7781"


class _ServedApp:
    def __init__(self, root: Path) -> None:
        from inspector.tui import confine
        confine.attach(self, root)


def test_served_mode_reads_no_sidecar_or_shadow_store_outside_the_root(tmp_path, monkeypatch):
    from inspector import pipeline
    from inspector.tui import confine
    outside = tmp_path / "outside"
    outside.mkdir()
    session = O.clean()
    session.user(MARK)
    victim = live_pair(outside / "opencode.db", opencode_build([session]))
    served = tmp_path / "served"
    served.mkdir()
    mine = served / "opencode.db"
    shutil.copyfile(victim, mine)                               # the main file alone: no session yet
    os.symlink(str(victim) + "-wal", str(mine) + "-wal")        # its -wal: a link out, to the victim's
    (served / "served").mkdir()
    os.symlink(victim, served / "served" / "opencode.db")       # a folder named like the root: a shadow
    os.symlink(str(victim) + "-wal", served / "served" / "opencode.db-wal")
    monkeypatch.chdir(served)
    app = _ServedApp(served)
    data = confine.read(confine.of(app), "opencode.db")
    shown = confine.shown(app, str(mine))
    assert shown == "served/opencode.db"
    from inspector.io import InputError
    with confine.reading(app):
        try:
            seen = json.dumps(pipeline.run(data, shown).imported.history, default=str)
        except InputError as exc:        # the main file alone holds no schema: refused, which is fine
            seen = str(exc)
    assert MARK not in seen
    # Outside served mode the same file is read with its -wal, as the agent reads it.
    assert MARK in json.dumps(pipeline.run(mine.read_bytes(), str(mine)).imported.history, default=str)


# -- issue 29: the Go OpenCode (Crush's predecessor) and Gemini CLI sub-agent chats -------------

def test_the_go_opencode_database_is_read_as_crush_and_found_by_the_doctor(tmp_path):
    from inspector.doctor.homes import known_homes
    project = tmp_path / "proj"
    (project / ".opencode").mkdir(parents=True)
    db = project / ".opencode" / "opencode.db"
    shutil.copyfile(CRUSH, db)                  # Crush kept the Go OpenCode's schema
    code, out, err = cli_run("check", str(db))
    assert code in (0, 1) and "not an OpenCode database" not in err, err
    code, out, err = cli_run("explain", str(db), "--json")
    assert code == 0 and json.loads(out)["format"] == "crush", err
    homes = known_homes({"HOME": str(tmp_path / "home")}, project)
    found = [p for h in homes if h.agent == "crush" for p in h.files()]
    assert db in found


def test_gemini_cli_sub_agent_chats_are_listed(tmp_path):
    from inspector.doctor.homes import known_homes
    chats = tmp_path / "home" / ".gemini" / "tmp" / "proj" / "chats"
    (chats / "parent-id").mkdir(parents=True)
    shutil.copyfile(samples_dir() / "23-gemini-cli-session.json", chats / "session-1.json")
    shutil.copyfile(samples_dir() / "23-gemini-cli-session.json", chats / "parent-id" / "session-2.json")
    homes = known_homes({"HOME": str(tmp_path / "home")}, tmp_path)
    found = {p.name for h in homes if h.agent == "gemini-cli" for p in h.files()}
    assert {"session-1.json", "session-2.json"} <= found


# -- R3-12: the store readers and writers are linear ---------------------------------------------

def _goose_chain(n: int) -> bytes:
    """A Goose session of ``n`` turns, one call each, every 10th unanswered (scaling3's chain)."""
    import tempfile
    rows = []
    t0 = 1764600000
    for t in range(n):
        cid = f"c{t}"
        rows.append(("user", [G.text(f"q{t}")], t0 + 3 * t, G.VISIBLE))
        rows.append(("assistant", [G.request(cid, "developer__shell", {"command": "ls"})], t0 + 3 * t + 1, G.VISIBLE))
        if t % 10 != 9:
            rows.append(("user", [G.response(cid, "out")], t0 + 3 * t + 2, G.VISIBLE))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "20250601_3.jsonl"
        G.write_jsonl(path, rows)
        return path.read_bytes()


def test_a_goose_session_with_an_import_note_per_call_is_read_in_linear_time():
    """Each call the agent answers on resume is an import note; each note found its message by
    scanning every message (1k turns 0.16 s, 10k 8.8 s, 100k 1,520 s in scaling3)."""
    from inspector import pipeline

    def best(n: int) -> float:
        data = _goose_chain(n)
        times = []
        for _ in range(2):
            started = time.perf_counter()
            pipeline.run(data, "20250601_3.jsonl")
            times.append(time.perf_counter() - started)
        return min(times)

    small, large = best(1000), best(8000)
    assert large / small < 30, (small, large)          # linear: about 8; quadratic: about 64

"""SQLite faults on the two database stores (Agents SDK, OpenCode), issue 25: damaged pages,
a database another connection holds locked, a WAL another process appends to while
Inspector reads, schemas the agents did not write, and ``normalize --in-place`` killed at
any point. Each case: no traceback, exit 0/1/2 with one line naming the file on failure, no
command past its time bound, any output a database that passes SQLite's check and checks
clean, the agent's committed rows never lost, nothing left beside the store but SQLite's
own files and the documented ``NAME.bak``."""

from __future__ import annotations

import json
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.bundled import samples_dir

from .harness import RUNS, TALLIES, assert_clean_failure
from .store_checks import run, state
from .test_store_data_loss import SCHEMA, turns

CLI = [sys.executable, "-m", "inspector"]
SQLITE_FILES = ("-wal", "-shm", "-journal")
OPENCODE = samples_dir() / "26-opencode-session.db"


# -- databases ------------------------------------------------------------------------------

def agents_db(path: Path, n: int = 40, wal: bool = False, pad: int = 0) -> Path:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO agent_sessions (session_id) VALUES ('s1')")
    conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', ?)",
                     [(json.dumps({**i, "pad": "p" * pad} if pad else i),) for i in turns(0, n)])
    conn.commit()
    conn.close()
    return path


def opencode_db(path: Path, extra_parts: int = 0) -> Path:
    """The OpenCode sample (WAL mode; its repair drops three parts), with ``extra_parts``
    more text parts in its first message to make it larger."""
    shutil.copyfile(OPENCODE, path)
    if extra_parts:
        conn = sqlite3.connect(path)
        mid, sid = conn.execute("SELECT id, session_id FROM message ORDER BY time_created LIMIT 1").fetchone()
        conn.executemany("INSERT INTO part VALUES (?, ?, ?, 1, 1, ?)",
                         [(f"prt_a{k:06d}", mid, sid, json.dumps({"type": "text", "text": f"extra {k} " * 40}))
                          for k in range(extra_parts)])
        conn.commit()
        conn.close()
    return path


STORES = {"agents-sqlite": lambda p: agents_db(p), "opencode": lambda p: opencode_db(p)}
TABLE = {"agents-sqlite": ("agent_messages", "message_data"), "opencode": ("part", "data")}


def rows(path: Path, store: str) -> list:
    """The store's message rows' JSON text, as SQLite reads the file now (WAL and all)."""
    table, column = TABLE[store]
    conn = sqlite3.connect(path)
    try:
        return sorted((r[0] for r in conn.execute(f"SELECT {column} FROM {table}")), key=repr)
    finally:
        conn.close()


def intact(path: Path) -> bool:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def allowed_beside(folder: Path, name: str) -> list[str]:
    """What is in the folder besides the store, SQLite's own files and its backups."""
    ok = {name, *(name + s for s in SQLITE_FILES)}
    return sorted(p.name for p in folder.iterdir()
                  if p.name not in ok and not (p.name.startswith(f"{name}.bak") and not p.name.endswith(".tmp")))


def every_command(db: Path, suite: str, store: str) -> None:
    """check, explain and normalize -o on a database: a clean answer, and an output that
    opens, passes SQLite's check and checks clean in its format; the input untouched."""
    before = state(db)
    out = db.parent / f"out-{db.name}"
    for argv in (["check", str(db)], ["explain", str(db)], ["normalize", str(db), "-o", str(out), "-q"]):
        code, _, err = run(suite, *argv)
        if code == 2:
            assert_clean_failure(code, err, str(db), argv)
        elif argv[0] == "normalize":
            assert code == 0, err
            assert intact(out), "the output does not pass SQLite's check"
            code, text, err = run(suite, "check", str(out), "--from", store)
            assert code == 0, (text, err)
    assert state(db) == before, "the input was touched"


# -- 1. damaged pages -------------------------------------------------------------------------

def damaged(data: bytes, how: str, seed: int) -> bytes:
    size = int.from_bytes(data[16:18], "big") or 65536
    pages = len(data) // size
    rnd = random.Random(seed)
    page = rnd.randrange(1, pages)
    at = page * size
    if how == "zeroed page":
        return data[:at] + bytes(size) + data[at + size:]
    if how == "random page":
        return data[:at] + rnd.randbytes(size) + data[at + size:]
    if how == "random bytes":
        out = bytearray(data)
        for _ in range(16):
            out[rnd.randrange(100, len(out))] = rnd.randrange(256)
        return bytes(out)
    if how == "truncated":
        return data[:at + rnd.randrange(1, size)]
    if how == "schema page":
        return data[:100] + rnd.randbytes(size - 100) + data[size:]
    if how == "page size":
        return data[:16] + b"\x00\x03" + data[18:]
    if how == "page repeated":
        return data[:at] + data[size:2 * size] + data[at + size:]
    raise ValueError(how)


DAMAGE = ["zeroed page", "random page", "random bytes", "truncated", "schema page", "page size", "page repeated"]


@pytest.mark.parametrize("store", sorted(STORES))
@pytest.mark.parametrize("how", DAMAGE)
def test_damaged_pages(tmp_path, store, how):
    good = STORES[store](tmp_path / "good.db")
    data = good.read_bytes()
    for seed in range(3):
        folder = tmp_path / f"case{seed}"
        folder.mkdir()
        db = folder / ("opencode.db" if store == "opencode" else "conv.db")
        db.write_bytes(damaged(data, how, seed))
        every_command(db, "sqlite faults: damaged pages", store)
        assert allowed_beside(folder, db.name) == [f"out-{db.name}"] or allowed_beside(folder, db.name) == []


# -- 2. a database held locked by another connection ------------------------------------------

HOLDER = r"""
import json, os, sqlite3, sys, time
path, store, mode, hold = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
c = sqlite3.connect(path, isolation_level=None)
c.execute("PRAGMA cache_size=1")                       # spill pages to the file before the commit
c.execute("BEGIN EXCLUSIVE" if mode == "exclusive" else "BEGIN IMMEDIATE")
for k in range(200):
    item = json.dumps({"role": "user", "content": f"held {k} " + "h" * 300})
    if store == "agents-sqlite":
        c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', ?)", (item,))
    else:
        mid, sid = c.execute("SELECT id, session_id FROM message ORDER BY time_created LIMIT 1").fetchone()
        c.execute("INSERT INTO part VALUES (?, ?, ?, 1, 1, ?)", (f"prt_h{k:05d}", mid, sid,
                  json.dumps({"type": "text", "text": f"held {k}"})))
print("held", flush=True)
time.sleep(hold)
c.execute("COMMIT")
c.close()
"""


def hold(db: Path, store: str, mode: str, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), store, mode, str(seconds)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"held\n", proc.stderr.read()
    return proc


@pytest.mark.parametrize("store, mode", [("agents-sqlite", "exclusive"), ("agents-sqlite", "wal"),
                                         ("opencode", "wal")])
def test_a_database_another_connection_holds_locked(tmp_path, store, mode):
    """While another connection holds the write lock (uncommitted pages already in the file
    or the WAL): reads see the last commit, ``--in-place`` waits for the lock or refuses;
    afterwards the holder's rows are all there and the file passes SQLite's check."""
    suite = "sqlite faults: locked"
    db = STORES[store](tmp_path / ("opencode.db" if store == "opencode" else "conv.db"))
    if mode == "wal" and store == "agents-sqlite":
        sqlite3.connect(db).execute("PRAGMA journal_mode=WAL").fetchone()
    committed = rows(db, store)
    holder = hold(db, store, mode, 2.0)
    try:
        out = tmp_path / f"out-{db.name}"
        code, _, err = run(suite, "normalize", str(db), "-o", str(out), "-q")
        if code:
            assert_clean_failure(code, err, str(db), "normalize -o")
        else:
            assert intact(out)
            got = rows(out, store)
            assert not [r for r in got if "held" in r] or len([r for r in got if "held" in r]) == 200
            assert all(r in got for r in committed if "function_call_output" not in r and '"tool"' not in r)
        code, _, err = run(suite, "normalize", str(db), "--in-place", "-q")
        if code:
            assert_clean_failure(code, err, str(db), "--in-place")
    finally:
        holder.wait(timeout=30)
    assert holder.returncode == 0, holder.stderr.read()
    assert intact(db)
    assert len([r for r in rows(db, store) if "held" in r]) == 200, "the holder's commit was lost"
    assert allowed_beside(tmp_path, db.name) in ([], [f"out-{db.name}"])


# -- 3. WAL with a writer appending while Inspector reads --------------------------------------

APPENDER = r"""
import json, sqlite3, sys, time
path, store, until = sys.argv[1], sys.argv[2], time.monotonic() + float(sys.argv[3])
c = sqlite3.connect(path, timeout=30)
c.execute("PRAGMA journal_mode=WAL")
k = 0
print("writing", flush=True)
while time.monotonic() < until:
    item = json.dumps({"role": "user", "content": f"live {k:06d}"})
    if store == "agents-sqlite":
        c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', ?)", (item,))
    else:
        mid, sid = c.execute("SELECT id, session_id FROM message ORDER BY time_created LIMIT 1").fetchone()
        c.execute("INSERT INTO part VALUES (?, ?, ?, 1, 1, ?)", (f"prt_l{k:06d}", mid, sid,
                  json.dumps({"type": "text", "text": f"live {k:06d}"})))
    c.commit()
    k += 1
    time.sleep(0.002)
print(k, flush=True)
"""


def live_numbers(found: list) -> list[int]:
    return sorted(int(r.split("live ")[1][:6]) for r in found if "live " in r)


@pytest.mark.parametrize("store", sorted(STORES))
def test_a_wal_with_a_concurrent_writer(tmp_path, store):
    """A snapshot never tears: an output holds the writer's rows 0..k with no gap; an
    ``--in-place`` run either refuses (the file changed) or repairs; every row the writer
    committed is in the file afterwards."""
    suite = "sqlite faults: WAL with a concurrent writer"
    db = STORES[store](tmp_path / ("opencode.db" if store == "opencode" else "conv.db"))
    writer = subprocess.Popen([sys.executable, "-c", APPENDER, str(db), store, "3"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert writer.stdout.readline() == b"writing\n"
    outcomes = []
    try:
        for n in range(3):
            out = tmp_path / f"out{n}-{db.name}"
            code, _, err = run(suite, "normalize", str(db), "-o", str(out), "-q")
            if code:
                assert_clean_failure(code, err, str(db), "normalize -o")
                out.unlink(missing_ok=True)
                continue
            assert intact(out)
            seen = live_numbers(rows(out, store))
            assert seen == list(range(len(seen))), "a torn snapshot"
            code, _, err = run(suite, "check", str(db))     # 0 once an earlier --in-place repaired it
            if code == 2:
                assert_clean_failure(code, err, str(db), "check")
            code, _, err = run(suite, "normalize", str(db), "--in-place", "-q")
            outcomes.append(code)
            if code:
                assert_clean_failure(code, err, str(db), "--in-place")
    finally:
        writer.wait(timeout=60)
    written = int(writer.stdout.readline())
    assert writer.returncode == 0, writer.stderr.read()
    assert intact(db)
    assert live_numbers(rows(db, store)) == list(range(written)), "a row the writer committed was lost"
    TALLIES[f"{suite}: rows the writer committed meanwhile, none lost"] += written
    assert [p for p in allowed_beside(tmp_path, db.name) if not p.startswith("out")] == []


# -- 4. schemas the agents did not write --------------------------------------------------------

AGENT_SCHEMAS = {
    "no messages table": "CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, updated_at TEXT)",
    "no message_data": "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, data TEXT)",
    "extra columns": "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, "
                     "created_at TEXT, tokens INTEGER DEFAULT 0, note TEXT NOT NULL DEFAULT 'x', blob BLOB)",
    "without rowid": "CREATE TABLE agent_messages (id TEXT PRIMARY KEY, session_id TEXT, message_data TEXT, "
                     "created_at TEXT) WITHOUT ROWID",
    "integer session": "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id INTEGER, "
                       "message_data TEXT, created_at TEXT)",
    "a view": "CREATE TABLE raw (id INTEGER PRIMARY KEY, sid TEXT, body TEXT, at TEXT); CREATE VIEW agent_messages "
              "AS SELECT id, sid AS session_id, body AS message_data, at AS created_at FROM raw",
    "blob data": "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data BLOB, "
                 "created_at TEXT)",
}


def agents_schema(path: Path, schema: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
    target = "raw" if "raw" in tables else "agent_messages" if "agent_messages" in tables else None
    if target:
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({target})")]
        for n, item in enumerate(turns(0, 3)):
            values = {"id": str(n) if "WITHOUT" in schema else n + 1, "session_id": 1 if "INTEGER" in schema
                      and "session_id INTEGER" in schema else "s1", "sid": "s1",
                      "message_data": json.dumps(item).encode() if "BLOB" in schema and "message_data BLOB" in schema
                      else json.dumps(item), "body": json.dumps(item), "data": json.dumps(item),
                      "created_at": str(n), "at": str(n), "tokens": 1, "note": "n", "blob": b"\x00\xff"}
            use = [c for c in cols if c in values]
            conn.execute(f"INSERT INTO {target} ({', '.join(use)}) VALUES ({', '.join('?' * len(use))})",
                         [values[c] for c in use])
    conn.commit()
    conn.close()


OPENCODE_SCHEMAS = {
    "no part table": "DROP TABLE part",
    "part without data": "ALTER TABLE part DROP COLUMN data",
    "message without time_created": "DROP INDEX message_session_time_created_id_idx; "
                                    "ALTER TABLE message DROP COLUMN time_created",
    "no session table": "DROP TABLE todo; DROP TABLE session",
    "extra columns": "ALTER TABLE part ADD COLUMN extra TEXT NOT NULL DEFAULT 'kept'; "
                     "ALTER TABLE message ADD COLUMN flags INTEGER",
    "part data not text": "UPDATE part SET data = CAST(data AS BLOB) WHERE rowid % 2 = 0",
    "part data null": "CREATE TABLE p2 AS SELECT * FROM part; DROP TABLE part; ALTER TABLE p2 RENAME TO part; "
                      "UPDATE part SET data = NULL WHERE rowid = 3",
}


def schema_case(tmp_path: Path, store: str, name: str) -> Path:
    if store == "agents-sqlite":
        db = tmp_path / "conv.db"
        agents_schema(db, AGENT_SCHEMAS[name])
        return db
    db = opencode_db(tmp_path / "opencode.db")
    conn = sqlite3.connect(db)
    conn.executescript(OPENCODE_SCHEMAS[name])
    conn.commit()
    conn.close()
    return db


@pytest.mark.parametrize("store, name", [*(("agents-sqlite", n) for n in AGENT_SCHEMAS),
                                         *(("opencode", n) for n in OPENCODE_SCHEMAS)])
def test_a_schema_the_agent_did_not_write(tmp_path, store, name):
    suite = "sqlite faults: wrong schemas"
    db = schema_case(tmp_path, store, name)
    every_command(db, suite, store)
    before = rows_or_none(db, store)
    code, _, err = run(suite, "normalize", str(db), "--in-place", "-q")
    if code:
        assert_clean_failure(code, err, str(db), "--in-place")
        assert rows_or_none(db, store) == before
    assert intact(db)
    assert allowed_beside(tmp_path, db.name) in ([], [f"out-{db.name}"])


def rows_or_none(db: Path, store: str):
    try:
        return rows(db, store)
    except sqlite3.Error:
        return None


# -- 5. --in-place killed at any point ---------------------------------------------------------

def big(store: str, path: Path) -> Path:
    return agents_db(path, n=1500, wal=True, pad=300) if store == "agents-sqlite" else opencode_db(path, 3000)


@pytest.fixture(scope="module")
def kill_cases(tmp_path_factory):
    """Per store: the database, the rows it holds, the rows of its repair, and how long an
    ``--in-place`` run takes (the kills are spread over it)."""
    found = {}
    for store in STORES:
        folder = tmp_path_factory.mktemp(store)
        db = big(store, folder / ("opencode.db" if store == "opencode" else "conv.db"))
        ref = folder / f"ref-{db.name}"
        subprocess.run([*CLI, "normalize", str(db), "-o", str(ref), "-q"], check=True)
        timing = folder / "timing"
        timing.mkdir()
        copy = timing / db.name
        shutil.copyfile(db, copy)
        start = time.monotonic()
        subprocess.run([*CLI, "normalize", str(copy), "--in-place", "-q"], check=True)
        found[store] = (db, rows(db, store), rows(ref, store), time.monotonic() - start)
    return found


FRACTIONS = [0.3, 0.6, 0.8, 1.0, 1.5]


@pytest.mark.parametrize("store", sorted(STORES))
def test_in_place_killed_at_any_point(tmp_path, kill_cases, store):
    """SIGKILL during ``normalize --in-place`` on a database (spread over the run, and right
    when the backup appears): the file is the original or the repair, whole, never a mix;
    a backup left is the whole original; no temporary file is left."""
    suite = "sqlite faults: --in-place killed"
    source, original, repaired, took = kill_cases[store]
    outcomes = []
    for n, when in enumerate([*FRACTIONS, "backup"]):
        folder = tmp_path / f"kill{n}"
        folder.mkdir()
        db = folder / source.name
        shutil.copyfile(source, db)
        proc = subprocess.Popen([*CLI, "normalize", str(db), "--in-place", "-q"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        if when == "backup":
            deadline = time.monotonic() + 30
            while not Path(f"{db}.bak").exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.001)
        else:
            time.sleep(took * when)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        RUNS[suite] += 1
        assert b"Traceback" not in proc.stderr.read()
        proc.stderr.close()
        assert intact(db), f"corrupt after a kill at {when}"
        now = rows(db, store)
        assert now in (original, repaired), f"neither the original nor the repair after a kill at {when}"
        outcomes.append("repaired" if now == repaired else "original")
        bak = Path(f"{db}.bak")
        if bak.exists():
            assert intact(bak) and rows(bak, store) == original, "a backup that is not the whole original"
        assert allowed_beside(folder, db.name) == [], allowed_beside(folder, db.name)
    TALLIES[f"{suite}: kills that left the original"] += outcomes.count("original")
    TALLIES[f"{suite}: kills that left the repair"] += outcomes.count("repaired")

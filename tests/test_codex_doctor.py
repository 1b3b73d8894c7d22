"""The doctor in a fake Codex home: compressed rollouts listed and repaired, a session in both
forms listed once, and the threads of ``state_5.sqlite`` whose rollout is gone.

Codex's layout (openai/codex at 3846901efe60): ``$CODEX_HOME/sessions/YYYY/MM/DD/`` and
``archived_sessions/``; the worker turns a week-idle ``rollout-*.jsonl`` into
``rollout-*.jsonl.zst`` (``codex-rs/rollout/src/compression.rs``); ``state_5.sqlite`` holds
the ``threads`` table (``codex-rs/state/migrations/0001_threads.sql``), whose schema the
fixture creates as Codex's first migration does.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from inspector.doctor import UNREADABLE, fix, found, known_homes, rows_of, scan
from inspector.pipeline import run

from sessions import codex_builder
from test_codex_compressed import broken, codex_reads, problems, zst

DAY = "sessions/2026/10/03"
A = "019a41c8-5d0e-7b12-8c3f-2e6a9d4b7f15"
B = "019a41c8-5d0e-7b12-8c3f-2e6a9d4b7f16"
C = "019a41c8-5d0e-7b12-8c3f-2e6a9d4b7f17"

# 0001_threads.sql, as Codex's first state migration creates it.
THREADS = """CREATE TABLE threads (
    id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, source TEXT NOT NULL, model_provider TEXT NOT NULL,
    cwd TEXT NOT NULL, title TEXT NOT NULL, sandbox_policy TEXT NOT NULL,
    approval_mode TEXT NOT NULL, tokens_used INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0, archived_at INTEGER, git_sha TEXT,
    git_branch TEXT, git_origin_url TEXT)"""


def name(sid: str) -> str:
    return f"rollout-2026-10-03T16-02-00-{sid}.jsonl"


def home_with(tmp_path: Path) -> Path:
    codex = tmp_path / ".codex"
    (codex / DAY).mkdir(parents=True)
    return codex


def clean() -> bytes:
    r = codex_builder.Rollout()
    r.user("What does this repo do?")
    r.say("It bills customers.")
    return r.data()


def threads_db(codex: Path, rows: list[tuple[str, str, str]], wal: bool = False) -> tuple[Path, sqlite3.Connection]:
    db = codex / "state_5.sqlite"
    conn = sqlite3.connect(db)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute(THREADS)
    for sid, path, title in rows:
        conn.execute("INSERT INTO threads VALUES (?, ?, 1, 1, 'cli', 'openai', '/w', ?, '{}', 'never', 0, 0, "
                     "NULL, NULL, NULL, NULL)", (sid, path, title))
    conn.commit()
    if not wal:
        conn.close()
    return db, conn


def test_a_compressed_rollout_is_listed_and_repaired_and_the_old_glob_missed_it(tmp_path):
    codex = home_with(tmp_path)
    packed = codex / DAY / (name(A) + ".zst")
    packed.write_bytes(zst(broken()))
    # The glob the doctor used before finds nothing in this home; Codex's own naming finds it.
    assert list((codex / "sessions").glob("**/rollout-*.jsonl")) == []
    [home] = [h for h in known_homes({"HOME": str(tmp_path)}) if h.agent == "codex" and h.root.name == "sessions"]
    assert list(home.files()) == [packed]
    result = scan(env={"HOME": str(tmp_path)}, cwd=tmp_path)
    [row] = [r for r in result.rows if r.agent == "codex"]
    assert row.path == str(packed) and row.status != UNREADABLE
    assert row.verdict.resume is not None and row.verdict.resume.command == f"codex resume {A}"
    manifest = fix(result.rows, tmp_path / "fixed", result.roots)
    [source] = manifest["sources"]
    copy = Path(source["output"]["path"])
    assert copy.name == name(A)                                   # plain, under the name Codex reads
    assert copy.read_bytes() == run(broken(), name(A)).data
    assert source["untouched"] and packed.read_bytes() == zst(broken())
    put = [s for s in source["steps"] if s["op"] == "put"]
    assert put == [{"op": "put", "from": str(copy), "to": str(codex / DAY / name(A))}]
    # following the steps leaves Codex reading the repair
    aside = next(s for s in source["steps"] if s["op"] == "move-aside")
    Path(aside["path"]).rename(aside["to"])
    Path(put[0]["to"]).write_bytes(copy.read_bytes())
    assert not problems(codex_reads(codex / DAY / name(A)))


def test_a_session_in_both_forms_is_listed_once_as_the_plain_file(tmp_path):
    codex = home_with(tmp_path)
    (codex / DAY / name(A)).write_bytes(clean())
    (codex / DAY / (name(A) + ".zst")).write_bytes(zst(broken()))
    rows = [r for r in scan(env={"HOME": str(tmp_path)}, cwd=tmp_path).rows if r.agent == "codex"]
    assert [Path(r.path).name for r in rows] == [name(A)]


def test_backups_and_repaired_copies_beside_rollouts_are_not_listed(tmp_path):
    codex = home_with(tmp_path)
    (codex / DAY / (name(A) + ".zst.bak")).write_bytes(zst(broken()))
    (codex / DAY / name(A).replace(".jsonl", ".repaired.jsonl")).write_bytes(clean())
    (codex / DAY / (name(B) + ".zst")).write_bytes(zst(clean()))
    rows = [r for r in scan(env={"HOME": str(tmp_path)}, cwd=tmp_path).rows if r.agent == "codex"]
    assert [Path(r.path).name for r in rows] == [name(B) + ".zst"]


def test_threads_whose_rollout_is_gone_each_get_a_row(tmp_path):
    codex = home_with(tmp_path)
    (codex / DAY / (name(A) + ".zst")).write_bytes(zst(clean()))       # present, compressed
    moved = codex / "archived_sessions" / name(B)                       # moved: the row is stale
    moved.parent.mkdir()
    moved.write_bytes(clean())
    threads_db(codex, [(A, str(codex / DAY / name(A)), "billing"),
                       (B, str(codex / DAY / name(B)), "rounding fix"),
                       (C, str(codex / DAY / name(C)), "[bold]gone[/]")])
    rows = scan(env={"HOME": str(tmp_path)}, cwd=tmp_path).rows
    missing = {r.session: r for r in rows if r.verdict.sentence.startswith("missing:")}
    assert set(missing) == {B, C}
    assert all(r.status == UNREADABLE and r.agent == "codex" for r in missing.values())
    assert str(codex / DAY / name(C)) in missing[C].verdict.sentence
    assert "archived_sessions" in missing[B].verdict.sentence and "stale" in missing[B].verdict.sentence
    assert "archived_sessions" not in missing[C].verdict.sentence
    assert missing[B].moved_to == str(moved) and missing[C].moved_to is None


def test_the_browsers_steps_give_the_rows_the_command_line_gives_missing_threads_included(tmp_path):
    """``found`` then ``rows_of`` (the TUI's folder browser, one file at a time) and ``scan``
    (the command line) list the same rows: the missing threads come out of ``found`` with
    their row made, so no view can leave them out. A folder given lists no index rows."""
    codex = home_with(tmp_path)
    (codex / DAY / name(A)).write_bytes(clean())
    threads_db(codex, [(A, str(codex / DAY / name(A)), ""), (C, str(codex / DAY / name(C)), "")])
    env = {"HOME": str(tmp_path)}
    items, _, _ = found(env=env, cwd=tmp_path)
    stepwise = [row for item in items for row in rows_of(item)]
    whole = scan(env=env, cwd=tmp_path).rows
    key = lambda r: (r.path, r.session or "", r.status, r.verdict.sentence, r.label, r.mtime)  # noqa: E731
    assert sorted(map(key, stepwise)) == sorted(map(key, whole))
    [gone] = [item for item in found(env=env, cwd=tmp_path)[0] if item.row is not None]
    assert gone.row.session == C and gone.label == gone.row.label and not gone.path.exists()
    assert not [r for r in scan([str(codex)]).rows if r.verdict.sentence.startswith("missing:")]


def test_codex_sqlite_home_is_where_the_index_is_read(tmp_path):
    codex = home_with(tmp_path)
    elsewhere = tmp_path / "sqlite"
    elsewhere.mkdir()
    threads_db(elsewhere, [(C, str(codex / DAY / name(C)), "")])
    env = {"HOME": str(tmp_path)}
    assert not [r for r in scan(env=env, cwd=tmp_path).rows if r.session == C]
    env["CODEX_SQLITE_HOME"] = str(elsewhere)
    assert [r.session for r in scan(env=env, cwd=tmp_path).rows if r.session == C] == [C]


def test_the_index_is_read_with_its_write_ahead_log(tmp_path):
    """Codex keeps state_5.sqlite in WAL mode: rows not yet checkpointed are in -wal."""
    codex = home_with(tmp_path)
    db, conn = threads_db(codex, [(C, str(codex / DAY / name(C)), "")], wal=True)
    try:
        assert (codex / "state_5.sqlite-wal").stat().st_size > 0
        rows = scan(env={"HOME": str(tmp_path)}, cwd=tmp_path).rows
        assert [r.session for r in rows if r.verdict.sentence.startswith("missing:")] == [C]
    finally:
        conn.close()


def test_an_unreadable_index_is_one_row_not_a_crash(tmp_path):
    codex = home_with(tmp_path)
    (codex / "state_5.sqlite").write_bytes(b"not a database at all, just text" * 8)
    rows = [r for r in scan(env={"HOME": str(tmp_path)}, cwd=tmp_path).rows if r.agent == "codex"]
    [row] = rows
    assert row.status == UNREADABLE and "state_5.sqlite" in row.verdict.sentence
    conn = sqlite3.connect(codex / "other.sqlite")
    conn.execute("CREATE TABLE threads (id TEXT)")
    conn.commit()
    conn.close()
    (codex / "state_5.sqlite").write_bytes((codex / "other.sqlite").read_bytes())
    [row] = [r for r in scan(env={"HOME": str(tmp_path)}, cwd=tmp_path).rows if r.agent == "codex"]
    assert row.status == UNREADABLE and "rollout_path" in row.verdict.sentence


def test_the_row_of_a_compressed_rollout_reads_through_zstd_frames_codex_wrote(tmp_path):
    """Two frames (Codex's encoder writes one; a concatenated file is still one rollout)."""
    codex = home_with(tmp_path)
    data = broken()
    half = data.index(b"\n", len(data) // 2) + 1
    two = zst(data[:half]) + zst(data[half:])
    (codex / DAY / (name(A) + ".zst")).write_bytes(two)
    [row] = [r for r in scan(env={"HOME": str(tmp_path)}, cwd=tmp_path).rows if r.agent == "codex"]
    assert row.verdict.repair.get("result-duplicate") == 1

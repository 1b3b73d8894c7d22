"""Agent session files inside a batch input folder: each is one whole-file record, written to
the mirrored folder with exactly the bytes ``inspector normalize FILE -o OUT`` writes, and
counted in the health report like any other record."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import orjson
import pytest

from inspector import cli
from inspector.batch.job import Job, run_local
from inspector.batch.worker import SESSION_NEEDS_FOLDER
from inspector.bundled import samples_dir
from inspector.pipeline import run_file

SESSIONS = {"21-claude-code-session.jsonl": "", "22-codex-rollout.jsonl": "sub",
            "24-agents-sdk-session.db": "sub"}


def session_folder(root: Path) -> Path:
    """The three session samples (two in a subfolder), a JSON history, and files batch leaves
    alone: a JSONL of request bodies no session format claims, and a text file."""
    src = root / "in"
    (src / "sub").mkdir(parents=True)
    for name, folder in SESSIONS.items():
        shutil.copyfile(samples_dir() / name, src / folder / name)
    shutil.copyfile(samples_dir() / "01-falsy-id.json", src / "01-falsy-id.json")
    (src / "sub" / "records.jsonl").write_bytes(b'{"messages": [{"role": "user", "content": "hi"}]}\n')
    (src / "notes.txt").write_text("not a history")
    return src


def run_job(inputs, output, **kw):
    job = Job(inputs=[str(p) for p in inputs], output=str(output), **kw)
    job.check()
    return run_local(job, live=False)


def normalized(path: Path, tmp_path: Path, *args: str) -> bytes:
    """What ``inspector normalize FILE -o OUT`` writes."""
    out = tmp_path / f"oracle-{path.name}"
    assert cli.main(["normalize", "-q", *args, str(path), "-o", str(out)]) == 0
    data = out.read_bytes()
    out.unlink()
    return data


def event_kinds(outcomes) -> Counter:
    return Counter((e.clause, e.kind) for o in outcomes for e in o.events)


def batch_kinds(health) -> Counter:
    return Counter({key: tally[0] for key, tally in health.kinds.items() if tally[0]})


@pytest.mark.parametrize("workers", [1, 2])
def test_session_files_in_a_folder_equal_normalize(tmp_path, workers):
    src = session_folder(tmp_path)
    out = tmp_path / "out"
    health = run_job([src], str(out) + "/", workers=workers)
    sessions = [src / folder / name for name, folder in SESSIONS.items()]
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == sorted([p.relative_to(src).as_posix() for p in sessions] + ["01-falsy-id.json"])
    for path in sessions:
        assert (out / path.relative_to(src)).read_bytes() == normalized(path, tmp_path), path.name
    outcomes = [run_file(p) for p in sessions] + [run_file(src / "01-falsy-id.json")]
    assert (health.read, health.failed) == (4, 0)
    assert health.changed == sum(o.changed for o in outcomes) > 0
    assert batch_kinds(health) == event_kinds(outcomes)
    assert sum(d * n for d, n in health.histogram.items()) == sum(o.result.dropped for o in outcomes)


def test_broken_session_file_is_one_failure_and_the_rest_proceed(tmp_path, capsys):
    src = session_folder(tmp_path)
    whole = (samples_dir() / "24-agents-sdk-session.db").read_bytes()
    (src / "sub" / "broken.db").write_bytes(whole[:4096])  # still looks like one, but cut short
    out, report, errors = tmp_path / "out", tmp_path / "report.json", tmp_path / "errors.jsonl"
    code = cli.main(["batch", "-q", str(src), "-o", str(out) + "/", "--report", str(report),
                     "--errors", str(errors), "--workers", "1"])
    assert code == 0
    failures = [orjson.loads(line) for line in errors.read_bytes().splitlines()]
    assert len(failures) == 1
    assert failures[0]["source"] == str(src / "sub" / "broken.db")
    assert "not a readable SQLite database" in failures[0]["reason"]
    counts = orjson.loads(report.read_bytes())["records"]
    assert (counts["read"], counts["failed"]) == (5, 1)
    assert not (out / "sub" / "broken.db").exists()
    for name, folder in SESSIONS.items():
        assert (out / folder / name).read_bytes() == normalized(src / folder / name, tmp_path)


def test_database_with_several_sessions_has_every_session_repaired(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    db = src / "two.db"
    shutil.copyfile(samples_dir() / "24-agents-sdk-session.db", db)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO agent_sessions (session_id, created_at, updated_at) "
                 "VALUES ('copy', '2030-01-01 00:00:00', '2030-01-01 00:00:00')")
    conn.execute("INSERT INTO agent_messages (session_id, message_data, created_at) "
                 "SELECT 'copy', message_data, created_at FROM agent_messages WHERE session_id = 'support-42'")
    conn.commit()
    conn.close()
    health = run_job([src], str(tmp_path / "out") + "/", workers=1)
    # normalize --session, once per session, each on what the one before wrote
    first = tmp_path / "first.db"
    first.write_bytes(normalized(db, tmp_path, "--session", "support-42"))
    assert (tmp_path / "out" / "two.db").read_bytes() == normalized(first, tmp_path, "--session", "copy")
    outcomes = [run_file(db, session="support-42"), run_file(first, session="copy")]
    assert (health.read, health.changed, health.failed) == (1, 1, 0)
    assert batch_kinds(health) == event_kinds(outcomes)
    assert run_file(tmp_path / "out" / "two.db", session="copy").changed is False


def test_a_jsonl_file_given_as_input_is_still_read_as_records(tmp_path):
    session = samples_dir() / "21-claude-code-session.jsonl"
    lines = [line for line in session.read_bytes().splitlines() if line.strip()]
    health = run_job([session], tmp_path / "out.jsonl", workers=1)
    assert health.read == len(lines) > 1


def test_session_file_into_a_jsonl_output_is_one_failure(tmp_path):
    src = session_folder(tmp_path)
    errors = tmp_path / "errors.jsonl"
    health = run_job([src], tmp_path / "out.jsonl", workers=1, errors=str(errors))
    failures = [orjson.loads(line) for line in errors.read_bytes().splitlines()]
    assert sorted(Path(f["source"]).name for f in failures) == sorted(SESSIONS)
    assert {f["reason"] for f in failures} == {SESSION_NEEDS_FOLDER}
    assert (health.read, health.failed) == (4, 3)
    assert (tmp_path / "out.jsonl").read_bytes() == normalized(src / "01-falsy-id.json", tmp_path, "--compact")


def test_batch_and_check_of_a_folder_find_the_same_session_files(tmp_path, capsys):
    """An Agents SDK database named ``*.sqlite`` is a session file for both (batch once
    skipped it: "0 records read", exit 0)."""
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    shutil.copyfile(samples_dir() / "24-agents-sdk-session.db", src / "sub" / "agent.sqlite")
    shutil.copyfile(samples_dir() / "21-claude-code-session.jsonl", src / "a.jsonl")
    shutil.copyfile(samples_dir() / "24-agents-sdk-session.db", src / "b.sqlite3")
    (src / "sub" / "records.jsonl").write_bytes(b'{"messages": [{"role": "user", "content": "hi"}]}\n')
    (src / "notes.sqlite").write_text("not a database")
    assert cli.main(["check", str(src)]) == 1
    checked = sorted(line.split(": ", 1)[0] for line in capsys.readouterr().out.splitlines())
    out, report = tmp_path / "out", tmp_path / "report.json"
    assert cli.main(["batch", "-q", str(src), "-o", str(out) + "/", "--report", str(report), "--workers", "1"]) == 0
    written = sorted(str(src / p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert checked == written == sorted(str(p) for p in (src / "a.jsonl", src / "b.sqlite3", src / "sub" / "agent.sqlite"))
    counts = orjson.loads(report.read_bytes())["records"]
    assert (counts["read"], counts["failed"]) == (3, 0)
    assert (out / "sub" / "agent.sqlite").read_bytes() == normalized(src / "sub" / "agent.sqlite", tmp_path)


def test_batch_and_check_walk_a_folder_alike(tmp_path, capsys):
    """Both search hidden folders (agents' homes are hidden: ``~/.claude/projects``) and skip
    the same things: dependency and version-control folders, hidden files (temporaries of an
    atomic write, editors' swap files) and the repaired copies Inspector writes."""
    src = tmp_path / "in"
    session = (samples_dir() / "21-claude-code-session.jsonl").read_bytes()
    for rel in ("a.jsonl", "node_modules/b.jsonl", ".claude/projects/p/c.jsonl", "d.repaired.jsonl",
                ".e.jsonl", ".git/f.jsonl"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(session)
    (src / "sub").mkdir()
    shutil.copyfile(samples_dir() / "24-agents-sdk-session.db", src / "sub" / "g.sqlite3")
    assert cli.main(["check", str(src)]) == 1
    checked = sorted(line.split(": ", 1)[0] for line in capsys.readouterr().out.splitlines())
    out = tmp_path / "out"
    assert cli.main(["batch", "-q", str(src), "-o", str(out) + "/", "--workers", "1"]) == 0
    written = sorted(str(src / p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    expected = sorted(str(src / rel) for rel in ("a.jsonl", ".claude/projects/p/c.jsonl", "sub/g.sqlite3"))
    assert checked == expected
    assert written == expected


def test_a_rows_provider_problems_come_from_every_session_it_holds():
    """A database row is one outcome per session: each can leave problems of its own, and all
    of them are the row's (only the last session's were once counted)."""
    from inspector.batch.changes import tally
    from inspector.pipeline import run_file
    from inspector.targets import check

    sample = samples_dir() / "11-known-limit-separated-result.json"
    one = run_file(sample)
    alone = check(one, "openai-chat")
    assert alone
    change = tally([one, run_file(sample)], "openai-chat")
    assert [p.rule for p in change.problems] == [p.rule for p in alone] * 2

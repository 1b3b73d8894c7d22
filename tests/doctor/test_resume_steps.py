"""Following the manifest of ``doctor --fix`` literally resumes the copy (issue 34).

A fake machine holds a broken session of every agent with a fixture (Claude Code, Codex,
Gemini CLI, OpenCode, Crush, Goose, the Agents SDK, Cline). ``inspector doctor --fix DIR``
writes the copies and ``manifest.json``; this test reads the manifest's structured steps and
does exactly what they say as file operations (move the original aside, put the copy in its
place), checks the command each ``run`` step names against the store as the agent would use
it, then reads back what the agent sends on that resume, with the tests' own resume simulators
(written apart from the importers) where one exists, else with ``pipeline.run_file``, and asks
the target's rules (``targets.check``): no error.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest
from sessions import agents_builder, cline_builder, cline_simulate, crush_simulate, gemini_simulate
from sessions import goose_simulate, opencode_simulate
from sessions import simulate as claude_simulate
from sessions.simulate import rejected

from inspector.doctor.command import main
from inspector.doctor.copies import MANIFEST, steps_sentence
from inspector.pipeline import run_file

from .fakehome import build

CLINE_STORAGE = ".config/Code/User/globalStorage/saoudrizwan.claude-dev"
# The program each agent's command starts (its own binary); the Agents SDK and Cline have none.
BINARY = {"claude-code": "claude", "codex": "codex", "gemini-cli": "gemini", "opencode": "opencode",
          "crush": "crush", "goose": "goose"}


def _sha(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _doctor(args: list[str], home: Path, cwd: Path, monkeypatch: pytest.MonkeyPatch, out: Path) -> dict:
    monkeypatch.setattr("os.environ", {"HOME": str(home)})
    monkeypatch.chdir(cwd)
    main(["--fix", str(out), *args])
    return orjson.loads((out / MANIFEST).read_bytes())


@pytest.fixture
def fixed(tmp_path, monkeypatch):
    """The fake machine (plus a Cline task Cline itself cannot resume), and the manifests of
    ``doctor --fix`` on its homes and on the Agents SDK's project folder."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    build(home, cwd)
    cline_builder.duplicate_result("cline").write(home / CLINE_STORAGE)
    homes = _doctor([], home, cwd, monkeypatch, tmp_path / "fixed")
    app = _doctor([str(cwd / "app")], home, cwd, monkeypatch, tmp_path / "fixed-app")
    return homes["sources"] + app["sources"]


def follow(source: dict) -> list[dict]:
    """Do what the source's steps say, literally; returns the steps that resume a session."""
    resume = []
    for step in source["steps"]:
        op = step["op"]
        if op == "stop":
            continue                                   # nothing runs here to quit
        if op == "move-aside":
            if step.get("if_present") and not os.path.lexists(step["path"]):
                continue
            assert not os.path.lexists(step["to"]), "moving aside must never write over a file"
            os.replace(step["path"], step["to"])
        elif op == "put":
            assert not os.path.lexists(step["to"]), "the original is moved aside before the copy is put"
            if Path(step["from"]).is_dir():
                shutil.copytree(step["from"], step["to"])
            else:
                shutil.copyfile(step["from"], step["to"])
        elif op in ("run", "reopen"):
            resume.append(step)
        else:
            raise AssertionError(f"a step no one can follow: {step}")
    return resume


def _session_in_db(path: str, table: str, sid: str) -> bool:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (sid,)).fetchone() is not None
    finally:
        conn.close()


def sent_problems(agent: str, path: str, session: str | None) -> list[str]:
    """What the provider refuses in what the agent sends on resuming ``session`` of the file
    now in place at ``path``."""
    p = Path(path)
    if agent == "claude-code":
        return claude_simulate.problems(p.read_bytes())
    if agent == "gemini-cli":
        return gemini_simulate.problems(p.read_bytes())
    if agent == "opencode":
        return opencode_simulate.problems(opencode_simulate.resume_db(p, session))
    if agent == "crush":
        return crush_simulate.problems(crush_simulate.resume(p, session))
    if agent == "goose":
        return goose_simulate.problems(goose_simulate.resume_db(p, session))
    if agent == "cline":
        return cline_simulate.problems(p.parent, "cline")
    # No simulator of its own: what the importer reads as sent, judged for the store's provider.
    provider = {"codex": "openai-responses", "agents-sdk": "openai-responses"}[agent]
    return rejected(run_file(path, session=session).imported.messages, provider)


def check_command(agent: str, step: dict, placed: str) -> None:
    """The command names the session the way the agent finds it in the store put in place."""
    argv = shlex.split(step["command"])
    assert argv[0] == BINARY[agent]
    sid = step["session"]
    if agent == "crush":
        assert argv == ["crush"]                       # Crush opens on its list of sessions
        return
    assert argv[-1] == sid
    if agent == "claude-code":
        assert Path(placed).name == f"{sid}.jsonl"      # claude --resume opens <id>.jsonl
    elif agent == "codex":
        assert Path(placed).stem.endswith(sid)         # the rollout is named by its session's UUID
    elif agent == "gemini-cli":
        assert json.loads(Path(placed).read_bytes())["sessionId"] == sid
    elif agent == "opencode":
        assert _session_in_db(placed, "session", sid)
    elif agent == "goose":
        assert _session_in_db(placed, "sessions", sid)


def test_following_the_manifest_resumes_every_store(fixed):
    agents = {s["agent"] for s in fixed}
    assert agents >= {"claude-code", "codex", "gemini-cli", "opencode", "crush", "goose", "agents-sdk", "cline"}
    resumed = set()
    for source in fixed:
        assert source["resume"] == steps_sentence(source["steps"])
        original_sha = source["sha256_before"]
        steps = follow(source)
        agent, path = source["agent"], source["path"]
        aside = next(s["to"] for s in source["steps"] if s["op"] == "move-aside")
        kept = Path(aside) / Path(path).name if Path(aside).is_dir() else Path(aside)
        assert _sha(kept) == original_sha, "the original is kept, unchanged, under its new name"
        assert _sha(path) == source["output"]["sha256"], "the repaired copy is in place"
        if source["format"] == "gemini-cli" and "checkpoint" in path:
            assert steps == []                         # a checkpoint is no session `gemini --resume` opens
            continue
        assert steps, f"no way to resume {path}"
        for step in steps:
            session = step["session"] if source["sessions"][0]["session"] is not None else None
            if step["op"] == "run":
                check_command(agent, step, path)
            else:
                assert agent in ("agents-sdk", "cline") and step["how"]
            db_session = step["session"] if agent in ("opencode", "crush", "goose", "agents-sdk") else None
            assert sent_problems(agent, path, db_session or session) == [], (agent, path, step)
            resumed.add(agent)
    assert resumed == agents


def test_a_database_is_put_in_place_with_no_stale_write_ahead_log(tmp_path, monkeypatch):
    """The -wal beside a database is moved aside with it: left there, it would replay the
    original's commits over the repaired copy."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    (cwd / "app").mkdir(parents=True)
    db = agents_builder.make(cwd / "app" / "conversations.db", {"user-42": agents_builder.orphan_output()})
    Path(f"{db}-wal").write_bytes(b"")          # the log and index the program leaves beside it
    Path(f"{db}-shm").write_bytes(b"")
    [source] = _doctor([str(cwd / "app")], home, cwd, monkeypatch, tmp_path / "fixed")["sources"]
    moved = [s for s in source["steps"] if s["op"] == "move-aside"]
    assert [s["path"] for s in moved] == [str(db), f"{db}-wal", f"{db}-shm"]
    follow(source)
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    assert Path(moved[1]["to"]).exists() and Path(moved[2]["to"]).exists()     # kept with the original
    assert sent_problems("agents-sdk", str(db), "user-42") == []


def test_each_row_carries_its_agents_command_in_text_and_json(tmp_path, monkeypatch, capsys):
    home, cwd = tmp_path / "home", tmp_path / "project"
    build(home, cwd)
    monkeypatch.setattr("os.environ", {"HOME": str(home)})
    monkeypatch.chdir(cwd)
    main(["--json"])
    rows = {Path(r["path"]).name: r for r in orjson.loads(capsys.readouterr().out)["sessions"]}
    assert rows["7d9f2c1e-4b8a-4e55-9a01-3c2b6f0e8d14.jsonl"]["command"] == \
        "claude --resume 7d9f2c1e-4b8a-4e55-9a01-3c2b6f0e8d14"
    assert rows["agent-a3f2c1d0.jsonl"]["command"] is None          # a subagent is no session to resume
    assert rows["sessions.db"]["command"] == "goose session --resume --session-id 20261201_1"
    assert rows["sessions.db"]["resume"]["command"] == rows["sessions.db"]["command"]   # the verdict's own
    main([])
    text = capsys.readouterr().out
    assert "\n                  resume: codex resume 0199d3f2-7c1e-7a40-9b6e-5d2f8e3c1a08\n" in text


def test_an_id_is_data_in_the_command():
    from inspector.formats import REGISTRY

    opencode = REGISTRY["opencode"].agent
    assert opencode.command_for("ses_1; rm -rf ~") == "opencode --session 'ses_1; rm -rf ~'"
    assert opencode.command_for("s1", "/tmp/my copy.db", on_copy=True) == \
        "OPENCODE_DB='/tmp/my copy.db' opencode --session s1"
    assert opencode.command_for(None) is None                       # no id: no command

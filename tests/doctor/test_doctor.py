"""inspector doctor on a fake machine: every agent's sessions found where the agent keeps
them, each with the verdict a resume really gets, and --fix proving the originals untouched."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from inspector.doctor import AGENTS, FAILS, MANIFEST, UNREADABLE, fix, known_homes, scan
from inspector.cli import main as inspector
from inspector.doctor.command import exit_code, row_line
from inspector.formats import REGISTRY
from inspector.io import InputError
from inspector.pipeline import run_file

from . import fakehome


@pytest.fixture()
def machine(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    cwd.mkdir()
    expected = fakehome.build(home, cwd)
    return home, cwd, expected


def _rel(path: str, home: Path, cwd: Path) -> str:
    p = Path(path)
    return str(p.relative_to(home)) if p.is_relative_to(home) else str(p.relative_to(cwd))


def test_every_session_of_every_agent_is_listed_with_its_verdict(machine):
    home, cwd, expected = machine
    result = scan(env=fakehome.env_for(home), cwd=cwd)
    got = {_rel(r.path, home, cwd): r for r in result.rows}
    assert set(got) == set(expected)          # nothing missed, nothing else (the Agents SDK has no home)
    assert len(result.rows) == len(expected)  # each file once, though Crush's registry and the folder both name it
    for rel, status in expected.items():
        row = got[rel]
        if status == "store":
            agent = AGENTS[row.agent]
            if agent.format not in REGISTRY:
                assert row.status == UNREADABLE and "no reader" in row.verdict.sentence
        else:
            assert row.status == status, (rel, row.verdict.sentence)
    agents = {r.agent for r in result.rows}
    assert agents == {"claude-code", "codex", "gemini-cli", "opencode", "cline", "crush", "goose"}


def test_rows_are_newest_first(machine):
    home, cwd, _ = machine
    rows = scan(env=fakehome.env_for(home), cwd=cwd).rows
    times = [r.mtime for r in rows]
    assert times == sorted(times, reverse=True)
    assert rows[0].path.endswith(".crush/crush.db")       # written last by the fake machine


def test_opencode_answers_an_interrupted_call_itself(machine):
    home, cwd, _ = machine
    rows = {Path(r.path).name: r for r in scan(env=fakehome.env_for(home), cwd=cwd).rows}
    v = rows["opencode.db"].verdict
    assert v.status == "agent-repairs", v.sentence
    assert "OpenCode answers a call still pending or running with the error" in v.sentence
    assert "the real result is lost; the tool may have run" in v.sentence


def test_a_failing_session_names_the_provider_rule_and_the_entry(machine):
    home, cwd, _ = machine
    rows = scan(env=fakehome.env_for(home), cwd=cwd).rows
    row = next(r for r in rows if r.path.endswith(f"{fakehome.CLAUDE_ID}.jsonl"))
    assert row.status == FAILS
    assert "fails on resume: anthropic refuses it (tool-use-without-result at lines 6, 7)" in row.verdict.sentence
    assert row.verdict.problems[0]["rule"] == "tool-use-without-result"


def test_claude_code_verdict_depends_on_the_version_that_wrote_the_file(machine):
    home, cwd, _ = machine
    rows = {Path(r.path).name: r for r in scan(env=fakehome.env_for(home), cwd=cwd).rows}
    old = rows["0a1b2c3d-0000-4000-8000-000000000002.jsonl"].verdict
    new = rows["0a1b2c3d-0000-4000-8000-000000000003.jsonl"].verdict
    assert old.version == "2.0.14" and new.version == "2.1.90"
    for v in (old, new):
        assert v.sentence.startswith("resumes because Claude Code repairs it itself"), v.sentence
        assert "refuses" not in v.sentence
    assert "Claude Code 2.0.14 (which wrote it) sends a \"[Tool result missing]\" placeholder" in old.sentence
    assert "the real result is lost" in old.sentence      # before 2.1.80 a placeholder stands for it
    assert "Claude Code 2.1.90 (which wrote it) puts back a result" in new.sentence
    assert "the real result is lost" not in new.sentence


def test_codex_inserts_aborted_itself_and_the_verdict_says_it_is_a_placeholder(machine):
    home, cwd, _ = machine
    rows = scan(env=fakehome.env_for(home), cwd=cwd).rows
    row = next(r for r in rows if codex_id_in(r.path, "5d2f8e3c1a07"))
    assert row.status == "agent-repairs"
    assert "\"aborted\"" in row.verdict.sentence and "the tool may have run" in row.verdict.sentence
    assert row.verdict.repaired_by_agent[0]["source"].startswith("openai/codex")
    assert row.verdict.version == "0.46.0"


def codex_id_in(path: str, tail: str) -> bool:
    return path.endswith(tail + ".jsonl")


def test_given_folders_replace_the_homes_and_a_database_lists_each_session(machine):
    home, cwd, _ = machine
    rows = scan([str(cwd / "app")], env=fakehome.env_for(home)).rows
    assert [(r.session, r.status) for r in sorted(rows, key=lambda r: r.session)] == [("user-42", "fails"),
                                                                                      ("user-43", "ok")]
    assert {r.agent for r in rows} == {"agents-sdk"}
    assert rows[0].label.endswith(f"conversations.db --session {rows[0].session}")


def test_agent_variables_move_the_homes(tmp_path):
    home = tmp_path / "home"
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(tmp_path / "cc"), "CODEX_HOME": str(tmp_path / "cx"),
           "GEMINI_CLI_HOME": str(tmp_path / "gm"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "CRUSH_GLOBAL_DATA": str(tmp_path / "crush"),
           "GOOSE_PATH_ROOT": str(tmp_path / "goose"), "OPENCODE_DB": "other.db"}
    roots = {(h.agent, str(h.root), h.via) for h in known_homes(env, tmp_path)}
    assert ("claude-code", str(tmp_path / "cc"), "CLAUDE_CONFIG_DIR") in roots
    assert ("codex", str(tmp_path / "cx" / "sessions"), "CODEX_HOME") in roots
    assert ("gemini-cli", str(tmp_path / "gm" / ".gemini" / "tmp"), "GEMINI_CLI_HOME") in roots
    assert ("opencode", str(tmp_path / "data" / "opencode"), "XDG_DATA_HOME") in roots
    assert ("opencode", str(tmp_path / "data" / "opencode" / "other.db"), "OPENCODE_DB") in roots
    assert ("cline", str(tmp_path / "config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks"),
            "XDG_CONFIG_HOME") in roots
    assert ("crush", str(tmp_path / "crush"), "CRUSH_GLOBAL_DATA") in roots
    assert ("goose", str(tmp_path / "goose" / "data" / "sessions"), "GOOSE_PATH_ROOT") in roots
    # The defaults are not scanned in their place.
    assert not any(r == str(home / ".claude") or r.startswith(str(home / ".codex")) for _, r, _ in roots)


def test_the_cline_family_is_looked_for_in_every_editor_on_every_system(tmp_path):
    env = {"HOME": str(tmp_path), "APPDATA": str(tmp_path / "AppData" / "Roaming")}
    roots = {str(h.root) for h in known_homes(env, tmp_path) if h.agent == "cline"}
    for user in (".config/Code/User", "Library/Application Support/Cursor/User", "AppData/Roaming/VSCodium/User",
                 ".config/Code - Insiders/User"):
        for ext in ("saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code"):
            assert str(tmp_path / user / "globalStorage" / ext / "tasks") in roots


def _hashes(*roots: Path) -> dict[str, str]:
    return {p: hashlib.sha256(b).hexdigest() for p, b in fakehome.tree_hashes(*roots).items()}


def test_fix_writes_copies_and_a_manifest_and_leaves_every_source_byte_identical(machine, tmp_path):
    home, cwd, _ = machine
    before = _hashes(home, cwd)
    result = scan(env=fakehome.env_for(home), cwd=cwd)
    out = tmp_path / "repaired"
    manifest = fix(result.rows, out, result.roots)
    assert _hashes(home, cwd) == before                     # not one byte of either tree changed
    on_disk = orjson.loads((out / MANIFEST).read_bytes())
    assert on_disk == orjson.loads(orjson.dumps(manifest))
    assert on_disk["untouched"] is True
    # a session the agent repairs itself that MEM-5 leaves as it is has nothing to copy
    needing = {r.path for r in result.rows if r.status in ("fails", "agent-repairs", "changes")
               and r.verdict.resume.changed}
    assert {s["path"] for s in on_disk["sources"]} == needing
    for source in on_disk["sources"]:
        assert source["sha256_before"] == source["sha256_after"] == before[source["path"]]
        assert source["size"] == Path(source["path"]).stat().st_size
        output = Path(source["output"]["path"])
        assert output.is_relative_to(out / source["agent"])
        assert hashlib.sha256(output.read_bytes()).hexdigest() == source["output"]["sha256"]
        assert source["changes"] and all(c["kind"] and c["clause"] for c in source["changes"])
    # A made-up "interrupted" result says its tool may have run.
    guessed = [c for s in on_disk["sources"] for c in s["changes"] if c["kind"] == "result-synthesized"]
    assert guessed and all(c["side_effects"] == "unknown" for c in guessed)
    assert not any(c.get("side_effects") for s in on_disk["sources"] for c in s["changes"]
                   if c["kind"] != "result-synthesized")
    # The copies resume: the doctor finds nothing in them the provider would refuse.
    again = scan([str(out)], env=fakehome.env_for(home))
    assert again.rows and not [r for r in again.rows if r.status == FAILS]


def test_fix_repairs_every_session_of_one_database_into_one_copy(machine, tmp_path):
    home, cwd, _ = machine
    db = cwd / "app" / "conversations.db"
    agents_builder = __import__("sessions.agents_builder", fromlist=["make"])
    db.unlink()
    agents_builder.make(db, {"a": agents_builder.orphan_output(), "b": agents_builder.orphan_output()})
    result = scan([str(cwd / "app")], env=fakehome.env_for(home))
    manifest = fix(result.rows, tmp_path / "out", result.roots)
    [source] = manifest["sources"]
    assert [s["session"] for s in source["sessions"]] == ["a", "b"]
    copy = source["output"]["path"]
    for sid in ("a", "b"):
        assert not run_file(copy, session=sid).changed


@pytest.mark.parametrize("where", ["inside", "not-empty"])
def test_fix_refuses_a_folder_inside_a_home_or_one_that_has_files(machine, tmp_path, where):
    home, cwd, _ = machine
    result = scan(env=fakehome.env_for(home), cwd=cwd)
    out = home / ".claude" / "repaired" if where == "inside" else tmp_path / "full"
    if where == "not-empty":
        out.mkdir()
        (out / "keep.txt").write_text("mine")
    before = _hashes(home, cwd, tmp_path / "full") if where == "not-empty" else _hashes(home, cwd)
    with pytest.raises(InputError):
        fix(result.rows, out, result.roots)
    after = _hashes(home, cwd, tmp_path / "full") if where == "not-empty" else _hashes(home, cwd)
    assert after == before and (where == "not-empty" or not out.exists())


def main(argv: list[str]) -> int:
    return inspector(["doctor", *argv])


def test_command_line_text_json_and_exit_codes(machine, tmp_path, monkeypatch, capsys):
    home, cwd, _ = machine
    monkeypatch.setattr("os.environ", {"HOME": str(home)})
    monkeypatch.chdir(cwd)
    assert main([]) == 2                                   # the fake home has an unreadable session
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line[:4].isdigit()]
    assert len(lines) == len(scan(env={"HOME": str(home)}, cwd=cwd).rows)
    assert any(line[18:].startswith("fails ") and "tool-use-without-result" in line for line in lines)
    assert "next: inspector doctor --fix DIR" in out
    assert main(["--json", str(cwd / "app")]) == 1
    report = orjson.loads(capsys.readouterr().out)
    assert report["counts"] == {"fails": 1, "ok": 1}
    assert {s["session"] for s in report["sessions"]} == {"user-42", "user-43"}
    assert main(["--fix", str(tmp_path / "copies"), str(cwd / "app")]) == 1
    assert "byte-identical" in capsys.readouterr().out
    assert (tmp_path / "copies" / MANIFEST).exists()
    assert main(["--fix", str(cwd / "app" / "x"), str(cwd / "app")]) == 2
    assert "inside a scanned folder" in capsys.readouterr().err
    assert not (cwd / "app" / "x").exists()


def test_doctor_is_a_subcommand_of_inspector(capsys):
    with pytest.raises(SystemExit) as stop:
        inspector(["--help"])
    assert stop.value.code == 0
    assert "doctor" in capsys.readouterr().out


def test_file_names_are_data_on_the_screen(tmp_path):
    odd = tmp_path / "evil\x1b[31m.jsonl"
    odd.write_bytes(fakehome.scenarios.crash_missing_result())
    [row] = scan([str(tmp_path)], env={"HOME": str(tmp_path)}).rows
    line = row_line(row)
    assert "\x1b" not in line and "\\x1b" in line
    assert exit_code([row]) == 1


def _leading_orphan(version: str) -> bytes:
    """A chain that starts at a tool result whose call is gone (Claude Code 2.1.69's case)."""
    s = fakehome.Session(version=version)
    s.result("toolu_01Gone", "made build", parent=None)
    s.user("Let's run the tests instead.")
    s.assistant("msg_01P1lo1", fakehome.text("Running them."))
    return s.data()


def test_an_orphan_result_opening_the_chain_is_repaired_by_claude_code_since_2_1_69(tmp_path):
    (tmp_path / "new.jsonl").write_bytes(_leading_orphan("2.1.90"))
    (tmp_path / "old.jsonl").write_bytes(_leading_orphan("2.0.14"))
    rows = {Path(r.path).stem: r for r in scan([str(tmp_path)], env={"HOME": str(tmp_path)}).rows}
    # the version that wrote a session is the evidence of what is sent: 2.0.14 sends the orphan
    # and is refused (the sentence says a newer build repairs it); 2.1.90 leaves it out itself
    for name, status in (("new", "agent-repairs"), ("old", "fails")):
        v = rows[name].verdict
        assert v.status == status, v.sentence
        assert "since 2.1.69" in v.sentence or "2.1.90 (which wrote it)" in v.sentence
        assert v.repaired_by_agent[0]["rule"] == "result-without-tool-use"
    assert "Claude Code 2.0.14 (which wrote it) sends it, and the provider refuses it" in rows["old"].verdict.sentence
    assert "Claude Code 2.1.90 (which wrote it) leaves out the orphaned tool result" in rows["new"].verdict.sentence


def test_an_orphan_result_later_in_the_chain_is_still_refused(tmp_path):
    (tmp_path / "s.jsonl").write_bytes(fakehome.scenarios.orphan_after_compaction())
    [row] = scan([str(tmp_path)], env={"HOME": str(tmp_path)}).rows
    assert row.status == FAILS and "result-without-tool-use" in row.verdict.sentence


def test_an_unreadable_claude_code_file_says_what_claude_code_does_with_it(machine):
    home, cwd, _ = machine
    rows = scan(env=fakehome.env_for(home), cwd=cwd).rows
    [row] = [r for r in rows if r.status == UNREADABLE and r.agent == "claude-code"]
    assert row.verdict.sentence.startswith("unreadable: 2:1: ")     # line:column, the file is on the row
    assert "since 2.1.121 skips a line" in row.verdict.sentence


def test_fix_hashes_a_databases_write_ahead_log_too(tmp_path):
    db = tmp_path / "app" / "conversations.db"
    db.parent.mkdir()
    fakehome.agents_builder.make(db, {"a": fakehome.agents_builder.orphan_output()})
    (tmp_path / "app" / "conversations.db-wal").write_bytes(b"")      # an empty log: nothing unmerged
    result = scan([str(db.parent)], env={"HOME": str(tmp_path)})
    manifest = fix(result.rows, tmp_path / "out", result.roots)
    [source] = manifest["sources"]
    [wal] = source["sidecars"]
    assert wal["path"].endswith("-wal") and wal["sha256_before"] == wal["sha256_after"]
    assert source["untouched"] is True


def test_a_source_the_agent_writes_during_the_fix_is_reported_as_changed(tmp_path, monkeypatch):
    session = tmp_path / "s.jsonl"
    session.write_bytes(fakehome.scenarios.crash_missing_result())
    result = scan([str(tmp_path)], env={"HOME": str(tmp_path)})
    import inspector.doctor.copies as fixing

    real = fixing.run

    def agent_writes(*args, **kwargs):
        out = real(*args, **kwargs)
        with open(session, "ab") as handle:          # the agent appends a line meanwhile
            handle.write(b'{"type": "summary", "summary": "x", "leafUuid": null}\n')
        return out

    monkeypatch.setattr(fixing, "run", agent_writes)
    manifest = fix(result.rows, tmp_path.parent / (tmp_path.name + "-out"), result.roots)
    [source] = manifest["sources"]
    assert source["untouched"] is False and manifest["untouched"] is False
    assert source["sha256_before"] != source["sha256_after"]


def test_a_session_with_a_refused_breakage_fails_even_when_the_agent_repairs_another(tmp_path):
    s = fakehome.Session(version="2.1.90")
    fakehome.scenarios.opening(s)
    a1, a2 = s.assistant("msg_01F8oc1", fakehome.tool("toolu_01Cart", "cat cart.py"),
                         fakehome.tool("toolu_01Tax", "cat tax.py"))
    s.result("toolu_01Cart", "def total(): ...", parent=a1["uuid"])     # recovered by Claude Code itself
    s.result("toolu_01Tax", "RATE = 0.2", parent=a2["uuid"])
    s.assistant("msg_01Q1mx2", fakehome.tool("toolu_01Cat", "cat shop.py"))   # killed: no result, refused
    s.user("Where were we?")
    (tmp_path / "s.jsonl").write_bytes(s.data())
    [row] = scan([str(tmp_path)], env={"HOME": str(tmp_path)}).rows
    v = row.verdict
    assert v.status == FAILS, v.sentence
    assert v.sentence.startswith("fails on resume: anthropic refuses it (tool-use-without-result")
    assert "Claude Code 2.1.90 (which wrote it) puts back a result" in v.sentence
    assert {c for p in v.repaired_by_agent for c in p["calls"]} <= {"toolu_01Cart", "toolu_01Tax"}


def test_copies_mirror_the_home_so_editors_and_extensions_stay_apart(machine, tmp_path):
    home, cwd, _ = machine
    result = scan(env=fakehome.env_for(home), cwd=cwd)
    manifest = fix(result.rows, tmp_path / "out", result.roots)
    outputs = {s["path"]: s["output"]["path"] for s in manifest["sources"]}
    for source, output in outputs.items():
        if Path(source).is_relative_to(home):
            agent = next(r.agent for r in result.rows if r.path == source)
            assert output == str(tmp_path / "out" / agent / Path(source).relative_to(home))
    assert len(set(outputs.values())) == len(outputs)


def test_a_cline_task_is_copied_whole(tmp_path, monkeypatch):
    task = tmp_path / "home/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1760260800000"
    task.mkdir(parents=True)
    history = task / "api_conversation_history.json"
    history.write_bytes(b"[]")
    (task / "ui_messages.json").write_bytes(b'[{"ts": 1, "type": "say", "say": "text", "text": "hi"}]')
    (task / "task_metadata.json").write_bytes(b'{"files_in_context": []}')
    import inspector.doctor.copies as copies
    from inspector.doctor.scan import Row
    from inspector.doctor.verdict import RowVerdict

    row = Row("cline", str(history), None, "task", 0.0, str(task.parent), "t/api_conversation_history.json", "cline",
              RowVerdict("fails", "test"))
    monkeypatch.setattr(copies, "run", lambda data, name, session=None: _Rewritten())
    manifest = fix([row], tmp_path / "out", [str(tmp_path / "home")])
    [source] = manifest["sources"]
    names = sorted(Path(c["output"]).name for c in source["carried"])
    assert names == ["task_metadata.json", "ui_messages.json"]
    assert Path(source["output"]["path"]).read_bytes() == b"[ ]"
    for c in source["carried"]:
        assert Path(c["output"]).read_bytes() == Path(c["path"]).read_bytes()
    assert source["untouched"] is True


class _Rewritten:
    """A pipeline outcome with no events that rewrites the history (the copy logic alone is under test)."""

    events: list = []
    changed = True
    imported = None
    data = b"[ ]"


def test_a_row_the_import_adds_is_no_repair_unless_the_format_declares_it(tmp_path):
    """Only a self-repair the format declares (``Format.repairs``) is the agent's own: an
    import event of another kind, even one that adds a row, claims nothing."""
    from inspector.doctor import judge
    from inspector.engine import Event
    from inspector.pipeline import run

    out = run(fakehome.scenarios.split_and_clean(), "s.jsonl")
    assert judge(out).status == "ok"
    out.imported.events.append(Event("import", "import", "result-synthesized", False, 3, None, "toolu_01Edit",
                                     "an event no claim declares"))
    assert judge(out).status == "ok"


def test_an_ok_session_says_how_the_agents_reader_took_it(tmp_path):
    from inspector.doctor import AGENTS, judge
    from inspector.engine import Event
    from inspector.pipeline import run

    out = run(fakehome.scenarios.split_and_clean(), "s.jsonl")
    out.imported.events.append(Event("import", "import", "chain-broken", False, 0, None, None, "a note"))
    v = judge(out)
    assert v.status == "ok" and v.sentence == "ok: nothing to do"


def test_the_help_names_every_agent_whose_home_the_doctor_knows(capsys):
    """The help listed seven agents while the doctor read the homes of ten."""
    with pytest.raises(SystemExit):
        inspector(["doctor", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    homes = {h.agent for h in known_homes({"HOME": "/nowhere"}, "/nowhere")}
    assert len(homes) >= 10
    assert [AGENTS[a].title for a in sorted(homes) if AGENTS[a].title not in said] == []


def test_a_path_given_that_is_missing_is_named_not_no_agent_home(tmp_path, capsys):
    """`doctor nope.json` said "no agent home found", as if it had looked in the homes."""
    assert inspector(["doctor", str(tmp_path / "nope.json")]) == 2
    out = capsys.readouterr().out
    assert "no agent home found" not in out
    assert f"home: given       {tmp_path / 'nope.json'}  (not found)" in out


def test_a_flat_history_the_doctor_would_change_says_mem5_once(tmp_path, capsys):
    from inspector.bundled import samples_dir

    (tmp_path / "h.json").write_bytes((samples_dir() / "01-falsy-id.json").read_bytes())
    inspector(["doctor", str(tmp_path / "h.json")])
    line = next(l for l in capsys.readouterr().out.splitlines() if "h.json:" in l)
    assert line.count("MEM-5") == 1 and "would change" in line

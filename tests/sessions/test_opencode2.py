"""OpenCode 2.x sessions (``session_message`` rows) built from OpenCode 2's schema and source
(``opencode2_builder``): read beside V1 sessions, broken ones refused by the independent resume
simulator before repair and accepted after, OpenCode 2's own settling of interrupted tools left
to it, untouched rows byte-identical, the repaired copy a fixed point."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from inspector.formats import import_history
from inspector.formats import opencode as oc
from inspector.io import InputError
from inspector.pipeline import run_file

from . import opencode2_builder as b
from . import opencode2_simulate as sim
from . import opencode_builder as v1

FINE = {"clean": b.clean, **b.SELF_REPAIRED, **b.REUSED}
TABLES = ("project", "session", "message", "part", "session_message")


def table(path: Path, name: str) -> set[tuple]:
    conn = sqlite3.connect(path)
    try:
        return set(conn.execute(f'SELECT rowid, * FROM "{name}"'))
    finally:
        conn.close()


@pytest.mark.parametrize("name", sorted(b.BROKEN))
def test_a_broken_session_is_repaired_by_rows_and_resumes(name, tmp_path):
    s = b.BROKEN[name]()
    db = b.write_db(tmp_path / "opencode.db", s, wal=True)
    assert sim.problems(sim.resume_db(db))
    out = run_file(db)
    assert out.imported.format == "opencode" and out.changed
    repaired = tmp_path / "opencode.repaired.db"
    repaired.write_bytes(out.data)
    assert sim.problems(sim.resume_db(repaired)) == []
    # One session_message row is written again; every other row of every table keeps its bytes.
    before, after = table(db, "session_message"), table(repaired, "session_message")
    assert len(before - after) == 1 and len(after - before) == 1
    (old,), (new,) = before - after, after - before
    assert old[:7] == new[:7]                 # rowid, id, session, type, seq, times: only data differs
    kept = json.loads(new[7])["content"]
    assert len(kept) == len(json.loads(old[7])["content"]) - 1 and all(i in json.loads(old[7])["content"]
                                                                        for i in kept)
    for t in ("project", "session", "message", "part"):
        assert table(repaired, t) == table(db, t)
    kinds = [e.kind for e in out.export_events]
    assert kinds.count("entry-removed") == 1
    again = run_file(repaired)
    assert not again.changed and not again.result.events and again.data == repaired.read_bytes()


@pytest.mark.parametrize("name", sorted(FINE))
def test_what_needs_nothing_comes_back_byte_identical(name, tmp_path):
    db = b.write_db(tmp_path / "opencode.db", FINE[name]())
    assert sim.problems(sim.resume_db(db)) == []
    out = run_file(db)
    assert not out.changed and out.data == db.read_bytes()


ALL = {**FINE, **b.BROKEN, **b.UNSIGNED, "sample": b.sample}


@pytest.mark.parametrize("name", sorted(ALL))
def test_import_reads_what_opencode_2_sends(name, tmp_path):
    db = b.write_db(tmp_path / "opencode.db", ALL[name]())
    # Read as Anthropic pairs it: ids reused by complete pairs get their identities (issue 30).
    sent = import_history(sim.resume_db(db)["messages"], "<sim>", "anthropic").messages
    assert run_file(db).imported.messages == sent


def test_an_interrupted_tool_is_opencode_2s_own_repair_not_a_change(tmp_path):
    db = b.write_db(tmp_path / "opencode.db", b.crash_running())
    out = run_file(db)
    assert not out.changed
    notes = [e for e in out.imported.events if e.kind == "agent-settled"]
    assert len(notes) == 1 and notes[0].tool_call_id == "toolu_01Edit"
    result = next(m for m in out.imported.messages if m.get("role") == "tool" and m["tool_call_id"] == "toolu_01Edit")
    assert result["content"] == "Tool execution interrupted: edit"
    resume = oc.FORMAT.on_resume(out.imported)
    assert resume.version == b.VERSION and [r.kind for r, _ in resume.cases] == ["agent-settled"]


def test_rows_before_a_finished_compaction_are_not_sent(tmp_path):
    s = b.compacted()
    db = b.write_db(tmp_path / "opencode.db", s)
    out = run_file(db)
    assert not out.changed                   # the duplicate sits before the compaction
    assert out.imported.messages[0]["content"].startswith("<conversation-checkpoint>")
    assert "entry-not-sent" in [e.kind for e in out.imported.events]


def test_another_models_reasoning_goes_as_text_and_ran_on_names_both_models(tmp_path):
    db = b.write_db(tmp_path / "opencode.db", b.foreign_reasoning())
    out = run_file(db)
    first = next(m for m in out.imported.messages if m.get("role") == "assistant")
    assert first["content"] == "Look at the rounding."
    assert oc.FORMAT.ran_on(out.imported) == [("openai", "gpt-5"), ("anthropic", "claude-sonnet-4-5")]


def test_a_database_holding_v1_and_2x_sessions_lists_both_and_repairs_each_its_way(tmp_path):
    two = b.duplicate_in_turn()
    old = v1.duplicate_call()
    db = b.write_db(tmp_path / "opencode.db", two, v1_sessions=(old,))
    listed = {s.id: s for s in oc.listing(oc.parse(db.read_bytes(), str(db)))}
    assert set(listed) == {two.id, old.id}
    assert listed[two.id].first_user.startswith("The cart total") and listed[two.id].items == len(two.messages)
    with pytest.raises(InputError, match="holds 2 sessions"):
        run_file(db)
    for sid in (two.id, old.id):
        out = run_file(db, session=sid)
        assert out.changed
        repaired = tmp_path / f"{sid}.db"
        repaired.write_bytes(out.data)
        other = "part" if sid == two.id else "session_message"
        assert table(repaired, other) == table(db, other)      # the other session's store is untouched
        assert not run_file(repaired, session=sid).changed


def test_a_session_opencode_2_copied_over_is_read_where_it_continues(tmp_path):
    """Upgrading leaves the V1 rows behind under the same session id; OpenCode 2 reads session_message."""
    old = v1.duplicate_call()
    two = b.clean()
    two.id = old.id
    db = b.write_db(tmp_path / "opencode.db", two)
    conn = sqlite3.connect(db)
    _, messages, parts = old.rows()
    conn.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", messages)
    conn.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", parts)
    conn.commit()
    conn.close()
    out = run_file(db)
    assert out.imported.state.v2 and not out.changed


def test_a_session_v2_table_is_read_with_its_title_and_model(tmp_path):
    s = b.foreign_reasoning()
    db = b.write_db(tmp_path / "opencode.db", s, session_table="session_v2")
    parsed = oc.parse(db.read_bytes(), str(db))
    assert parsed.titles[s.id][0] == s.title and parsed.v2info[s.id]["table"] == "session_v2"
    out = run_file(db)
    assert out.imported.state.model == {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}


def test_a_row_opencode_2_cannot_decode_is_named_and_kept(tmp_path):
    s = b.clean()
    db = b.write_db(tmp_path / "opencode.db", s)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE session_message SET data = '{not json' WHERE seq = 3")
    conn.commit()
    conn.close()
    out = run_file(db)
    notes = [e.message for e in out.imported.events if e.kind == "entry-skipped"]
    assert len(notes) == 1 and s.messages[2][0] in notes[0] and "does not resume" in notes[0]
    assert out.data == db.read_bytes()


@pytest.mark.parametrize("session_table", ["session", "session_v2"])
def test_in_place_writes_only_the_repaired_sessions_rows(tmp_path, session_table):
    from inspector.cli import main

    two, other = b.duplicate_in_turn(), b.clean()
    other.id = "ses_2b7f4c1e9ffeQk2XcWm0n7Rr1b"
    other.messages = [(mid[:-2] + "Zz", *rest) for mid, *rest in other.messages]
    db = b.write_db(tmp_path / "opencode.db", two, other, wal=True, session_table=session_table)
    tables = [session_table if t == "session" else t for t in TABLES]
    before = {t: table(db, t) for t in tables}
    assert main(["normalize", "-q", "--in-place", "--session", two.id, str(db)]) == 0
    for t in tables:
        if t != "session_message":
            assert table(db, t) == before[t]
    changed = before["session_message"] ^ table(db, "session_message")
    assert {r[2] for r in changed} == {two.id} and len(changed) == 2
    assert sim.problems(sim.resume_db(db, two.id)) == []


def test_reasoning_strip_cuts_the_reasoning_items_only(tmp_path):
    db = b.write_db(tmp_path / "opencode.db", b.clean())
    out = run_file(db, reasoning="strip")
    repaired = tmp_path / "stripped.db"
    repaired.write_bytes(out.data)
    items = [i for r in table(repaired, "session_message") if r[3] == "assistant" for i in json.loads(r[7])["content"]]
    assert items and not any(i["type"] == "reasoning" for i in items)


def test_the_doctor_finds_a_2x_database_in_a_fake_home(tmp_path):
    from inspector.doctor import scan

    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    data = home / ".local/share/opencode"
    data.mkdir(parents=True)
    b.write_db(data / "opencode.db", b.duplicate_in_turn())
    rows = [r for r in scan(env={"HOME": str(home)}, cwd=cwd).rows if r.agent == "opencode"]
    assert [Path(r.path).name for r in rows] == ["opencode.db"]
    assert rows[0].status == "fails", rows[0].verdict.sentence


def test_the_bundled_sample_is_the_builders_and_repairs_to_a_fixed_point(tmp_path):
    from inspector.bundled import samples_dir

    sample = samples_dir() / "34-opencode2-session.db"
    fresh = b.write_sample(tmp_path / "fresh.db")
    assert table(sample, "session_message") == table(fresh, "session_message")
    copy = tmp_path / "opencode.db"
    copy.write_bytes(sample.read_bytes())
    assert sim.problems(sim.resume_db(copy))
    out = run_file(copy)
    assert (out.result.dropped, out.result.synthesized) == (2, 0)
    assert [e.kind for e in out.imported.events] == ["agent-settled"]
    repaired = tmp_path / "opencode.repaired.db"
    repaired.write_bytes(out.data)
    assert sim.problems(sim.resume_db(repaired)) == []
    assert not run_file(repaired).changed


# -- generated sessions -----------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings          # noqa: E402
from hypothesis import strategies as st                       # noqa: E402

STATUSES = ("completed", "completed", "error", "running", "streaming")
item = st.one_of(
    st.builds(lambda t: b.text(t), st.sampled_from(["Looking.", "", "Done."])),
    st.builds(lambda sig: b.reasoning("Think.", {"signature": "EqQBsig"} if sig else None), st.booleans()),
    st.builds(lambda cid, status: b.tool(cid, "bash", {"command": "ls"}, "out", status),
              st.sampled_from(["toolu_A", "toolu_B", "toolu_C"]), st.sampled_from(STATUSES)))
step = st.one_of(
    st.builds(lambda items, gpt: ("assistant", items, gpt), st.lists(item, min_size=1, max_size=4), st.booleans()),
    st.just(("user", None, None)), st.just(("compaction", None, None)), st.just(("switch", None, None)),
    st.just(("system", None, None)), st.just(("synthetic", None, None)))


def _session(steps: list) -> b.Session:
    s = b.Session()
    s.user("Start.")
    for kind, items, gpt in steps:
        if kind == "assistant":
            s.assistant(*[dict(i) for i in items], model=b.GPT if gpt else None)
        elif kind == "user":
            s.user("Go on.")
        elif kind == "compaction":
            s.compaction("So far: listed files.")
        elif kind == "system":
            s.system("Be brief.")
        elif kind == "synthetic":
            s.synthetic("Continue after the restart.")
        else:
            s.switch(b.CLAUDE)
    return s


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(step, min_size=1, max_size=6))
def test_any_generated_session_repairs_to_one_opencode_2_resumes_and_is_a_fixed_point(tmp_path, steps):
    s = _session(steps)
    db = tmp_path / "opencode.db"
    db.unlink(missing_ok=True)
    b.write_db(db, s)
    out = run_file(db)
    repaired = tmp_path / "opencode.repaired.db"
    repaired.write_bytes(out.data)
    assert [p for p in sim.problems(sim.resume_db(repaired)) if p != "text-after-tool-use"] == []
    if not out.changed:
        assert out.data == db.read_bytes()
    for t in ("project", "session", "message", "part"):
        assert table(repaired, t) == table(db, t)
    before, after = table(db, "session_message"), table(repaired, "session_message")
    assert {r[:7] for r in before} == {r[:7] for r in after}       # only data of rows changes, no row comes or goes
    again = run_file(repaired)
    assert not again.changed and again.data == repaired.read_bytes()


def test_a_fresh_2x_database_is_an_empty_store(tmp_path, capsys):
    from inspector.cli import main

    db = b.write_db(tmp_path / "opencode.db")
    out = run_file(db)
    assert not out.changed and out.data == db.read_bytes() and out.imported.messages == []
    assert main(["check", str(db)]) == 0
    assert "nothing to change" in capsys.readouterr().out


def test_a_tool_item_without_a_state_gets_the_error_state_opencode_2_writes(tmp_path):
    """A tool item whose state OpenCode 2 cannot read is sent as a call without a result (it is
    not one OpenCode settles itself): the engine answers it, and the item is rewritten in its row
    into the error state ``session.tool.failed`` projects."""
    s = b.clean()
    s.assistant(b.text("Listing."), {"type": "tool", "id": "toolu_01Ls", "name": "ls", "time": {"created": b.T0}})
    s.user("Well?")
    db = b.write_db(tmp_path / "opencode.db", s)
    out = run_file(db)
    assert "agent-settled" not in [e.kind for e in out.imported.events]
    assert (out.result.dropped, out.result.synthesized) == (0, 1)
    repaired = tmp_path / "opencode.repaired.db"
    repaired.write_bytes(out.data)
    row = next(r for r in table(repaired, "session_message") if r[1] == s.messages[-2][0])
    state = json.loads(row[7])["content"][1]["state"]
    assert state["status"] == "error" and state["error"]["message"] == oc.NO_RESULT
    assert sim.problems(sim.resume_db(repaired)) == [] and not run_file(repaired).changed


def _opencode_home(tmp_path, monkeypatch) -> Path:
    """A home of its own with OpenCode's data folder (made), the process in ``tmp_path``."""
    home = tmp_path / "home"
    data = home / ".local/share/opencode"
    data.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("OPENCODE_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    return data


def test_doctor_fix_repairs_a_v1_and_a_2x_session_of_one_database_into_one_copy(tmp_path, monkeypatch, capsys):
    from inspector.cli import main

    data = _opencode_home(tmp_path, monkeypatch)
    two, old = b.duplicate_in_turn(), v1.duplicate_call()
    db = b.write_db(data / "opencode.db", two, v1_sessions=(old,), wal=True)
    before = db.read_bytes()
    main(["doctor", "--fix", str(tmp_path / "fix")])
    capsys.readouterr()
    copy = tmp_path / "fix/opencode/.local/share/opencode/opencode.db"
    assert db.read_bytes() == before
    for sid in (two.id, old.id):
        assert not run_file(copy, session=sid).changed
    assert sim.problems(sim.resume_db(copy, two.id)) == []


def test_a_2x_session_resumes_as_opencode_2s_command_line_says_and_a_v1_one_as_v1s(tmp_path, monkeypatch, capsys):
    """OpenCode 2's TUI reuses a background server that outlives it and holds the database:
    the copy runs where it lies only with ``--standalone`` (a private server that inherits
    ``OPENCODE_DB``), and the copy is put in place only after ``opencode service stop``
    (anomalyco/opencode@0720c006ffd3:packages/cli/src/commands/commands.ts,
    @665f64395a75:packages/cli/src/services/standalone.ts; ``formats/opencode/v2cli.py``).
    V1 has no such server: its session keeps V1's command."""
    from inspector.cli import main
    from inspector.doctor.copies import MANIFEST

    data = _opencode_home(tmp_path, monkeypatch)
    two, old = b.duplicate_in_turn(), v1.duplicate_call()
    b.write_db(data / "opencode.db", two, v1_sessions=(old,), wal=True)
    main(["doctor", "--fix", str(tmp_path / "fix")])
    capsys.readouterr()
    [source] = json.loads((tmp_path / "fix" / MANIFEST).read_bytes())["sources"]
    copy = source["output"]["path"]
    by_id = {s["session_id"]: s for s in source["sessions"]}
    assert by_id[two.id]["command"] == f"opencode --session {two.id}"
    assert by_id[two.id]["command_on_copy"] == f"OPENCODE_DB={copy} opencode --standalone --session {two.id}"
    assert by_id[old.id]["command_on_copy"] == f"OPENCODE_DB={copy} opencode --session {old.id}"
    assert source["steps"][0] == {"op": "stop", "agent": "OpenCode",
                                  "also": ["stop its background server with `opencode service stop`"]}
    assert source["resume"].startswith("quit OpenCode and stop its background server with `opencode service stop`; ")


def test_the_bundled_2x_sample_resumes_with_opencode_2s_command_line(tmp_path):
    from inspector.bundled import samples_dir
    from inspector.formats import agent_of, resume_command

    sample = str(samples_dir() / "34-opencode2-session.db")
    im = run_file(sample).imported
    assert agent_of(im) is oc.AGENT_V2
    assert resume_command(im, sample) == "opencode --session ses_2b7f4c1e9ffeQk2XcWm0n7Rr1a"
    assert resume_command(im, "/tmp/c.db", on_copy=True) == \
        "OPENCODE_DB=/tmp/c.db opencode --standalone --session ses_2b7f4c1e9ffeQk2XcWm0n7Rr1a"
    v1_sample = str(samples_dir() / "26-opencode-session.db")
    assert agent_of(run_file(v1_sample).imported) is oc.AGENT


def test_unsigned_reasoning_is_sent_as_opencode_2_sends_it_and_named(tmp_path):
    db = b.write_db(tmp_path / "opencode.db", b.unsigned_reasoning())
    out = run_file(db)
    assert "unsigned-thinking" in [e.kind for e in out.imported.events]
    assert [(r.signed, r.row) for r in out.imported.reasoning] == [(False, 1)]     # sent, unsigned
    stripped = run_file(db, reasoning="strip")
    copy = tmp_path / "stripped.db"
    copy.write_bytes(stripped.data)
    assert "unsigned-thinking" not in [e.kind for e in run_file(copy).imported.events]


def test_a_system_message_goes_as_the_wrapped_user_text_of_the_lowering(tmp_path):
    db = b.write_db(tmp_path / "opencode.db", b.system_update())
    users = [m["content"] for m in run_file(db).imported.messages if m.get("role") == "user"]
    assert any("<system-update>\nPrefer &lt;Decimal&gt; for money &amp; never float.\n</system-update>" in c
               for c in users)

"""The doctor on Crush and Goose stores: each session listed with the verdict a resume of it
really gets, for the agent's own repairs (Crush's by version, Goose's before every request)."""

from __future__ import annotations

from sessions import crush_builder as cb
from sessions import goose_builder as gb

from inspector.doctor import fix, scan


def _home(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "project"
    goose = home / ".local/share/goose/sessions"
    goose.mkdir(parents=True)
    (cwd / ".crush").mkdir(parents=True)
    cb.write_db(cwd / ".crush/crush.db", {"ses-crash": cb.crash(), "ses-orphan": cb.orphan(),
                                          "ses-dup": cb.duplicate(), "ses-clean": cb.clean()})
    gb.write_db(goose / "sessions.db", {"20261201_1": gb.redeclared(), "20261201_2": gb.crash(),
                                        "20261201_3": gb.separated()})
    gb.write_jsonl(goose / "20250601_1.jsonl", gb.orphan())
    return home, cwd


def test_each_session_of_each_store_gets_its_verdict(tmp_path):
    home, cwd = _home(tmp_path)
    rows = {(r.agent, r.session or r.path.rsplit("/", 1)[-1]): r for r in scan(env={"HOME": str(home)}, cwd=cwd).rows}
    status = {k: r.status for k, r in rows.items()}
    assert status == {("crush", "ses-crash"): "agent-repairs", ("crush", "ses-orphan"): "agent-repairs",
                      ("crush", "ses-dup"): "changes", ("crush", "ses-clean"): "ok",
                      ("goose", "20261201_1"): "fails", ("goose", "20261201_2"): "agent-repairs",
                      ("goose", "20261201_3"): "fails", ("goose", "20250601_1.jsonl"): "agent-repairs"}
    crash = rows[("crush", "ses-crash")].verdict.sentence
    assert "since 0.59.0" in crash and "before 0.59.0" in crash and "the real result is lost" in crash
    assert "duplicate-tool-call-id" in rows[("goose", "20261201_1")].verdict.sentence
    assert "tool-calls-unanswered" in rows[("goose", "20261201_3")].verdict.sentence
    assert "Goose leaves out a tool request that no response answers" in rows[("goose", "20261201_2")].verdict.sentence


def test_fix_copies_both_databases_and_leaves_the_originals_byte_identical(tmp_path):
    home, cwd = _home(tmp_path)
    sources = [cwd / ".crush/crush.db", home / ".local/share/goose/sessions/sessions.db"]
    before = [p.read_bytes() for p in sources]
    result = scan(env={"HOME": str(home)}, cwd=cwd)
    out = tmp_path / "fixed"
    manifest = fix(result.rows, out, result.roots)
    assert [p.read_bytes() for p in sources] == before
    assert manifest["untouched"] is True
    assert {s["path"] for s in manifest["sources"]} == {str(p) for p in sources}
    again = {(r.agent, r.session): r.status for r in scan([str(out)], env={"HOME": str(home)}).rows}
    assert again[("crush", "ses-crash")] == again[("crush", "ses-orphan")] == "ok"
    # The id declared twice in one turn is repaired; the second response stays in the copy, because
    # Goose leaves it out of every request itself (its own repair, so Inspector writes nothing for it).
    assert again[("goose", "20261201_1")] == "agent-repairs"
    # A response after a later prompt needs --strict; MEM-5 alone leaves it, and says so.
    assert again[("goose", "20261201_3")] == "fails"

"""One answer to "will this resume?": ``check``'s line, the doctor's row, the TUI's provider
checks (view 0 and the last stage, strict and reasoning both ways) and batch's report all
render the one verdict of ``inspector.verdict``, on every sample and store fixture.

Each view is asked through its own entry point (the CLI, ``doctor.scan``, ``tui.verdict``,
``batch``), never through the verdict module's own wording alone; the verdict's facts (its
status, the rules refused, the agent's claims) are what each must name.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest

from inspector import targets
from inspector.cli import main
from inspector.doctor import scan
from inspector.pipeline import run_file
from inspector.tui.verdict import INPUT, MEM5, STRICT, check_all
from inspector.verdict import AGENT_REPAIRS, FAILS, RESUMES, STATUS_WORDS, judged_provider, resume_verdict

from sessions import codex_builder, crush_builder, goose_builder

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
SAMPLE_FILES = sorted(p for p in SAMPLES.iterdir() if p.name[:1].isdigit())
SESSION_SAMPLES = [p for p in SAMPLE_FILES if int(p.name[:2]) >= 21]
DOCTOR_STATUS = {FAILS: {"fails"}, AGENT_REPAIRS: {"agent-repairs"}, RESUMES: {"ok", "changes"}}


def _store_fixtures(folder: Path) -> list[Path]:
    """Store fixtures built from the agents' own schemas (tests/sessions' builders)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    out.append(crush_builder.write_db(folder / "crush.db", {f"ses-{k}": f() for k, f in
                                                             {**crush_builder.BROKEN, **crush_builder.FINE}.items()}))
    out.append(goose_builder.write_db(folder / "sessions.db", {f"2026120{i}_1": f() for i, f in
                                                                enumerate(goose_builder.ALL.values())}))
    for name, make in codex_builder.BROKEN.items():
        path = folder / f"rollout-2025-10-12T10-00-00-{name}.jsonl"
        path.write_bytes(make())
        out.append(path)
    return out


def _sessions_of(path: Path) -> list[str | None]:
    from inspector import formats, pipeline

    held = formats.sessions(pipeline.parse(path.read_bytes(), path.name))
    return [s.id for s in held] if len(held) > 1 else [None]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[tuple[Path, str | None]]:
    stores = _store_fixtures(tmp_path_factory.mktemp("stores"))
    return [(p, s) for p in [*SAMPLE_FILES, *stores] for s in _sessions_of(p)]


def _check_line(capsys, path: Path, session: str | None, *extra: str) -> str:
    main(["check", str(path), *(["--session", session] if session else []), *extra])
    out = capsys.readouterr().out.splitlines()
    return out[0]


def _errors(problems) -> set[str]:
    return {p.rule for p in problems if p.severity == targets.ERROR}


def _warnings(problems) -> set[str]:
    return {p.rule for p in problems if p.severity == targets.WARNING}


def test_every_view_names_the_same_verdict(files, capsys, tmp_path):
    for path, session in files:
        outcome = run_file(path, session=session)
        v = resume_verdict(outcome)
        where = f"{path.name} {session or ''}"

        # check: the verdict's words, its refused rules and its claims on the line
        line = _check_line(capsys, path, session)
        if v.status == RESUMES and not v.claims and not v.ran_on:
            assert "refuses" not in line and "repairs it itself" not in line, (where, line)
        elif v.agent is not None or v.provider is not None:
            assert v.head() in line, (where, line)
            for rule in {r.rule for r in v.refusals[:1]}:
                assert rule in line, (where, line)
        elif v.providers and not outcome.changed:
            for p in v.providers:
                assert f"{p.provider} {'/'.join(p.rules)}" in line, (where, line)
        for c in v.claims:
            assert f"({c.repair.name})" in line, (where, line)
            assert (c.cost in line) if c.cost else True, (where, line)

        # the line opens with the verdict's one status word (a session that fails on resume
        # never opens with "would change")
        said = line.removeprefix(f"{path}" + (f" --session {session}" if session else "") + ": ")
        if v.status == FAILS:
            assert said.startswith(STATUS_WORDS[FAILS]), (where, line)
        if v.status == AGENT_REPAIRS:
            assert said.startswith(STATUS_WORDS[AGENT_REPAIRS]), (where, line)

        # check --json: the verdict itself
        main(["check", str(path), *(["--session", session] if session else []), "--json"])
        assert orjson.loads(capsys.readouterr().out.splitlines()[0])["verdict"] == \
            orjson.loads(orjson.dumps(v.to_dict())), where

        # the doctor: the same status and the same sentence
        shutil.rmtree(tmp_path / "one", ignore_errors=True)
        (tmp_path / "one").mkdir()
        shutil.copy(path, tmp_path / "one" / path.name)
        rows = [r for r in scan([str(tmp_path / "one")], env={"HOME": str(tmp_path)}).rows
                if r.session == session]
        if v.agent is not None:
            [row] = rows
            assert row.status in DOCTOR_STATUS[v.status], (where, row.verdict.sentence)
            assert said.startswith(STATUS_WORDS[row.status] + (":" if outcome.changed else ",")), (where, line)
            assert row.verdict.sentence.startswith(v.sentence()) or row.verdict.sentence.startswith("ok: nothing"), \
                (where, row.verdict.sentence)
            assert [r["rule"] for r in row.verdict.problems] == [r.rule for r in v.refusals]
            assert [c["case"] for c in row.verdict.repaired_by_agent] == list(v.claimed)
            assert orjson.loads(orjson.dumps(row.to_dict()))["resume"] == orjson.loads(orjson.dumps(v.to_dict()))

        # the TUI, view 0: what the agent sends, the same refusals and claims, for the provider
        # its verdict line picks by itself (--target auto)
        assert judged_provider(outcome.imported) == v.provider, where
        names = [v.provider] if v.provider else list(targets.TARGETS)
        checks = check_all(outcome.imported, outcome.result, False, names=names)
        if v.provider is not None:
            given = checks.at(INPUT, v.provider)
            assert _errors(given.problems) == {r.rule for r in v.refusals}, where
            assert given.model == v.model, where        # judged for the same model
            assert given.agent_repairs == tuple(c.words() for c in v.claims)
        else:
            refusing = {p.provider: set(p.rules) for p in v.providers}
            for t in targets.TARGETS:
                assert _errors(checks.at(INPUT, t).problems) == refusing.get(t, set()), (where, t)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("reasoning", ["keep", "strip"])
def test_the_tuis_last_stage_is_what_check_target_finds(files, strict, reasoning):
    """The last stage's provider check in the TUI is ``check --target``'s, under strict and
    the reasoning policy both ways (the export it checks is the one ``normalize`` writes)."""
    for path, session in files:
        outcome = run_file(path, session=session, strict=strict, reasoning=reasoning)
        provider = resume_verdict(outcome).provider or "openai-chat"
        checks = check_all(outcome.imported, outcome.result, strict, names=[provider], reasoning=reasoning)
        last = checks.at(STRICT if strict else MEM5, provider)
        assert last.failure is None, (path.name, last.failure)
        assert [(p.rule, p.index) for p in last.problems] == \
            [(p.rule, p.index) for p in targets.check(outcome, provider)], (path.name, session)


def test_batch_reports_the_same_verdict_for_every_session_file(files, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    paths = sorted({p for p, _ in files if int(p.name[:2] if p.name[:2].isdigit() else 99) >= 21})
    for p in paths:
        shutil.copy(p, folder / p.name)
    report = tmp_path / "report.json"
    main(["batch", str(folder), "-o", str(tmp_path / "out") + "/", "--report", str(report), "-q"])
    listed = orjson.loads(report.read_bytes())["resume"]["sessions"]
    by = {(Path(e["source"]).name, e["session"]): e for e in listed}
    for path, session in files:
        if path not in paths:
            continue
        v = resume_verdict(run_file(path, session=session))
        e = by[(path.name, session)]
        assert (e["status"], e["verdict"], e["refused"], e["claims"]) == \
            (v.status, v.head(), list(v.refused_rules), list(v.claimed)), (path.name, session)


def test_the_codex_sample_resumes_because_codex_repairs_it_in_every_view(capsys):
    path = SAMPLES / "22-codex-rollout.jsonl"
    outcome = run_file(path)
    assert resume_verdict(outcome).status == AGENT_REPAIRS
    given = check_all(outcome.imported, outcome.result, False, names=["openai-responses"]).at(INPUT, "openai-responses")
    assert given.accepts and "Codex answers a call left without output with \"aborted\"" in given.sentence()
    assert "the real result is lost; the tool may have run" in given.sentence()
    assert "resumes because Codex CLI repairs it itself" in _check_line(capsys, path, None)


def test_a_flat_historys_check_line_names_the_providers_that_refuse_it(capsys):
    line = _check_line(capsys, SAMPLES / "11-known-limit-separated-result.json", None)
    assert ": ok, nothing to change; 7 of 10 providers refuse it: " in line
    assert "anthropic tool-use-without-result" in line and "openai-chat tool-calls-unanswered" in line
    assert "--strict repairs it for" in line
    assert "openai-responses" not in line and "bedrock" not in line and "gemini" not in line


# -- the reasoning policy in the TUI --------------------------------------------------------------

THINK = {"type": "thinking", "thinking": "Look it up.", "signature": "EqQBCkYIBRgCKkBsig0001"}
USE = {"type": "tool_use", "id": "toolu_01A", "name": "lookup", "input": {"q": "x"}}
BODY = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": [{"role": "user", "content": "Find x"},
                     {"role": "assistant", "content": [THINK, USE]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "x=1"}]}]}


def test_stripping_reasoning_shows_anthropics_refusal_in_the_tui(tmp_path, capsys):
    path = tmp_path / "body.json"
    path.write_bytes(orjson.dumps(BODY))
    for reasoning, refused in (("keep", False), ("strip", True)):
        outcome = run_file(path, reasoning=reasoning)
        checks = check_all(outcome.imported, outcome.result, False, names=["anthropic"], reasoning=reasoning)
        rules = _errors(checks.at(MEM5, "anthropic").problems)
        assert ("thinking-not-first" in rules) is refused, (reasoning, rules)
    main(["check", str(path), "--reasoning", "strip", "--target", "anthropic"])
    assert "thinking-not-first" in capsys.readouterr().out


def test_an_export_that_fails_is_a_cell_not_checked_never_a_crash(monkeypatch):
    """R3-14: the verdict worker let an export's error escape and killed the app."""
    from inspector import pipeline
    from inspector.io import JSONWriteError

    outcome = run_file(SAMPLES / "13-anthropic-retry-and-parallel-call.json")

    def fails(*args, **kwargs):
        raise JSONWriteError("Recursion limit reached")
    monkeypatch.setattr(pipeline, "export", fails)
    checks = check_all(outcome.imported, outcome.result, False, names=["anthropic", "gemini"])
    for t in ("anthropic", "gemini"):
        assert checks.at(MEM5, t).failure == "JSONWriteError: Recursion limit reached"
        assert checks.at(INPUT, t).failure is None
    assert checks.complete


# -- the provider a session ran on ---------------------------------------------------------------

def _crush_with_providers(path: Path, runs: dict[str, list[tuple[str, str]]]) -> Path:
    """Crush's own schema (tests/sessions/crush_builder), one crashed session per entry of
    ``runs``, each assistant message stamped with the (provider, model) given, in order."""
    crush_builder.write_db(path, {sid: crush_builder.crash() for sid in runs})
    conn = sqlite3.connect(path)
    for sid, stamps in runs.items():
        ids = [r[0] for r in conn.execute("SELECT id FROM messages WHERE session_id = ? AND role = 'assistant' "
                                          "ORDER BY created_at, rowid", (sid,))]
        for mid, (provider, model) in zip(ids, stamps):
            conn.execute("UPDATE messages SET provider = ?, model = ? WHERE id = ? AND session_id = ?",
                         (provider, model, mid, sid))
    conn.commit()
    conn.close()
    return path


RUNS = {
    "ses-openrouter": [("anthropic", "claude-sonnet-4-5"), ("gemini", "gemini-2.5-pro"),
                       ("openrouter", "qwen/qwen3-coder")],
    "ses-router-claude": [("openrouter", "anthropic/claude-sonnet-4"), ("openrouter", "anthropic/claude-sonnet-4"),
                          ("openrouter", "anthropic/claude-sonnet-4")],
    "ses-gemini": [("anthropic", "claude-sonnet-4-5"), ("anthropic", "claude-sonnet-4-5"),
                   ("gemini", "gemini-2.5-pro")],
    "ses-local": [("ollama", "llama3.1:8b")] * 3,
}


def test_a_crush_session_is_judged_for_the_provider_it_ran_on(tmp_path, capsys):
    seen = {}
    for sid, stamps in RUNS.items():
        path = _crush_with_providers(tmp_path / f"{sid}.db", {sid: stamps})
        outcome = run_file(path)
        seen[sid] = resume_verdict(outcome)
        assert resume_verdict(outcome, "anthropic").provider == "anthropic"      # --target overrides
    assert seen["ses-openrouter"].provider is None
    assert "qwen/qwen3-coder" in seen["ses-openrouter"].sentence()
    assert "does not know" in seen["ses-openrouter"].sentence()
    assert not seen["ses-openrouter"].refusals
    assert seen["ses-router-claude"].provider == "anthropic"      # OpenRouter, to Anthropic's model
    assert seen["ses-gemini"].provider == "gemini"
    assert "judged for gemini, the last one's" in seen["ses-gemini"].sentence()
    assert seen["ses-local"].provider is None and "ollama" in seen["ses-local"].sentence()
    for v in seen.values():
        assert all(r.provider != "anthropic" for r in v.refusals) or v.provider == "anthropic"
    line = _check_line(capsys, tmp_path / "ses-openrouter.db", None)
    assert "ran on anthropic (claude-sonnet-4-5), gemini (gemini-2.5-pro), openrouter (qwen/qwen3-coder)" in line
    assert "anthropic refuses" not in line


def _crush_model_switch(path: Path) -> Path:
    """A Crush session whose first answer (with signed reasoning) claude-sonnet-4-5 wrote and
    whose last claude-opus-4-1: Crush resumes it on the last model and sends the signature
    as it is (charmbracelet/crush @ 37f36e93824e, internal/message/content.go ToAIMessage)."""
    crush_builder.write_db(path, {"ses-switch": crush_builder.clean()})
    conn = sqlite3.connect(path)
    last = conn.execute("SELECT id FROM messages WHERE role = 'assistant' ORDER BY created_at DESC, rowid DESC").fetchone()
    conn.execute("UPDATE messages SET model = 'claude-opus-4-1' WHERE id = ?", last)
    conn.commit()
    conn.close()
    return path


def test_a_session_is_judged_for_the_model_it_ran_on(tmp_path, capsys):
    """The rules on reasoning signed by another model read the model a session last ran on
    (--model overrides it): check, the doctor and the TUI's view 0 say the same."""
    (tmp_path / "switch").mkdir()
    path = _crush_model_switch(tmp_path / "switch" / "crush.db")
    outcome = run_file(path)
    v = resume_verdict(outcome)
    assert v.model == "claude-opus-4-1" and v.status == FAILS
    assert [r.rule for r in v.refusals] == ["signature-other-model"]
    line = _check_line(capsys, path, None)
    assert line.startswith(f"{path}: {STATUS_WORDS[FAILS]}") and "signature-other-model" in line
    assert main(["check", "--target", "anthropic", str(path)]) == 1      # what MEM-5 leaves, for that model
    assert "signature-other-model" in capsys.readouterr().out
    # --model: sent back to the model that signed it, nothing is refused
    same = resume_verdict(outcome, model="claude-sonnet-4-5")
    assert same.status == RESUMES and not same.refusals and same.model == "claude-sonnet-4-5"
    assert main(["check", "--target", "anthropic", "--model", "claude-sonnet-4-5", str(path)]) == 0
    capsys.readouterr()
    # the doctor's row
    [row] = scan([str(tmp_path / "switch")], env={"HOME": str(tmp_path)}).rows
    assert row.status == FAILS and "signature-other-model" in row.verdict.sentence
    # the TUI's view 0, for the provider it ran on and with --model
    given = check_all(outcome.imported, outcome.result, False, names=["anthropic"]).at(INPUT, "anthropic")
    assert _errors(given.problems) == {"signature-other-model"} and given.model == "claude-opus-4-1"
    assert "anthropic (claude-opus-4-1) would reject" in given.sentence()
    told = check_all(outcome.imported, outcome.result, False, names=["anthropic"], model="claude-sonnet-4-5")
    assert told.at(INPUT, "anthropic").accepts and "anthropic (claude-sonnet-4-5)" in told.at(INPUT, "anthropic").sentence()
    # another provider than the one it ran on is not judged for that model
    assert check_all(outcome.imported, outcome.result, False, names=["gemini"]).at(INPUT, "gemini").model is None


def test_a_codex_rollout_is_judged_for_the_model_its_last_turn_ran(tmp_path, capsys):
    """A default (openai) rollout is judged for its last turn_context's model and still for
    the Responses API: encrypted reasoning gpt-5 wrote, resumed on gpt-5-codex, is named."""
    v = resume_verdict(run_file(SAMPLES / "22-codex-rollout.jsonl"))
    assert (v.provider, v.model) == ("openai-responses", "gpt-5-codex")
    r = codex_builder.Rollout()
    r.user("Run the tests.")
    r.lines[-3]["payload"]["model"] = "gpt-5"                      # the first turn ran on gpt-5
    r.reasoning("**Running the tests**")
    r.say("They pass.")
    r.user("Thanks, now the lint.")                                # the last turn, on gpt-5-codex
    path = tmp_path / "rollout-2025-10-12T10-00-00-switch.jsonl"
    path.write_bytes(r.data())
    outcome = run_file(path)
    switched = resume_verdict(outcome)
    assert (switched.provider, switched.model) == ("openai-responses", "gpt-5-codex")
    given = check_all(outcome.imported, outcome.result, False, names=["openai-responses"]).at(INPUT, "openai-responses")
    assert given.model == "gpt-5-codex" and _warnings(given.problems) == {"encrypted-other-model"}
    told = check_all(outcome.imported, outcome.result, False, names=["openai-responses"], model="gpt-5")
    assert not _warnings(told.at(INPUT, "openai-responses").problems)      # --model: the one that wrote it
    main(["check", "--target", "openai-responses", str(path)])
    assert "written by gpt-5, sent to gpt-5-codex" in capsys.readouterr().out
    main(["check", "--json", str(path)])
    assert orjson.loads(capsys.readouterr().out)["verdict"]["model"] == "gpt-5-codex"


def test_a_codex_rollout_run_on_another_provider_is_not_judged_as_openai():
    from inspector.pipeline import run

    data = codex_builder.crash_missing_output()
    assert resume_verdict(run(data, "r.jsonl")).provider == "openai-responses"
    local = resume_verdict(run(data.replace(b'"model_provider":"openai"', b'"model_provider":"ollama"'), "r.jsonl"))
    assert local.provider is None and "ran on ollama (" in local.sentence() and not local.refusals
    routed = data.replace(b'"model_provider":"openai"', b'"model_provider":"openrouter"')
    routed = routed.replace(b'"model":"gpt-5-codex"', b'"model":"anthropic/claude-sonnet-4"')
    assert resume_verdict(run(routed, "r.jsonl")).provider == "anthropic"


_TOOL = [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01A", "name": "ls", "input": {}}]},
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "a b"}]}]


@pytest.mark.parametrize("body, rule", [
    ({"messages": [{"role": "user", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "list"}]},
                   *_TOOL, {"role": "assistant", "content": "done"}, {"role": "user", "content": "thanks"}]},
     "blank-text"),
    ({"messages": [{"role": "user", "content": "list"}, *_TOOL, {"role": "assistant", "content": "The files are "}]},
     "final-assistant-whitespace"),
])
def test_a_bodys_native_refusal_as_given_is_one_answer(tmp_path, capsys, body, rule):
    """An Anthropic body MEM-5 leaves alone, with a block Anthropic refuses: check said "ok",
    the doctor "ok", the TUI's view 0 "would accept", and its view 4 "would reject ... after
    MEM-5's repair" (which changed nothing). Every moment and view now names the refusal."""
    path = tmp_path / "body.json"
    path.write_bytes(orjson.dumps({"model": "claude-sonnet-4-5", "max_tokens": 64, **body}))
    outcome = run_file(path)
    assert outcome.format == "anthropic" and not outcome.changed
    verdict = resume_verdict(outcome)
    assert verdict.status == FAILS and [r.rule for r in verdict.refusals] == [rule]
    main(["check", str(path), "--json"])
    assert orjson.loads(capsys.readouterr().out)["verdict"]["refusals"][0]["rule"] == rule
    [row] = scan([str(path)]).rows
    assert row.status == FAILS and rule in row.verdict.sentence
    checks = check_all(outcome.imported, outcome.result, False, names=["anthropic"])
    assert rule in _errors(checks.at(INPUT, "anthropic").problems) == _errors(checks.at(MEM5, "anthropic").problems)


@pytest.mark.parametrize("doc, fmt", [
    ([None], "anthropic"),
    ([{"args": "x"}, {"content": {"tool_calls": "", "text": " user "}}, {"output": None, "type": {}}], "openai-responses"),
    ([{"id": ["a", False], "type": "function_call_output", "call_id": ["x"]}, {"type": ["message"]}], "openai-responses"),
    ([{"role": "0", "call_id": []}], "openai-responses"),
])
def test_a_garbled_body_is_judged_as_given_without_a_crash(doc, fmt):
    """The as-given moment reads a body's native blocks (pipeline.as_given): entries that are
    no objects, and types or ids that are objects or lists, are garbage to skip, not keys."""
    from inspector.pipeline import run

    outcome = run(doc, "body.json", fmt=fmt)
    verdict = resume_verdict(outcome)
    assert verdict.status in (FAILS, RESUMES)
    check_all(outcome.imported, outcome.result, False, names=[fmt])


def _ran_on_ollama(tmp_path: Path) -> Path:
    path = tmp_path / "oc-ollama.json"
    text = (SAMPLES / "27-opencode-export.json").read_text(encoding="utf-8")
    path.write_text(text.replace('"providerID": "anthropic"', '"providerID": "ollama"'), encoding="utf-8")
    return path


def test_a_session_that_ran_on_an_unknown_provider_is_not_judged_in_any_view(tmp_path, capsys):
    """It ran on ollama, a provider Inspector has no rules for: check's line said only what
    MEM-5 changes, check --json and the doctor "no provider refuses it" (a per-provider
    verdict never computed), the TUI every provider's verdict. Each now says it is not judged."""
    path = _ran_on_ollama(tmp_path)
    verdict = resume_verdict(run_file(path))
    assert verdict.provider is None and not verdict.per_provider and "ollama" in verdict.ran_on
    assert "provider unknown, not judged: ran on ollama" in verdict.sentence()
    main(["check", str(path)])
    assert "provider unknown, not judged: ran on ollama" in capsys.readouterr().out
    [row] = scan([str(path)]).rows
    assert "provider unknown, not judged: ran on ollama" in row.verdict.sentence
    assert "no provider refuses it" not in row.verdict.sentence

"""Issue 30: identity before MEM-5. In a provider body or an agent's store the format pairs a
result with its call, so an id string reused by a later complete pair, or a call with no id
answered by the result right after it, is kept under an identity of its own (an import
event), and the document comes back byte for byte. The flat list keeps the literal rule.
(``../shared/spec/semantics.md``, "Identity in provider formats and stores".)

Each test here failed before: MEM-5 on the raw strings dropped the later pair
(``call-redeclared``, ``result-duplicate``) or the id-less pair (``call-unusable-id``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import orjson
import pytest

from inspector.cli import main as inspector
from inspector.engine import INTERRUPTED, normalize
from inspector.pipeline import run, run_file
from inspector.targets import check

from sessions import agents_builder as ab
from sessions import codex_builder as cb
from sessions import crush_builder as crb
from sessions import scenarios
from sessions.claude_builder import Session, text, tool


def _chat_reused() -> dict:
    """Mexico City, then Amsterdam: a router that names every turn's first call ``tool_0_weather``."""
    return {"model": "gemini-2.5-pro", "messages": [
        {"role": "user", "content": "Weather in Mexico City?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "tool_0_weather", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Mexico City\"}"}}]},
        {"role": "tool", "tool_call_id": "tool_0_weather", "content": "Sunny"},
        {"role": "user", "content": "And Amsterdam?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "tool_0_weather", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Amsterdam\"}"}}]},
        {"role": "tool", "tool_call_id": "tool_0_weather", "content": "Rainy"},
        {"role": "assistant", "content": "Sunny in Mexico City, rainy in Amsterdam."}]}


def _anthropic_reused() -> dict:
    """The shape of a request Anthropic answered 200 (pydantic/pydantic-ai @ 4fda389,
    tests/cassettes/test_tool_search/test_cross_provider_capability_replay[google-gemini-3-flash-preview-
    anthropic-claude-sonnet-4-5].yaml, interaction 4): ``0usajhl5`` used by two complete pairs."""
    def use(cid, name, inp):
        return {"role": "assistant", "content": [{"type": "tool_use", "id": cid, "name": name, "input": inp}]}

    def result(cid, text):
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": text}]}
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
        {"role": "user", "content": "Can I get a refund on order-123?"},
        use("0usajhl5", "load_capability", {"id": "refunds"}), result("0usajhl5", "Use the refund policy tool."),
        use("0usajhl5", "search_tools", {"queries": ["lookup_refund_policy"]}), result("0usajhl5", "found"),
        {"role": "assistant", "content": [{"type": "text", "text": "Yes, within 30 days."}]},
        {"role": "user", "content": "And order-456?"}]}


def _responses_reused() -> dict:
    return {"model": "gpt-5", "input": [
        {"role": "user", "content": "List src, then tests."},
        {"type": "function_call", "call_id": "ls.ls", "name": "ls", "arguments": "{\"path\":\"src\"}"},
        {"type": "function_call_output", "call_id": "ls.ls", "output": "a.py"},
        {"type": "function_call", "call_id": "ls.ls", "name": "ls", "arguments": "{\"path\":\"tests\"}"},
        {"type": "function_call_output", "call_id": "ls.ls", "output": "test_a.py"},
        {"role": "user", "content": "Thanks."}]}


BODIES = {"openai-chat": _chat_reused, "anthropic": _anthropic_reused, "openai-responses": _responses_reused}


def _kept_as_it_was(out, data: bytes | None = None) -> None:
    assert out.result.events == [] and out.export.events == [], [e.kind for e in out.events]
    assert not out.changed
    assert "id-reused" in [e.kind for e in out.imported.events]
    if data is not None:
        assert out.data == data


@pytest.mark.parametrize("fmt", sorted(BODIES))
def test_a_body_reusing_an_id_of_a_complete_pair_comes_back_unchanged(fmt):
    doc = BODIES[fmt]()
    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    out = run(data, "body.json")
    assert out.imported.format == fmt
    _kept_as_it_was(out, data)
    event = next(e for e in out.imported.events if e.kind == "id-reused")
    assert event.tool_call_id in event.message and "complete" in event.message


def test_a_chat_body_with_reuse_checks_clean_and_anthropic_is_warned_with_the_rename(tmp_path, capsys):
    path = tmp_path / "body.json"
    path.write_bytes(orjson.dumps(_chat_reused()))
    assert inspector(["check", str(path)]) == 0
    assert inspector(["check", str(path), "--target", "openai-chat"]) == 0
    capsys.readouterr()
    (problem,) = [p for p in check(run_file(path), "anthropic") if p.rule == "tool-use-id-reused"]
    assert problem.severity == "warning" and "`tool_use` ids must be unique" in problem.error
    assert "'tool_0_weather' -> 'tool_0_weather-2'" in problem.fix
    # Converted for Anthropic, the later pair is written under its derived id, and said so.
    out = run_file(path, to="anthropic")
    (renamed,) = [e for e in out.export.events if e.kind == "id-renamed"]
    assert "'tool_0_weather' -> 'tool_0_weather-2'" in renamed.message
    uses = [b["id"] for m in out.exported["messages"] for b in m["content"] if b["type"] == "tool_use"]
    answers = [b["tool_use_id"] for m in out.exported["messages"] for b in m["content"] if b["type"] == "tool_result"]
    assert uses == answers == ["tool_0_weather", "tool_0_weather-2"]
    assert [p for p in check(out, "anthropic") if p.rule == "tool-use-id-reused"] == []
    back = run(out.data, "back.json")
    assert not back.changed and not back.imported.identity           # a fixed point, nothing reused left


def test_the_flat_list_keeps_the_literal_rule():
    """MEM-5's own list: ids are strings matched as sets, so the later declaration is dropped."""
    flat = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "w", "arguments": "{}"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "Sunny"},
            {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "w", "arguments": "{}"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "Rainy"}]
    out = run(orjson.dumps(flat), "flat.json", fmt="flat")
    assert [e.kind for e in out.result.events] == ["call-redeclared", "turn-emptied", "result-duplicate"]
    assert not out.imported.events


def test_a_claude_code_session_reusing_an_id_comes_back_byte_for_byte():
    data = scenarios.reused_id()
    _kept_as_it_was(run(data, "s.jsonl"), data)


def test_a_codex_rollout_reusing_a_call_id_comes_back_byte_for_byte():
    r = cb.Rollout()
    r.user("Run the suite twice.")
    r.call("call_1", "pytest -x")
    r.output("call_1", "1 failed", 1)
    r.say("One failure; running again.")
    r.call("call_1", "pytest -x")
    r.output("call_1", "42 passed", 0)
    r.say("All 42 pass now.")
    data = r.data()
    out = run(data, "rollout.jsonl")
    assert out.imported.format == "codex-rollout"
    _kept_as_it_was(out, data)


def test_an_agents_sdk_database_reusing_a_call_id_comes_back_byte_for_byte(tmp_path):
    items = ab.clean() + [
        {"content": "And Porto?", "role": "user"},
        {"arguments": "{\"city\":\"Porto\"}", "call_id": "call_Fa11", "name": "get_weather",
         "type": "function_call", "id": "fc_10", "status": "completed"},
        {"call_id": "call_Fa11", "output": "Porto: 19C", "type": "function_call_output"}]
    db = ab.make(tmp_path / "s.db", {"s": items})
    _kept_as_it_was(run_file(db), db.read_bytes())


def _crush_session() -> crb.Session:
    """A Crush session on OpenRouter with Gemini 2.5 Pro, which names the first call of every turn
    ``tool_0_<name>``: each turn's pair complete before the next, as the issue's database holds."""
    t = 1764610000
    rows = []
    for k, (cmd, out) in enumerate([("git status", "clean"), ("git checkout a", "ok a"), ("git checkout b", "ok b")]):
        rows += [(f"g-u{k}", "user", [crb.text(f"step {k}"), crb.finish()], t + 10 * k),
                 (f"g-a{k}", "assistant", [crb.call("tool_0_bash", "bash", json.dumps({"command": cmd})),
                                           crb.finish("tool_use", t + 10 * k + 2)], t + 10 * k + 1),
                 (f"g-t{k}", "tool", [crb.result("tool_0_bash", "bash", out), crb.finish()], t + 10 * k + 2)]
    rows.append(("g-a9", "assistant", [crb.text("Done."), crb.finish("end_turn", t + 99)], t + 98))
    return "Reused tool_0 ids", rows, None


def test_a_crush_database_reusing_tool_0_ids_comes_back_byte_for_byte(tmp_path, capsys):
    db = crb.write_db(tmp_path / "crush.db", {"ses-gemini": _crush_session()})
    out = run_file(db)
    assert out.imported.format == "crush"
    _kept_as_it_was(out, db.read_bytes())
    assert [e.kind for e in out.imported.events].count("id-reused") == 2
    assert inspector(["check", str(db)]) == 0
    capsys.readouterr()
    reuse = [p for p in check(out, "anthropic") if p.rule == "tool-use-id-reused"]
    assert [p.tool_call_id for p in reuse] == ["tool_0_bash", "tool_0_bash"]
    assert all("tool_0_bash-" in p.fix and "--to anthropic" in p.fix for p in reuse)
    with sqlite3.connect(db) as conn:                     # the database itself is untouched
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 10


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic"])
def test_calls_without_ids_answered_right_after_are_paired_and_kept(fmt):
    if fmt == "openai-chat":
        doc = {"messages": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "", "content": "Sunny"},
            {"role": "assistant", "content": "Sunny."}]}
    else:
        doc = {"messages": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "", "name": "weather", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "", "content": "Sunny"}]},
            {"role": "assistant", "content": "Sunny."}]}
    out = run(orjson.dumps(doc), "b.json", fmt=fmt)
    assert out.result.events == [] and out.export.events == []
    (event,) = [e for e in out.imported.events if e.kind == "id-derived"]
    assert "never written back" in event.message
    assert not out.changed


def test_a_real_result_after_inspectors_placeholder_wins():
    """A repaired file (the placeholder after the call), then the deferred call's real result."""
    doc = {"messages": [
        {"role": "user", "content": "Build it."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_b", "type": "function", "function": {"name": "build", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_b", "content": INTERRUPTED},
        {"role": "user", "content": "Is it done?"},
        {"role": "tool", "tool_call_id": "call_b", "content": "build ok in 412 s"}]}
    out = run(orjson.dumps(doc), "b.json", strict=True)
    kept = [m for m in out.exported["messages"] if m.get("role") == "tool"]
    assert [m["content"] for m in kept] == ["build ok in 412 s"]
    assert out.exported["messages"][2]["content"] == "build ok in 412 s"       # moved next to its call
    assert "result-superseded" in [e.kind for e in out.imported.events]
    plain = run(orjson.dumps(doc), "b.json")                                   # without --strict too
    assert [m["content"] for m in plain.exported["messages"] if m.get("role") == "tool"] == ["build ok in 412 s"]
    again = run(out.data, "again.json", strict=True)
    assert not again.changed


def test_strict_never_moves_a_result_onto_another_call_with_its_id():
    """Issue 30's mis-move: the Amsterdam call redeclares the id while Mexico City's is open."""
    flat = [{"role": "user", "content": "Weather in Mexico City and Amsterdam?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"tool_call_id": "c1", "name": "weather", "arguments": "{\"city\":\"Mexico City\"}"}]},
            {"role": "user", "content": "And Amsterdam?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"tool_call_id": "c1", "name": "weather", "arguments": "{\"city\":\"Amsterdam\"}"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "Rainy"}]
    result = normalize(flat, ("strict",))
    assert "Rainy" not in [m["content"] for m in result.messages]
    assert [m["content"] for m in result.messages if m["role"] == "tool"] == [INTERRUPTED]
    assert "strict-other-call" in [e.kind for e in result.events]
    assert not normalize(result.messages, ("strict",)).events

"""Kinds and stages are tables in the engine: every view and exporter reads them."""

from __future__ import annotations

import ast
import gc
import importlib
import inspect
import json
from pathlib import Path

import pytest

from inspector.engine import (
    CLAUSE_STAGES, CLAUSES, EXTENSIONS, IMPORT_CLAUSE, KINDS, MEM5_STAGES, STAGE_BY_NAME, STAGES, STRICT_KINDS,
    Kind, declare, gc_paused, kind, kinds_with, normalize, summary,
)
from inspector.engine.rule import EFFECTS, SCOPES

VECTORS = json.loads((Path(__file__).with_name("vectors.json")).read_text("utf-8"))

BROKEN = [
    {"role": "user", "content": "go"},
    {"role": "tool", "content": "early", "tool_call_id": "a"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"tool_call_id": "a", "name": "f"}, {"tool_call_id": "", "name": "g"}, {"tool_call_id": "b", "name": "h"},
        {"tool_call_id": "b", "name": "h"}]},
    {"role": "user", "content": "between"},
    {"role": "tool", "content": "late", "tool_call_id": "b"},
    {"role": "system", "content": "late system"},
]


def test_every_kind_has_one_effect_and_scope():
    for name, k in KINDS.items():
        assert k.name == name and k.effect in EFFECTS and k.scope in SCOPES and k.label and k.meaning
        assert (k.effect == "drop") == k.drop


def test_every_kind_names_a_clause_a_table_defines():
    for name, k in KINDS.items():
        assert k.clause in CLAUSE_STAGES and k.stage, name
    with pytest.raises(ValueError, match="no table defines"):
        declare(Kind("made-up", "strict:nowhere", False, "made up", "A clause nobody wrote."))
    assert "made-up" not in KINDS


def test_a_kind_rejects_an_unknown_effect_and_unknown_names_read_as_notes():
    with pytest.raises(ValueError):
        Kind("x", "1", False, "x", "x", effect="explode")
    assert kind("never-heard-of").effect == "note"


def _recorded_names(module) -> set[str]:
    """Kind names a stage module passes to ``record`` (string literals, or the keys of the
    table a variable is read from)."""
    tree = ast.parse(inspect.getsource(module))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "record":
            first = node.args[0]
            if isinstance(first, ast.Constant):
                names.add(first.value)
            else:
                names.update(getattr(module, "_HOW"))  # coerce's content kinds, by table
    return names


def test_every_kind_a_stage_records_is_in_the_table_under_that_stage():
    owner = {importlib.import_module(f"inspector.engine.{name}"): stage for name, stage in
             (("coerce", "coerce"), ("hoist", "hoist"), ("pairing", "repair"), ("strict", "strict"), ("strip", "strip"))}
    seen = set()
    for module, stage in owner.items():
        for name in _recorded_names(module):
            assert name in KINDS and KINDS[name].stage == stage, (module.__name__, name)
            seen.add(name)
    assert seen == {n for n, k in KINDS.items() if k.stage in owner.values()}  # and no engine kind goes unrecorded


def _histories():
    for vector in VECTORS:
        yield vector["input"]
    yield BROKEN


@pytest.mark.parametrize("extensions", [(), ("strict",)])
def test_events_carry_their_kinds_stage_and_account_for_every_row(extensions):
    for history in _histories():
        result = normalize(json.loads(json.dumps(history)), extensions=extensions)
        for e in result.events:
            k = KINDS[e.kind]
            assert (e.clause, e.drop) == (k.clause, k.drop)
            # strip reruns repair's procedure: its events are strip's
            assert e.stage == k.stage or (e.stage, k.stage) == ("strip", "repair"), e
        # Each drop event costs exactly one entry, whole rows or calls.
        assert result.dropped == sum(e.drop for e in result.events)
        row_drops = sum(1 for e in result.events if e.drop and KINDS[e.kind].scope == "row")
        comes_back = sum(1 for e in result.events if KINDS[e.kind].effect in ("add", "restore"))
        assert len(result.messages) == len(history) - row_drops + comes_back
        # A synthesized row is the one row no input entry became.
        assert result.synthesized == result.origins.count(None)


def test_the_calls_each_turn_lost_are_the_calls_missing_from_its_output():
    result = normalize(json.loads(json.dumps(BROKEN)))
    lost = result.dropped_calls()
    # BROKEN's turn (#2) declares a, '', b, b: the unusable id and the second b go.
    assert lost == {2: frozenset({1, 3})}
    (turn,) = [m for m, o in zip(result.messages, result.origins) if o == 2]
    kept = [c for j, c in enumerate(BROKEN[2]["tool_calls"]) if j not in lost[2]]
    assert turn["tool_calls"] == kept
    assert normalize([{"role": "user", "content": "hi"}]).dropped_calls() == {}


def test_broken_history_counts_read_off_its_repair():
    """BROKEN by hand: hoist moves the system row first; repair drops calls 1 and 3 of the
    turn, and both results answer a declared id (sets, not positions), so nothing is healed.
    Strict drops the result for a (it precedes its call), heals a, and moves b's late result
    up next to its turn."""
    plain = normalize(json.loads(json.dumps(BROKEN)))
    assert plain.summary() == "dropped 2, synthesized 0, moved 1"
    strict = normalize(json.loads(json.dumps(BROKEN)), extensions=("strict",))
    assert strict.summary(" · ") == "dropped 3 · synthesized 1 · moved 2"
    assert sorted(e.kind for e in strict.stage("strict").events) == ["strict-early-result", "strict-healed",
                                                                     "strict-moved"]
    assert summary(1234, 1, 0, " · ") == "dropped 1,234 · synthesized 1 · moved 0"


def test_views_ask_the_engine_which_kinds_add_restore_or_move():
    assert set(kinds_with("add")) >= {"result-synthesized", "strict-healed"}
    assert "strict-restored" in kinds_with("restore") and "strict-restored" not in kinds_with("add")
    assert "system-hoisted" in kinds_with("move") and "leading-tool" not in kinds_with("move")
    assert kinds_with("add") | kinds_with("restore") == set(kinds_with("add", "restore"))
    assert set(STRICT_KINDS) == {"strict-moved", "strict-early-result", "strict-restored", "strict-healed",
                                 "strict-other-call"}
    try:  # a kind declared later is in the live set at once
        declare(Kind("test-added-late", IMPORT_CLAUSE, False, "late", "Declared by a test.", "add"))
        assert "test-added-late" in kinds_with("add")
    finally:
        del KINDS["test-added-late"]


def test_stage_table_orders_mem5_then_extensions():
    assert MEM5_STAGES == ("coerce", "hoist", "repair", "strip") and EXTENSIONS == ("strict",)
    for spec in STAGES:
        assert STAGE_BY_NAME[spec.name] is spec and spec.title and spec.summary and callable(spec.function)
        if not spec.extension:
            assert CLAUSES[spec.clause].stage == spec.name
    assert [s.name for s in normalize(BROKEN).stages] == list(MEM5_STAGES)
    assert [s.name for s in normalize(BROKEN, extensions=("strict",)).stages] == [*MEM5_STAGES, "strict"]
    with pytest.raises(ValueError):
        normalize(BROKEN, extensions=("lenient",))


def test_gc_paused_restores_the_collector_and_nests():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError
    assert gc.isenabled()

"""Kinds and stages are tables in the engine: every view and exporter reads them."""

from __future__ import annotations

import gc

import pytest

from inspector.engine import (
    CLAUSES, EXTENSIONS, KINDS, MEM5_STAGES, STAGE_BY_NAME, STAGES, Kind, gc_paused, kind, normalize, summary,
)
from inspector.engine.rule import EFFECTS, SCOPES
from inspector.formats.base import CALL_DROPS

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
        assert k.clause in CLAUSES or k.clause.startswith("strict:") or k.clause in ("import", "export")


def test_a_kind_rejects_an_unknown_effect_and_unknown_names_read_as_notes():
    with pytest.raises(ValueError):
        Kind("x", "1", False, "x", "x", effect="explode")
    assert kind("never-heard-of").effect == "note"


def test_call_drops_come_from_scope_and_match_what_the_engine_records():
    assert CALL_DROPS == {n for n, k in KINDS.items() if k.drop and k.scope == "call"}
    result = normalize(BROKEN)
    for e in result.events:
        if e.call is not None and e.drop:
            assert KINDS[e.kind].scope == "call", e
    assert {e.kind for e in result.events if e.drop and e.call is not None} == {"call-unusable-id", "call-redeclared"}


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


def test_results_count_by_effect_without_overrides():
    strict = normalize(BROKEN, extensions=("strict",))
    effects = [KINDS[e.kind].effect for e in strict.events]
    assert strict.synthesized == effects.count("add") and strict.moved == effects.count("move")
    assert strict.dropped == effects.count("drop")
    assert any(e.stage == "strict" and KINDS[e.kind].effect in ("move", "add") for e in strict.events)
    assert strict.summary() == summary(strict.dropped, strict.synthesized, strict.moved)
    assert summary(1234, 1, 0, " · ") == "dropped 1,234 · synthesized 1 · moved 0"


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

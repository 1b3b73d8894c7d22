"""``--strict``: its own stage and clause names, drop and origin provenance consistent with
the engine's, and, for generated broken histories, output that OpenAI Chat and Anthropic
accept."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.engine import KINDS, STRICT_CLAUSES, normalize
from inspector.targets import check as check_target


def test_strict_stage_moves_drops_and_heals_with_its_own_clauses():
    history = [
        {"role": "user", "content": "u"},
        {"role": "tool", "content": "early", "tool_call_id": "c1"},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1"}, {"tool_call_id": "c2"}]},
        {"role": "user", "content": "x"},
        {"role": "tool", "content": "late", "tool_call_id": "c2"},
    ]
    base = normalize(history)
    result = normalize(history, extensions=("strict",))
    assert [s.name for s in result.stages] == ["coerce", "hoist", "repair", "strip", "strict"]
    strict = result.stages[-1]
    assert [(e.clause, e.kind, e.drop, e.origin) for e in strict.events] == [
        ("strict:early-result", "strict-early-result", True, 1),
        ("strict:adjacent", "strict-moved", False, 4),
        ("strict:heal", "strict-healed", False, None),
    ]
    assert all(e.clause in STRICT_CLAUSES and e.kind in {k for k, v in KINDS.items() if v.clause in STRICT_CLAUSES} for e in strict.events)
    assert result.dropped == base.dropped + 1 == sum(e.drop for e in result.events)
    assert strict.origins == result.origins == [0, 2, 4, None, 3]
    assert [m["content"] for m in result.messages][2:4] == ["late", "Tool call was interrupted; no result."]
    assert result.synthesized == 1 and result.moved == 1


def test_strict_output_is_already_normalized():
    history = [{"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "a"}]},
               {"role": "user", "content": "x"}, {"role": "tool", "content": "r", "tool_call_id": "a"}]
    out = normalize(history, extensions=("strict",)).messages
    again = normalize(out)
    assert again.messages == out and again.events == []
    assert normalize(out, extensions=("strict",)).events == []


IDS = st.sampled_from(["a", "b", "c", "d", "0", ""])
CALL = st.fixed_dictionaries({"tool_call_id": IDS, "name": st.just("f")})
MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": st.just("user"), "content": st.sampled_from(["q", ""])}),
    st.fixed_dictionaries({"role": st.just("system"), "content": st.just("s")}),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": st.sampled_from(["", "t"]),
                           "tool_calls": st.lists(CALL, max_size=3)}),
    st.fixed_dictionaries({"role": st.just("tool"), "content": st.just("r"), "tool_call_id": IDS}),
    st.just("not a message"),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MESSAGE, max_size=14))
def test_strict_output_passes_openai_chat_and_anthropic_checks(history):
    result = normalize(history, extensions=("strict",))
    assert check_target(result.messages, "openai-chat") == []
    assert check_target(result.messages, "anthropic") == []
    assert result.dropped == sum(1 for e in result.events if e.drop)
    assert len(result.origins) == len(result.messages)
    assert normalize(result.messages).events == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MESSAGE, max_size=12), st.sampled_from(["openai-chat", "anthropic"]))
def test_strict_output_exported_natively_still_passes_after_reading_it_back(history, target):
    from inspector.formats import export_history, import_history

    im = import_history(history, "gen", "flat")
    document = export_history(im, normalize(im.messages, extensions=("strict",)), target).document
    back = import_history(document, "back", target)
    again = normalize(back.messages)
    assert not [e for e in again.events if e.drop]
    assert check_target(again.messages, target) == []


def test_a_late_real_result_dropped_as_a_duplicate_of_an_early_one_is_restored():
    history = [
        {"role": "user", "content": "u"},
        {"role": "tool", "content": "early copy", "tool_call_id": "c1"},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1"}]},
        {"role": "tool", "content": "real answer", "tool_call_id": "c1"},
    ]
    base = normalize(history)
    assert [e.kind for e in base.events] == ["result-duplicate"]       # MEM-5 keeps the early copy
    result = normalize(history, extensions=("strict",))
    assert [(e.kind, e.origin) for e in result.stages[-1].events] == [
        ("strict-early-result", 1), ("strict-restored", 3)]
    assert result.messages[2] == {"role": "tool", "content": "real answer", "tool_call_id": "c1"}
    assert result.origins == [0, 2, 3]
    assert result.dropped == 2 == sum(e.drop for e in result.events)
    assert check_target(result.messages, "openai-chat") == []

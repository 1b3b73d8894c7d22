"""Unit tests of the engine's pieces that the vectors do not pin down on their own:
the PHP cast table of semantics.md, content serialization, metadata lifting, the
result's shape (stages, origins, events) and its sharing of message objects."""

from __future__ import annotations

import math
from collections import OrderedDict

import orjson
import pytest

from inspector.engine import CLAUSES, INTERRUPTED, KINDS, MEM5_STAGES as STAGES, normalize
from inspector.engine.cast import php_float, to_id, to_text


@pytest.mark.parametrize(
    "value, text",
    [
        (1.0, "1"),
        (1.5, "1.5"),
        (0.1 + 0.2, "0.3"),
        (1e25, "1.0E+25"),
        (-0.0, "-0"),
        (0.0, "0"),
        (float("nan"), "NAN"),
        (float("inf"), "INF"),
        (float("-inf"), "-INF"),
        (100.0, "100"),
        (-2.5, "-2.5"),
        (1e14, "1.0E+14"),
        (123456789012345.0, "1.2345678901234E+14"),
        (12345678901234.0, "12345678901234"),
        (0.0001, "0.0001"),
        (0.00001, "1.0E-5"),
        (1 / 3, "0.33333333333333"),
        (2 / 3, "0.66666666666667"),
        (-1.5e-7, "-1.5E-7"),
        (3.14159265358979, "3.1415926535898"),
    ],
)
def test_php_float_cast(value, text):
    assert php_float(value) == text
    assert to_text(value) == (text, "content-cast")


@pytest.mark.parametrize(
    "value, text, how",
    [
        (None, "", None),
        ("plain", "plain", None),
        ("", "", None),
        (True, "1", "content-cast"),
        (False, "", "content-cast"),
        (0, "0", "content-cast"),
        (-42, "-42", "content-cast"),
        (2**63 - 1, "9223372036854775807", "content-cast"),
        # Past 64 bits the reference runtime holds the number as a float.
        (2**63, "9.2233720368548E+18", "content-cast"),
        (10**20, "1.0E+20", "content-cast"),
        (-(10**400), "-INF", "content-cast"),
        (b"caf\xc3\xa9", "café", "content-cast"),
        (b"\xff\xfe", "", "content-unserializable"),
        ({"a": [1, "é/x"]}, '{"a":[1,"é/x"]}', "content-serialized"),
        ([{"type": "text", "text": "hi"}], '[{"type":"text","text":"hi"}]', "content-serialized"),
        ([], "[]", "content-serialized"),
        ({}, "{}", "content-serialized"),
        (OrderedDict(b=1, a=2), '{"b":1,"a":2}', "content-serialized"),
        ({1: "non-string key"}, "", "content-unserializable"),
        ({"x": object()}, "", "content-unserializable"),
        ({"n": float("nan")}, '{"n":null}', "content-serialized"),
    ],
)
def test_content_to_text(value, text, how):
    assert to_text(value) == (text, how)


def test_content_serialization_in_messages_is_compact_and_unescaped():
    result = normalize([{"role": "user", "content": {"q": "naïve / “quoted”", "n": 1.5}}])
    assert result.messages == [{"role": "user", "content": '{"q":"naïve / “quoted”","n":1.5}'}]
    assert [e.kind for e in result.events] == ["content-serialized"]
    assert result.events[0].drop is False and result.events[0].clause == "1"


def test_unserializable_content_becomes_empty_not_dropped():
    result = normalize([{"role": "user", "content": {"deep": {1: 2}}}])
    assert result.messages == [{"role": "user", "content": ""}]
    assert result.dropped == 0
    assert [e.kind for e in result.events] == ["content-unserializable"]


def test_ids_are_cast_like_content_and_never_trimmed():
    assert to_id(7) == "7" and to_id(7.0) == "7" and to_id(None) == "" and to_id(False) == ""
    assert to_id(" c1 ") == " c1 "
    msgs = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": 7, "name": "f"}, {"tool_call_id": " c2 ", "name": "g"}]},
        {"role": "tool", "content": "ok", "tool_call_id": 7.0},
        {"role": "tool", "content": "ok", "tool_call_id": " c2 "},
    ]
    result = normalize(msgs)
    assert result.dropped == 0
    assert [m.get("tool_call_id") for m in result.messages] == [None, "7", " c2 "]
    assert result.messages[0]["tool_calls"][0] == {"id": 7, "name": "f", "tool_call_id": "7"}


@pytest.mark.parametrize("falsy", ["0", 0, "", False, None, 0.0])
def test_falsy_ids_are_unusable(falsy):
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": falsy, "name": "f"}]},
        {"role": "tool", "content": "r", "tool_call_id": falsy},
    ]
    result = normalize(msgs)
    assert result.messages == [{"role": "user", "content": "go"}]
    assert [e.kind for e in result.events if e.drop] == ["call-unusable-id", "turn-emptied", "result-unusable-id"]
    assert result.dropped == 3


def test_empty_tool_call_id_shadows_id():
    result = normalize([{"role": "assistant", "content": "hm", "tool_calls": [{"tool_call_id": "", "id": "c1"}]}])
    assert result.messages == [{"role": "assistant", "content": "hm"}]
    assert [e.kind for e in result.events] == ["call-unusable-id"]


def test_metadata_lifting():
    rows = [
        {"role": "assistant", "content": "", "tool_calls": None,
         "metadata": {"tool_calls": [{"tool_call_id": "c1", "name": "f"}], "model": "m"}, "timestamp": 1},
        {"role": "tool", "content": "r", "metadata": {"tool_call_id": "c1"}, "timestamp": 2},
        {"role": "user", "content": "u", "metadata": {"tool_calls": [{"tool_call_id": "x"}], "tool_call_id": "x"}},
    ]
    result = normalize(rows)
    assert result.messages == [
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "f"}]},
        {"role": "tool", "content": "r", "tool_call_id": "c1"},
        {"role": "user", "content": "u"},
    ]
    lifted = [(e.origin, e.kind) for e in result.events if e.kind == "metadata-lifted"]
    assert lifted == [(0, "metadata-lifted"), (1, "metadata-lifted")]
    discarded = [e for e in result.events if e.kind == "field-discarded"]
    assert [e.origin for e in discarded] == [0, 1, 2]
    assert "metadata" in discarded[0].message and "timestamp" in discarded[0].message


def test_top_level_pairing_field_wins_over_metadata():
    rows = [
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "top"}],
         "metadata": {"tool_calls": [{"tool_call_id": "meta"}]}},
        {"role": "tool", "content": "r", "tool_call_id": "top", "metadata": {"tool_call_id": "meta"}},
    ]
    result = normalize(rows)
    assert [m.get("tool_call_id") for m in result.messages] == [None, "top"]
    assert not [e for e in result.events if e.kind == "metadata-lifted"]


@pytest.mark.parametrize("bad", [None, {"messages": []}, "[]", (), 3, {"role": "user"}])
def test_non_list_input_raises_type_error(bad):
    with pytest.raises(TypeError, match="expects a list"):
        normalize(bad)


def _history():
    return [
        {"role": "tool", "content": "early", "tool_call_id": "c1"},                  # 0 stripped later
        {"role": "user", "content": "hi"},                                          # 1
        {"role": "system", "content": "s"},                                          # 2 hoisted
        "junk",                                                                      # 3 not a map
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1"}, {"tool_call_id": "c2"}]},  # 4
        {"role": "tool", "content": "late", "tool_call_id": "c1"},                   # 5 duplicate
        {"role": "tool", "content": "r9", "tool_call_id": "c9"},                     # 6 orphan
    ]


def test_stage_names_order_and_origins():
    result = normalize(_history())
    assert STAGES == ("coerce", "hoist", "repair", "strip")
    assert [s.name for s in result.stages] == list(STAGES)
    by = {s.name: s for s in result.stages}
    assert by["coerce"].origins == [0, 1, 2, 4, 5, 6]
    assert by["hoist"].origins == [2, 0, 1, 4, 5, 6]
    # repair: c2 healed after the turn (c1 counts as answered by the early result),
    # the late c1 result and the c9 orphan dropped.
    assert by["repair"].origins == [2, 0, 1, 4, None]
    # strip: the early result now leads and goes; c1 is healed right after its turn,
    # ahead of c2's synthetic result from the repair stage.
    assert by["strip"].origins == [2, 1, 4, None, None]
    assert [m.get("tool_call_id") for m in by["strip"].messages[-2:]] == ["c1", "c2"]
    assert result.origins == by["strip"].origins
    for stage in result.stages:
        assert len(stage.origins) == len(stage.messages)


def test_stage_origins_point_at_the_input_row():
    history = _history()
    result = normalize(history)
    for stage in result.stages:
        for msg, origin in zip(stage.messages, stage.origins):
            if origin is None:
                assert msg["role"] == "tool" and msg["content"] == INTERRUPTED
            else:
                assert msg["role"] == history[origin]["role"]


def test_strip_stage_acts_after_a_leading_tool():
    history = [{"role": "system", "content": "s"}, {"role": "tool", "content": "r", "tool_call_id": "c1"},
               {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1"}]}]
    result = normalize(history)
    strip = result.stage("strip")
    assert strip.origins == [0, 2, None]
    assert [(e.clause, e.kind) for e in strip.events] == [("4", "leading-tool"), ("3", "result-synthesized")]


def test_snapshots_share_message_objects():
    history = [{"role": "user", "content": "x" * 100}] * 3 + [
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1"}]},
        {"role": "tool", "content": "r", "tool_call_id": "c1"},
    ]
    result = normalize(history)
    coerce, hoist, repair, strip = result.stages
    ids = lambda stage: {id(m) for m in stage.messages}  # noqa: E731
    assert ids(coerce) == ids(hoist) == ids(repair) == ids(strip)
    assert result.messages is strip.messages
    # Stages share the output's call entries; the output never shares them with the input
    # (issue 12, item 16: editing the output must not edit the input).
    assert strip.messages[-2]["tool_calls"][0] is coerce.messages[-2]["tool_calls"][0]
    assert strip.messages[-2]["tool_calls"][0] is not history[-2]["tool_calls"][0]
    # Content strings are shared too.
    assert coerce.messages[0]["content"] is history[0]["content"]


def test_stage_events_partition_the_event_list():
    result = normalize(_history())
    joined = [e for s in result.stages for e in s.events]
    assert joined == result.events
    assert all(e is f for e, f in zip(joined, result.events))
    for stage in result.stages:
        assert all(e.stage == stage.name for e in stage.events)


def test_clauses_per_stage():
    result = normalize(_history() + [None, {"content": "no role"}, {"role": 5}])
    allowed = {"coerce": {"1"}, "hoist": {"2"}, "repair": {"3"}, "strip": {"3", "4"}}
    seen = set()
    for e in result.events:
        assert e.clause in allowed[e.stage], e
        assert e.kind in KINDS and KINDS[e.kind].drop == e.drop
        if e.kind != "result-synthesized" and e.stage != "strip":
            assert KINDS[e.kind].clause == e.clause
        assert e.message and "\n" not in e.message and e.message.endswith(".")
        seen.add((e.stage, e.clause))
    assert {("coerce", "1"), ("hoist", "2"), ("repair", "3"), ("strip", "4")} <= seen
    assert set(CLAUSES) == {"1", "2", "3", "4"}
    assert [CLAUSES[str(i + 1)].stage for i in range(4)] == list(STAGES)


def test_dropped_counts_drop_events():
    result = normalize(_history())
    assert result.dropped == sum(e.drop for e in result.events) == 4
    assert result.synthesized == 2 and result.moved == 1


def test_event_to_dict_keys_and_call_index():
    result = normalize([{"role": "assistant", "content": "t", "tool_calls": ["bad", {"tool_call_id": "c1"}, {"tool_call_id": "c1"}]},
                        {"role": "tool", "content": "r", "tool_call_id": "c1"}])
    d = [e.to_dict() for e in result.events]
    assert list(d[0]) == ["stage", "clause", "kind", "drop", "origin", "call", "tool_call_id", "message", "cause"]
    assert [(x["kind"], x["call"], x["tool_call_id"]) for x in d] == [
        ("call-malformed", 0, None), ("call-redeclared", 2, "c1")]


def test_events_point_at_their_cause():
    """Each event that has a cause names the input index of the message behind it."""
    result = normalize([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "a"}, {"tool_call_id": "b"}]},
        {"role": "tool", "content": "r1", "tool_call_id": "a"},
        {"role": "tool", "content": "r2", "tool_call_id": "a"},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "a"}]},
    ])
    causes = {e.kind: (e.origin, e.cause) for e in result.events}
    assert causes["result-duplicate"] == (3, 2)       # the first result, at #2, wins
    assert causes["call-redeclared"] == (4, 1)        # first declared by the turn at #1
    assert causes["turn-emptied"] == (4, 1)
    assert causes["result-synthesized"] == (None, 1)  # answers a call of the turn at #1
    redeclared = next(e for e in result.events if e.kind == "call-redeclared")
    assert "at #1" in redeclared.message


def test_event_messages_name_the_orphan_like_the_issue():
    result = normalize([{"role": "user", "content": "q"}, {"role": "tool", "content": "r", "tool_call_id": "c9"}])
    (event,) = result.events
    assert event.message == "Dropped the result for call 'c9': no turn declares that id (orphan result)."


def test_input_is_not_mutated():
    history = _history()
    before = repr(history)
    normalize(history)
    assert repr(history) == before


def test_roles_trimmed_case_kept_unknown_kept():
    result = normalize([{"role": "  user\n", "content": "a"}, {"role": "Developer", "content": "b"},
                        {"role": "   "}, {"role": ["user"]}])
    assert result.messages == [{"role": "user", "content": "a"}, {"role": "Developer", "content": "b"}]
    assert [e.kind for e in result.events] == ["role-trimmed", "no-role", "no-role"]


def test_nan_in_php_float_is_not_a_number_text():
    assert math.isnan(float("nan")) and php_float(float("nan")) == "NAN"


def test_kind_effects_describe_what_each_kind_does_to_a_row():
    """Views mark rows from these effects, so they must agree with what the passes do."""

    kinds = KINDS
    assert {k for k, v in kinds.items() if v.effect == "drop"} == {k for k, v in kinds.items() if v.drop}
    assert {k for k, v in kinds.items() if v.effect == "add"} == {"result-synthesized", "strict-healed"}
    assert {k for k, v in kinds.items() if v.effect == "move"} == {"system-hoisted", "strict-moved"}
    result = normalize([{"role": "user", "content": "q"}, {"role": "system", "content": "s"},
                        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}]}])
    by_effect = {KINDS[e.kind].effect for e in result.events}
    assert by_effect == {"move", "add"}
    added = [i for i, o in enumerate(result.origins) if o is None]
    assert len(added) == sum(1 for e in result.events if KINDS[e.kind].effect == "add")


def test_zero_copy_mode_shares_what_is_already_flat_and_never_edits_the_input():
    calls = [{"tool_call_id": "c1", "name": "search"}]
    history = [
        {"role": "user", "content": "hi"},                                   # already flat
        {"content": "hi", "role": "user"},                                   # other key order
        {"role": "assistant", "content": "", "tool_calls": calls},           # already flat
        {"role": "tool", "content": "r", "tool_call_id": "c1"},              # already flat
        {"role": "tool", "content": "r2", "tool_call_id": 7},                # id to cast
        {"role": "assistant", "content": "", "tool_calls": []},              # empty calls: rewritten
        {"role": "user", "content": 3},                                      # content to cast
        {"role": "user", "content": "x", "tool_calls": calls},               # field to discard
    ]
    before = orjson.dumps(history)
    shared = normalize(history, copy=False)
    copied = normalize(history)
    assert orjson.dumps(history) == before
    # The same bytes, events and origins either way.
    assert orjson.dumps(shared.messages) == orjson.dumps(copied.messages)
    assert shared.events == copied.events and shared.origins == copied.origins
    kept = {o for m, o in zip(shared.messages, shared.origins) if o is not None and m is history[o]}
    assert kept == {0, 2, 3}
    assert shared.messages[2]["tool_calls"][0] is calls[0]
    # The default gives the result objects of its own.
    assert not any(m is history[o] for m, o in zip(copied.messages, copied.origins) if o is not None)
    assert copied.messages[2]["tool_calls"][0] is not calls[0]

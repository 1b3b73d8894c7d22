"""Properties of MEM-5 normalization over generated histories, valid and broken.

The strategies lean on what breaks real histories: falsy ids ("0", 0, "", false, null),
ids declared twice, duplicate and orphan results, entries that are not objects, stored
buffer rows that keep pairing fields under ``metadata``, and system rows in the middle.
"""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.engine import normalize

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

FALSY_IDS = ["0", 0, "", False, None, 0.0]
GOOD_IDS = ["c1", "c2", "c3", "call_9", 7, 2.0, " c1"]
ids = st.sampled_from(FALSY_IDS + GOOD_IDS)
texts = st.sampled_from(["", "  ", "hi", "done", "[bold]x[/]", "\x1b[31mred", "naïve"])
contents = st.one_of(
    texts, st.none(), st.booleans(), st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": texts}), max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3), max_size=2),
)


@st.composite
def calls(draw):
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["bad", None, 3, ["c1"]]))
    call = {"name": draw(st.sampled_from(["search", "read_file", "get_forecast"]))}
    spelling = draw(st.sampled_from(["tool_call_id", "id", "both"]))
    if spelling in ("tool_call_id", "both"):
        call["tool_call_id"] = draw(ids)
    if spelling in ("id", "both"):
        call["id"] = draw(ids)
    if draw(st.booleans()):
        call["arguments"] = {"q": draw(texts)}
    return call


@st.composite
def entries(draw):
    kind = draw(st.sampled_from(["user", "system", "assistant", "assistant", "tool", "tool",
                                 "buffer-assistant", "buffer-tool", "junk", "roleless", "other"]))
    if kind == "junk":
        return draw(st.sampled_from(["text line", 0, None, [], ["user", "hi"], 1.5, True]))
    if kind == "roleless":
        return draw(st.sampled_from([{"content": "x"}, {"role": None}, {"role": "  "}, {"role": 3}]))
    if kind == "other":
        return {"role": draw(st.sampled_from(["developer", " user ", "Tool", "function"])), "content": draw(contents)}
    if kind in ("user", "system"):
        return {"role": kind, "content": draw(contents)}
    if kind == "assistant":
        row = {"role": "assistant", "content": draw(contents)}
        if draw(st.integers(0, 4)):
            row["tool_calls"] = draw(st.lists(calls(), max_size=3))
        return row
    if kind == "tool":
        row = {"role": "tool", "content": draw(contents)}
        if draw(st.integers(0, 6)):
            row["tool_call_id"] = draw(ids)
        return row
    if kind == "buffer-assistant":
        return {"role": "assistant", "content": draw(texts), "timestamp": "2024-05-14T08:02:12Z",
                "metadata": {"tool_calls": draw(st.lists(calls(), max_size=3)), "model": "m"}}
    return {"role": "tool", "content": draw(texts), "timestamp": 2,
            "metadata": {"tool_call_id": draw(ids), "rows": 1}}


broken_histories = st.lists(entries(), max_size=14)


@st.composite
def valid_histories(draw):
    """Well-formed flat histories: nothing in them needs changing."""
    out = [{"role": "system", "content": draw(texts)} for _ in range(draw(st.integers(0, 2)))]
    counter = 0
    for _ in range(draw(st.integers(0, 5))):
        out.append({"role": "user", "content": draw(texts)})
        for _ in range(draw(st.integers(0, 2))):
            n = draw(st.integers(1, 3))
            made = [f"c{counter + k}" for k in range(n)]
            counter += n
            out.append({"role": "assistant", "content": draw(texts),
                        "tool_calls": [{"tool_call_id": c, "name": "search"} for c in made]})
            for c in draw(st.permutations(made)):
                out.append({"role": "tool", "content": draw(texts), "tool_call_id": c})
        if draw(st.booleans()):
            out.append({"role": "assistant", "content": draw(texts)})
    return out


histories = st.one_of(broken_histories, valid_histories())


def _system_prefix(messages):
    n = 0
    while n < len(messages) and messages[n]["role"] == "system":
        n += 1
    return n


@SETTINGS
@given(histories)
def test_normalizing_twice_equals_once_and_drops_nothing(history):
    once = normalize(history)
    twice = normalize(once.messages)
    assert orjson.dumps(twice.messages) == orjson.dumps(once.messages)
    assert twice.dropped == 0
    assert not [e for e in twice.events if e.drop or e.kind == "result-synthesized"]
    assert twice.origins == list(range(len(once.messages)))


@SETTINGS
@given(histories)
def test_system_rows_form_a_prefix_and_are_never_dropped(history):
    result = normalize(history)
    n = _system_prefix(result.messages)
    assert all(m["role"] != "system" for m in result.messages[n:])
    sources = [i for i, e in enumerate(history)
               if isinstance(e, dict) and isinstance(e.get("role"), str) and e["role"].strip(" \t\n\r\0\x0b") == "system"]
    assert result.origins[:n] == sources  # all of them, in their own order
    assert not [e for e in result.events if e.drop and e.origin in sources]


@SETTINGS
@given(histories)
def test_no_tool_row_follows_the_system_group(history):
    result = normalize(history)
    n = _system_prefix(result.messages)
    if n < len(result.messages):
        assert result.messages[n]["role"] != "tool"


@SETTINGS
@given(histories)
def test_pairing_is_complete(history):
    """Every declared id is usable and unique, every result answers one exactly once,
    and every call is answered."""
    result = normalize(history)
    declared = [c["tool_call_id"] for m in result.messages if m["role"] == "assistant"
                for c in m.get("tool_calls", [])]
    assert all(type(c) is str and c not in ("", "0") for c in declared)
    assert len(declared) == len(set(declared))
    answers = [m["tool_call_id"] for m in result.messages if m["role"] == "tool"]
    assert len(answers) == len(set(answers))
    assert set(answers) == set(declared)


@SETTINGS
@given(histories)
def test_drop_count_is_the_number_of_drop_events(history):
    result = normalize(history)
    assert result.dropped == sum(1 for e in result.events if e.drop)
    assert [e for s in result.stages for e in s.events] == result.events


@SETTINGS
@given(histories)
def test_output_is_the_flat_shape_with_provenance(history):
    result = normalize(history)
    assert len(result.origins) == len(result.messages)
    for msg, origin in zip(result.messages, result.origins):
        assert type(msg["content"]) is str
        if msg["role"] == "assistant":
            assert list(msg) in (["role", "content"], ["role", "content", "tool_calls"])
            assert msg.get("tool_calls", [1])
        elif msg["role"] == "tool":
            assert list(msg) == ["role", "content", "tool_call_id"]
        else:
            assert list(msg) == ["role", "content"]
        if origin is None:
            assert msg["role"] == "tool" and msg["content"] == "Tool call was interrupted; no result."
        else:
            assert isinstance(history[origin], dict)
    real = [o for o in result.origins if o is not None]
    assert len(real) == len(set(real))


@SETTINGS
@given(valid_histories())
def test_valid_histories_are_left_alone(history):
    result = normalize(history)
    assert orjson.dumps(result.messages) == orjson.dumps(history)
    assert result.dropped == 0 and result.events == []


@SETTINGS
@given(histories)
def test_zero_copy_mode_gives_the_same_result_and_leaves_the_input_alone(history):
    before = orjson.dumps(history)
    shared = normalize(history, copy=False)
    copied = normalize(history)
    assert orjson.dumps(history) == before
    for a, b in zip(shared.stages, copied.stages, strict=True):
        assert orjson.dumps(a.messages) == orjson.dumps(b.messages)   # key order included
        assert a.origins == b.origins and a.events == b.events
    # Whatever the zero-copy result shares with the input is unchanged by normalizing.
    for msg, origin in zip(shared.messages, shared.origins):
        if origin is not None and msg is history[origin]:
            assert list(msg) == list(copied.messages[shared.origins.index(origin)])

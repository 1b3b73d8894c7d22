"""The diff rows are a faithful view of the engine's provenance and events, on every
conformance vector and bundled sample: nothing is derived by comparing texts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.bundled import samples_dir
from inspector.engine import MEM5_STAGES as STAGES, normalize
from inspector.formats import import_history
from inspector.tui.rows import ADD, DROP, GHOST, MOVE, MOVE_KINDS, SAME, CHANGE, Model

VECTORS = json.loads((Path(__file__).parent.parent / "vectors.json").read_text("utf-8"))


def _histories():
    for vector in VECTORS:
        yield pytest.param(vector["input"], id=f"vector-{vector['name']}")
    for path in sorted(samples_dir().glob("*.json")):
        if path.name == "index.json":
            continue
        document = json.loads(path.read_text("utf-8"))
        try:
            messages = import_history(document, path.name).messages
        except Exception:  # a sample that is deliberately not a history
            continue
        yield pytest.param(messages, id=f"sample-{path.stem}")


def check_model(raw):
    result = normalize(raw)
    model = Model(raw, result)
    for view, stage in enumerate(result.stages, start=1):
        rows = model.rows(view)
        before = raw if view == 1 else result.stages[view - 2].messages
        # Every input row and every output row appears exactly once, outputs in output order.
        assert sorted(s for s in rows.src if s >= 0) == list(range(len(before)))
        assert [d for d in rows.dst if d >= 0] == list(range(len(stage.messages)))
        marks = [rows.mark(r) for r in range(len(rows))]
        # A row changed when it enters or leaves the stage alone (dropped, synthesized) or an
        # event of the stage names its message: provenance says, independently of the marks.
        touched = {e.origin for e in stage.events}
        assert rows.changed() == [r for r in range(len(rows)) if rows.src[r] < 0 or rows.dst[r] < 0
                                  or rows.origins[r] in touched]
        assert rows.layout().row_of == {o: r for r, o in enumerate(rows.origins) if o is not None
                                        and r not in rows.ghosts}
        # A moved message (its event says so) has a ghost row at its old place: read in order,
        # the rows' input indices (ghosts at their old place, moved rows skipped) are the input order.
        moved = {e.origin for e in stage.events if e.kind in MOVE_KINDS}
        assert sorted(rows.origins[r] for r in rows.ghosts) == sorted(moved)
        before_order = [rows.ghosts[r] if r in rows.ghosts else rows.src[r] for r in range(len(rows))
                        if r in rows.ghosts or (rows.src[r] >= 0 and rows.origins[r] not in moved)]
        assert before_order == sorted(before_order)
        assert sorted(before_order) == list(range(len(before)))
        row_drops = [e for e in stage.events if e.drop and e.call is None]
        synthesized = [e for e in stage.events if e.kind == "result-synthesized"]
        assert marks.count(DROP) == len(row_drops)
        assert marks.count(ADD) == len(synthesized)
        assert marks.count(MOVE) == sum(1 for e in stage.events if e.kind == "system-hoisted")
        assert marks.count(GHOST) == marks.count(MOVE)
        # Dropped rows are exactly the origins the stage's row-level drop events name (the rows
        # keep input order; events keep the order the passes acted in).
        assert [rows.origins[r] for r in range(len(rows)) if marks[r] == DROP] == sorted(e.origin for e in row_drops)
        # Synthesized rows carry their own event, in the order the stage recorded them.
        assert [rows.row(r).events for r in range(len(rows)) if marks[r] == ADD] == [[e] for e in synthesized]
        for r in range(len(rows)):
            row = rows.row(r)
            # Whether a row enters and leaves the stage comes from provenance, never from its
            # value: a raw entry that is JSON null still entered coerce.
            assert row.entered == (rows.src[r] >= 0 or r in rows.ghosts) and row.left == (rows.dst[r] >= 0)
            if marks[r] == GHOST:
                assert row.before is before[rows.ghosts[r]] and row.after is None and row.ghost
                assert row.events and all(e.origin == row.origin for e in row.events)
            elif marks[r] == DROP:
                assert row.after is None and rows.src[r] >= 0 and row.before is before[rows.src[r]]
                assert row.entered and not row.left
            elif marks[r] == ADD:
                assert row.before is None and row.origin is None and not row.entered and row.left
            else:
                assert row.after is stage.messages[rows.dst[r]]
                touched = [e for e in stage.events if e.origin is not None and e.origin == row.origin]
                assert (marks[r] in (CHANGE, MOVE)) == bool(touched)
                assert (marks[r] == SAME) == (not touched)
    # Journeys agree with the stage outputs: a message is in the output iff no stage dropped it.
    final = set(o for o in result.origins if o is not None)
    for origin in range(len(raw)):
        steps = model.journey(origin)
        assert [s.stage for s in steps] == list(STAGES)
        assert (steps[-1].status not in ("dropped", "gone")) == (origin in final)
    return model


@pytest.mark.parametrize("raw", list(_histories()))
def test_rows_follow_provenance(raw):
    check_model(raw)


message = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant", "tool", " user", ""])},
    optional={
        "content": st.one_of(st.none(), st.text(max_size=5), st.integers(), st.lists(st.integers(), max_size=2)),
        "tool_call_id": st.sampled_from(["a", "b", "0", "", None, 3]),
        "tool_calls": st.lists(st.one_of(st.fixed_dictionaries({"tool_call_id": st.sampled_from(["a", "b", "c", "0", ""])}),
                                         st.fixed_dictionaries({"id": st.sampled_from(["a", "b", "c"])}),
                                         st.just("x")), max_size=3),
    },
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(message, st.integers(), st.none()), max_size=12))
def test_rows_follow_provenance_generated(raw):
    model = check_model(raw)
    for view in range(1, 5):
        for key in {model.rows(view).row(r).key for r in range(len(model.rows(view)))}:
            if isinstance(key, tuple) and key[0] == "ghost":  # a moved message's old place
                assert model.journey(key) == model.journey(key[1])
            elif not isinstance(key, int):
                steps = model.journey(key)
                assert sum(s.status == "synthesized" for s in steps) == 1


def test_kind_filter_and_search():
    raw = [
        {"role": "user", "content": "look up c9"},
        {"role": "tool", "content": "late", "tool_call_id": "c9"},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "f"}]},
        {"role": "tool", "content": "ok", "tool_call_id": "c1"},
        {"role": "tool", "content": "again", "tool_call_id": "c1"},
    ]
    model = Model(raw, normalize(raw))
    keys = model.touched_by("result-orphan")
    assert keys == {1}
    repair = STAGES.index("repair") + 1
    assert model.first_view_of("result-duplicate") == repair
    shown = model.filter_rows(repair, keys=model.touched_by("result-duplicate"))
    assert [model.rows(repair).origins[r] for r in shown] == [4]
    hits = model.filter_rows(0, query="C9")
    assert [model.rows(0).origins[r] for r in hits] == [0, 1]  # text, case-insensitive, and the id
    changed = model.filter_rows(repair, changed_only=True)
    assert [model.rows(repair).mark(r) for r in changed] == [DROP, DROP]
    assert model.filter_rows(repair) is None

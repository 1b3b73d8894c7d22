"""Levels (issue 36): every built-in level walked with its reference solution (full marks) and
with a wrong answer (a miss that names what is wrong), judged by the project's checker; a level
file round-trips; the failure injections break a valid history the way their names say."""

from __future__ import annotations

import json

import pytest

from inspector import pipeline
from inspector.io import InputError
from inspector.tui import edits
from inspector.tui.lessons import levels as L
from inspector.tui.lessons.inject import INJECTIONS, inject
from inspector.tui.lessons.judge import judge_goal, judge_prediction, verdicts
from inspector.tui.lessons.score import Guess, entering, judge, score
from inspector.tui.rows import Model, call_ids

LEVELS = L.builtins()
BY_KIND = {kind: [lv for lv in LEVELS if lv.kind == kind] for kind in L.KINDS}


def native_of(level):
    imported = pipeline.load(level.start_bytes(), level.name)
    return edits.Native.of(imported.document, imported.history, imported.container)


def test_there_are_enough_levels_of_every_kind():
    assert len(LEVELS) >= 15
    assert len(BY_KIND["stage"]) == 6
    assert sum(1 for lv in BY_KIND["goal"] if lv.goal.get("accept")) >= 4
    assert len(BY_KIND["inject"]) >= 3
    assert len(BY_KIND["providers"]) >= 1
    cited = [lv for lv in LEVELS if str(lv.source.get("link", "")).startswith("https://github.com/")]
    assert len(cited) >= 2 and all("/issues/" in lv.source["link"] for lv in cited)
    assert all(lv.hints for lv in LEVELS)


@pytest.mark.parametrize("level", BY_KIND["stage"], ids=lambda lv: lv.ident)
def test_a_stage_level_scores_the_engine_s_answer_full_and_a_blank_one_names_each_miss(level):
    imported = pipeline.load(level.start_bytes(), level.name)
    model = Model(imported.messages, pipeline.repair(imported), imported)
    for name in level.stages:
        rows = model.rows(model.views.index(name))
        truth = entering(rows)
        perfect = {e.position: Guess(e.mark, e.adds_after) for e in truth}
        assert score(judge(rows, perfect)) == (len(truth), len(truth))
    rows = model.rows(model.views.index(level.stages[0]))
    wrong = [v for v in judge(rows, {}) if not v.right]
    assert wrong, level.ident  # the stage does something: keeping everything misses it
    assert all(v.reasons and f"#{v.entering.origin}" in v.reasons[0] for v in wrong)


@pytest.mark.parametrize("level", BY_KIND["goal"], ids=lambda lv: lv.ident)
def test_a_goal_level_is_met_by_its_solution_in_its_edits_and_not_by_its_start(level):
    start = judge_goal(level, level.start_bytes(), 0)
    assert not start.met and start.misses, level.ident  # the start history does not meet the goal
    solved = L.apply_solution(native_of(level), level.solution)
    fmt = pipeline.load(level.start_bytes(), level.name).format
    data = solved.data(lambda d: __import__("inspector.formats", fromlist=["REGISTRY"]).REGISTRY[fmt].dump(d, False))
    result = judge_goal(level, data, len(level.solution))
    assert result.met and result.misses == () and result.points == (2, 2), (level.ident, result.misses)
    slow = judge_goal(level, data, len(level.solution) + 2)
    assert slow.points == (1, 2) and "reference solution takes" in slow.misses[-1]


@pytest.mark.parametrize("level", [lv for lv in BY_KIND["goal"] if lv.goal.get("keep_results")
                                   and verdicts(lv.start_bytes(), lv.name, L.AS_GIVEN, ()).results],
                         ids=lambda lv: lv.ident)
def test_deleting_every_result_is_a_named_miss(level):
    native = native_of(level)
    doomed = [k for k, item in enumerate(native.items) if any(j is None for _, j in call_ids(item))]
    for k in reversed(doomed):
        native = edits.delete_edit(native, edits.Target("entries", k)).apply(native)
    if not doomed:  # the results are blocks inside user messages (Anthropic): drop those messages
        doomed = [k for k, item in enumerate(native.items) if isinstance(item.get("content"), list)
                  and any(b.get("type") == "tool_result" for b in item["content"])]
        for k in reversed(doomed):
            native = edits.delete_edit(native, edits.Target("entries", k)).apply(native)
    fmt = pipeline.load(level.start_bytes(), level.name).format
    from inspector import formats

    result = judge_goal(level, native.data(lambda d: formats.REGISTRY[fmt].dump(d, False)), 1)
    assert not result.met and any("real result is lost" in m for m in result.misses)


def data_of(level, native):
    from inspector import formats

    fmt = pipeline.load(level.start_bytes(), level.name).format
    return native.data(lambda d: formats.REGISTRY[fmt].dump(d, False))


def broken_of(level):
    native = native_of(level)
    return inject(native, level.inject).apply(native) if level.kind == "inject" else native


@pytest.mark.parametrize("level", BY_KIND["providers"] + BY_KIND["inject"], ids=lambda lv: lv.ident)
def test_a_provider_prediction_scores_the_solution_full_and_names_a_wrong_provider(level):
    broken = broken_of(level)
    data = data_of(level, broken) if level.kind == "inject" else level.start_bytes()
    refuse = level.solution["refuse"]
    right = judge_prediction(level, data, refuse)
    assert (right.right, right.total) == (len(level.ask["targets"]),) * 2 and not right.misses
    flipped = level.ask["targets"][0]
    wrong = judge_prediction(level, data, set(refuse) ^ {flipped})
    assert wrong.right == wrong.total - 1 and len(wrong.misses) == 1 and wrong.misses[0].startswith(flipped)
    if flipped in refuse:  # the miss names the rule the checker refused by
        assert any(rule in wrong.misses[0] for rule in right.judged.said[flipped].rules)


@pytest.mark.parametrize("level", BY_KIND["inject"], ids=lambda lv: lv.ident)
def test_an_injection_breaks_a_valid_history_and_undo_gives_it_back(level):
    native = native_of(level)
    when = level.ask.get("when", L.AS_GIVEN)
    assert not any(s.refuses for s in verdicts(level.start_bytes(), level.name, when,
                                               level.ask["targets"]).said.values())
    edit = inject(native, level.inject)
    broken = edit.apply(native)
    assert any(s.refuses for s in verdicts(data_of(level, broken), level.name, when,
                                           level.ask["targets"]).said.values())
    assert data_of(level, edit.inverse().apply(broken)) == data_of(level, native)


def test_each_injection_does_what_its_name_says():
    level = BY_KIND["inject"][0]
    native = native_of(level)

    def ids(n):
        return [(ident, j is None) for item in n.items for ident, j in call_ids(item)]

    before = ids(native)
    cut = inject(native, "cut-mid-call").apply(native)
    assert all(not answered for _, answered in ids(cut)) and len(cut) < len(native)
    dropped = inject(native, "drop-parallel-result").apply(native)
    assert len(ids(dropped)) == len(before) - 1
    twice = ids(inject(native, "duplicate-result").apply(native))
    assert twice.count(before[0][:1] + (True,)) == 2
    compacted = inject(native, "compact-between").apply(native)
    assert [i for i, answered in ids(compacted) if answered][:2] == [i for i, _ in before[:2]]
    assert before[0] not in ids(compacted)
    reused = ids(inject(native, "reuse-id").apply(native))
    assert reused.count((before[0][0], False)) == 2 and reused.count((before[0][0], True)) == 2
    with pytest.raises(ValueError, match="names no model"):
        inject(native, "switch-model")  # a message list has no request model to switch
    signed = next(lv for lv in BY_KIND["inject"] if lv.inject == "switch-model")
    body = native_of(signed)
    switched = inject(body, "switch-model").apply(body)
    assert switched.body["model"] != body.body["model"] and switched.items == body.items
    assert set(INJECTIONS) == {"cut-mid-call", "drop-parallel-result", "duplicate-result", "compact-between",
                               "reuse-id", "switch-model"}


def test_a_level_file_round_trips_and_a_bad_one_names_file_and_place(tmp_path):
    for level in LEVELS:
        again = L.parse(level.to_bytes(), "again.json", level.ident)
        assert again.as_json() == level.as_json()
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"inspector-level": 1,\n "kind": }')
    with pytest.raises(InputError) as caught:
        L.read(bad)
    assert "bad.json" in str(caught.value) and ":2:" in str(caught.value)
    bad.write_bytes(json.dumps({"inspector-level": 1, "kind": "goal", "title": "t", "about": "a",
                                "start": {"document": []}, "goal": {"accept": ["nobody"]}, "solution": []}).encode())
    with pytest.raises(InputError, match="unknown provider"):
        L.read(bad)


def test_progress_lives_in_the_state_folder_and_keeps_the_best(tmp_path):
    assert L.state_dir({"XDG_STATE_HOME": str(tmp_path), "HOME": "/nowhere"}) == tmp_path / "inspector"
    assert L.state_dir({"XDG_STATE_HOME": "relative", "HOME": str(tmp_path)}) == tmp_path / ".local/state/inspector"
    path = tmp_path / "p.json"
    L.record("a", 1, 2, path)
    L.record("a", 0, 2, path)
    assert L.load_progress(path) == {"a": {"got": 1, "of": 2}}
    L.record("a", 2, 2, path)
    assert L.load_progress(path)["a"] == {"got": 2, "of": 2}


def test_a_block_move_op_is_the_playground_s_block_move():
    level = next(lv for lv in BY_KIND["goal"] if "5750" in lv.title)
    moved = L.apply_solution(native_of(level), [{"op": "move", "at": 1, "block": ["content", 2], "by": -1}])
    assert moved.document() == L.apply_solution(native_of(level), level.solution).document()
    with pytest.raises(ValueError, match="past the edge"):
        L.apply_solution(native_of(level), [{"op": "move", "at": 0, "by": -1}])

"""Stage levels: a prediction judged against the engine's events (a move's ghost row is no row
the stage made), and the lesson screen reached from the level list (it asks before it
reveals, and the score is kept in the state folder)."""

from __future__ import annotations

from textual.widgets import DataTable

from inspector import pipeline
from inspector.bundled import samples_dir
from inspector.tui.app import make_lessons_app
from inspector.tui.lessons import LESSONS
from inspector.tui.lessons.levels import load_progress
from inspector.tui.lessons.score import Guess, entering, judge, score
from inspector.tui.rows import DROP, MOVE, SAME, Model
from inspector.tui.screens.learn import LearnScreen
from inspector.tui.screens.levels import LevelsScreen

from .helpers import BROKEN


def stage_rows(history, name):
    imported = pipeline.read(history, "<test>", "flat")
    model = Model(imported.messages, pipeline.repair(imported), imported)
    return model.rows(model.views.index(name))


def test_the_engine_s_answer_is_read_from_the_stage_rows():
    repair = entering(stage_rows(BROKEN, "repair"))
    hoist = entering(stage_rows(BROKEN, "hoist"))
    assert [e.mark for e in hoist if e.mark != SAME] == [MOVE]  # the system message
    assert hoist[[e.mark for e in hoist].index(MOVE)].message["role"] == "system"
    drops = [e.origin for e in repair if e.mark == DROP]
    assert drops and all(any(ev.drop for ev in e.events) for e in repair if e.mark == DROP)
    added = [e for e in repair if e.adds_after]
    assert added and all(ev.kind == "result-synthesized" for e in added for ev in e.added)


def test_a_perfect_prediction_scores_every_row_and_a_blank_one_misses_each_change():
    rows = stage_rows(BROKEN, "repair")
    truth = entering(rows)
    perfect = {e.position: Guess(e.mark, e.adds_after) for e in truth}
    assert score(judge(rows, perfect)) == (len(truth), len(truth))
    blank = judge(rows, {})
    changed = [e for e in truth if e.mark != SAME or e.adds_after]
    assert score(blank) == (len(truth) - len(changed), len(truth))
    for verdict in blank:
        if not verdict.right:  # the engine's own sentence is the reason
            assert any(ev.message in " ".join(verdict.reasons) for ev in (*verdict.entering.events,
                                                                           *verdict.entering.added))


def test_a_mark_on_a_row_the_stage_leaves_alone_says_so():
    rows = stage_rows(BROKEN, "hoist")
    kept = next(e for e in entering(rows) if e.mark == SAME)
    verdict = next(v for v in judge(rows, {kept.position: Guess(DROP, True)}) if v.entering.position == kept.position)
    assert not verdict.right and len(verdict.reasons) == 2
    assert "unchanged" in verdict.reasons[0] and "no row is added" in verdict.reasons[1]


def test_every_lesson_asks_about_stages_its_sample_has():
    for lesson in LESSONS:
        imported = pipeline.load((samples_dir() / lesson.sample).read_bytes(), lesson.sample)
        names = [s.name for s in pipeline.repair(imported).stages]
        assert set(lesson.stages) <= set(names), lesson.sample
        assert any(pipeline.repair(imported).stages[names.index(n)].events for n in lesson.stages), lesson.sample


async def test_a_lesson_asks_before_it_reveals_and_scores(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = make_lessons_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause(0.2)
        assert isinstance(app.screen, LevelsScreen)
        await pilot.press("enter")  # the first level: a stage level
        await pilot.pause(0.2)
        screen = app.screen
        assert isinstance(screen, LearnScreen)
        table = screen.query_one(DataTable)
        assert [c.label.plain for c in table.columns.values()][:2] == ["you", "#in"]  # no engine column yet
        truth = entering(screen._model().rows(screen._model().views.index(LESSONS[0].stages[0])))
        for e in truth:  # mark every row the engine drops
            if e.mark == DROP:
                table.move_cursor(row=e.position)
                await pilot.press("d")
        assert not screen.state.revealed
        await pilot.press("enter")
        await pilot.pause()
        assert screen.state.revealed
        assert [c.label.plain for c in table.columns.values()][:2] == ["you", "engine"]
        right, total = screen.state.points[0][0]
        assert total == len(truth)
        assert right == sum(1 for e in truth if e.mark in (SAME, DROP) and not e.adds_after)
        await pilot.press("enter")  # the level's end: its score is kept, and the list shows it
        await pilot.pause()
        assert isinstance(app.screen, LevelsScreen)
        assert load_progress(tmp_path / "inspector" / "learn-progress.json")[app.screen.state.levels[0].ident] == {
            "got": right, "of": total}
        assert f"{right}/{total}" in str(app.screen.query_one(DataTable).get_row_at(0)[1])


def test_a_move_adds_no_row_so_predicting_only_the_move_scores_full_marks():
    """Issue 35 item 1: the ghost row of a move ("moved from here") is not a row the stage
    made. Lesson 2 (hoist), predicting only that the system message moves, scores 6 of 6."""
    lesson = next(lesson for lesson in LESSONS if "hoist" in lesson.stages)
    imported = pipeline.load((samples_dir() / lesson.sample).read_bytes(), lesson.sample)
    model = Model(imported.messages, pipeline.repair(imported), imported)
    rows = model.rows(model.views.index("hoist"))
    system = next(i for i, m in enumerate(rows.before) if m.get("role") == "system" and i > 0)
    verdicts = judge(rows, {system: Guess(MOVE)})
    assert [v.reasons for v in verdicts if not v.right] == []
    assert score(verdicts) == (len(rows.before), len(rows.before))


def test_every_lesson_adds_only_rows_the_stage_wrote():
    """The added rows the lesson expects are the stage's output rows that no input row became
    (counted from the stage's input and output, not from the lesson's own reading)."""
    for lesson in LESSONS:
        imported = pipeline.load((samples_dir() / lesson.sample).read_bytes(), lesson.sample)
        model = Model(imported.messages, pipeline.repair(imported), imported)
        for name in lesson.stages:
            rows = model.rows(model.views.index(name))
            truth = entering(rows)
            made = len(rows.after) - sum(e.mark != DROP for e in truth)
            assert sum(e.adds_after for e in truth) <= made, (lesson.sample, name)
            assert made > 0 or not any(e.adds_after for e in truth), (lesson.sample, name)

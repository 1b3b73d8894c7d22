"""Lessons: a prediction judged against the engine's events, and the lesson screen through the
app's factory (it asks before it reveals; the last lesson is built with the editor)."""

from __future__ import annotations

from textual.widgets import DataTable

from inspector import pipeline
from inspector.bundled import samples_dir
from inspector.tui.app import make_lessons_app
from inspector.tui.lessons import BLANK_KINDS, LESSONS
from inspector.tui.lessons.score import Guess, entering, judge, score
from inspector.tui.rows import DROP, MOVE, SAME, Model
from inspector.tui.screens.learn import BLANK_NAME, LearnScreen
from inspector.tui.screens.editor import TemplatePicker

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


async def test_a_lesson_asks_before_it_reveals_and_scores():
    app = make_lessons_app()
    async with app.run_test(size=(160, 50)) as pilot:
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
        await pilot.press("enter")  # the next lesson
        await pilot.pause()
        assert screen.state.lesson == 1 and not screen.state.revealed


async def test_the_last_lesson_is_a_blank_history_built_with_the_editor():
    app = make_lessons_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause(0.2)
        app.screen.state.lesson = len(LESSONS)
        app.screen.show()
        await pilot.press("enter")  # opens a blank history on the main screen
        for _ in range(100):
            await pilot.pause(0.02)
            if app.main.doc is not None and app.main.doc.source.name == BLANK_NAME:
                break
        main = app.main
        assert app.screen is main and main.doc.raw == []

        async def add(name):
            await pilot.press("a")
            await pilot.pause()
            picker = app.screen
            assert isinstance(picker, TemplatePicker)
            from textual.widgets import OptionList

            options = picker.query_one(OptionList)
            options.highlighted = [options.get_option_at_index(i).id for i in range(options.option_count)].index(name)
            await pilot.press("enter")
            for _ in range(100):
                await pilot.pause(0.01)
                if main.editing.pending is None:
                    break

        await add("user")
        await add("system")
        await add("call")
        assert {e.kind for e in main.doc.result.events} >= set(BLANK_KINDS)
        await pilot.press("L")
        await pilot.pause()
        assert isinstance(app.screen, LearnScreen)
        assert f"{len(BLANK_KINDS)} of {len(BLANK_KINDS)} goals" in str(app.screen.query_one("#learn-why-text").render())

"""The inspection screen driven like a user drives it: keys in, screen text out, compared
with the engine's own result for the same history."""

from __future__ import annotations

import json

import orjson

from inspector.engine import CLAUSES, KINDS, MEM5_STAGES as STAGES, RULE_SOURCE, normalize
from inspector.tui.rows import VIEWS
from inspector.tui.screens.help import HelpScreen
from inspector.tui.widgets.diff_table import DiffTable
from inspector.tui.widgets.stage_bar import StageBar

from .helpers import BROKEN, opened, row_lines, text_when, widget_text


def _line_of(app, origin: int) -> str:
    """The table line showing input #origin (the cursor is moved there first)."""
    table = app.main.query_one(DiffTable)
    for position in range(table.row_count):
        row = table.row_at(position)
        if row.origin == origin:
            table.cursor = position
            return table.render_line(table.screen_line(position)).text
    raise AssertionError(f"#{origin} not shown")


async def test_steps_forward_and_back_through_every_stage(broken_file):
    async with opened(broken_file) as (app, pilot):
        main = app.main
        bar = main.query_one(StageBar)
        assert main.view == 0 and bar.current == 0
        for view in range(1, len(VIEWS)):
            await pilot.press("n")
            assert main.view == view and bar.current == view
            assert main.query_one(DiffTable).rows.name == VIEWS[view]
            assert f"MEM-5 clause {view}" in str(main.query_one("#rule").border_title)
        await pilot.press("n")  # stays on the last stage
        assert main.view == 4
        for view in reversed(range(len(VIEWS) - 1)):
            await pilot.press("p")
            assert main.view == view
        await pilot.press("right", "right")
        assert main.view == 2
        await pilot.press("left")
        assert main.view == 1
        for key in "30421":
            await pilot.press(key)
            assert main.view == int(key)
        # The stage bar's counts come from each stage's events.
        result = normalize(BROKEN)
        labels = bar.labels()
        for view, stage in enumerate(result.stages, start=1):
            drops = sum(e.drop for e in stage.events)
            assert (f"−{drops}" in labels[view]) == bool(drops)


async def test_markers_and_clause_tags_match_engine_events(broken_file):
    result = normalize(BROKEN)
    async with opened(broken_file) as (app, pilot):
        for view, stage in enumerate(result.stages, start=1):
            await pilot.press(str(view))
            for event in stage.events:
                if event.origin is None:
                    continue
                first = next(e for e in stage.events if e.origin == event.origin)
                line = _line_of(app, event.origin)
                if any(e.drop and e.call is None for e in stage.events if e.origin == event.origin):
                    assert line.startswith("- "), line
                elif event.kind == "system-hoisted":
                    assert line.startswith("↑ "), line
                else:
                    assert line.startswith("~ "), line
                assert f"({first.clause}) {first.kind}" in line
            synthesized = [e for e in stage.events if e.kind == "result-synthesized"]
            lines = [line for line in row_lines(app)[1:] if line.startswith("+ ")]
            assert len(lines) == len(synthesized)
            for line, event in zip(lines, synthesized):
                assert "(3) result-synthesized" in line and event.tool_call_id in line
        # An input row no stage touched has no marker and no tag in any stage.
        await pilot.press("3")
        assert _line_of(app, 1).startswith("  ") and "(" not in _line_of(app, 1).split("hello")[1]


async def test_details_and_journey_of_a_dropped_row(broken_file):
    result = normalize(BROKEN)
    orphan = next(e for e in result.events if e.kind == "result-orphan")
    async with opened(broken_file) as (app, pilot):
        await pilot.press("3")
        _line_of(app, orphan.origin)
        await pilot.press("enter")
        details = await text_when(app, pilot, "#details-body", lambda t: f"#{orphan.origin} · repair" in t)
        assert f"#{orphan.origin} · repair · dropped" in details
        assert "(3) result-orphan" in details and KINDS["result-orphan"].label in details
        assert orphan.message.split(":")[0] in details
        assert '"nobody asked"' in details and "(dropped by this stage)" in details
        await pilot.press("escape", "j")
        journey = await text_when(app, pilot, "#journey-body", lambda t: "In the output" in t)   # once it is shown
        lines = {line.split()[0]: line for line in journey.splitlines() if line.strip() and line.split()[0] in STAGES}
        assert "unchanged" in lines["coerce"] and "dropped" in lines["repair"] and "gone" in lines["strip"]
        assert "In the output: no" in journey


async def test_panes_follow_the_stage_and_the_file_not_a_filter(broken_file):
    """A filter or the split keeps the selected row and the stage: the panes keep their
    text (no new layout). A stage switch or a reload changes them."""
    async with opened(broken_file) as (app, pilot):
        await pilot.press("3")
        _line_of(app, 7)
        await pilot.pause()
        details, rule = widget_text(app, "#details-body"), widget_text(app, "#rule-body")
        assert "#7 · repair · dropped" in details and CLAUSES["3"].title in rule
        await pilot.press("d", "s")
        assert app.main.changed_only and app.main.split
        assert widget_text(app, "#details-body") == details and widget_text(app, "#rule-body") == rule
        await pilot.press("d", "s", "2")
        assert f"#7 · {STAGES[1]}" in await text_when(app, pilot, "#details-body", lambda t: f"#7 · {STAGES[1]}" in t)
        assert CLAUSES["2"].title in widget_text(app, "#rule-body")
        await pilot.press("3")
        assert '"nobody asked"' in await text_when(app, pilot, "#details-body", lambda t: '"nobody asked"' in t)
        broken_file.write_text(json.dumps([*BROKEN[:7], {**BROKEN[7], "content": "still nobody"}, *BROKEN[8:]]))
        await pilot.press("r")
        for _ in range(200):
            await pilot.pause(0.02)
            if app.main.doc.raw[7]["content"] == "still nobody":
                break
        await pilot.pause()
        assert app.main.query_one(DiffTable).current.origin == 7
        assert '"still nobody"' in widget_text(app, "#details-body")


async def test_journey_of_a_synthesized_row(broken_file):
    result = normalize(BROKEN)
    synth = [e for e in result.events if e.kind == "result-synthesized"]
    async with opened(broken_file) as (app, pilot):
        await pilot.press(str(STAGES.index(synth[0].stage) + 1))
        table = app.main.query_one(DiffTable)
        table.cursor = next(p for p in range(table.row_count) if table.row_at(p).mark == "+")
        await pilot.press("j")
        journey = await text_when(app, pilot, "#journey-body", lambda t: "In the output" in t)
        assert "synthesized" in journey and "In the output: yes" in journey
        assert synth[0].tool_call_id in journey


async def test_filters_changed_only_kind_and_search(broken_file):
    async with opened(broken_file) as (app, pilot):
        main = app.main
        table = main.query_one(DiffTable)
        await pilot.press("3", "d")
        marks = [table.row_at(p).mark for p in range(table.row_count)]
        assert marks and " " not in marks
        await pilot.press("d")
        assert " " in [table.row_at(p).mark for p in range(table.row_count)]
        # Summary: choosing a kind filters to what it touched and jumps to where it acts.
        main.filter_kind("result-duplicate")
        await pilot.pause()
        assert main.view == 3
        result = normalize(BROKEN)
        dup = [e.origin for e in result.events if e.kind == "result-duplicate"]
        assert [table.row_at(p).origin for p in range(table.row_count)] == dup
        await pilot.press("escape")
        assert main.kind is None and table.row_count == len(table.rows)
        # Search: text, and a tool call id.
        await pilot.press("0", "slash")
        await pilot.press(*"THANKS", "enter")
        assert [table.row_at(p).origin for p in range(table.row_count)] == [9]
        await pilot.press("slash", "ctrl+a", "ctrl+k", *"c9", "enter")
        assert [table.row_at(p).origin for p in range(table.row_count)] == [7]
        assert "search: 'c9'" in widget_text(app, "#status")
        await pilot.press("escape")
        assert main.query_text == ""


async def test_summary_selection_filters(broken_file):
    async with opened(broken_file) as (app, pilot):
        main = app.main
        main.action_summary()
        await pilot.pause()
        summary = main.query_one("#summary")
        kinds = [summary.get_option_at_index(i).id for i in range(summary.option_count)]
        assert set(kinds) == {e.kind for e in normalize(BROKEN).events}
        summary.highlighted = kinds.index("result-orphan")
        await pilot.press("enter")
        assert main.kind == "result-orphan"
        table = main.query_one(DiffTable)
        assert [table.row_at(p).origin for p in range(table.row_count)] == [7]


async def test_split_view_shows_before_and_after(broken_file):
    async with opened(broken_file) as (app, pilot):
        await pilot.press("3", "s")
        lines = row_lines(app)
        assert "before repair" in lines[0] and "after repair" in lines[0]
        orphan = next(line for line in lines if "nobody asked" in line)
        left, right = orphan.split(" │ ", 1)
        assert "#7" in left and "(3) result-orphan" in right
        await pilot.press("s")
        assert "clause · kind" in row_lines(app)[0]


async def test_split_view_shows_a_dropped_null_entry_as_there_before(tmp_path):
    """A raw entry that is JSON null entered coerce: the split view's left side shows it as
    entry #1, never as a row the stage created; details say the same."""
    path = tmp_path / "null.json"
    path.write_text('[{"role": "user", "content": "hi"}, null, {"role": "assistant", "content": "yo"}]')
    async with opened(path) as (app, pilot):
        await pilot.press("1", "s")
        dropped = next(line for line in row_lines(app)[1:] if "not-a-map" in line)
        left, right = dropped.split(" │ ", 1)
        assert "#1" in left and "not there" not in left and "(dropped)" in right
        await pilot.press("s")
        table = app.main.query_one(DiffTable)
        row = next(table.row_at(p) for p in range(table.row_count) if table.row_at(p).origin == 1)
        assert row.entered and not row.left and row.before is None


async def test_copy_selected_message_as_json(broken_file):
    async with opened(broken_file) as (app, pilot):
        await pilot.press("1")
        _line_of(app, 5)
        await pilot.press("c")
        assert json.loads(app.clipboard) == normalize(BROKEN).stages[0].messages[4]


async def test_help_lists_keys_and_every_clause(broken_file):
    async with opened(broken_file) as (app, pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.markdown
        for clause in CLAUSES.values():
            assert clause.title in text and clause.summary in text
        for kind in KINDS:
            assert f"`{kind}`" in text
        assert RULE_SOURCE in text and "`e`" in text and "Export the repaired history" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)


async def test_reload_reads_the_file_again(broken_file):
    async with opened(broken_file) as (app, pilot):
        await pilot.press("3")
        broken_file.write_text(json.dumps(BROKEN + [{"role": "tool", "content": "x", "tool_call_id": "zz"}]))
        await pilot.press("r")
        for _ in range(200):
            await pilot.pause(0.02)
            if len(app.main.doc.raw) == len(BROKEN) + 1:
                break
        assert len(app.main.doc.raw) == len(BROKEN) + 1
        assert app.main.view == 3  # the stage is kept
        assert "zz" in "\n".join(row_lines(app))
        assert f"{len(BROKEN) + 1} in" in widget_text(app, "#title")


async def test_command_palette_entries(broken_file):
    from inspector.tui.commands import entries

    async with opened(broken_file) as (app, pilot):
        titles = [e.title for e in entries(app.main)]
        for title in ("export: repaired history", "stage: repair", "stage: input", "open: samples gallery",
                      "filter: kind result-orphan", "help: keys and MEM-5", "row: go to cause"):
            assert title in titles
        next(e for e in entries(app.main) if e.title == "stage: strip").run()
        assert app.main.view == 4


async def test_palette_ranks_the_stage_first_for_a_stage_name(broken_file):
    # "repair" also matches "export: repaired history": the stage must win.
    async with opened(broken_file) as (app, pilot):
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"repair")
        for _ in range(50):
            await pilot.pause(0.02)
            if app.screen.query("CommandList Option") if hasattr(app.screen, "query") else False:
                break
        await pilot.pause(0.2)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.main and app.main.view == 3


def test_every_binding_has_an_id_and_tooltip():
    from inspector.tui.screens.main import MainScreen

    for binding in [*MainScreen.BINDINGS, *DiffTable.BINDINGS]:
        assert binding.id and binding.tooltip, binding


async def test_stdin_history_opens(tmp_path):
    data = orjson.dumps(BROKEN)
    async with opened(stdin_data=data) as (app, pilot):
        assert app.main.doc.source.name == "<stdin>"
        assert "<stdin>" in widget_text(app, "#title")
        await pilot.press("r")  # standard input cannot be read twice: a notice, no crash
        await pilot.pause()
        assert app.main.doc is not None


async def test_narrow_screen_stacks_and_maximizes_details(broken_file):
    async with opened(broken_file, size=(80, 24)) as (app, pilot):
        assert app.main.has_class("-narrow")
        await pilot.press("3", "enter")
        assert app.main.maximized is app.main.query_one("#side")
        await pilot.press("escape")
        assert app.main.maximized is None and app.main.focused is app.main.query_one(DiffTable)


async def test_mouse_picks_stage_and_row(broken_file):
    async with opened(broken_file) as (app, pilot):
        bar = app.main.query_one(StageBar)
        start, _ = bar.chip_of(3)
        await pilot.click(StageBar, offset=(start + 1, 0))
        assert app.main.view == 3
        table = app.main.query_one(DiffTable)
        await pilot.click(DiffTable, offset=(5, 3))  # border, header, then the second row
        assert table.cursor == 1
        await pilot.click(DiffTable, offset=(5, 3), times=2)
        assert app.main.focused is app.main.query_one("#details")


async def test_empty_and_clean_histories(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    async with opened(empty) as (app, pilot):
        assert "the history is empty" in "\n".join(row_lines(app))
        await pilot.press("n", "enter", "j", "d", "s")  # nothing to show, nothing breaks
        assert app.main.view == 1
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    async with opened(clean) as (app, pilot):
        app.main.action_summary()
        await pilot.pause()
        assert "Nothing to change" in str(app.main.query_one("#summary").get_option_at_index(0).prompt)
        await pilot.press("escape", "3", "d")
        assert app.main.query_one(DiffTable).row_count == 0
        assert "No rows match the filters." in "\n".join(row_lines(app))

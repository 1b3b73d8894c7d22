"""The playground through the app's public factory: edit, undo, save, watch, quit."""

from __future__ import annotations

from pathlib import Path

import json
import shutil

import pytest
from textual.widgets import Input, OptionList, TextArea

from inspector.bundled import samples_dir
from inspector.tui.screens.editor import EditorDialog, TemplatePicker
from inspector.tui.screens.export import ExportDialog
from inspector.tui.screens.save_edits import ConfirmDialog, SaveEditsDialog
from inspector.tui.widgets.diff_table import DiffTable
from inspector.tui.widgets.title_bar import TitleBar

from .helpers import opened, table_lines

CLEAN = "12-clean-history.json"


@pytest.fixture
def clean(tmp_path):
    path = tmp_path / CLEAN
    shutil.copy(samples_dir() / CLEAN, path)
    return path


async def settled(app, pilot, tries: int = 300) -> None:
    """Until the edit's worker has been read and shown."""
    for _ in range(tries):
        await pilot.pause(0.01)
        pending = app.main.editing.pending if hasattr(app.main, "editing") else app.main.editing.pending
        if pending is None and app.main.loading_source is None:
            await pilot.pause()
            return
    raise AssertionError("the edit was never shown")


def select(app, role: str) -> int:
    table = app.main.query_one(DiffTable)
    row = next(i for i, m in enumerate(app.main.doc.raw) if isinstance(m, dict) and m.get("role") == role)
    table.cursor = table.position_of(row)
    return row


def kinds(app) -> list[str]:
    return [e.kind for e in app.main.doc.result.events]


async def test_deleting_the_result_makes_repair_synthesize_one_and_undo_takes_it_back(clean):
    before = clean.read_bytes()
    async with opened(clean) as (app, pilot):
        assert kinds(app) == []
        select(app, "tool")
        await pilot.press("delete")
        await settled(app, pilot)
        assert kinds(app) == ["result-synthesized"]
        assert "[modified · edit 1 of 1]" in app.main.query_one(TitleBar).name_text
        for _ in range(200):  # the providers' verdicts follow the edited history
            await pilot.pause(0.02)
            if app.main.verdicts is not None and app.main.verdicts.complete:
                break
        assert app.main.verdicts is not None and app.main.verdicts.complete
        await pilot.press("3")
        await pilot.pause()
        assert any("result-synthesized" in line for line in table_lines(app))
        await pilot.press("ctrl+z")
        await settled(app, pilot)
        assert kinds(app) == [] and app.main.view == 3  # the stage stays
        await pilot.press("ctrl+y")
        await settled(app, pilot)
        assert kinds(app) == ["result-synthesized"]
    assert clean.read_bytes() == before  # the input is never written


async def test_delete_deletes_on_view_0_only_and_x_stays_the_next_problem(clean):
    async with opened(clean) as (app, pilot):
        await pilot.press("2")
        await pilot.press("delete")  # not an edit on a stage's view
        await pilot.press("0")
        await pilot.press("x")  # the next problem, on view 0 too
        await pilot.pause(0.1)
        assert app.main.edits is None and len(app.main.doc.raw) == 5


async def test_the_editor_refuses_invalid_json_in_place_and_applies_valid_json(clean):
    async with opened(clean) as (app, pilot):
        row = select(app, "user")
        await pilot.press("E")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, EditorDialog)
        area = dialog.query_one(TextArea)
        assert json.loads(area.text) == app.main.doc.raw[row]
        area.text = '{"role": "user",\n  "content": oops}'
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is dialog  # not applied
        error = str(dialog.query_one("#editor-error").render())
        assert "line 2, column" in error
        assert area.cursor_location[0] == 1
        area.text = '{"role": "tool", "content": "orphan", "tool_call_id": "nobody"}'
        await pilot.press("ctrl+s")
        await settled(app, pilot)
        assert app.screen is app.main
        assert kinds(app) == ["result-orphan"]
        assert app.main.query_one(DiffTable).current.origin == row  # the cursor stays on the edited entry


async def test_insert_from_a_template_answers_the_selected_call_and_moves(clean):
    async with opened(clean) as (app, pilot):
        select(app, "tool")
        await pilot.press("delete")
        await settled(app, pilot)
        assert kinds(app) == ["result-synthesized"]
        select(app, "assistant")  # the turn with the call
        await pilot.press("a")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, TemplatePicker)
        options = picker.query_one(OptionList)
        options.highlighted = [options.get_option_at_index(i).id for i in range(options.option_count)].index("result")
        await pilot.press("enter")
        await settled(app, pilot)
        assert kinds(app) == []  # the new result answers call_ci_3
        new = app.main.query_one(DiffTable).current.origin
        assert app.main.doc.raw[new]["tool_call_id"] == "call_ci_3"
        await pilot.press("alt+up")
        await settled(app, pilot)
        assert app.main.doc.raw[new - 1].get("role") == "tool"
        assert app.main.query_one(DiffTable).current.origin == new - 1  # the cursor follows the moved entry
        assert app.main.edits.describe() == "edit 3 of 3"


async def test_an_anthropic_block_is_deleted_in_its_message_and_the_import_runs_again(tmp_path):
    path = tmp_path / "13.json"
    shutil.copy(samples_dir() / "13-anthropic-retry-and-parallel-call.json", path)
    async with opened(path) as (app, pilot):
        doc = app.main.doc
        row = next(i for i, loc in enumerate(doc.imported.sources)
                   if loc.blocks is not None and len(loc.blocks) == 1
                   and doc.imported.messages[i].get("role") == "tool")
        loc = doc.imported.sources[row]
        blocks = len(doc.imported.history[loc.message][loc.key])
        table = app.main.query_one(DiffTable)
        table.cursor = table.position_of(row)
        await pilot.press("delete")
        await settled(app, pilot)
        fresh = app.main.doc.imported
        assert fresh.format == "anthropic"
        assert len(fresh.history[loc.message][loc.key]) == blocks - 1
        assert len(fresh.messages) == len(doc.imported.messages) - 1  # one flat row fewer, read by the importer


async def test_save_writes_a_new_file_asks_before_replacing_and_never_the_input(clean):
    before = clean.read_bytes()
    target = clean.with_name("12-clean-history.edited.json")
    async with opened(clean) as (app, pilot):
        await pilot.press("ctrl+s")  # no edits: the main screen's save, the export
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        await pilot.press("escape")
        await pilot.pause()
        select(app, "tool")
        await pilot.press("delete")
        await settled(app, pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SaveEditsDialog)
        field = dialog.query_one(Input)
        assert field.value == str(target)
        field.value = str(clean)
        await pilot.press("enter")
        await pilot.pause()
        assert "input file" in str(dialog.query_one("#save-note").render())
        target.write_text("[]")
        field.value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and "exists" in str(dialog.query_one("#save-note").render())
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.main
        assert not app.main.edits.unsaved
        assert "[saved · edit 1 of 1]" in app.main.query_one(TitleBar).name_text
    assert clean.read_bytes() == before
    saved = json.loads(target.read_text())
    assert saved == [m for m in json.loads(before) if m.get("role") != "tool"]


async def test_quitting_with_unsaved_edits_asks(clean):
    async with opened(clean) as (app, pilot):
        select(app, "tool")
        await pilot.press("delete")
        await settled(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("escape")  # no: stay
        await pilot.pause()
        assert app.screen is app.main and app.is_running
        await pilot.press("q")
        await pilot.pause()
        await pilot.click("#yes")
        await pilot.pause()
    assert app.return_code in (0, None)


async def test_export_works_on_the_edited_history(clean):
    async with opened(clean) as (app, pilot):
        select(app, "tool")
        await pilot.press("delete")
        await settled(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        assert app.screen.result is app.main.doc.result
        assert [e.kind for e in app.screen.result.events] == ["result-synthesized"]


async def test_watch_reads_the_file_again_and_says_what_changed(clean):
    async with opened(clean, watch=True) as (app, pilot):
        await pilot.press("3")
        await pilot.pause()
        history = json.loads(clean.read_text())
        history.insert(3, {"role": "tool", "content": "again", "tool_call_id": "call_ci_3"})
        clean.write_text(json.dumps(history))
        for _ in range(300):
            await pilot.pause(0.02)
            if len(app.main.doc.raw) == 6 and app.main.loading_source is None:
                break
        assert len(app.main.doc.raw) == 6
        assert app.main.view == 3  # the stage stays
        assert any(e.drop for e in app.main.doc.result.events)
        said = [n.message for n in app.notified if "changed on disk" in str(n.title)]
        assert said and "1 entry added" in said[-1] and "repair now drops 1 (was 0)" in said[-1]
        assert not any(str(n.message).startswith("Reloaded") for n in app.notified)  # said once, with what changed


async def test_a_session_line_is_edited_and_saved_the_other_lines_byte_for_byte(tmp_path):
    path = tmp_path / "session.jsonl"
    shutil.copy(samples_dir() / "21-claude-code-session.jsonl", path)
    before = path.read_bytes()
    async with opened(path) as (app, pilot):
        doc = app.main.doc
        row = len(doc.imported.messages) - 1
        line = doc.imported.sources[row].message
        table = app.main.query_one(DiffTable)
        table.cursor = table.position_of(row)
        await pilot.press("E")
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        entry = json.loads(area.text)
        assert entry == json.loads(before.splitlines()[line])  # the line, as the file holds it
        entry["message"]["content"] = "edited in the playground"
        area.text = json.dumps(entry)
        await pilot.press("ctrl+s")
        await settled(app, pilot)
        assert app.main.doc.imported.format == "claude-code"
        assert app.main.doc.imported.messages[row]["content"] == "edited in the playground"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
    saved = path.with_name("session.edited.jsonl").read_bytes().splitlines()
    original = before.splitlines()
    assert len(saved) == len(original)
    assert [k for k, (a, b) in enumerate(zip(saved, original)) if a != b] == [line]
    assert path.read_bytes() == before


async def test_the_strict_toggle_keeps_the_edits_and_reload_asks_before_dropping_them(clean):
    async with opened(clean) as (app, pilot):
        select(app, "tool")
        await pilot.press("delete")
        await settled(app, pilot)
        await pilot.press("t")
        await settled(app, pilot)
        assert app.main.doc.strict and len(app.main.doc.raw) == 4 and app.main.edits.describe() == "edit 1 of 1"
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("escape")  # keep the edits
        await pilot.pause()
        assert len(app.main.doc.raw) == 4 and app.main.edits.edited
        await pilot.press("r")
        await pilot.pause()
        await pilot.click("#yes")
        await settled(app, pilot)
        assert len(app.main.doc.raw) == 5 and app.main.edits is None


async def test_a_watched_file_caught_mid_write_keeps_the_last_good_load(clean):
    async with opened(clean, watch=True) as (app, pilot):
        shown = app.main.doc
        clean.write_text('[{"role": "user", "content": "cut sh')
        for _ in range(150):
            await pilot.pause(0.02)
            if any("cannot be read yet" in str(n.message) for n in app.notified):
                break
        assert app.main.doc is shown and app.screen is app.main  # no error dialog, the history stays
        assert any("cannot be read yet" in str(n.message) for n in app.notified)


def test_the_command_line_passes_watch_and_has_learn(monkeypatch):
    import inspector.tui.app as tui_app
    from inspector import cli

    seen = {}
    monkeypatch.setattr(tui_app, "run", lambda path, **options: seen.update(path=path, **options) or 0)
    assert cli.main(["x.json", "--watch"]) == 0
    assert seen["path"] == "x.json" and seen["watch"] is True
    monkeypatch.setattr(tui_app, "run_lessons", lambda level=None: seen.update(level=level) or 7)
    assert cli.main(["learn"]) == 7 and seen["level"] is None
    level = sorted((Path(__file__).parents[2] / "inspector" / "lessons").glob("*.json"))[0]
    assert cli.main(["learn", str(level)]) == 7 and seen["level"].title


def test_what_changed_is_told_from_the_two_loads_counts():
    from inspector.tui import loader, watch

    def doc(history):
        return loader.load_document(loader.Source("h.json", None, json.dumps(history).encode()))

    clean = json.loads((samples_dir() / CLEAN).read_text())
    doubled = [*clean[:4], {"role": "tool", "content": "again", "tool_call_id": "call_ci_3"}, *clean[4:]]
    assert watch.changes(doc(clean), doc(doubled)) == "1 entry added; repair now drops 1 (was 0)."
    assert watch.changes(doc(doubled), doc(clean)) == "1 entry removed; repair now drops 0 (was 1)."
    assert watch.changes(doc(clean), doc(clean)) == "the same counts as before (5 entries)."


async def test_a_highlight_of_a_replaced_document_does_not_crash_the_panes(tmp_path):
    """R3-18 (hostile-round3): the details pane's cooldown showed the row the last highlight
    named, a row of the document an edit had just replaced; its entry no longer exists there
    and the Journey's ``where`` raised IndexError, killing the app. A highlight still queued
    from before the edit is the same stale row: the panes show the cursor's row instead."""
    path = tmp_path / "13.json"
    shutil.copy(samples_dir() / "13-anthropic-retry-and-parallel-call.json", path)
    async with opened(path) as (app, pilot):
        main = app.main
        assert main.doc.imported.format != "flat"   # a provider body: the Journey names the native place
        main.action_journey()
        await pilot.pause()
        table = main.query_one(DiffTable)
        table.cursor = table.row_count - 1
        await pilot.pause()
        stale = table.current
        assert stale is not None and stale.origin == len(main.doc.imported.sources) - 1
        table.focus()
        await pilot.press("delete")
        await settled(app, pilot)
        assert len(main.doc.imported.sources) <= stale.origin   # that entry is gone
        for _ in range(3):   # at once, and again after the cooldown
            main.post_message(DiffTable.Highlighted(stale))
            await pilot.pause(0.12)
        assert app.is_running
        assert app.return_code is None and main.doc is not None


async def test_after_a_save_the_unsaved_count_is_the_edits_since(clean):
    """Issue 35 item 9: after a save, the questions counted every edit as unsaved ("3 unsaved
    edit(s)" for the one edit made since the save)."""
    target = clean.with_name("12-clean-history.edited.json")
    async with opened(clean) as (app, pilot):
        for role in ("tool", "user"):
            select(app, role)
            await pilot.press("delete")
            await settled(app, pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SaveEditsDialog)
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.02)
            if app.screen is app.main and target.exists():
                break
        assert target.exists() and not app.main.edits.unsaved
        select(app, "assistant")
        await pilot.press("delete")
        await settled(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        message = str(app.screen.query_one("#dialog-message").render())
        assert message.startswith("1 edit(s) are not saved"), message

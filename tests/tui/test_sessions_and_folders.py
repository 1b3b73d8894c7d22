"""Sessions and folders through make_app: a database with two sessions offers them, a folder
opens a browser of every history and session file under it, the open dialog lists what the
registry reads and goes up, a pasted path opens, and the export dialog shows the export's
own events before writing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual import events
from textual.widgets import DataTable, Select

from inspector.pipeline import export as pipeline_export, run_file
from inspector.tui.screens.browser import PENDING, BrowserScreen
from inspector.tui.screens.export import ExportDialog
from inspector.tui.screens.open_file import HistoryTree, OpenFileDialog
from inspector.tui.screens.sessions import SessionPicker
from inspector.tui.screenshots import settle

from .helpers import THINKING, finish_export, opened, wait_loaded

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture
def two_sessions(tmp_path):
    from sessions import agents_builder as ab

    return ab.make(tmp_path / "agents.db", {"support-42": ab.orphan_output(), "faro": ab.clean()})


@pytest.fixture
def tree(tmp_path, two_sessions):
    (tmp_path / "a" / "b").mkdir(parents=True)
    shutil.copy(SAMPLES / "21-claude-code-session.jsonl", tmp_path / "a" / "b" / "session.jsonl")
    shutil.copy(SAMPLES / "11-known-limit-separated-result.json", tmp_path / "a" / "h.json")
    (tmp_path / "notes.json").write_text('{"x": 1}')
    return tmp_path


async def test_a_database_with_two_sessions_offers_both_and_opens_the_one_picked(two_sessions):
    async with opened(None, size=(120, 40)) as (app, pilot):
        from inspector.tui.loader import Source

        app.main.load(Source.file(two_sessions))
        for _ in range(200):
            await pilot.pause(0.02)
            if isinstance(app.screen, SessionPicker):
                break
        assert isinstance(app.screen, SessionPicker)
        assert [s.id for s in app.screen.sessions] == ["support-42", "faro"]
        await pilot.press("down", "enter")
        await wait_loaded(app, pilot)
        assert app.main.doc.source.session == "faro"
        assert app.main.doc.raw == run_file(two_sessions, session="faro").imported.messages


async def test_a_folder_lists_session_files_in_subfolders_with_their_verdicts(tree):
    from inspector.tui.app import make_app

    app = make_app(tree)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        rel = {str(Path(p).relative_to(tree)) for p in screen.files}
        assert {"a/b/session.jsonl", "agents.db", "a/h.json", "notes.json"} <= rel
        for _ in range(200):
            if all(v.status != PENDING for v in screen.verdicts.values()):
                break
            await pilot.pause(0.02)
        by_name = {str(Path(p).relative_to(tree)): v for p, v in screen.verdicts.items()}
        assert by_name["notes.json"].status == "passed over"     # as check and doctor pass over it
        from inspector.doctor import scan
        from inspector.tui.screens.browser import LABELS

        doctor_says = {str(Path(r.path).relative_to(tree)): r for r in scan([str(tree)]).rows}
        session = doctor_says["a/b/session.jsonl"]
        assert by_name["a/b/session.jsonl"].status == LABELS[session.status]   # as `inspector doctor DIR` says
        assert session.verdict.sentence in by_name["a/b/session.jsonl"].detail
        assert by_name["a/h.json"].status == "ok"
        await pilot.press("v")
        table = screen.query_one(DataTable)
        assert table.get_row_at(0)[0].plain == "fails"   # worst first, in the doctor's order of statuses
        target = str(tree / "a" / "b" / "session.jsonl")
        table.move_cursor(row=table.get_row_index(target))
        await pilot.pause()
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == target
        await pilot.press("enter")
        await wait_loaded(app, pilot)
        assert app.main.doc.imported.format == "claude-code"


async def test_the_open_dialog_lists_what_the_registry_reads_and_goes_up(tree):
    async with opened(None, size=(120, 40)) as (app, pilot):
        dialog = OpenFileDialog(str(tree / "a"))
        app.push_screen(dialog)
        await settle(app, pilot)
        names = {p.name for p in dialog.query_one(HistoryTree).filter_paths((tree / "a").iterdir())}
        assert names == {"b", "h.json"}
        shown = {p.name for p in dialog.query_one(HistoryTree).filter_paths(tree.iterdir())}
        assert {"agents.db", "notes.json", "a"} <= shown
        await pilot.press("ctrl+up")
        await settle(app, pilot)
        assert Path(dialog.start) == tree.resolve()


async def test_a_pasted_path_opens_it():
    async with opened(None, size=(120, 40)) as (app, pilot):
        app.main.post_message(events.Paste(str(SAMPLES / "12-clean-history.json")))
        await wait_loaded(app, pilot)
        assert app.main.doc.source.path.endswith("12-clean-history.json")


async def test_the_export_dialog_names_the_omitted_thinking_block_before_writing(tmp_path):
    import json

    path = tmp_path / "thinking.json"
    path.write_text(json.dumps(THINKING))
    async with opened(path, size=(160, 50)) as (app, pilot):
        await pilot.press("e")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one(Select).value = "openai-chat"
        await settle(app, pilot)
        preview = str(dialog.query_one("#export-preview").render())
        doc = app.main.doc
        events_ = pipeline_export(doc.imported, doc.result, "openai-chat").events
        assert [e.kind for e in events_] == ["export-omitted"]
        assert "export-omitted" in preview and "messages[1].content[0]" in preview
        assert not list(tmp_path.glob("*.openai-chat.json"))          # nothing written yet
        dialog.attempt()
        await finish_export(app, pilot)
        assert any("1 export event" in n.message for n in app.notified)


async def test_the_export_preview_of_a_session_lists_the_lines_it_adds_and_relinks():
    sample = SAMPLES / "21-claude-code-session.jsonl"
    async with opened(sample, size=(160, 50)) as (app, pilot):
        await pilot.press("e")
        await settle(app, pilot)
        preview = str(app.screen.query_one("#export-preview").render())
        events_ = run_file(sample).export_events
        assert {e.kind for e in events_} >= {"entry-added", "entry-relinked"}
        for e in events_:
            assert e.kind in preview and e.message in preview   # each, with its line numbers

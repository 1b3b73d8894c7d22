"""The newcomer's small things, each driven through make_app: the palette's screenshot says
where it saved or why it could not, ctrl+s saves (exports) from one binding, the export
dialog is named by what it writes, the title counts drops as events, the claude-code note
says "line 6", and escape from the gallery never leaves an empty screen."""

from __future__ import annotations

from pathlib import Path

from inspector.bundled import samples_dir
from inspector.pipeline import run_file
from inspector.tui import app as app_module
from inspector.tui.screens.export import ExportDialog
from inspector.tui.screens.gallery import GalleryScreen
from inspector.tui.screenshots import settle
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import finish_export, opened, widget_text

SAMPLES = samples_dir()


def _screenshot_command(app):
    return next(c for c in app.get_system_commands(app.screen) if c.title == "Screenshot")


async def test_the_palette_screenshot_says_why_it_could_not_save(monkeypatch, tmp_path):
    missing = tmp_path / "no-such-folder"
    monkeypatch.setattr(app_module, "screenshot_folder", lambda: str(missing))
    async with opened(None, size=(100, 30)) as (app, pilot):
        _screenshot_command(app).callback()
        await pilot.pause(0.3)
        said = [n for n in app.notified if n.title == "Screenshot"]
        assert said and said[-1].severity == "error"
        assert str(missing) in said[-1].message and "No such file or directory" in said[-1].message


async def test_the_palette_screenshot_says_where_it_saved(monkeypatch, tmp_path):
    monkeypatch.setattr(app_module, "screenshot_folder", lambda: str(tmp_path))
    async with opened(None, size=(100, 30)) as (app, pilot):
        _screenshot_command(app).callback()
        await pilot.pause(0.3)
        saved = list(tmp_path.glob("*.svg"))
        assert len(saved) == 1
        assert str(saved[0]) in app.notified[-1].message


async def test_ctrl_s_exports_on_the_main_screen_and_writes_in_the_export_dialog(broken_file):
    async with opened(broken_file) as (app, pilot):
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ExportDialog)
        await pilot.press("ctrl+s")
        await finish_export(app, pilot)
        written = broken_file.with_name("broken.normalized.json")
        assert written.read_bytes() == run_file(broken_file).data
        assert not isinstance(app.screen, ExportDialog)


async def test_ctrl_s_on_a_screen_with_nothing_to_save_says_so():
    async with opened(None, size=(100, 30)) as (app, pilot):
        await settle(app, pilot)
        assert isinstance(app.screen, GalleryScreen)
        await pilot.press("ctrl+s")
        assert app.notified[-1].message == "Nothing to save on this screen."


async def test_the_export_dialog_is_titled_by_the_format_it_writes():
    async with opened(SAMPLES / "21-claude-code-session.jsonl", size=(120, 40)) as (app, pilot):
        await pilot.press("e")
        await settle(app, pilot)
        assert "as .jsonl" in widget_text(app, "#dialog-title")
        app.screen.query_one("Select").value = "openai-chat"
        await settle(app, pilot)
        assert "as .json" in widget_text(app, "#dialog-title") and ".jsonl" not in widget_text(app, "#dialog-title")


async def test_the_title_counts_drops_as_events():
    sample = SAMPLES / "01-falsy-id.json"
    result = run_file(sample).result
    async with opened(sample, size=(160, 40)) as (app, pilot):
        title = widget_text(app, "#title")
        assert f"{result.dropped} drop{'s' if result.dropped != 1 else ''} (event" in title
        assert f"dropped {result.dropped}" not in title


def test_the_claude_code_note_says_line_for_one_line():
    notes = run_file(SAMPLES / "21-claude-code-session.jsonl").imported.notes
    assert "put back on the chain: line 6" in notes


async def test_escape_from_the_gallery_with_nothing_open_shows_the_empty_screen():
    """Issue 35 item 9: escape closes the gallery, it does not quit the app; with nothing
    open the empty screen says what o, g and q do."""
    async with opened(None, size=(100, 30)) as (app, pilot):
        await settle(app, pilot)
        assert isinstance(app.screen, GalleryScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert app.screen is app.main and app.main.doc is None
        assert "g the bundled samples" in app.main.query_one("#table").empty_text


async def test_escape_from_the_gallery_goes_back_to_the_open_history(broken_file):
    async with opened(broken_file) as (app, pilot):
        await pilot.press("g")
        await settle(app, pilot)
        assert isinstance(app.screen, GalleryScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and app.screen is app.main and app.main.doc is not None


async def test_the_empty_screen_talks_of_opening_a_history_not_of_stepping(tmp_path):
    from inspector.tui.app import make_app
    from inspector.tui.screens.error import ErrorDialog

    bad = tmp_path / "bad.json"
    bad.write_text("{")
    app = make_app(bad)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if isinstance(app.screen, ErrorDialog):
                break
        assert isinstance(app.screen, ErrorDialog) and app.main.doc is None   # the empty screen, under the error
        rule = str(app.main.query_one("#rule-body").render())
        assert "No history open" in rule and "Press n" not in rule


async def test_a_dropped_call_id_is_struck_out_to_its_end_and_no_further(broken_file):
    async with opened(broken_file, size=(160, 40)) as (app, pilot):
        await pilot.press("3")
        table = app.main.query_one(DiffTable)
        position = next(p for p in range(table.row_count) if table.row_at(p).origin == 8)
        table.cursor = position + 1 if position + 1 < table.row_count else position - 1   # not the cursor row
        await pilot.pause()
        strip = table.render_line(table.screen_line(position))
        struck = "".join(seg.text for seg in strip if seg.style is not None and seg.style.strike)
        assert struck == "c1"   # the redeclared call the repair dropped, not the padding after it

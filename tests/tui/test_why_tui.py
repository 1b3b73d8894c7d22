"""Issue 34 in the TUI: an error text pasted on the main screen (or typed after w) goes to the
entry it names in the open history and shows the rule and its fix; y copies the agent's resume
command, on the main screen and in the doctor browser.

The expectations are read off sample 13 by hand, not from ``inspector.why``: its input row #2
is the assistant turn at ``messages[1]`` whose call ``toolu_01Rt5wQy9c`` gets no result in the
next message (the one anthropic/tool-use-without-result entry of the file)."""

from __future__ import annotations

import shutil

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from textual import events

from inspector.bundled import samples_dir
from inspector.tui.app import make_app
from inspector.tui.screens.browser import PENDING, BrowserScreen
from inspector.tui.screens.why import WhyDialog, WhyPanel
from inspector.tui.screenshots import app_for, settle
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import settled, watch_notifications

SAMPLE_13 = "13-anthropic-retry-and-parallel-call.json"
# Claude Code's own wording (https://github.com/anthropics/claude-code/issues/54638).
REWIND = "API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation."
CLAUDE_SESSION = "0f6c9a2e-3d1b-4c7e-8a55-b2e4d9f1c388"   # sample 21's sessionId


class SVGSnapshot(SingleFileSnapshotExtension):
    file_extension = "svg"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def svg(snapshot):
    return snapshot.use_extension(SVGSnapshot)


async def _paste(app, pilot, text: str) -> None:
    """A bracketed paste on the main screen (the table has focus), then the examine worker."""
    app.main.query_one(DiffTable).post_message(events.Paste(text))
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def _panel_text(app) -> str:
    assert isinstance(app.screen, WhyPanel), type(app.screen)
    return app.screen.text.plain


async def test_pasting_claude_codes_rewind_error_goes_to_the_entry_and_shows_the_fix():
    app = app_for(SAMPLE_13)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.main.query_one(DiffTable)
        assert table.current.origin == 0
        await _paste(app, pilot, REWIND)
        assert app.main.view == 0
        assert table.current.origin == 2
        text = _panel_text(app)
        assert "anthropic/tool-use-without-result" in text
        assert "fix: Move each result directly after the turn that made its call" in text
        assert "messages[1].content[2] toolu_01Rt5wQy9c" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, WhyPanel)
        assert table.current.origin == 2


async def test_an_error_the_agent_repairs_itself_says_so_and_goes_to_its_entry():
    """Sample 28's unanswered call (toolu_r03) and orphan result (toolu_p99) are Crush's own to
    repair on resume (what ``check`` says): the panel says so, never that the file breaks the rule."""
    app = app_for("28-crush-session.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _paste(app, pilot, REWIND)

        def shown():
            text = _panel_text(app)
            assert "Crush repairs it itself on resume" in text and "toolu_p99 (and 1 more)" in text
            assert "must have come from a different state of the session (or from Crush before" in text
            assert "The repaired copy clears it" not in text

        await settled(pilot, shown)
        assert app.main.view == 0

async def test_a_pasted_error_naming_a_position_goes_there_from_another_stage():
    app = app_for(SAMPLE_13)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("3")       # the repair stage: the entries why names are the input's
        await _paste(app, pilot, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
                                 "after: toolu_01Rt5wQy9c. Each `tool_use` block must have a corresponding "
                                 "`tool_result` block in the next message.")
        assert app.main.view == 0
        assert app.main.query_one(DiffTable).current.origin == 2
        assert "the entry the error names" in _panel_text(app)


async def test_an_unknown_text_says_so_and_lists_the_closest_rules_with_markup_inert():
    app = app_for(SAMPLE_13)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _paste(app, pilot, "[bold red]the tool went sideways[/] somewhere")
        text = _panel_text(app)
        assert text.startswith("Unknown error text")
        assert "Closest rules:" in text
        assert app.main.query_one(DiffTable).current.origin == 0   # nothing named: the cursor stays


async def test_w_asks_for_the_text_and_explains_it():
    app = app_for(SAMPLE_13)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        assert isinstance(app.screen, WhyDialog)
        app.screen.query_one("#why-input").value = REWIND
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        assert app.main.query_one(DiffTable).current.origin == 2
        assert "anthropic/tool-use-without-result" in _panel_text(app)


async def test_the_palette_has_the_why_and_resume_entries():
    from inspector.tui.commands import entries

    app = app_for(SAMPLE_13)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        titles = [e.title for e in entries(app.main)]
        assert "why: explain an error text…" in titles
        assert "resume: copy the agent's resume command" in titles


async def test_snapshot_80x24(svg):
    app = app_for(SAMPLE_13)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _paste(app, pilot, REWIND)
        await settle(app, pilot)
        app.clear_notifications()
        await pilot.pause()
        assert app.export_screenshot(title="Inspector") == svg(name="why-rewind-80x24")


def _claude_session(tmp_path):
    path = tmp_path / f"{CLAUDE_SESSION}.jsonl"
    shutil.copyfile(samples_dir() / "21-claude-code-session.jsonl", path)
    return path


async def test_y_copies_the_resume_command(tmp_path, monkeypatch):
    app = make_app(_claude_session(tmp_path))
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    seen = watch_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("y")
        await pilot.pause()
    assert copied == [f"claude --resume {CLAUDE_SESSION}"]
    assert any(f"claude --resume {CLAUDE_SESSION}" in n.message for n in seen)


async def test_y_with_nothing_to_copy_says_so(monkeypatch):
    app = app_for(SAMPLE_13)     # a flat history: no agent resumes it
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    seen = watch_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("y")
        await pilot.pause()
    assert copied == []
    assert any(n.message.startswith("Nothing to copy") for n in seen)


async def test_y_in_the_browser_copies_the_selected_sessions_command(tmp_path, monkeypatch):
    _claude_session(tmp_path)
    app = make_app(_claude_session(tmp_path))
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.main.browse_root = str(tmp_path)
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        for _ in range(300):
            if all(v.status != PENDING for v in screen.verdicts.values()):
                break
            await pilot.pause(0.02)
        await pilot.press("y")
        await pilot.pause()
    assert copied == [f"claude --resume {CLAUDE_SESSION}"]


async def test_a_pasted_path_that_is_not_there_is_not_read_as_an_error_text(tmp_path):
    app = app_for(SAMPLE_13)
    seen = watch_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _paste(app, pilot, str(tmp_path / "gone.json"))
        assert not isinstance(app.screen, WhyPanel)
    assert any(n.message.startswith("Pasted path not found") for n in seen)

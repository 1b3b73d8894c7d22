"""Screenshots of issue 19's screens at 80x24 and 160x50, compared with accepted SVGs: the
provider verdict (a chosen target, every target's matrix, the picker, the Provider pane),
the export preview, the session picker and the folder browser.

Each SVG under ``__snapshots__/test_snapshots_verdict/`` was looked at (as a PNG) when it was
accepted; after a deliberate change: ``--snapshot-update``, then look again."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from textual.widgets import Select

from inspector.bundled import samples_dir
from inspector.tui.app import InspectorApp, make_app
from inspector.tui.loader import Source
from inspector.tui.screens.browser import PENDING, BrowserScreen
from inspector.tui.screenshots import app_for, settle

from .helpers import THINKING

SIZES = {"80x24": (80, 24), "160x50": (160, 50)}
SAMPLE_11 = "11-known-limit-separated-result.json"
FIXED_TIME = 1_764_600_000   # file times in the browser: the same in every run


class SVGSnapshot(SingleFileSnapshotExtension):
    file_extension = "svg"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def svg(snapshot):
    return snapshot.use_extension(SVGSnapshot)


async def _shot(app, pilot) -> str:
    app.clear_notifications()
    await settle(app, pilot)
    return app.export_screenshot(title="Inspector")


@pytest.mark.parametrize("size", SIZES)
async def test_verdict_screens(size, svg):
    app = app_for(SAMPLE_11, target="openai-chat")
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(app, pilot)
        assert await _shot(app, pilot) == svg(name=f"verdict-target-{size}")
        await pilot.press("x")
        await pilot.press("v")
        assert await _shot(app, pilot) == svg(name=f"verdict-picker-{size}")
        await pilot.press("enter")
        assert await _shot(app, pilot) == svg(name=f"verdict-problems-{size}")
    app = app_for(SAMPLE_11)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(app, pilot)
        assert await _shot(app, pilot) == svg(name=f"verdict-matrix-{size}")


@pytest.mark.parametrize("size", SIZES)
async def test_export_preview_screen(size, svg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "thinking.json").write_text(json.dumps(THINKING))
    app = InspectorApp(Source.file("thinking.json"))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        app.screen.query_one(Select).value = "openai-chat"
        assert await _shot(app, pilot) == svg(name=f"export-preview-{size}")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    from sessions import agents_builder as ab

    root = tmp_path / "projects"
    (root / "api" / "logs").mkdir(parents=True)
    ab.make(root / "api" / "agents.db", {"support-42": ab.orphan_output(), "faro": ab.clean()})
    shutil.copy(samples_dir() / "21-claude-code-session.jsonl", root / "api" / "logs" / "session.jsonl")
    shutil.copy(samples_dir() / "22-codex-rollout.jsonl", root / "rollout.jsonl")
    shutil.copy(samples_dir() / SAMPLE_11, root / "history.json")
    (root / "notes.json").write_text('{"x": 1}')
    for path in root.rglob("*"):
        os.utime(path, (FIXED_TIME, FIXED_TIME))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TZ", "UTC")
    return root


@pytest.mark.parametrize("size", SIZES)
async def test_browser_and_session_picker_screens(size, svg, folder):
    import time

    time.tzset()
    app = make_app("projects")
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        for _ in range(300):
            if all(v.status != PENDING for v in screen.verdicts.values()):
                break
            await pilot.pause(0.02)
        assert await _shot(app, pilot) == svg(name=f"browser-{size}")
        await pilot.press("v")
        assert await _shot(app, pilot) == svg(name=f"browser-by-verdict-{size}")
    app = make_app("projects/api/agents.db")
    async with app.run_test(size=SIZES[size]) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if type(app.screen).__name__ == "SessionPicker":
                break
        for _ in range(300):          # each session's verdict, worked out in the background
            if len(app.screen.verdicts) == len(app.screen.sessions):
                break
            await pilot.pause(0.02)
        assert await _shot(app, pilot) == svg(name=f"sessions-{size}")

"""Screenshots of the playground's editor and of a lesson at 80x24 and 160x50, compared with
accepted SVGs (each looked at as a PNG when accepted; see test_snapshots.py for updating)."""

from __future__ import annotations

import pytest

from inspector.tui.app import make_lessons_app
from inspector.tui.screenshots import app_for

from .test_snapshots import SIZES, _shots, svg  # noqa: F401 - svg is the fixture

CLEAN = "12-clean-history.json"


@pytest.mark.parametrize("size", SIZES)
async def test_editor_and_an_edit_followed_by_every_stage(size, svg):  # noqa: F811
    """The editor on the call-making turn, the error it shows for invalid JSON, and the repair
    stage after the result was deleted on view 0."""
    shots = await _shots(app_for(CLEAN), SIZES[size], [
        ("editor", ["down", "down", "E"]),
        ("editor-error", ["end", "x", "ctrl+s"]),
        (None, ["escape", "down", "delete"]),
        ("deleted", []),
        ("deleted-repair", ["3", "down", "down", "down"]),
    ])
    for name, shot in shots.items():
        assert shot == svg(name=f"{name}-{size}")


@pytest.mark.parametrize("size", SIZES)
async def test_a_lesson_asks_then_reveals(size, svg, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    shots = await _shots(make_lessons_app(), SIZES[size], [
        ("lesson-predict", ["enter", "down", "d", "down", "d"]),
        ("lesson-revealed", ["enter"]),
    ])
    for name, shot in shots.items():
        assert shot == svg(name=f"{name}-{size}")

"""Screenshots of the levels (issue 36) at 80x24, 120x36 and 160x50, compared with accepted SVGs
(each looked at as a PNG when accepted; see test_snapshots.py for updating): the list, a goal
level with its hints and solution shown, and a failure injection revealed."""

from __future__ import annotations

import shutil

import pytest

from inspector.tui.app import make_lessons_app
from inspector.tui.lessons.levels import builtins

from .test_snapshots import _shots, svg  # noqa: F401 - svg is the fixture

SIZES = {"80x24": (80, 24), "120x36": (120, 36), "160x50": (160, 50)}
STATE = "/tmp/inspector-learn-snapshots"  # shown in the list's heading: one fixed place, emptied first


def row_of(kind, pred=lambda lv: True):
    return next(k for k, lv in enumerate(builtins()) if lv.kind == kind and pred(lv))


@pytest.mark.parametrize("size", SIZES)
async def test_levels_list_goal_and_injection(size, svg, monkeypatch):  # noqa: F811
    shutil.rmtree(STATE, ignore_errors=True)
    monkeypatch.setenv("XDG_STATE_HOME", STATE)
    goal = row_of("goal", lambda lv: "5750" in lv.title)
    injected = row_of("inject", lambda lv: lv.inject == "cut-mid-call")
    shots = await _shots(make_lessons_app(), SIZES[size], [
        ("levels-list", []),
        ("level-goal-solution", [*["down"] * goal, "enter", "h", "h", "h", "s"]),
        ("level-injected", ["escape", *["down"] * (injected - goal), "enter", "space", "down", "space", "enter"]),
    ])
    shutil.rmtree(STATE, ignore_errors=True)
    for name, shot in shots.items():
        assert shot == svg(name=f"{name}-{size}")

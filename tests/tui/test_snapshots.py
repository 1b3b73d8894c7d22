"""Screenshots of the main screens at 80x24 and 160x50 (and, in a dark and the light theme,
at 80x24, 120x35 and 160x50), compared with accepted SVGs.

Each SVG under ``__snapshots__/test_snapshots/`` was looked at (as a PNG) when it was
accepted. After a deliberate change to the screen: ``pytest tests/tui/test_snapshots.py
--snapshot-update``, then look at every changed file before committing it."""

from __future__ import annotations

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from inspector.tui.app import InspectorApp
from inspector.tui.loader import Source

from inspector.tui.screenshots import app_for, settle

SAMPLE = "17-long-parallel-call-ids.json"  # parallel calls with 38-character ids, drops with causes
SIZES = {"80x24": (80, 24), "160x50": (160, 50)}
THEMED_SIZES = {"80x24": (80, 24), "120x35": (120, 35), "160x50": (160, 50)}
THEMES = ("textual-dark", "textual-light")
MOVED = "06-system-mid-conversation.json"  # hoist moves a system message: the ghost rows


class SVGSnapshot(SingleFileSnapshotExtension):
    file_extension = "svg"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def svg(snapshot):
    return snapshot.use_extension(SVGSnapshot)


async def _shots(app: InspectorApp, size: tuple[int, int], steps: list[tuple[str | None, list[str]]]):
    """Run ``app`` once; after each step's keys, take a screenshot if the step is named."""
    shots = {}
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for name, keys in steps:
            for key in keys:
                await pilot.press(key)
                await settle(app, pilot)
            if name:
                app.clear_notifications()  # toasts time out by the clock
                await settle(app, pilot)
                shots[name] = app.export_screenshot(title="Inspector")
    return shots


@pytest.mark.parametrize("size", SIZES)
async def test_sample_screens(size, svg):
    """Every stage of a sample with drops (the cursor on the redeclared call), the split view,
    details, journey, help and export."""
    to_drop = ["down"] * 8  # repair: the row of #7, the turn whose redeclared call is dropped
    shots = await _shots(app_for(SAMPLE), SIZES[size], [
        ("stage-0-import", []),
        ("stage-1-coerce", ["1"]),
        ("stage-2-hoist", ["2"]),
        ("stage-3-repair", ["3", *to_drop]),
        ("details", ["enter"]),
        (None, ["escape"]),
        ("journey", ["j"]),
        (None, ["escape"]),
        ("split", ["s"]),
        (None, ["s"]),
        ("stage-4-strip", ["4"]),
        ("help", ["question_mark"]),
        (None, ["escape"]),
        ("export", ["e"]),
    ])
    for name, shot in shots.items():
        assert shot == svg(name=f"{name}-{size}")


@pytest.mark.parametrize("size", SIZES)
async def test_gallery_and_error_screens(size, svg):
    gallery = await _shots(app_for(None), SIZES[size], [("gallery", [])])
    assert gallery["gallery"] == svg(name=f"gallery-{size}")
    broken = InspectorApp(Source("<stdin>", None, b'[{"role": "user", "content": "hi"},\n  {"role": }]'))
    error = await _shots(broken, SIZES[size], [("error", [])])
    assert error["error"] == svg(name=f"error-{size}")


async def _themed_shots(app: InspectorApp, size: tuple[int, int], steps: list[tuple[str | None, list[str]]]):
    """As :func:`_shots`, with each named screen taken in every theme of THEMES: the app runs
    once and switches theme in place (the pictures are those of an app started in that theme:
    the accepted SVGs were taken so), so a size costs one run, not one per theme."""
    shots: dict[str, dict[str, str]] = {theme: {} for theme in THEMES}
    app.theme = THEMES[0]
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for name, keys in steps:
            for key in keys:
                await pilot.press(key)
                await settle(app, pilot)
            if name:
                app.clear_notifications()  # toasts time out by the clock
                await settle(app, pilot)
                # the theme it is in first, then the others: one switch per screen, not two
                for theme in sorted(THEMES, key=lambda t: t != app.theme):
                    if app.theme != theme:
                        app.theme = theme
                        await settle(app, pilot)
                    shots[theme][name] = app.export_screenshot(title="Inspector")
    return shots


_THEMED: dict[str, dict[str, dict[str, str]]] = {}  # size -> theme -> shot name -> SVG: one run per size


async def _main_screens(size: str) -> dict[str, dict[str, str]]:
    if size not in _THEMED:
        shots = await _themed_shots(app_for(SAMPLE), THEMED_SIZES[size], [
            ("repair", ["3", *["down"] * 8]),
            ("zoomed", ["z"]),
            (None, ["z"]),
            ("summary", ["u"]),
        ])
        moved = await _themed_shots(app_for(MOVED), THEMED_SIZES[size], [("hoist-split", ["2", "s", *["down"] * 4])])
        for theme in THEMES:
            shots[theme].update(moved[theme])
        _THEMED[size] = shots
    return _THEMED[size]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", THEMED_SIZES)
async def test_main_screens_in_both_themes(size, theme, svg):
    """The diff (repair, the cursor on the redeclared call), zoomed, the summary, and hoist's
    split view with the cursor on its ghost row, at each size in a dark and the light theme.
    One run per size takes both themes' shots; the other theme's test reads them."""
    shots = (await _main_screens(size))[theme]
    assert set(shots) == {"repair", "zoomed", "summary", "hoist-split"}
    for name, shot in shots.items():
        assert shot == svg(name=f"{name}-{size}-{theme}")

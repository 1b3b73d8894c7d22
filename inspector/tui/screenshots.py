"""Deterministic screenshots of the app, for the snapshot tests and docs/make_screenshots.py.

A fixed terminal size, a bundled sample opened by its bare name (no path of this machine in
the title), every input's cursor steady (a blinking cursor depends on the clock), and the
screen settled before the SVG is taken."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from textual.widgets import Input, TextArea

from ..bundled import samples_dir
from .app import InspectorApp
from .loader import Source


def app_for(sample: str | None, **kwargs) -> InspectorApp:
    source = Source.file(samples_dir() / sample, sample=True) if sample else None
    return InspectorApp(source, **kwargs)


async def settle(app, pilot, tries: int = 300) -> None:
    """Until no load is running and the screen has painted twice."""
    for _ in range(tries):
        main = app.main
        busy = ("load", "filter", "export", "verdict", "preview", "browse", "edit")
        deferred = main.loads.deferred > 0     # an edit's checks start on a timer, not yet
        if main.loading_source is None and not deferred and \
                not any(w.group in busy for w in app.workers if w.is_running):
            break
        await pilot.pause(0.02)
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for area in app.screen.query(TextArea):  # the playground's editor
        area.cursor_blink = False
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def screenshot(sample: str | None, size: tuple[int, int], keys: list[str] = (), **kwargs) -> str:
    app = app_for(sample, **kwargs)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        app.clear_notifications()  # toasts time out by the clock: never part of a snapshot
        await settle(app, pilot)
        return app.export_screenshot(title="Inspector")


def to_png(svg: str, png: Path) -> bool:
    """rsvg-convert renders Textual's SVG faithfully once its non-breaking spaces are plain."""
    converter = shutil.which("rsvg-convert")
    if converter is None:
        return False
    text = svg.replace("&#160;", " ").replace("<svg ", '<svg xml:space="preserve" ', 1)
    flat = png.with_suffix(".tmp.svg")
    flat.write_text(text, "utf-8")
    try:
        subprocess.run([converter, str(flat), "-o", str(png)], check=True)
    finally:
        flat.unlink()
    return True

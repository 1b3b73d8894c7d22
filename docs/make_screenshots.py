"""Regenerate the README's screenshots: headless runs of the app on bundled samples.

    python docs/make_screenshots.py        # writes docs/*.svg, and docs/*.png if rsvg-convert is installed
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

from inspector.bundled import samples_dir
from inspector.tui.app import make_app

DOCS = Path(__file__).resolve().parent

# name, sample (None: the gallery), size, keys pressed after loading
SHOTS = [
    ("repair-wide", "09-redeclared-id-after-restart.json", (160, 45), ["3", "down", "down", "down"]),
    ("strip-split", "02-result-before-call.json", (160, 45), ["4", "s", "down", "down", "down"]),
    ("journey-narrow", "09-redeclared-id-after-restart.json", (80, 24), ["3", "down", "down", "down", "j"]),
    ("repair-narrow", "05-compaction-cut-call.json", (80, 24), ["3", "down", "down"]),
    ("details-narrow", "05-compaction-cut-call.json", (80, 24), ["3", "down", "down", "enter"]),
    ("gallery", None, (100, 30), []),
    ("help", "01-falsy-id.json", (120, 40), ["question_mark"]),
    ("export", "04-duplicate-after-retry.json", (100, 30), ["e"]),
    ("import-anthropic", "13-anthropic-retry-and-parallel-call.json", (160, 45), ["0", "down", "down", "down", "down"]),
    ("repair-anthropic", "13-anthropic-retry-and-parallel-call.json", (160, 45), ["3", "down", "down", "down"]),
    ("strict", "11-known-limit-separated-result.json", (160, 45), ["t", "down", "down"]),
]


async def shoot(name: str, sample: str | None, size: tuple[int, int], keys: list[str]) -> Path:
    folder = samples_dir()
    try:  # a short, relative name in the title bar, as a user in the checkout would type it
        folder = folder.relative_to(Path.cwd())
    except ValueError:
        pass
    app = make_app(folder / sample if sample else None)
    async with app.run_test(size=size) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if sample is None or (app.main.doc is not None and app.main.loading_source is None):
                break
        for key in keys:
            await pilot.press(key)
            for _ in range(200):  # some keys (t, r) normalize again in the worker
                if sample is None or app.main.loading_source is None:
                    break
                await pilot.pause(0.02)
        await pilot.pause(0.3)
        path = DOCS / f"{name}.svg"
        app.save_screenshot(str(path))
        return path


def main() -> None:
    converter = shutil.which("rsvg-convert")
    for shot in SHOTS:
        svg = asyncio.run(shoot(*shot))
        print(svg.relative_to(DOCS.parent))
        if converter:
            # rsvg collapses the non-breaking spaces Textual writes: plain spaces, preserved.
            text = svg.read_text("utf-8").replace("&#160;", " ").replace("<svg ", '<svg xml:space="preserve" ', 1)
            flat = svg.with_suffix(".tmp.svg")
            flat.write_text(text, "utf-8")
            png = svg.with_suffix(".png")
            try:
                subprocess.run([converter, str(flat), "-o", str(png)], check=True)
            finally:
                flat.unlink()
            print(png.relative_to(DOCS.parent))


if __name__ == "__main__":
    main()

"""Regenerate the README"s screenshots: headless runs of the app on bundled samples.

    python docs/make_screenshots.py        # writes docs/*.svg, and docs/*.png if rsvg-convert is installed

The shots are taken as the snapshot tests take theirs (inspector.tui.screenshots): a fixed
size, a sample named without a path, no toast, no blinking cursor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from inspector.tui.screenshots import screenshot, to_png

DOCS = Path(__file__).resolve().parent

# name, sample (None: the gallery), size, keys pressed after loading (literals: tests read them)
SHOTS = [
    ("repair-wide", "17-long-parallel-call-ids.json", (160, 45),
     ["3", "down", "down", "down", "down", "down", "down", "down", "down"]),
    ("strip-split", "02-result-before-call.json", (160, 45), ["4", "s", "down", "down", "down"]),
    ("journey-narrow", "17-long-parallel-call-ids.json", (80, 24),
     ["3", "down", "down", "down", "down", "down", "down", "down", "down", "j"]),
    ("repair-narrow", "17-long-parallel-call-ids.json", (80, 24),
     ["3", "down", "down", "down", "down", "down", "down", "down", "down"]),
    ("details-narrow", "17-long-parallel-call-ids.json", (80, 24),
     ["3", "down", "down", "down", "down", "down", "down", "down", "down", "enter"]),
    ("gallery", None, (100, 30), []),
    ("help", "01-falsy-id.json", (120, 40), ["question_mark"]),
    ("export", "13-anthropic-retry-and-parallel-call.json", (100, 30), ["e"]),
    ("import-anthropic", "13-anthropic-retry-and-parallel-call.json", (160, 45),
     ["0", "down", "down", "down", "down"]),
    ("repair-anthropic", "13-anthropic-retry-and-parallel-call.json", (160, 45), ["3", "down", "down", "down"]),
    ("strict", "11-known-limit-separated-result.json", (160, 45), ["t", "down", "down"]),
]


def main() -> None:
    for name, sample, size, keys in SHOTS:
        svg = asyncio.run(screenshot(sample, size, keys))
        path = DOCS / f"{name}.svg"
        path.write_text(svg, "utf-8")
        print(path.relative_to(DOCS.parent))
        if to_png(svg, path.with_suffix(".png")):
            print(path.with_suffix(".png").relative_to(DOCS.parent))


if __name__ == "__main__":
    main()

"""Regenerate the screenshots of docs/tui.md (and the README's one): headless runs of the app on bundled samples.

    python docs/make_screenshots.py        # writes docs/*.svg, and docs/*.png if rsvg-convert is installed

The shots are taken as the snapshot tests take theirs (inspector.tui.screenshots): a fixed
size, a sample named without a path, no toast, no blinking cursor.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from textual.widgets import Select

from inspector.bundled import samples_dir
from inspector.tui.app import InspectorApp, make_app
from inspector.tui.loader import Source
from inspector.tui.screenshots import screenshot, settle, to_png

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
    ("verdict-target", "11-known-limit-separated-result.json", (160, 45), ["x"], {"target": "openai-chat"}),
    ("verdict-matrix", "11-known-limit-separated-result.json", (160, 45), []),
    ("verdict-narrow", "11-known-limit-separated-result.json", (80, 24), ["x"], {"target": "openai-chat"}),
    ("verdict-picker", "11-known-limit-separated-result.json", (100, 30), ["v"]),
    ("verdict-problems", "11-known-limit-separated-result.json", (100, 30), ["v", "enter"]),
    ("playground-editor", "12-clean-history.json", (120, 36), ["down", "down", "E"]),
    ("playground-repair", "12-clean-history.json", (120, 36), ["down", "down", "down", "delete", "3", "up"]),
]
CHANGED = 1768123800  # 2026-01-11 09:30 UTC: the browser's "changed" column, the same on every run
THINKING = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
    {"role": "user", "content": "What is 17 * 23?"},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "17*23 = 391", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDOh4="},
        {"type": "text", "text": "391"}]},
    {"role": "user", "content": "Thanks"}]}


async def _take(app, size, until=None, then=None) -> str:
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for _ in range(300):
            if until is None or until(app):
                break
            await pilot.pause(0.02)
        if then is not None:
            then(app)
        await settle(app, pilot)
        app.clear_notifications()
        await settle(app, pilot)
        return app.export_screenshot(title="Inspector")


def _folder_shots() -> dict[str, str]:
    """The folder browser, the session picker and the export preview, on files made in a
    temporary folder (named relatively, so no path of this machine shows)."""
    sys.path.insert(0, str(DOCS.parent))
    from tests.sessions import agents_builder as ab

    os.environ["TZ"] = "UTC"  # and shown in one time zone wherever the shots are taken
    time.tzset()
    shots = {}
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            root = Path("projects")
            (root / "api" / "logs").mkdir(parents=True)
            ab.make(root / "api" / "agents.db", {"support-42": ab.orphan_output(), "faro": ab.clean()})
            shutil.copy(samples_dir() / "21-claude-code-session.jsonl", root / "api" / "logs" / "session.jsonl")
            shutil.copy(samples_dir() / "22-codex-rollout.jsonl", root / "rollout.jsonl")
            shutil.copy(samples_dir() / "11-known-limit-separated-result.json", root / "history.json")
            Path("thinking.json").write_text(json.dumps(THINKING))
            for path in root.rglob("*"):  # the "changed" column: one fixed time, not the day of the run
                os.utime(path, (CHANGED, CHANGED))

            def checked(app):
                return all(v.status != "…" for v in getattr(app.screen, "verdicts", {"": 0}).values()) \
                    and hasattr(app.screen, "verdicts")

            shots["browser"] = asyncio.run(_take(make_app("projects"), (160, 45), checked))
            shots["browser-narrow"] = asyncio.run(_take(make_app("projects"), (80, 24), checked))
            shots["sessions"] = asyncio.run(_take(make_app("projects/api/agents.db"), (100, 30),
                                                  lambda app: type(app.screen).__name__ == "SessionPicker"))

            def pick(app):
                app.screen.query_one(Select).value = "openai-chat"

            async def export_shot(size):
                app = InspectorApp(Source.file("thinking.json"))
                async with app.run_test(size=size) as pilot:
                    await settle(app, pilot)
                    await pilot.press("e")
                    await settle(app, pilot)
                    pick(app)
                    await settle(app, pilot)
                    return app.export_screenshot(title="Inspector")

            shots["export-preview"] = asyncio.run(export_shot((120, 40)))
        finally:
            os.chdir(here)
    return shots


def _lesson_shots() -> dict[str, str]:
    """``inspector learn``: the level list, a stage level revealed, and a goal level with its hints."""
    from inspector.tui.app import make_lessons_app

    async def lesson(keys):
        app = make_lessons_app()
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            for key in keys:
                await pilot.press(key)
                await settle(app, pilot)
            return app.export_screenshot(title="Inspector")

    goal = ["down"] * 11 + ["enter", "h", "h", "h", "s"]  # level 12, from a cited issue report, hints shown
    return {"lesson-revealed": asyncio.run(lesson(["enter", "down", "d", "down", "d", "enter"])),
            "levels": asyncio.run(lesson([])), "level-goal": asyncio.run(lesson(goal))}


def main() -> None:
    shots = [(name, asyncio.run(screenshot(sample, size, keys, **(options[0] if options else {}))))
             for name, sample, size, keys, *options in SHOTS]
    for name, svg in [*shots, *_folder_shots().items(), *_lesson_shots().items()]:
        path = DOCS / f"{name}.svg"
        path.write_text(svg, "utf-8")
        print(path.relative_to(DOCS.parent))
        if to_png(svg, path.with_suffix(".png")):
            print(path.with_suffix(".png").relative_to(DOCS.parent))


if __name__ == "__main__":
    main()

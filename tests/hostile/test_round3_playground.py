"""Round 3, generated: random edit sequences in the playground, headless (``App.run_test``):
delete, edit as JSON (invalid, empty, 400 and 1,000 deep, a 300 KB string, markup and escape
characters), move, undo, redo. The app never dies, every edit is shown or refused, and undo
to the start gives back the file: the export equals ``normalize`` of it. Default: 4 files x
1 sequence x 10 actions; ``HOSTILE_SCALE=N`` runs N sequences per file. (Built after
``shared/hostile-round3/tui_playground3.py``.)"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import TextArea

from inspector import pipeline
from inspector.bundled import samples_dir
from inspector.tui import loader
from inspector.tui.app import make_app
from inspector.tui.screens.editor import EditorDialog
from inspector.tui.screens.error import ErrorDialog
from inspector.tui.widgets.diff_table import DiffTable

from .harness import RUNS, TALLIES

SCALE = max(1, int(os.environ.get("HOSTILE_SCALE", "1")))
SUITE = "round 3: playground random sequences"
ACTIONS = 10
FILES = ["03-crash-parallel-calls.json", "13-anthropic-retry-and-parallel-call.json",
         "16-bedrock-sliding-window.json", "21-claude-code-session.jsonl"]


def texts(r: random.Random) -> str:
    return r.choice([
        '{"role": "user", "content": oops}',
        "",
        '{"role":"user","content":' + "[" * 400 + "]" * 400 + "}",
        '{"role":"user","content":' + "[" * 1000 + "]" * 1000 + "}",
        json.dumps({"role": "user", "content": "z" * 300_000}),
        json.dumps({"role": "assistant", "content": "[bold red]x[/] [@click=app.quit]q[/] \x1b[31m \u202e"}),
        json.dumps(r.choice([None, 1, "x", [], {}, [1, 2], True])),
        json.dumps({"role": "tool", "content": "orphan", "tool_call_id": r.choice(["nobody", "", "0", "c1"])}),
        json.dumps({"role": r.choice(["user", "assistant", "system"]), "content": "edited"}),
    ])


async def until(pilot, cond, tries: int = 600) -> bool:
    for _ in range(tries):
        await pilot.pause(0.02)
        if cond():
            await pilot.pause()
            return True
    return False


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("sequence", range(SCALE))
async def test_random_edit_sequences(tmp_path, monkeypatch, name, sequence):
    deaths: list[str] = []

    def fatal(self):
        exc = getattr(self, "_exception", None)
        deaths.append(f"{type(exc).__name__}: {str(exc)[:300]}")
        self.exit()

    monkeypatch.setattr(App, "_fatal_error", fatal)
    path = tmp_path / name
    shutil.copyfile(samples_dir() / name, path)
    original = path.read_bytes()
    expected = pipeline.run(original, str(path)).data
    r = random.Random(f"{name}/{sequence}")
    log: list[str] = []
    app = make_app(str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        assert await until(pilot, lambda: app.main.doc is not None and app.main.loading_source is None)
        for _ in range(ACTIONS):
            if isinstance(app.screen, ErrorDialog):
                await pilot.press("escape")
                await pilot.pause()
            main = app.main
            n = len(main.doc.imported.messages)
            table = main.query_one(DiffTable)
            if n and main.view == 0:
                pos = table.position_of(r.randrange(n))
                if pos is not None:
                    table.cursor = pos
            act = r.choice(["delete", "edit", "edit", "up", "down", "undo", "redo"])
            log.append(act)
            TALLIES[f"playground actions: {act}"] += 1
            if act == "delete":
                await pilot.press("delete")
            elif act == "edit":
                await pilot.press("E")
                await pilot.pause()
                if isinstance(app.screen, EditorDialog):
                    app.screen.query_one(TextArea).text = texts(r)
                    await pilot.press("ctrl+s")
                    await pilot.pause()
                    if isinstance(app.screen, EditorDialog):       # refused: leave it
                        await pilot.press("escape")
            else:
                await pilot.press({"up": "alt+up", "down": "alt+down", "undo": "ctrl+z", "redo": "ctrl+y"}[act])
            assert await until(pilot, lambda: deaths or (app.main.editing.pending is None
                                                         and app.main.loading_source is None)), log
            assert not deaths, (deaths, log)
        if isinstance(app.screen, ErrorDialog):
            await pilot.press("escape")
        history = app.main.edits
        if history is not None and history.total:
            for _ in range(history.position + 2):
                await pilot.press("ctrl+z")
                await until(pilot, lambda: app.main.editing.pending is None and app.main.loading_source is None)
            assert app.main.edits.position == 0, log
            assert loader.export(app.main.doc).data == expected, log
        assert not deaths, (deaths, log)
    RUNS[SUITE] += 1
    assert path.read_bytes() == original                  # the input is never written

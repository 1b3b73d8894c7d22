"""Round 3, the playground headless (``App.run_test``): an entry edited to JSON 400 deep and
saved (R3-15), ``E`` on an entry 1,000 deep (R3-16), a provider body whose entry is a list
600 deep (R3-17), and undo of a deleted ``system`` field (R3-27). The app stays up, the edits
are kept, undo gives back the file's bytes. Reproducers: ``repro.sh`` R3-15, R3-16, R3-17,
R3-27 (``tui_probe.py``, ``tui_open_deep.py``, ``tui_undo_order.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import TextArea

from inspector import pipeline
from inspector.bundled import samples_dir
from inspector.tui import loader
from inspector.tui.app import make_app
from inspector.tui.screens.editor import EditorDialog
from inspector.tui.screens.save_edits import SaveEditsDialog
from inspector.tui.widgets.diff_table import DiffTable

from .harness import RUNS

SUITE = "round 3: playground, deep entries and undo"


@pytest.fixture
def deaths(monkeypatch) -> list[str]:
    """What kills the app, in one line: Textual's own crash report renders a deep structure
    with rich for minutes, so it is replaced here."""
    seen: list[str] = []

    def fatal(self):
        exc = getattr(self, "_exception", None)
        seen.append(f"{type(exc).__name__}: {str(exc)[:200]}")
        self.exit()

    monkeypatch.setattr(App, "_fatal_error", fatal)
    return seen


async def settle(app, pilot, deaths) -> None:
    for _ in range(500):
        await pilot.pause(0.02)
        if deaths or (app.main.doc is not None and app.main.editing.pending is None and app.main.loading_source is None):
            await pilot.pause()
            return
    raise AssertionError("never settled")


def select(app, origin: int) -> None:
    table = app.main.query_one(DiffTable)
    table.cursor = table.position_of(origin)


async def test_an_entry_edited_too_deep_is_refused_in_the_editor_and_the_app_stays_up(tmp_path, deaths):
    path = tmp_path / "h.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"},
                                {"role": "assistant", "content": "x", "tool_calls": [{"id": "c1", "name": "f"}]}]))
    app = make_app(str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, deaths)
        select(app, 1)
        await pilot.press("E")
        await pilot.pause(0.2)
        assert isinstance(app.screen, EditorDialog)
        app.screen.query_one(TextArea).text = '{"role":"user","content":' + "[" * 400 + "]" * 400 + "}"
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert not deaths, deaths
        assert isinstance(app.screen, EditorDialog)          # the editor says why and stays open
        await pilot.press("escape")
        await pilot.pause(0.2)
        # a first edit the file can hold, then the save
        select(app, 0)
        await pilot.press("E")
        await pilot.pause(0.2)
        app.screen.query_one(TextArea).text = '{"role":"user","content":"hello"}'
        await pilot.press("ctrl+s")
        await settle(app, pilot, deaths)
        assert app.main.edits.total == 1
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert isinstance(app.screen, SaveEditsDialog)
        await pilot.press("enter")
        await pilot.pause(0.5)
        assert not deaths, deaths
    RUNS[SUITE] += 1
    assert json.loads((tmp_path / "h.edited.json").read_text())[0]["content"] == "hello"


async def test_a_save_that_cannot_be_written_keeps_the_edits(tmp_path, deaths, monkeypatch):
    """Whatever the writer raises (here a JSON writer's recursion error), the dialog says so
    and the app, with its edits, stays up."""
    import orjson

    path = tmp_path / "h.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "user", "content": "there"}]))
    app = make_app(str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, deaths)
        select(app, 1)
        await pilot.press("delete")
        await settle(app, pilot, deaths)
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert isinstance(app.screen, SaveEditsDialog)

        def too_deep():
            deep: list = []
            for _ in range(300):
                deep = [deep]
            return orjson.dumps(deep)                      # orjson writes at most 255 levels

        app.screen.data = too_deep
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert not deaths, deaths
        assert isinstance(app.screen, SaveEditsDialog)
        assert "nested too deeply" in str(app.screen.query_one("#save-note").render())
        assert app.main.edits.total == 1
    RUNS[SUITE] += 1


async def test_e_on_an_entry_nested_1000_deep_opens_the_editor(tmp_path, deaths):
    path = tmp_path / "deep.json"
    path.write_bytes(b'[{"role":"user","content":"hi"},' + b"[" * 1000 + b"]" * 1000 + b"]")
    app = make_app(str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, deaths)
        select(app, 1)
        await pilot.press("E")
        await pilot.pause(0.3)
        assert not deaths, deaths
        assert isinstance(app.screen, EditorDialog)
    RUNS[SUITE] += 1


async def test_a_provider_body_with_an_entry_600_deep_opens(tmp_path, deaths):
    path = tmp_path / "anthropic-deep-entry.json"
    path.write_text('{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},'
                    + "[" * 600 + "]" * 600 + "]}")
    app = make_app(str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, deaths)
        await pilot.pause(1.0)                              # the table's render timer
        assert not deaths, deaths
    RUNS[SUITE] += 1


@pytest.mark.parametrize("sample", ["16-bedrock-sliding-window.json", "13-anthropic-retry-and-parallel-call.json"])
async def test_undoing_the_deletion_of_system_gives_back_the_files_bytes(sample, deaths):
    path = samples_dir() / sample
    expected = pipeline.run(path.read_bytes(), str(path)).data
    app = make_app(str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, deaths)
        row = next(i for i, m in enumerate(app.main.doc.imported.messages) if m.get("role") == "system")
        select(app, row)
        await pilot.press("delete")
        await settle(app, pilot, deaths)
        await pilot.press("ctrl+z")
        await settle(app, pilot, deaths)
        assert not deaths, deaths
        assert loader.export(app.main.doc).data == expected
        assert list(app.main.edits.current.document()) == list(json.loads(path.read_bytes()))
    RUNS[SUITE] += 1

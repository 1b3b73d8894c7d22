"""What a browser user reads in served mode: paths from the served folder (never where it is
on the server, nor the server account's home), the export field named as a download, the
focus script on the page, the open dialog's marks that every font has."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Input

from inspector import serve
from inspector.tui import confine
from inspector.tui.app import make_app
from inspector.tui.screens.error import ErrorDialog
from inspector.tui.screens.export import ExportDialog
from inspector.tui.screens.open_file import HistoryTree, OpenFileDialog

from browser.folder import SAMPLE, make_served_folder


@pytest.fixture
def served(tmp_path: Path) -> dict[str, Path]:
    return make_served_folder(tmp_path)


async def _until(pilot, condition, what: str) -> None:
    for _ in range(300):
        await pilot.pause(0.02)
        if condition():
            await pilot.pause()
            return
    raise AssertionError(f"never happened: {what}")


def test_paths_are_shown_from_the_served_folder(served):
    app = make_app(None)
    confine.attach(app, served["root"])
    root = served["root"]
    assert confine.shown(app, root / SAMPLE) == f"served/{SAMPLE}"
    assert confine.shown(app, root / "sub") == "served/sub" and confine.shown(app, root) == "served"
    assert confine.shown(app, served["secret"]) == "secret.json"   # outside: its name, never its folder
    assert confine.expand(app, "~/.bashrc") == "~/.bashrc"
    terminal = make_app(None)
    assert confine.shown(terminal, root / SAMPLE) == str(root / SAMPLE)
    assert confine.expand(terminal, "~/x") == os.path.expanduser("~/x")


async def test_the_title_names_the_file_from_the_served_folder(served):
    app = make_app(served["sample"])
    confine.attach(app, served["root"])
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.main.doc is not None, "the history")
        title = app.main.query_one("#title").render().plain
        assert f" served/{SAMPLE} " in f" {title} " and str(served["root"]) not in title
        assert "served/served" not in title


async def test_a_home_path_is_refused_as_typed(served):
    app = make_app(served["sample"])
    confine.attach(app, served["root"])
    home = os.path.expanduser("~")
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.main.doc is not None, "the history")
        await pilot.press("o")
        assert isinstance(app.screen, OpenFileDialog)
        app.screen.query_one(Input).value = "~/.bashrc"
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, ErrorDialog), "the refusal")
        said = f"{app.screen.title_text} {app.screen.message}"
        assert "~/.bashrc" in said and "outside the served folder" in said
        assert home not in said


async def test_the_served_export_field_is_a_download_name(served):
    app = make_app(served["sample"])
    confine.attach(app, served["root"])
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.main.doc is not None, "the history")
        await pilot.press("e")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        labels = " ".join(str(label.render()) for label in dialog.query(".field-label"))
        assert "Download as" in labels and "the input is never replaced" not in labels
        assert dialog.query_one(Input).value == SAMPLE.replace(".json", ".normalized.json")   # no server folder


async def test_the_served_open_dialog_marks_folders_without_emoji(served):
    app = make_app(served["sample"])
    confine.attach(app, served["root"])
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.main.doc is not None, "the history")
        app.push_screen(OpenFileDialog(str(served["root"])))
        await pilot.pause()
        tree = app.screen.query_one(HistoryTree)
        await _until(pilot, lambda: tree.root.children, "the folder's entries")
        labels = [tree.render_label(node, tree.rich_style, tree.rich_style).plain for node in tree.root.children]
        assert any(label.startswith("▸ sub") for label in labels)
        assert all(not any(ord(c) > 0xFFFF for c in label) for label in labels)   # no emoji (astral) marks


def test_the_page_focuses_the_terminal_on_load():
    page = "<html><body><div id='terminal' class='textual-terminal'></div></body></html>"
    served = serve.with_focus(page)
    assert served.index(".xterm-helper-textarea") < served.index("</body>")
    assert served.count("<script>") == 1 and served.replace(serve.FOCUS_SCRIPT, "") == page

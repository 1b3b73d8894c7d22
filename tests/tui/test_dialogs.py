"""Export, errors, the gallery and hostile content: the paths where data could be lost or
the screen broken."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from textual.widgets import Button, Input, OptionList

from inspector.cli import main as cli_main
from inspector.formats import import_history
from inspector.io import InputError, parse_json, read_bytes
from inspector.tui.loader import Source
from inspector.tui.screens.error import ErrorDialog
from inspector.tui.screens import export as export_module
from inspector.tui.screens.export import ExportDialog
from inspector.tui.screens.gallery import GalleryScreen, list_samples
from inspector.tui.screens.open_file import OpenFileDialog
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import BROKEN, finish_export, notifications, opened, row_lines, text_when, wait_loaded, widget_text


async def _wait_error(pilot, app) -> None:
    for _ in range(200):
        await pilot.pause(0.02)
        if isinstance(app.screen, ErrorDialog):
            await pilot.pause()
            return
    raise AssertionError("no error dialog")


async def _export(app, pilot, path) -> None:
    await pilot.press("e")
    assert isinstance(app.screen, ExportDialog)
    field = app.screen.query_one(Input)
    field.value = str(path)
    await pilot.press("enter")
    await finish_export(app, pilot)


async def test_export_equals_cli_output_and_leaves_input_alone(broken_file, tmp_path):
    before = broken_file.read_bytes(), broken_file.stat().st_mtime_ns
    cli_out = tmp_path / "cli.json"
    assert cli_main(["normalize", str(broken_file), "-o", str(cli_out), "-q"]) == 0
    async with opened(broken_file) as (app, pilot):
        await pilot.press("e")
        default = app.screen.query_one(Input).value
        assert default == str(broken_file.with_name("broken.normalized.json"))
        await pilot.press("enter")
        await finish_export(app, pilot)
        assert not isinstance(app.screen, ExportDialog)
        exported = broken_file.with_name("broken.normalized.json")
        assert exported.read_bytes() == cli_out.read_bytes()
        assert any(str(exported) in n.message and "dropped" in n.message for n in notifications(app))
    assert (broken_file.read_bytes(), broken_file.stat().st_mtime_ns) == before


async def test_export_refuses_the_input_and_asks_before_replacing(broken_file, tmp_path):
    original = broken_file.read_bytes()
    existing = tmp_path / "existing.json"
    existing.write_text("keep me")
    async with opened(broken_file) as (app, pilot):
        await _export(app, pilot, broken_file)
        assert isinstance(app.screen, ExportDialog)  # still open, with the reason
        assert "input file" in widget_text(app, "#export-note")
        assert broken_file.read_bytes() == original
        app.screen.query_one(Input).value = str(existing)
        await pilot.press("enter")
        await pilot.pause()
        assert "exists" in widget_text(app, "#export-note")
        assert existing.read_text() == "keep me"
        assert str(app.screen.query_one("#export", Button).label) == "Replace"
        await pilot.press("escape")
        assert existing.read_text() == "keep me"
        await _export(app, pilot, existing)
        await pilot.press("enter")  # the second enter confirms
        await finish_export(app, pilot)
        assert json.loads(existing.read_text()) == json.loads(
            (lambda: (cli_main(["normalize", str(broken_file), "-q", "-o", str(tmp_path / "x.json")]),
                      (tmp_path / "x.json").read_text())[1])())
    assert broken_file.read_bytes() == original


async def test_export_writes_in_a_worker_thread_and_locks_the_dialog(broken_file, tmp_path, monkeypatch):
    release = threading.Event()
    threads = []
    real = export_module.export_outcome

    def held(*args, **kwargs):
        threads.append(threading.current_thread())
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(export_module, "export_outcome", held)
    target = tmp_path / "out.json"
    expected = tmp_path / "cli.json"
    assert cli_main(["normalize", str(broken_file), "-o", str(expected), "-q"]) == 0
    async with opened(broken_file) as (app, pilot):
        await pilot.press("e")
        dialog = app.screen
        dialog.query_one(Input).value = str(target)
        await pilot.press("enter")
        for _ in range(100):
            if threads:
                break
            await pilot.pause(0.01)
        # The serialization runs on another thread while the UI keeps answering.
        assert threads and threads[0] is not threading.main_thread()
        await pilot.pause()
        assert app.screen is dialog and dialog.writing == str(target)
        assert dialog.query_one("#export", Button).disabled and dialog.query_one(Input).disabled
        assert "Writing" in widget_text(app, "#export-note")
        await pilot.press("escape")  # a running write is not abandoned half way
        assert app.screen is dialog and not target.exists()
        release.set()
        await finish_export(app, pilot)
        assert not isinstance(app.screen, ExportDialog)
        assert any(n.title == "Exported" and str(target) in n.message for n in notifications(app))
    assert target.read_bytes() == expected.read_bytes()


async def test_failed_export_opens_an_error_dialog_and_lets_the_user_retry(broken_file, tmp_path):
    target = tmp_path / "missing" / "out.json"
    async with opened(broken_file) as (app, pilot):
        await _export(app, pilot, target)
        assert isinstance(app.screen, ErrorDialog)
        assert app.screen.title_text == "Export failed"
        assert app.screen.message.startswith(str(target)) and "does not exist" in app.screen.message
        await pilot.press("escape")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog) and dialog.writing is None
        assert not dialog.query_one(Input).disabled and not dialog.query_one("#export", Button).disabled
        assert "does not exist" in widget_text(app, "#export-note")
        assert not any(n.title == "Exported" for n in notifications(app))
        dialog.query_one(Input).value = str(tmp_path / "out.json")
        await pilot.press("enter")
        await finish_export(app, pilot)
        assert not isinstance(app.screen, (ExportDialog, ErrorDialog))
    assert (tmp_path / "out.json").is_file() and not target.parent.exists()


async def test_an_os_error_while_writing_is_reported_with_the_path(broken_file, tmp_path, monkeypatch):
    def refuse(path, data, **_):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(export_module, "atomic_write", refuse)
    target = tmp_path / "out.json"
    async with opened(broken_file) as (app, pilot):
        await _export(app, pilot, target)
        assert isinstance(app.screen, ErrorDialog)
        assert app.screen.message == f"{target}: Permission denied"
        assert "Permission denied" in widget_text(app, "#dialog-message")
    assert not target.exists()


async def test_export_of_stdin_goes_to_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with opened(stdin_data=json.dumps(BROKEN).encode()) as (app, pilot):
        await pilot.press("e")
        assert app.screen.query_one(Input).value == "stdin.normalized.json"
        await pilot.press("enter")
        await finish_export(app, pilot)
    assert json.loads((tmp_path / "stdin.normalized.json").read_text())


async def test_bad_json_opens_an_error_dialog_with_line_and_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = Path("bad.json")
    bad.write_text('[\n  {"role": "user",\n   "content": oops}\n]\n')
    with pytest.raises(InputError) as expected:
        parse_json(read_bytes(bad), str(bad))
    assert expected.value.line == 3
    async with opened(size=(100, 30), gallery=False) as (app, pilot):
        app.main.load(Source.file(bad))
        await _wait_error(pilot, app)
        assert app.screen.message == str(expected.value)
        message = widget_text(app, "#dialog-message")
        assert message.startswith(f"bad.json:{expected.value.line}:{expected.value.column}: ")
        assert f"bad.json:{expected.value.line}:{expected.value.column}" in message
        assert app.screen.focused is app.screen.query_one("#ok", Button)
        await pilot.press("escape")
        assert not isinstance(app.screen, ErrorDialog)
        # Still usable: the gallery opens and a sample loads.
        await pilot.press("g")
        assert isinstance(app.screen, GalleryScreen)
        await pilot.press("enter")
        await wait_loaded(app, pilot)
        assert app.main.doc.source.sample


@pytest.mark.parametrize("content", [b"", b'{"messages": 3}', b"\xff\xfe[]", b"42"],
                         ids=["empty", "messages-not-array", "not-utf8", "scalar"])
async def test_other_unreadable_files(tmp_path, content):
    path = tmp_path / "h.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as expected:  # what the command line would say
        import_history(parse_json(read_bytes(path), str(path)), str(path))
    async with opened(size=(100, 30), gallery=False) as (app, pilot):
        app.main.load(Source.file(path))
        await _wait_error(pilot, app)
        assert app.screen.message == str(expected.value)
        await pilot.press("enter")
        assert not isinstance(app.screen, ErrorDialog)


async def test_missing_file_from_the_command_line(tmp_path):
    app_path = tmp_path / "nope.json"
    from inspector.tui.app import make_app

    app = make_app(app_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait_error(pilot, app)
        assert "no such file" in widget_text(app, "#dialog-message")
        await pilot.press("escape")
        assert "No history open" in "\n".join(row_lines(app))


async def test_gallery_lists_the_samples_and_opens_one():
    samples = list_samples()
    assert samples
    from inspector.tui.app import make_app

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GalleryScreen)
        options = app.screen.query_one(OptionList)
        assert options.option_count == len(samples)
        assert samples[0].title in str(options.get_option_at_index(0).prompt)
        await pilot.press("down", "enter")
        await wait_loaded(app, pilot)
        assert app.main.doc.source.path == str(samples[1].path)
        assert samples[1].path.name in widget_text(app, "#title")


HOSTILE = [
    {"role": "user", "content": "[bold red]x[/]"},
    {"role": "user", "content": "[/]"},
    {"role": "user", "content": "\x1b[2J\x1b[31mred\r\x07"},
    {"role": "user", "content": "abc\u202edef\u2066ghi"},
    {"role": "[link=http://x]y[/link]", "content": "role is markup"},
    {"role": "user", "content": "A" * 1_000_000},
    {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "[b]id[/b]", "name": "f"}]},
]


async def test_hostile_content_renders_literally(tmp_path):
    path = tmp_path / "[red]hostile[x].json"
    path.write_text(json.dumps(HOSTILE))
    async with opened(path) as (app, pilot):
        text = "\n".join(row_lines(app))
        assert "[bold red]x[/]" in text and "  [/]" in text
        assert "\\x1b[2J\\x1b[31mred\\x0d\\x07" in text
        assert "abc\\u202edef\\u2066ghi" in text
        assert "[link=htt…" in text  # the role, cut to its column, still literal
        assert "[b]id[/b]" in text
        for line in text.splitlines():
            assert "\x1b" not in line and "\u202e" not in line and "\r" not in line
        assert "[red]hostile[x].json" in widget_text(app, "#title")
        table = app.main.query_one(DiffTable)
        table.cursor = 5  # the 1 MB line: the preview is cut, the details clipped
        started = time.perf_counter()
        await pilot.press("enter")
        details = await text_when(app, pilot, "#details-body", lambda t: "more characters" in t)
        assert time.perf_counter() - started < 5
        assert "more characters" in details and len(details) < 50_000
        table.cursor = 2
        await pilot.press("enter")
        body = await text_when(app, pilot, "#details-body", lambda t: "\\u001b[2J" in t)   # the next row's, once shown
        assert "\\u001b[2J" in body  # JSON's own escape, inert
        await pilot.press("escape", "3", "s", "0")
        assert "[bold red]x[/]" in "\n".join(row_lines(app))


async def test_large_history_stays_responsive(tmp_path):
    """Not a benchmark (bench/tui.py is): 30,000 rows load, switch and scroll to the end."""
    messages = []
    for i in range(10_000):
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": f"c{i}", "name": "f"}]},
            {"role": "tool", "content": f"result {i}", "tool_call_id": f"c{i}" if i % 50 else f"x{i}"},
            {"role": "user", "content": f"next {i}"},
        ]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(messages))
    async with opened(path, size=(120, 40)) as (app, pilot):
        await pilot.press("3", "end")
        table = app.main.query_one(DiffTable)
        assert table.cursor == table.row_count - 1
        assert "next 9999" in "\n".join(row_lines(app))
        await pilot.press("d")
        assert table.row_count == 2 * len(range(0, 10_000, 50))  # each orphan, and its call's synthesized result
        assert not app.main.query("DiffTable *")  # no widget per row
        # A search this big runs in a worker; its result replaces the rows when it arrives.
        await pilot.press("d", "slash", *"next 9999", "enter")
        for _ in range(300):
            await pilot.pause(0.02)
            if not app.main.searching:
                break
        assert [table.row_at(p).origin for p in range(table.row_count)] == [len(messages) - 1]


async def test_open_another_file(broken_file, tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"role": "user", "content": "second file"}]))
    async with opened(broken_file) as (app, pilot):
        await pilot.press("3", "o")
        assert isinstance(app.screen, OpenFileDialog)
        app.screen.query_one(Input).value = str(other)
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.02)
            if app.main.doc.source.path == str(other):
                break
        assert app.main.doc.source.path == str(other)
        assert app.main.view == 0  # a new file starts at its input
        assert "second file" in "\n".join(row_lines(app))
        await pilot.press("o", "escape")
        assert not isinstance(app.screen, OpenFileDialog) and app.main.doc.source.path == str(other)


async def test_notifications_show_markup_literally(tmp_path):
    path = tmp_path / "[b]x[-b].json"
    path.write_text(json.dumps(BROKEN))
    async with opened(path) as (app, pilot):
        await pilot.press("slash", *"[/]", "enter")  # no match: a warning quoting the search
        await pilot.press("e", "enter")
        await finish_export(app, pilot)
        messages = [n.message for n in notifications(app)]
        assert any("'[/]'" in m for m in messages)
        assert any("[b]x[-b].normalized.json" in m for m in messages)
        assert all(not n.markup for n in notifications(app))

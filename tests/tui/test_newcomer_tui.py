"""Issue 35's TUI items, each driven through make_app: what x says while the providers are
still being checked, the title naming the session, --session naming a session the file does
not hold, an unchanged edit, the verdict line's words."""

from __future__ import annotations

import shutil
import threading

import pytest

from inspector.bundled import samples_dir
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import opened, wait_loaded, widget_text

SAMPLES = samples_dir()


@pytest.fixture
def held_checks(monkeypatch):
    """The provider checks block until released: a big file's minutes, in a test's moment."""
    import inspector.tui.widgets.verdict as bar

    release = threading.Event()
    real = bar.check_all

    def slow(*args, **kwargs):
        release.wait(20)
        return real(*args, **kwargs)

    monkeypatch.setattr(bar, "check_all", slow)
    yield release
    release.set()


async def test_x_says_the_checks_are_still_running_not_that_nothing_is_wrong(held_checks, tmp_path):
    """Item 4: on a big file the verdict arrives seconds after the screen; x meanwhile said
    "No row marked: the chosen provider has no problem with this view"."""
    path = tmp_path / "13.json"
    shutil.copy(SAMPLES / "13-anthropic-retry-and-parallel-call.json", path)
    async with opened(path) as (app, pilot):
        assert app.main.target is not None and app.main.verdicts is None
        app.main.query_one(DiffTable).focus()
        await pilot.press("x")
        await pilot.pause()
        said = app.notified[-1].message
        assert "still checking" in said.lower() and "no problem" not in said.lower(), said
        held_checks.set()
        for _ in range(300):
            await pilot.pause(0.02)
            if app.main.verdicts is not None and app.main.verdicts.complete:
                break
        assert app.main.verdicts is not None and app.main.verdicts.complete
        before = len(app.notified)
        await pilot.press("x")
        await pilot.pause()
        table = app.main.query_one(DiffTable)
        if len(app.notified) > before:   # nothing marked in this view: said so, not "still checking"
            assert "still checking" not in app.notified[-1].message.lower()
        else:                            # the cursor went to a marked row
            assert table.flags and (table.order[table.cursor] if table.order else table.cursor) in table.flags


@pytest.fixture
def two_sessions(tmp_path):
    from sessions import agents_builder as ab

    return ab.make(tmp_path / "agents.db", {"support-42": ab.orphan_output(), "faro": ab.clean()})


async def test_the_title_names_the_session_open(two_sessions):
    """Item 9: a file of several sessions opened on one of them says which in its title."""
    async with opened(two_sessions, session="faro") as (app, pilot):
        assert "session faro" in widget_text(app, "#title")


async def test_a_session_the_file_does_not_hold_opens_the_picker(two_sessions):
    """Item 9: --session nope opened an error dialog; the picker of the file's sessions is
    what the user needs, with a word on the id not found."""
    from inspector.tui.app import make_app
    from inspector.tui.screens.error import ErrorDialog
    from inspector.tui.screens.sessions import SessionPicker

    from .helpers import watch_notifications

    app = make_app(two_sessions, session="nope")
    seen = watch_notifications(app)
    async with app.run_test(size=(120, 35)) as pilot:
        for _ in range(300):
            await pilot.pause(0.02)
            if isinstance(app.screen, (SessionPicker, ErrorDialog)):
                break
        assert isinstance(app.screen, SessionPicker), type(app.screen).__name__
        assert any("nope" in n.message for n in seen)
        await pilot.press("down", "enter")
        await wait_loaded(app, pilot)
        assert app.main.doc.source.session == "faro"


async def test_an_unchanged_edit_is_not_counted(tmp_path):
    """Item 9: E then save with nothing changed counted as an edit ("modified · edit 1 of 1")."""
    from textual.widgets import TextArea

    from inspector.tui.screens.editor import EditorDialog

    path = tmp_path / "12.json"
    shutil.copy(SAMPLES / "12-clean-history.json", path)
    async with opened(path) as (app, pilot):
        app.main.query_one(DiffTable).focus()
        await pilot.press("E")
        for _ in range(100):
            await pilot.pause(0.02)
            if isinstance(app.screen, EditorDialog):
                break
        assert isinstance(app.screen, EditorDialog)
        assert app.screen.query_one(TextArea).text
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert app.screen is app.main
        assert app.main.edits is None or not app.main.edits.total
        assert "modified" not in widget_text(app, "#title")


async def test_the_verdict_line_writes_mem5_in_capitals(tmp_path):
    """Item 9: the verdict line read "After mem-5's repair:" (str.capitalize lowered MEM)."""
    path = tmp_path / "11.json"
    shutil.copy(SAMPLES / "11-known-limit-separated-result.json", path)
    async with opened(path, target="auto") as (app, pilot):
        for _ in range(300):
            await pilot.pause(0.02)
            if app.main.verdicts is not None and app.main.verdicts.complete:
                break
        await pilot.press("4")
        await pilot.pause()
        line = widget_text(app, "#verdict")
        assert "mem-5" not in line and "MEM-5" in line, line


@pytest.fixture
def folder(tmp_path):
    deep = tmp_path / "projects" / "a-rather-long-project-name" / "sessions" / "2026" / "01" / "11"
    deep.mkdir(parents=True)
    for name in ("rollout-2026-01-11T10-00-00-first.json", "rollout-2026-01-11T11-00-00-second.json"):
        shutil.copy(SAMPLES / "11-known-limit-separated-result.json", deep / name)
    shutil.copy(SAMPLES / "12-clean-history.json", tmp_path / "a.json")
    return tmp_path


async def _browser(app, pilot):
    from inspector.tui.screens.browser import PENDING, BrowserScreen
    from inspector.tui.screenshots import settle

    await settle(app, pilot)
    assert isinstance(app.screen, BrowserScreen)
    for _ in range(300):
        await pilot.pause(0.02)
        if all(v.status != PENDING for v in app.screen.verdicts.values()):
            break
    await pilot.pause()
    return app.screen


async def test_the_browser_cuts_paths_in_the_middle_and_shows_a_row_whole(folder):
    """Item 3: at 120 columns both rollouts read alike (the path cut at its right end), and a
    row's whole verdict was readable nowhere."""
    from textual.widgets import DataTable

    from inspector.tui.app import make_app

    app = make_app(folder)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await _browser(app, pilot)
        table = screen.query_one(DataTable)
        names = [table.get_row_at(i)[1].plain for i in range(table.row_count)]
        firsts = [n for n in names if "first" in n]
        seconds = [n for n in names if "second" in n]
        assert firsts and seconds, names   # each shows the end of its name
        assert all("…" in n for n in firsts + seconds)
        table.move_cursor(row=names.index(seconds[0]))
        await pilot.pause()
        detail = "".join(widget_text(app, "#browser-detail").split())   # wrapped lines, joined
        assert "a-rather-long-project-name/sessions/2026/01/11/rollout-2026-01-11T11-00-00-second.json" in detail
        verdict = screen.verdicts[str(table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value)]
        assert "".join(verdict.detail.split()) in detail


async def test_home_and_end_move_the_browser_cursor(folder):
    """Item 3: Home and End scrolled without moving the cursor (End then enter opened the first file)."""
    from textual.widgets import DataTable

    from inspector.tui.app import make_app

    app = make_app(folder)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await _browser(app, pilot)
        table = screen.query_one(DataTable)
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        await pilot.pause()
        assert table.cursor_row == 0


async def test_b_comes_back_to_the_file_left(folder):
    """Item 3: b came back to the top of the list, not to the file the user had opened."""
    from textual.widgets import DataTable

    from inspector.tui.app import make_app

    app = make_app(folder)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await _browser(app, pilot)
        table = screen.query_one(DataTable)
        await pilot.press("end")
        await pilot.pause()
        chosen = str(table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value)
        assert table.cursor_row > 0
        await pilot.press("enter")
        await wait_loaded(app, pilot)
        assert app.main.doc.source.path == chosen
        app.main.query_one(DiffTable).focus()
        await pilot.press("b")
        screen = await _browser(app, pilot)
        table = screen.query_one(DataTable)
        assert str(table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value) == chosen


@pytest.mark.parametrize("sample", ["06-system-mid-conversation.json", "11-known-limit-separated-result.json"])
def test_the_input_view_marks_a_moved_row_as_the_stages_do(sample):
    """Item 9: a row a stage moves reads `↑` in that stage's view but `~` (changed) in the
    input view's fate column; both say moved now, and a row only changed keeps `~`."""
    from inspector.engine import kinds_with
    from inspector.pipeline import run_file
    from inspector.tui.rows import MOVE, Model, tag_text

    out = run_file(SAMPLES / sample, strict=True)
    model = Model(out.imported.messages, out.result, out.imported)
    moved_kinds = kinds_with("move")   # the engine's table: which kinds move a message
    found = 0
    for origin, events in model.by_origin.items():
        if any(e.drop and e.call is None for e in events):
            continue   # a dropped row's fate names the drop
        fate = tag_text(events, 0)
        if any(e.kind in moved_kinds for e in events):
            found += 1
            assert fate.startswith(f"→ {MOVE} "), (origin, fate)
        else:
            assert not fate.startswith(f"→ {MOVE} "), (origin, fate)
    assert found, f"{sample}: no moved row"


async def test_every_dialog_puts_its_action_before_the_way_out(tmp_path):
    """Item 9: dialog buttons came in three orders (Apply | Cancel, Export | Cancel, but
    No | Yes and Cancel | Save); now the action first, then the way out, everywhere."""
    from textual.widgets import Button

    from inspector.tui.screens.editor import EditorDialog
    from inspector.tui.screens.export import ExportDialog
    from inspector.tui.screens.save_edits import ConfirmDialog, SaveEditsDialog

    path = tmp_path / "12.json"
    shutil.copy(SAMPLES / "12-clean-history.json", path)

    def order(screen) -> list[str]:
        buttons = sorted(screen.query(Button), key=lambda b: (b.region.y, b.region.x))
        return [b.id for b in buttons]

    async with opened(path, size=(120, 35)) as (app, pilot):
        seen = {}
        for dialog in (EditorDialog("Edit", "{}", ""), ExportDialog(app.main.doc.result, "out.json", (),
                                                                       imported=app.main.doc.imported),
                       ConfirmDialog("Unsaved edits", "Drop them?", yes="Drop edits"),
                       SaveEditsDialog("out.json", (), lambda: b"[]", "1 edit")):
            app.push_screen(dialog)
            await pilot.pause(0.2)
            seen[type(dialog).__name__] = order(app.screen)
            app.pop_screen()
            await pilot.pause()
        ways_out = {"editor-cancel", "cancel", "no"}
        for name, ids in seen.items():
            assert len(ids) == 2 and ids[1] in ways_out and ids[0] not in ways_out, (name, ids)


async def test_after_mem5s_repair_is_said_only_where_the_view_shows_it(tmp_path):
    """Item 9: every MEM-5 view (coerce and hoist too) said "After MEM-5's repair:", though
    only the last stage's view shows the history checked; the earlier ones say the verdict is
    for MEM-5's output once all four stages have run."""
    path = tmp_path / "11.json"
    shutil.copy(SAMPLES / "11-known-limit-separated-result.json", path)
    async with opened(path) as (app, pilot):
        for _ in range(300):
            await pilot.pause(0.02)
            if app.main.verdicts is not None and app.main.verdicts.complete:
                break
        app.main.query_one(DiffTable).focus()
        lines = {}
        for view in "1234":
            await pilot.press(view)
            await pilot.pause()
            lines[view] = widget_text(app, "#verdict")
        assert "After MEM-5's repair" in lines["4"]
        for view in "123":
            assert "After MEM-5's repair" not in lines[view] and "all four MEM-5 stages" in lines[view], lines[view]


async def test_at_80x24_the_table_the_details_and_the_verdict_have_room(tmp_path):
    """Item 7: at 80x24 the table showed 6 rows, the Details tab only its heading, and the
    verdict of a provider-format file took two lines."""
    from .helpers import row_lines

    path = tmp_path / "17.json"
    shutil.copy(SAMPLES / "17-long-parallel-call-ids.json", path)
    async with opened(path, size=(80, 24)) as (app, pilot):
        for _ in range(300):
            await pilot.pause(0.02)
            if app.main.verdicts is not None and app.main.verdicts.complete:
                break
        app.main.query_one(DiffTable).focus()
        await pilot.press("3")
        await pilot.pause()
        rows = [line for line in row_lines(app)[1:] if line.strip()]   # the header first
        assert len(rows) > 6, rows
        assert app.main.query_one("#verdict").size.height == 1
        assert app.main.query_one("#details").size.height >= 4   # the heading and what follows it


async def test_the_import_notes_come_in_one_toast(tmp_path):
    """Item 7: a Claude Code session's four import notes were four toasts, over the table."""
    path = tmp_path / "s.jsonl"
    shutil.copy(SAMPLES / "21-claude-code-session.jsonl", path)
    async with opened(path, size=(80, 24)) as (app, pilot):
        notes = app.main.doc.notes
        assert len(notes) > 1
        toasts = [n for n in app.notified if any(note in n.message for note in notes)]
        assert len(toasts) == 1 and all(note in toasts[0].message for note in notes)

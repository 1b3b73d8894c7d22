"""`inspector doctor --tui`: the TUI's folder browser on the files the doctor's scan finds,
each row with the verdict `inspector doctor` gives the same session (one computation: the
doctor's per-file step), enter opening the session and b coming back to the list."""

from __future__ import annotations

from pathlib import Path

from inspector.cli import main as inspector
from inspector.doctor import scan
from inspector.tui.app import make_doctor_app
from inspector.tui.screens.browser import LABELS, PENDING, BrowserScreen
from inspector.tui.screenshots import settle

from . import fakehome
from .test_doctor import machine  # noqa: F401 - the fake machine fixture


async def _checked(app, pilot) -> BrowserScreen:
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    for _ in range(500):
        if screen.verdicts and all(v.status != PENDING for v in screen.verdicts.values()):
            return screen
        await pilot.pause(0.02)
    raise AssertionError("the doctor's verdicts never all arrived")


async def test_the_browser_lists_every_session_the_doctor_finds_with_its_verdict(machine, monkeypatch):
    home, cwd, _ = machine
    env = fakehome.env_for(home)
    expected = scan(env=env, cwd=cwd).rows
    app = make_doctor_app(env=env, cwd=cwd)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _checked(app, pilot)
        assert set(screen.files) == {r.path for r in expected}
        by_path: dict[str, list] = {}
        for row in expected:
            by_path.setdefault(row.path, []).append(row)
        for path, rows in by_path.items():
            shown = screen.verdicts[path]
            if len(rows) == 1:
                assert shown.status == LABELS[rows[0].status]
                assert rows[0].verdict.sentence.removeprefix("unreadable: ") in shown.detail
            else:
                assert all(f"{r.session} {LABELS[r.status]}" in shown.detail for r in rows)
        labels = {screen.items[p].label for p in screen.files}
        assert any(label.startswith("~/") for label in labels)   # named from the home, as the doctor names them
        title = str(screen.query_one("#browser-title").render())
        assert "Agent homes" in title
        # enter opens the session; b comes back to the doctor's list, its verdicts kept
        openable = next(r.path for r in expected if r.status != "unreadable" and len(by_path[r.path]) == 1)
        table = screen.query_one("DataTable")
        table.move_cursor(row=table.get_row_index(openable))
        await pilot.press("enter")
        for _ in range(300):
            await pilot.pause(0.02)
            if app.main.doc is not None and app.main.loading_source is None:
                break
        assert app.main.doc is not None and app.main.doc.source.path == openable
        await pilot.press("b")
        await settle(app, pilot)
        assert isinstance(app.screen, BrowserScreen) and app.screen.found is not None
        assert all(v.status != PENDING for v in app.screen.verdicts.values())


def test_doctor_tui_is_an_option_of_the_doctor_and_refuses_fix_and_json(monkeypatch, capsys, tmp_path):
    import inspector.tui.app as tui_app

    seen = []
    monkeypatch.setattr(tui_app, "run_doctor", lambda paths=None: seen.append(paths) or 0)
    assert inspector(["doctor", "--tui"]) == 0 and seen == [None]
    assert inspector(["doctor", "--tui", str(tmp_path)]) == 0 and seen[-1] == [str(tmp_path)]
    assert inspector(["doctor", "--tui", "--json"]) == 2
    assert "--tui" in capsys.readouterr().err


async def test_doctor_report_and_doctor_tui_say_each_status_in_the_same_words(machine, capsys):
    """Issue 35 item 9: one vocabulary. The doctor's text report and its --tui (the folder
    browser) once said FAIL / agent fixes beside would fail / agent repairs; each file now reads
    with the same word in both, and the browser's last column is titled for what it shows."""
    home, cwd, _ = machine
    env = fakehome.env_for(home)
    rows = scan(env=env, cwd=cwd).rows
    from inspector.doctor.command import text_report
    from inspector.doctor.scan import Scan

    from inspector.doctor.command import row_line

    by_path: dict[str, list] = {}
    for row in rows:
        by_path.setdefault(row.path, []).append(row)
    app = make_doctor_app(env=env, cwd=cwd)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _checked(app, pilot)
        table = screen.query_one("DataTable")
        titles = [str(c.label) for c in table.columns.values()]
        assert "what doctor says" not in titles and titles[0] == "verdict"
        cells = {path: table.get_row(path)[0].plain for path in by_path}
    words = set()
    for path, [*file_rows] in by_path.items():
        if len(file_rows) == 1:             # one session in the file: the browser's cell is its row's word
            line = row_line(file_rows[0])
            assert line[18:].startswith(cells[path] + " "), (cells[path], line)
            words.add(cells[path])
    assert {"fails", "ok", "unreadable"} <= words, words    # the fake machine has each of these
    summary = text_report(Scan(rows=rows, homes=[])).splitlines()[-2]
    assert "): fails " in summary and "would fail" not in summary, summary   # counted as the browser's title counts

"""`inspector doctor --tui` lists the same rows as `inspector doctor`, the threads of Codex's
thread index (``state_5.sqlite``) whose rollout is gone included: one answer on every screen.

A thread the index lists without its rollout is a session Codex shows and cannot resume
(openai/codex@864b3ff5194d:codex-rs/state/migrations/0001_threads.sql gives the row its
``rollout_path``); the doctor says so in a row of its own, and the browser renders that row,
never a verdict of its own. Such a row has no file to open: enter says why, or moves to the
rollout found elsewhere under the home.
"""

from __future__ import annotations

import orjson
import pytest

from inspector.cli import main as inspector
from inspector.tui.app import make_doctor_app
from inspector.tui.screens.browser import LABELS, PENDING, BrowserScreen

from test_codex_compressed import zst
from test_codex_doctor import A, B, C, DAY, clean, home_with, name, threads_db

from .helpers import settled, text_when, watch_notifications


@pytest.fixture()
def codex_machine(tmp_path):
    """A present (compressed) rollout A, B moved to archived_sessions (the index's path is
    stale), C gone (its title markup-like text, which is data)."""
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    codex = home_with(home)
    (codex / DAY / (name(A) + ".zst")).write_bytes(zst(clean()))
    moved = codex / "archived_sessions" / name(B)
    moved.parent.mkdir()
    moved.write_bytes(clean())
    threads_db(codex, [(A, str(codex / DAY / name(A)), "billing"),
                       (B, str(codex / DAY / name(B)), "rounding fix"),
                       (C, str(codex / DAY / name(C)), "[bold]gone[/]")])
    return home, cwd, codex, moved


def _doctor_json(home, cwd, monkeypatch, capsys) -> list[dict]:
    with monkeypatch.context() as m:
        m.setattr("os.environ", {"HOME": str(home)})
        m.chdir(cwd)
        inspector(["doctor", "--json"])
    return orjson.loads(capsys.readouterr().out)["sessions"]


async def _browser(app, pilot) -> BrowserScreen:
    def checked() -> None:
        assert isinstance(app.screen, BrowserScreen)
        assert app.screen.verdicts and all(v.status != PENDING for v in app.screen.verdicts.values())
    await settled(pilot, checked, seconds=10)
    return app.screen


async def test_doctor_json_and_doctor_tui_give_the_same_rows_missing_threads_included(
        codex_machine, monkeypatch, capsys):
    home, cwd, codex, _ = codex_machine
    sessions = _doctor_json(home, cwd, monkeypatch, capsys)
    missing = {s["session"]: s for s in sessions if s["verdict"].startswith("missing:")}
    assert set(missing) == {B, C}                     # the CLI's own rows, which the screen must show too
    app = make_doctor_app(env={"HOME": str(home)}, cwd=cwd)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await _browser(app, pilot)
        assert set(screen.files) == {s["path"] for s in sessions}
        table = screen.query_one("DataTable")
        for s in sessions:
            word, label, _, detail = table.get_row(s["path"])
            assert word.plain == LABELS[s["status"]]
            assert screen.items[s["path"]].label == s["label"]
            if s in missing.values():                 # the doctor's sentence, whole
                assert screen.verdicts[s["path"]].detail == s["verdict"]
            else:
                assert s["verdict"].removeprefix("unreadable: ") in screen.verdicts[s["path"]].detail
        title = await text_when(app, pilot, "#browser-title", lambda t: "unreadable 2" in t)
        assert "unreadable 2" in title and "2 session files and 2 rows with no file to open" in title
        # the cursor on C: the line under the table says what the CLI says, markup as data
        table.move_cursor(row=table.get_row_index(missing[C]["path"]))
        detail = screen.query_one("#browser-detail")

        def says_the_cli_sentence() -> None:
            assert missing[C]["verdict"] in str(detail.render())
        await settled(pilot, says_the_cli_sentence)
        shown = await text_when(app, pilot, "#browser-detail", lambda t: "([bold]gone[/])" in t)
        assert f"thread {C} · unreadable: missing:" in shown and "([bold]gone[/])" in shown


async def test_enter_on_a_missing_thread_opens_nothing_and_says_why(codex_machine, monkeypatch, capsys):
    home, cwd, codex, moved = codex_machine
    sessions = {s["session"]: s for s in _doctor_json(home, cwd, monkeypatch, capsys)}
    app = make_doctor_app(env={"HOME": str(home)}, cwd=cwd)
    seen = watch_notifications(app)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await _browser(app, pilot)
        table = screen.query_one("DataTable")
        # C: no rollout anywhere; enter keeps the list and says the doctor's sentence
        table.move_cursor(row=table.get_row_index(sessions[C]["path"]))
        await pilot.press("enter")

        def told() -> None:
            assert any(sessions[C]["verdict"] in str(n.message) for n in seen), [n.message for n in seen]
        await settled(pilot, told)
        assert app.screen is screen and app.main.doc is None
        # B: its rollout is in archived_sessions; enter moves the cursor to that file's row
        table.move_cursor(row=table.get_row_index(sessions[B]["path"]))
        await pilot.press("enter")

        def on_moved() -> None:
            assert table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value == str(moved)
        await settled(pilot, on_moved)
        assert app.screen is screen and app.main.doc is None
        detail = await text_when(app, pilot, "#browser-detail", lambda t: "archived_sessions" in t)
        assert "archived_sessions" in detail


async def test_an_unreadable_index_is_the_clis_row_and_enter_does_not_open_the_database(
        tmp_path, monkeypatch, capsys):
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    codex = home_with(home)
    (codex / "state_5.sqlite").write_bytes(b"not a database at all, just text" * 8)
    [row] = _doctor_json(home, cwd, monkeypatch, capsys)
    app = make_doctor_app(env={"HOME": str(home)}, cwd=cwd)
    seen = watch_notifications(app)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await _browser(app, pilot)
        assert screen.files == [row["path"]]
        shown = await text_when(app, pilot, "#browser-detail", lambda t: "state_5.sqlite" in t)
        assert shown.strip().startswith(f"{row['label']} · {LABELS[row['status']]}: ")
        assert screen.verdicts[row["path"]].detail == row["verdict"].removeprefix("unreadable: ")
        await pilot.press("enter")

        def told() -> None:
            assert any(row["verdict"] in str(n.message) for n in seen), [n.message for n in seen]
        await settled(pilot, told)
        assert app.screen is screen and app.main.doc is None

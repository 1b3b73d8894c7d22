"""The TUI's error dialog says what the user can act on, never an internal exception's
text (issue 12, item 10)."""

from __future__ import annotations

import json

from inspector.io import describe_error
from inspector.tui.app import make_app
from inspector.tui import loader
from inspector.tui.screens.error import ErrorDialog


async def test_a_bug_while_loading_is_named_as_one(tmp_path, monkeypatch):
    path = tmp_path / "h.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    bug = AttributeError("'NoneType' object has no attribute 'get'")

    def broken(*args, **kwargs):
        raise bug

    monkeypatch.setattr(loader, "load_document", broken)
    app = make_app(str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if isinstance(app.screen, ErrorDialog):
                break
        assert isinstance(app.screen, ErrorDialog)
        message = app.screen.message
    assert message == describe_error(bug, path.name) or message == describe_error(bug, str(path))
    assert "NoneType" not in message and "bug" in message


async def test_copying_an_entry_nested_too_deeply_says_so_and_the_app_stays_up(tmp_path):
    """R2-27: ``c`` on an entry nested 1,000 levels deep: orjson refuses it, the fallback
    ``repr`` recursed too, and the app exited with a traceback."""
    path = tmp_path / "deep.json"
    path.write_text('[{"role": "user", "content": "hi"},' + "[" * 1000 + "]" * 1000 + "]")
    app = make_app(str(path))
    said: list[str] = []
    notify = app.notify
    app.notify = lambda message, *a, **k: (said.append(str(message)), notify(message, *a, **k))[1]
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if app.main.doc is not None:
                break
        assert app.main.doc is not None
        await pilot.press("down")
        await pilot.press("c")
        await pilot.pause(0.2)
        assert app.is_running
    assert any("nested too deeply" in m for m in said)

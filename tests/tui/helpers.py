"""Helpers for the TUI tests: a history with known breakage, and ways to read the screen."""

from __future__ import annotations

import asyncio
import inspect
from contextlib import asynccontextmanager
from types import SimpleNamespace

from textual._context import active_app
from textual.geometry import Region

from inspector.tui.app import make_app
from inspector.tui.widgets.diff_table import DiffTable

# Every clause acts at least once: a non-object entry, a system message mid-list, a result
# before its call that opens the conversation, a redeclared id, an orphan, a duplicate, and
# a call left unanswered.
BROKEN = [
    {"role": "tool", "content": "early", "tool_call_id": "c0"},
    {"role": "user", "content": "hello"},
    "not a message",
    {"role": "system", "content": "be brief"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"tool_call_id": "c0", "name": "f"}, {"tool_call_id": "c1", "name": "g"}]},
    {"role": "tool", "content": {"ok": True}, "tool_call_id": "c1"},
    {"role": "tool", "content": "again", "tool_call_id": "c1"},
    {"role": "tool", "content": "nobody asked", "tool_call_id": "c9"},
    {"role": "assistant", "content": "retry", "tool_calls": [
        {"tool_call_id": "c1", "name": "g"}, {"id": "c2", "name": "h"}]},
    {"role": "user", "content": "thanks"},
]


async def wait_loaded(app, pilot, tries: int = 400) -> None:
    for _ in range(tries):
        await pilot.pause(0.02)
        main = app.main
        if main.doc is not None and main.loading_source is None:
            await pilot.pause()
            return
    raise AssertionError("the history never finished loading")


def watch_notifications(app) -> list[SimpleNamespace]:
    """Every notification the app is asked to show, as its ``notify`` arguments (message,
    title, severity, markup...), recorded through the public ``App.notify``."""
    seen: list[SimpleNamespace] = []
    real = app.notify
    signature = inspect.signature(real)

    def notify(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        seen.append(SimpleNamespace(**bound.arguments))
        return real(*args, **kwargs)

    app.notify = notify
    return seen


def notifications(app) -> list[SimpleNamespace]:
    return app.notified


@asynccontextmanager
async def opened(path=None, size=(160, 50), **kwargs):
    app = make_app(path, **kwargs)
    app.notified = watch_notifications(app)
    async with app.run_test(size=size) as pilot:
        if path is not None or kwargs.get("stdin_data") is not None:
            await wait_loaded(app, pilot)
        yield app, pilot


class Running:
    """Apps kept running for the tests of one module that only read a screen (the
    ``running`` fixture of conftest.py): each (file, options, group) starts once, at its first
    test, and later tests get it resized to their size. Starting an app costs more than most
    tests' own work. Each app runs in a task of its own (Textual's ``run_test`` must end in the
    task that began it), on the module's event loop: a module using it marks its tests with
    ``pytest.mark.asyncio(loop_scope="module")``. A test that changes what a later one reads
    (a filter, a pane, an edit) opens its own app with :func:`opened` instead."""

    def __init__(self) -> None:
        self.apps: dict[tuple, tuple] = {}
        self.hosts: list[tuple[asyncio.Task, asyncio.Event]] = []

    async def open(self, path=None, size=(160, 50), group: str = "", **kwargs):
        key = (str(path), group, tuple(sorted(kwargs.items())))
        if key not in self.apps:
            app = make_app(path, **kwargs)
            app.notified = watch_notifications(app)
            started: asyncio.Future = asyncio.get_running_loop().create_future()
            done = asyncio.Event()

            async def host():
                try:
                    async with app.run_test(size=size) as pilot:
                        if path is not None or kwargs.get("stdin_data") is not None:
                            await wait_loaded(app, pilot)
                        started.set_result(pilot)
                        await done.wait()
                except BaseException as error:
                    if not started.done():
                        started.set_exception(error)
                    raise

            self.hosts.append((asyncio.create_task(host()), done))
            self.apps[key] = (app, await started)
        app, pilot = self.apps[key]
        active_app.set(app)  # what run_test gives its own task: Textual reads it while drawing
        if (app.size.width, app.size.height) != tuple(size):
            await pilot.resize_terminal(*size)
            await pilot.pause()
        return app, pilot

    async def close(self) -> None:
        for task, done in self.hosts:
            done.set()
        for task, _ in self.hosts:
            await task


def table_lines(app) -> list[str]:
    """The diff table's visible lines as plain text, header first."""
    table = app.main.query_one(DiffTable)
    return [strip.text.rstrip() for strip in table.render_lines(Region(0, 0, table.size.width, table.size.height))]


def row_lines(app) -> list[str]:
    """The table's content lines (no border), header first: what a user reads row by row."""
    table = app.main.query_one(DiffTable)
    height = table.scrollable_content_region.height
    return [table.render_line(y).text.rstrip() for y in range(height)]


def widget_text(app, selector: str) -> str:
    widget = app.screen.query_one(selector)
    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return "\n".join(strip.text.rstrip() for strip in lines)


async def text_when(app, pilot, selector: str, ready, seconds: float = 5.0) -> str:
    """The widget's text once ``ready(text)`` holds (the layout after an update can take a few
    frames); the last text if it never does, for the test's own assertion to show."""
    text = widget_text(app, selector)
    for _ in range(int(seconds / 0.02)):
        if ready(text):
            break
        await pilot.pause(0.02)
        text = widget_text(app, selector)
    return text


async def settled(pilot, check, seconds: float = 5.0) -> None:
    """Run ``check`` (a function that asserts) until it passes: what follows a key press on the
    screen can take a few frames under a loaded machine. The last failure is raised as is."""
    for _ in range(int(seconds / 0.02)):
        try:
            check()
            return
        except AssertionError:
            await pilot.pause(0.02)
    check()


async def steady(pilot, read, frames: int = 5, seconds: float = 5.0):
    """``read()`` once it has given the same value ``frames`` times in a row (a layout still
    settling under load changes between frames): the value to compare later ones with."""
    last, same = read(), 0
    for _ in range(int(seconds / 0.02)):
        await pilot.pause(0.02)
        now = read()
        same = same + 1 if now == last else 0
        last = now
        if same >= frames:
            break
    return last


async def finish_export(app, pilot) -> None:
    """Let the export dialog's thread worker finish and its result reach the screen."""
    for worker in [w for w in app.workers if w.group == "export"]:
        try:
            await worker.wait()
        except Exception:  # a failed export is the test's to check, through the dialogs
            pass
    for _ in range(3):
        await pilot.pause()


# An Anthropic body whose assistant turn opens with signed thinking: what an export to a
# format that cannot carry it must name (the export preview, its snapshots).
THINKING = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
    {"role": "user", "content": "What is 17 * 23?"},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "17*23 = 391", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDOh4="},
        {"type": "text", "text": "391"}]},
    {"role": "user", "content": "Thanks"}]}

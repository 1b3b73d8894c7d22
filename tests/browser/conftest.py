"""Browser tests: ``inspector serve`` on a free 127.0.0.1 port, driven by Playwright in Debian's
Chromium. The page draws the terminal on a canvas, so the tests read the screen by feeding
the websocket's terminal output to a terminal emulator (pyte), the same bytes the page draws.

Needs the system browser (/usr/bin/chromium), textual-serve (the ``web`` extra), playwright
and pyte (the ``webtest`` extra). Without them the tests are skipped, except under CI
(``CI=true``), where .ci/run installs them and a missing piece is a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from extras import in_ci

from .folder import make_served_folder

CHROMIUM = os.environ.get("INSPECTOR_CHROMIUM", "/usr/bin/chromium")
BOX = re.compile("[\u2500-\u259f]")  # box drawing and block elements: borders, scrollbars
WAIT = 15.0  # seconds: the longest any one wait in these tests may take


def missing() -> str | None:
    for module, extra in (("textual_serve", "web"), ("playwright", "webtest"), ("pyte", "webtest")):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install '.[{extra}]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no browser at {CHROMIUM} (apt-get install chromium)"
    return None




@pytest.fixture(scope="session")
def browser_ready() -> None:
    reason = missing()
    if reason is not None:
        if in_ci():
            pytest.fail(f"browser tests must run in CI: {reason}")
        pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = WAIT) -> None:
    """Bounded: connect to 127.0.0.1 only, every 0.1 s, until ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"inspector serve exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"inspector serve did not listen on 127.0.0.1:{port} within {timeout} s")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> dict[str, Path]:
    return make_served_folder(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def server(browser_ready, folder, tmp_path_factory):
    """``inspector serve FOLDER`` in its own process group, always killed at the end."""
    port = free_port()
    log = tmp_path_factory.mktemp("serve-log") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "inspector", "serve", str(folder["root"]),
                                 "--port", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_port(port, proc)
        yield {"url": f"http://127.0.0.1:{port}/", "port": port, "log": log}
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the server and the app processes it started (one group), SIGKILL after 5 s."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def browser(browser_ready):
    from playwright.sync_api import sync_playwright

    args = ["--no-sandbox"] if os.geteuid() == 0 else []  # Chromium refuses root without it
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=args, timeout=WAIT * 1000)
        try:
            yield chromium
        finally:
            chromium.close()


class Terminal:
    """What the page shows, read from the terminal output the server streams to it."""

    def __init__(self, page) -> None:
        import pyte

        self.page = page
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.downloads: list = []
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        query = parse_qs(urlsplit(ws.url).query)
        self.screen.resize(int(query["height"][0]), int(query["width"][0]))
        ws.on("framereceived", self._received)
        ws.on("framesent", self._sent)

    def _received(self, payload) -> None:
        if isinstance(payload, bytes):  # text frames are control messages; bytes are the screen
            self.stream.feed(payload)

    def _sent(self, payload) -> None:
        if isinstance(payload, str):
            message = json.loads(payload)
            if message[0] == "resize":
                self.screen.resize(message[1]["height"], message[1]["width"])

    @property
    def lines(self) -> list[str]:
        return list(self.screen.display)

    @property
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    @property
    def words(self) -> str:
        """The screen's words in reading order, box drawing left out: text that a dialog
        wraps over several lines still reads as one sentence."""
        return " ".join(BOX.sub(" ", self.text).split())

    def style(self, row: int, column: int) -> tuple:
        char = self.screen.buffer[row][column]
        return (char.fg, char.bg, char.bold, char.reverse)

    def wait(self, predicate, what: str, timeout: float = WAIT) -> None:
        """Poll (letting Playwright deliver frames) until ``predicate()``, at most ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            self.page.wait_for_timeout(50)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}; the screen:\n{self.text}")

    def wait_text(self, needle: str, timeout: float = WAIT) -> None:
        self.wait(lambda: needle in self.words, repr(needle), timeout)

    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)
            if key == "Escape":  # a lone ESC byte is only a key once no sequence follows it
                self.page.wait_for_timeout(200)


@pytest.fixture
def tab(browser, server):
    """A fresh page (so a fresh app process) on the served URL, its terminal focused.
    Only 127.0.0.1 is reachable from it: every other request is aborted."""
    context = browser.new_context(viewport={"width": 1400, "height": 800}, accept_downloads=True)
    context.set_default_timeout(WAIT * 1000)
    context.route("**/*", lambda route: route.continue_()
                  if urlsplit(route.request.url).hostname == "127.0.0.1" else route.abort())
    page = context.new_page()
    terminal = Terminal(page)
    page.on("download", lambda d: terminal.downloads.append(d))
    try:
        page.goto(server["url"])
        terminal.wait(lambda: terminal.text.strip() != "", "the app's first screen")
        page.locator(".xterm-screen").click()  # keys go to the terminal once it has focus
        yield terminal
    finally:
        context.close()

"""The Textual app: ``make_app()`` builds it (tests reuse it), ``run()`` is what the CLI calls."""

from __future__ import annotations

import os
import sys

from textual.app import App

from .commands import InspectorCommands
from .loader import Source
from .screens.main import MainScreen
from .screens.playground import PlaygroundScreen, ask_before_quit


class InspectorApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "Inspector"
    COMMANDS = App.COMMANDS | {InspectorCommands}  # stage:, filter:, row:, export: … entries

    def __init__(self, source: Source | None = None, *, gallery: bool | None = None, strict: bool = False,
                 target: str = "auto", browse: str | None = None, watch: bool = False) -> None:
        super().__init__()
        self.watch = watch  # --watch: read the file again when it changes on disk
        self.lessons = False  # inspector learn: open on the lessons
        self.source = source
        self.strict = strict
        self.target = target
        self.browse = browse
        self.open_gallery = source is None and browse is None if gallery is None else gallery

    @property
    def main(self) -> MainScreen:
        return self.get_screen("main")  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.install_screen(PlaygroundScreen(strict=self.strict, target=self.target, watch_file=self.watch), "main")
        self.push_screen("main")
        if self.browse is not None:
            self.main.browse_root = self.browse
            self.main.action_browse()
        elif self.source is not None:  # after the first paint, so the screen is there while it loads
            self.call_after_refresh(self.main.load, self.source)
        elif self.open_gallery:
            self.main.action_gallery()
        if self.lessons:  # inspector learn
            self.main.action_learn()

    async def action_quit(self) -> None:
        """Quit; unsaved edits (the playground's) ask first."""
        if not ask_before_quit(self):
            self.exit()


def make_app(path: str | os.PathLike | None = None, *, stdin_data: bytes | None = None,
             gallery: bool | None = None, fmt: str = "auto", strict: bool = False,
             session: str | None = None, target: str = "auto", watch: bool = False) -> InspectorApp:
    """``path`` opens a file, ``stdin_data`` a history read from standard input, neither the
    gallery; ``fmt`` is the input format (``auto`` detects it, as the CLI's ``--from``);
    ``strict`` starts with the strict stage on (``--strict``, an extension beyond MEM-5);
    ``session`` picks one session of a file that holds several (``--session ID``; without it
    such a file opens on a picker of its sessions); ``target`` the provider whose verdict the
    screen shows (``auto``: the one the format speaks; none for a flat history, which shows
    every provider's); a folder opens a browser of its history and session files; ``watch``
    reads the file again whenever it changes on disk (``--watch``)."""
    browse = None
    if stdin_data is not None:
        source: Source | None = Source("<stdin>", None, stdin_data, fmt=fmt, session=session)
    elif path is not None and os.path.isdir(path):
        source, browse = None, str(path)
    elif path is not None:
        source = Source.file(path, fmt=fmt, session=session)
    else:
        source = None
    return InspectorApp(source, gallery=gallery, strict=strict, target=target, browse=browse, watch=watch)


def reattach_terminal() -> None:
    """After reading a history from a pipe, give Textual the terminal as its input (fd 0)."""
    fd = os.open("/dev/tty", os.O_RDWR)
    try:
        os.dup2(fd, 0)
    finally:
        os.close(fd)


def run(path: str | None, fmt: str = "auto", strict: bool = False, session: str | None = None,
        target: str = "auto", watch: bool = False) -> int:
    stdin_data = None
    if path == "-":
        stdin_data = sys.stdin.buffer.read()
        if not sys.stdin.isatty():
            try:
                reattach_terminal()
            except OSError as exc:
                print(f"error: <stdin>: no terminal to run the interactive app on ({exc.strerror}); "
                      "use 'inspector normalize -' or 'inspector explain -' in a pipeline", file=sys.stderr)
                return 2
        app = make_app(stdin_data=stdin_data, fmt=fmt, strict=strict, session=session, target=target)
    else:
        app = make_app(path, fmt=fmt, strict=strict, session=session, target=target, watch=watch)
    result = app.run()
    return result if isinstance(result, int) else 0


def make_lessons_app() -> InspectorApp:
    """``inspector learn``: the app, opened on the lessons."""
    app = InspectorApp(None, gallery=False)
    app.lessons = True
    return app


def run_lessons() -> int:
    result = make_lessons_app().run()
    return result if isinstance(result, int) else 0


__all__ = ["InspectorApp", "make_app", "make_lessons_app", "run", "run_lessons"]

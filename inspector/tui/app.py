"""The Textual app: ``make_app()`` builds it (tests reuse it), ``run()`` is what the CLI calls."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen

from . import confine, keys
from .commands import InspectorCommands
from .loader import Source
from .screens.main import MainScreen
from .screens.editing import ask_before_quit
from .screens.playground import PlaygroundScreen


class InspectorApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "Inspector"
    COMMANDS = App.COMMANDS | {InspectorCommands}  # stage:, filter:, row:, export: … entries
    BINDINGS = [keys.SAVE]

    def __init__(self, source: Source | None = None, *, gallery: bool | None = None, strict: bool = False,
                 target: str = "auto", browse: str | None = None, reasoning: str = "keep",
                 doctor: tuple[list, str] | None = None, watch: bool = False) -> None:
        super().__init__()
        self.watch = watch  # --watch: read the file again when it changes on disk
        self.lessons = False  # inspector learn: open on the lessons
        self.doctor = doctor  # (files found, heading): `inspector doctor --tui`
        self.source = source
        self.strict = strict
        self.reasoning = reasoning
        self.target = target
        self.model: str | None = None   # --model: the model the verdict judges a history as sent to
        self.browse = browse
        self.open_gallery = source is None and browse is None and doctor is None if gallery is None else gallery

    def action_save(self) -> None:
        """ctrl+s: the screen's own save (see :mod:`inspector.tui.keys`)."""
        save = getattr(self.screen, "action_save", None)
        if callable(save):
            save()
        else:
            self.notify("Nothing to save on this screen.", title="Save")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's palette commands, with a Screenshot that says where it saved, or why it could not."""
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot":
                yield SystemCommand("Learn: export the playground as a level", "Write the playground's history as "
                                    "a level file in the state folder; inspector learn FILE plays it (L on the "
                                    "levels)", lambda: _export_level(self))
                yield SystemCommand("Screenshot", "Save an SVG screenshot of the screen (in the Downloads "
                                    "folder when there is one, else the current folder)",
                                    lambda: self.set_timer(0.1, self.save_screenshot_here))
            else:
                yield command

    def save_screenshot_here(self) -> str | None:
        """Save a screenshot (a download in served mode) and say where, or why it failed; the path."""
        if confine.of(self) is not None:
            self.deliver_screenshot()
            return None
        folder = screenshot_folder()
        try:
            path = self.save_screenshot(path=folder)
        except OSError as exc:
            self.notify(f"Could not save the screenshot in {folder}: {exc.strerror or exc}.",
                        title="Screenshot", severity="error", markup=False)
            return None
        self.notify(f"Saved the screenshot to {path}.", title="Screenshot", markup=False)
        return path

    @property
    def main(self) -> MainScreen:
        return self.get_screen("main")  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.install_screen(PlaygroundScreen(strict=self.strict, target=self.target, reasoning=self.reasoning,
                                             watch_file=self.watch), "main")
        self.push_screen("main")
        if self.doctor is not None:
            self.main.action_doctor(*self.doctor)
        elif self.browse is not None:
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


def screenshot_folder() -> str:
    """Where a screenshot goes: the Downloads folder when it exists, else the current folder."""
    from platformdirs import user_downloads_path

    downloads = user_downloads_path()
    return str(downloads) if downloads.is_dir() else os.getcwd()


def make_app(path: str | os.PathLike | None = None, *, stdin_data: bytes | None = None,
             gallery: bool | None = None, fmt: str = "auto", strict: bool = False,
             session: str | None = None, target: str = "auto", reasoning: str = "keep",
             watch: bool = False, model: str | None = None) -> InspectorApp:
    """``path`` opens a file, ``stdin_data`` a history read from standard input, neither the
    gallery; ``fmt`` is the input format (``auto`` detects it, as the CLI's ``--from``);
    ``strict`` starts with the strict stage on (``--strict``, an extension beyond MEM-5);
    ``session`` picks one session of a file that holds several (``--session ID``; without it
    such a file opens on a picker of its sessions); ``target`` the provider whose verdict the
    screen shows (``auto``: the one the format speaks; none for a flat history, which shows
    every provider's); ``reasoning`` the ``--reasoning`` policy exports run with (R switches
    it); a folder opens a browser of its history and session files; ``watch`` reads the file
    again whenever it changes on disk (``--watch``); ``model`` the model the verdict judges it
    as sent to (``--model``; None: the one a session last ran on, where its store records it)."""
    browse = None
    if stdin_data is not None:
        source: Source | None = Source("<stdin>", None, stdin_data, fmt=fmt, session=session)
    elif path is not None and os.path.isdir(path):
        source, browse = None, str(path)
    elif path is not None:
        source = Source.file(path, fmt=fmt, session=session)
    else:
        source = None
    app = InspectorApp(source, gallery=gallery, strict=strict, target=target, browse=browse, reasoning=reasoning,
                       watch=watch)
    app.model = model
    return app


def make_doctor_app(paths: list[str] | None = None, env: Mapping[str, str] | None = None,
                    cwd: str | os.PathLike | None = None) -> InspectorApp:
    """``inspector doctor --tui``: the folder browser on the files the doctor's scan finds (the
    agents' homes, or ``paths``), each with the doctor's verdict."""
    from .. import doctor

    files, homes, _ = doctor.found(paths, env, cwd)
    items = list(files)
    if paths:
        heading = "inspector doctor " + " ".join(paths)
    else:
        there = sum(1 for h in homes if h["exists"])
        heading = f"Agent homes ({there} of {len(homes)} places found)"
    return InspectorApp(None, gallery=False, doctor=(items, heading))


def run_doctor(paths: list[str] | None = None) -> int:
    result = make_doctor_app(paths).run()
    return result if isinstance(result, int) else 0


def reattach_terminal() -> None:
    """After reading a history from a pipe, give Textual the terminal as its input (fd 0)."""
    fd = os.open("/dev/tty", os.O_RDWR)
    try:
        os.dup2(fd, 0)
    finally:
        os.close(fd)


def run(path: str | None, fmt: str = "auto", strict: bool = False, session: str | None = None,
        target: str = "auto", reasoning: str = "keep", watch: bool = False, model: str | None = None) -> int:
    stdin_data = None
    if path == "-":
        from ..io import InputError, read_bytes

        try:
            stdin_data = read_bytes("-")      # a pipe up to its cap; a device such as < /dev/zero refused
        except InputError as exc:
            print(exc, file=sys.stderr)
            return 2
        if not sys.stdin.isatty():
            try:
                reattach_terminal()
            except OSError as exc:
                print(f"error: <stdin>: no terminal to run the interactive app on ({exc.strerror}); "
                      "use 'inspector normalize -' or 'inspector explain -' in a pipeline", file=sys.stderr)
                return 2
        app = make_app(stdin_data=stdin_data, fmt=fmt, strict=strict, session=session, target=target,
                       reasoning=reasoning, model=model)
    else:
        app = make_app(path, fmt=fmt, strict=strict, session=session, target=target, reasoning=reasoning,
                       watch=watch, model=model)
    result = app.run()
    return result if isinstance(result, int) else 0


def _export_level(app: InspectorApp) -> None:
    from .screens.levels import export_level

    export_level(app)


def make_lessons_app(level: Any = None) -> InspectorApp:
    """``inspector learn``: the app, opened on the levels (``level``: the one level file given)."""
    app = InspectorApp(None, gallery=False)
    app.lessons = True
    app.learn_level = level  # inspector learn FILE: the one level played
    return app


def run_lessons(level: Any = None) -> int:
    result = make_lessons_app(level).run()
    return result if isinstance(result, int) else 0


__all__ = ["InspectorApp", "make_app", "make_doctor_app", "make_lessons_app", "run", "run_doctor", "run_lessons"]

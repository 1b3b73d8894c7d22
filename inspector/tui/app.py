"""The Textual app: ``make_app()`` builds it (tests reuse it), ``run()`` is what the CLI calls."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.screen import Screen

from ..engine.strict import STRICT_CLAUSES
from .loader import Source
from .rows import kind_info
from .screens.main import MainScreen


class InspectorApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "Inspector"

    def __init__(self, source: Source | None = None, *, gallery: bool | None = None, strict: bool = False) -> None:
        super().__init__()
        self.source = source
        self.strict = strict
        self.open_gallery = source is None if gallery is None else gallery

    @property
    def main(self) -> MainScreen:
        return self.get_screen("main")  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.install_screen(MainScreen(strict=self.strict), "main")
        self.push_screen("main")
        if self.source is not None:  # after the first paint, so the screen is there while it loads
            self.call_after_refresh(self.main.load, self.source)
        elif self.open_gallery:
            self.main.action_gallery()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if not isinstance(screen, MainScreen):
            return
        main = screen
        yield SystemCommand("export: repaired JSON", "Write the repaired history atomically, in the input's "
                            "format or another provider's (e)", main.action_export)
        for view, name in enumerate(main.views):
            yield SystemCommand(f"stage: {name}", f"Show stage {view} ({name}) as a diff",
                                lambda v=view: main.action_stage(v))
        yield SystemCommand("strict: toggle", "Add or remove the strict stage, Inspector's extension beyond MEM-5: "
                            + ", ".join(STRICT_CLAUSES) + " (t)", main.action_strict)
        yield SystemCommand("view: split / unified", "Side by side before | after, or one column (s)",
                            main.action_split)
        yield SystemCommand("filter: only changed rows", "Toggle hiding unchanged rows (d)", main.action_changed_only)
        yield SystemCommand("filter: search", "Search text or a tool call id (/)", main.action_search)
        yield SystemCommand("filter: clear", "Show every row again", main.clear_filters)
        if main.doc is not None:
            for kind in main.doc.model.kind_counts:
                info = kind_info(kind)
                yield SystemCommand(f"filter: kind {kind}",
                                    f"Only the messages it touched ({info.label if info else kind})",
                                    lambda k=kind: main.filter_kind(k))
        yield SystemCommand("row: details", "Before, after and events of the selected row (enter)",
                            main.action_details)
        yield SystemCommand("row: journey", "The selected message through all four stages (j)", main.action_journey)
        yield SystemCommand("row: copy as JSON", "Copy the selected message to the clipboard (c)", main.action_copy)
        yield SystemCommand("summary: counts by kind", "Every event kind of the run; pick one to filter",
                            main.action_summary)
        yield SystemCommand("open: file", "Open another history (o)", main.action_open)
        yield SystemCommand("open: samples gallery", "The bundled samples (g)", main.action_gallery)
        yield SystemCommand("file: reload", "Read the file again from disk (r)", main.action_reload)
        yield SystemCommand("help: keys and MEM-5", "Every key and the rule, clause by clause (?)", main.action_help)


def make_app(path: str | os.PathLike | None = None, *, stdin_data: bytes | None = None,
             gallery: bool | None = None, fmt: str = "auto", strict: bool = False) -> InspectorApp:
    """``path`` opens a file, ``stdin_data`` a history read from standard input, neither the
    gallery; ``fmt`` is the input format (``auto`` detects it, as the CLI's ``--from``);
    ``strict`` starts with the strict stage on (``--strict``, an extension beyond MEM-5)."""
    if stdin_data is not None:
        source: Source | None = Source("<stdin>", None, stdin_data, fmt=fmt)
    elif path is not None:
        source = Source.file(path, fmt=fmt)
    else:
        source = None
    return InspectorApp(source, gallery=gallery, strict=strict)


def reattach_terminal() -> None:
    """After reading a history from a pipe, give Textual the terminal as its input (fd 0)."""
    fd = os.open("/dev/tty", os.O_RDWR)
    try:
        os.dup2(fd, 0)
    finally:
        os.close(fd)


def run(path: str | None, fmt: str = "auto", strict: bool = False) -> int:
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
        app = make_app(stdin_data=stdin_data, fmt=fmt, strict=strict)
    else:
        app = make_app(path, fmt=fmt, strict=strict)
    result = app.run()
    return result if isinstance(result, int) else 0


__all__ = ["InspectorApp", "make_app", "run"]

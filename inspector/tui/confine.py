"""Served mode (``inspector serve``): what a browser user may open, and where exports go.

A served app reads files on the server's disk for someone who is not at the server. So,
once :func:`attach` has given an app a :class:`Confinement`, every path it opens must
resolve (symlinks followed) inside the served folder, or inside the bundled samples, which
ship with Inspector and hold nothing private; standard input is never read; and an export
is sent to the browser as a download instead of being written on the server.

The TUI screens call the small functions at the bottom (each a no-op outside served mode),
so the rules live here and the hooks in the screens stay one or two lines each.
No textual import: the checks are plain path logic, tested without an app.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich.text import Text

from ..bundled import samples_dir
from ..io import InputError

ATTRIBUTE = "confinement"  # the app attribute that marks served mode


class Refused(InputError):
    """A path the served app must not open."""


class Confinement:
    """The folder a served app may read: ``root``, plus the bundled samples."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root).resolve(strict=True)
        self.allowed = (self.root, samples_dir().resolve())

    def inside(self, path: str | os.PathLike) -> bool:
        """Whether ``path`` (relative paths count from the root) really lies in an allowed folder."""
        p = Path(path)
        real = (p if p.is_absolute() else self.root / p).resolve()
        return any(real == folder or real.is_relative_to(folder) for folder in self.allowed)

    def check(self, path: str | os.PathLike) -> str:
        """The real path to open, or :class:`Refused` saying why not."""
        text = os.fspath(path)
        if text == "-":
            raise Refused("<stdin>", "standard input is not read in served mode: open a file "
                                     "from the served folder")
        if not self.inside(text):
            raise Refused(text, "outside the served folder: only files under it can be opened "
                                "here (symlinks that lead out of it are not followed)")
        p = Path(text)
        return str((p if p.is_absolute() else self.root / p).resolve())


def attach(app: Any, root: str | os.PathLike) -> Confinement:
    """Put ``app`` in served mode, confined to ``root``."""
    confinement = Confinement(root)
    setattr(app, ATTRIBUTE, confinement)
    return confinement


def of(app: Any) -> Confinement | None:
    """The app's confinement; None when it runs in a terminal (nothing is confined)."""
    return getattr(app, ATTRIBUTE, None)


# Hooks, called from the screens; each does nothing outside served mode.

def refusal(app: Any, path: str | None) -> str | None:
    """Why ``path`` must not be opened (one line for an error dialog), or None to go ahead."""
    confinement = of(app)
    if confinement is None or path is None:
        return None
    try:
        confinement.check(path)
    except Refused as exc:
        return str(exc)
    return None


def visible(app: Any, paths: Iterable[Path]) -> list[Path]:
    """The entries a folder tree may show: none that leads out of the served folder."""
    confinement = of(app)
    return list(paths) if confinement is None else [p for p in paths if confinement.inside(p)]


def _listed(app: Any) -> Confinement | None:
    """The confinement when the gallery lists the served folder: served, with histories in it."""
    confinement = of(app)
    return confinement if confinement is not None and any(confinement.root.glob("*.json")) else None


def gallery(app: Any, lister: Callable[[Path | None], list[Any]]) -> list[Any]:
    """The gallery's entries: ``lister(None)`` (the bundled samples) in a terminal; in served
    mode ``lister(root)`` when the served folder holds histories, without any that lead out."""
    confinement = _listed(app)
    if confinement is None:
        return lister(None)
    return [s for s in lister(confinement.root) if confinement.inside(s.path)]


def gallery_title(app: Any) -> Text | None:
    """The gallery's heading when it lists the served folder (None: the usual one)."""
    confinement = _listed(app)
    if confinement is None:
        return None
    return Text.assemble(("Inspector", "bold"), f": the histories in {confinement.root.name}/. ",
                         ("Pick one with the arrows and enter; escape, then o, opens any file under "
                          "this folder.", "dim"))


def deliver(app: Any, path: str, data: bytes) -> str | None:
    """In served mode, send ``data`` to the browser as a download named like ``path`` and
    say so; None outside served mode (the caller writes the file). Call from a worker thread."""
    if of(app) is None:
        return None
    name = Path(path).name or "normalized.json"
    app.call_from_thread(app.deliver_binary, io.BytesIO(data), save_filename=name,
                         mime_type="application/json")
    return f"Sent {name} ({len(data):,} bytes) to the browser as a download."

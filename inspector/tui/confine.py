"""Served mode (``inspector serve``): what a browser user may open, and where exports go.

A served app reads files on the server's disk for someone who is not at the server. So,
once :func:`attach` has given an app a :class:`Confinement`, every path it opens must
resolve (symlinks followed) inside the served folder, or inside the bundled samples, which
ship with Inspector and hold nothing private; standard input is never read; and an export
is sent to the browser as a download instead of being written on the server.

A check by name and an open by name are two steps, and a link swapped between them would
lead out. So a file is read through :meth:`Confinement.open`: it walks the path one
component at a time from a descriptor of the allowed folder (``openat`` with
``O_NOFOLLOW``), reading any symlink it meets and walking its target the same way, so what
is read is the file that was checked.

The TUI screens call the small functions at the bottom (each a no-op outside served mode),
so the rules live here and the hooks in the screens stay one or two lines each.
No textual import: the checks are plain path logic, tested without an app.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from dataclasses import replace
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich.text import Text

from ..bundled import samples_dir
from ..formats import LocalFiles, reading_through
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
        try:
            real = (p if p.is_absolute() else self.root / p).resolve()
        except (OSError, RuntimeError):  # a symlink loop: leads nowhere, so not inside
            return False
        return any(real == folder or real.is_relative_to(folder) for folder in self.allowed)

    def check(self, path: str | os.PathLike) -> str:
        """The real path to open, or :class:`Refused` saying why not."""
        text = os.fspath(path)
        if text == "-":
            raise Refused("<stdin>", "standard input is not read in served mode: open a file "
                                     "from the served folder")
        if text.startswith("~"):  # the server account's home: refused as typed, never expanded
            raise Refused(text, "outside the served folder: only files under it can be opened here")
        if not self.inside(text):
            raise Refused(text, "outside the served folder: only files under it can be opened "
                                "here (symlinks that lead out of it are not followed)")
        p = Path(text)
        return str((p if p.is_absolute() else self.root / p).resolve())


    def open(self, path: str | os.PathLike) -> int:
        """A descriptor of the regular file ``path`` names, opened inside an allowed folder
        without following any link out of it, or :class:`Refused`. The caller closes it."""
        text = os.fspath(path)
        self.check(text)  # the quick answer, with the usual sentence; the walk below is the proof
        p = Path(text)
        try:
            absolute = (p if p.is_absolute() else self.root / p).resolve()  # which components to walk
        except (OSError, RuntimeError):
            raise Refused(text, "a symbolic link loop") from None
        for folder in self.allowed:
            parts = _under(absolute, folder)
            if parts is not None:
                return _walk(folder, parts, text)
        raise Refused(text, "outside the served folder")


MAX_LINKS = 40  # as the kernel allows when it resolves a path


def _under(path: Path, folder: Path) -> list[str] | None:
    """``path``'s components below ``folder`` (lexically, ``..`` kept for the walk), or None."""
    try:
        return list(path.relative_to(folder).parts) if path.is_absolute() else None
    except ValueError:
        return None


def _walk(folder: Path, parts: list[str], name: str) -> int:
    """Open ``parts`` below ``folder`` component by component, never leaving it."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    out = Refused(name, "outside the served folder: only files under it can be opened here "
                        "(symlinks that lead out of it are not followed)")
    stack = [os.open(folder, flags | os.O_DIRECTORY)]  # descriptors of the folders walked down
    links = 0
    try:
        todo = list(reversed(parts))
        while todo:
            part = todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if len(stack) == 1:
                    raise out
                os.close(stack.pop())
                continue
            last = not todo
            try:
                fd = os.open(part, flags | os.O_NONBLOCK | (0 if last else os.O_DIRECTORY), dir_fd=stack[-1])
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise InputError(name, exc.strerror or str(exc)) from None
                try:
                    target = os.readlink(part, dir_fd=stack[-1])
                except OSError:
                    raise InputError(name, exc.strerror or str(exc)) from None
                links += 1
                if links > MAX_LINKS:
                    raise InputError(name, "too many levels of symbolic links") from None
                if os.path.isabs(target):
                    inner = _under(Path(target), folder)
                    if inner is None:
                        raise out from None
                    while len(stack) > 1:
                        os.close(stack.pop())
                    todo.extend(reversed(inner))
                else:
                    todo.extend(reversed(Path(target).parts))
                continue
            if last:
                info = os.fstat(fd)
                if stat.S_ISDIR(info.st_mode):
                    os.close(fd)
                    raise InputError(name, "is a directory, not a file")
                if not stat.S_ISREG(info.st_mode):
                    os.close(fd)
                    raise InputError(name, "not a regular file")
                return fd
            stack.append(fd)
        raise InputError(name, "is a directory, not a file")
    finally:
        for fd in stack:
            os.close(fd)


def read(confinement: Confinement, path: str | os.PathLike) -> bytes:
    """The bytes of ``path``, read through :meth:`Confinement.open`."""
    fd = confinement.open(path)
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read()
        except OSError as exc:
            raise InputError(os.fspath(path), exc.strerror or str(exc)) from None


class ConfinedFiles:
    """The files a store reader opens beside the file it was given (a database's ``-wal``, a
    task folder's side files, a legacy tree), read through the confinement: each name opened
    from the served folder's descriptor without following a link out, the descriptor it
    checked being the one read. A name as the served app shows it (``<root name>/<path>``)
    is the file under the root, never a folder of that name inside it. A refused or missing
    file is absent to a ``stat`` and an error to a ``read``."""

    def __init__(self, confinement: Confinement) -> None:
        self.confinement = confinement

    def _real(self, path: str | os.PathLike) -> str:
        text = os.fspath(path)
        prefix = self.confinement.root.name + "/"
        if not os.path.isabs(text) and text.startswith(prefix):
            return str(self.confinement.root / text[len(prefix):])
        return text

    def read(self, path: str | os.PathLike, limit: int = -1) -> bytes:
        fd = self.confinement.open(self._real(path))
        with os.fdopen(fd, "rb") as handle:
            try:
                return handle.read(limit)
            except OSError as exc:
                raise InputError(os.fspath(path), exc.strerror or str(exc)) from None

    def stat(self, path: str | os.PathLike) -> os.stat_result | None:
        try:
            fd = self.confinement.open(self._real(path))
        except (InputError, OSError):
            return None
        try:
            return os.fstat(fd)
        finally:
            os.close(fd)

    def listdir(self, path: str | os.PathLike) -> list[str]:
        real = self._real(path)
        if not self.confinement.inside(real):
            raise Refused(os.fspath(path), "outside the served folder")
        # The names only: every file in it is then opened through the confinement itself.
        p = Path(real)
        return os.listdir(p if p.is_absolute() else self.confinement.root / p)


def reading(app: Any) -> Any:
    """The context a load runs in: in served mode every side file a store reader opens goes
    through the confinement; outside it, the local disk."""
    confinement = of(app)
    return reading_through(ConfinedFiles(confinement) if confinement is not None else LocalFiles())


def attach(app: Any, root: str | os.PathLike) -> Confinement:
    """Put ``app`` in served mode, confined to ``root``."""
    confinement = Confinement(root)
    setattr(app, ATTRIBUTE, confinement)
    return confinement


def of(app: Any) -> Confinement | None:
    """The app's confinement; None when it runs in a terminal (nothing is confined)."""
    return getattr(app, ATTRIBUTE, None)


# Hooks, called from the screens; each does nothing outside served mode.

def shown(app: Any, path: str | os.PathLike) -> str:
    """A path as a screen shows it: as it is in a terminal; in served mode relative to the
    served folder, named by its own name (``served/sub/a.json``), so the browser's user never reads where the
    folder is on the server."""
    confinement = of(app)
    text = os.fspath(path)
    if confinement is None:
        return text
    p = Path(text)
    rel = os.path.relpath(p if p.is_absolute() else confinement.root / p, confinement.root)
    if rel == ".":
        return confinement.root.name
    return f"{confinement.root.name}/{rel}" if not rel.startswith("..") else p.name


def expand(app: Any, typed: str) -> str:
    """A typed path with ``~`` expanded in a terminal; as typed in served mode (the server's
    home is not the browser user's, and is refused as typed)."""
    return typed if of(app) is not None else os.path.expanduser(typed)


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


def opened(app: Any, source: Any) -> Any:
    """In served mode, ``source`` with its bytes read through the confinement (a
    :class:`Refused` if its path leads out), so the loader reads what was checked and
    never opens the name again; ``source`` itself outside served mode or without a path.
    Call from the loading worker: it reads the whole file."""
    confinement = of(app)
    if confinement is None or getattr(source, "path", None) is None:
        return source
    return replace(source, data=read(confinement, source.path))


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

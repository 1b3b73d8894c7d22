"""``inspector doctor --fix DIR``: repaired copies of every session that needs one, in a new
folder, with a manifest that proves the originals were not touched.

Nothing under an agent's home is ever written. Each source is read once into memory and
hashed (SHA-256); the repair runs on those bytes (every session of a database in turn, each
on the output of the one before) and is written under ``DIR/<agent>/<path in its home>``;
then the source is hashed again. ``manifest.json`` lists, per source, its path, size and both
hashes, the output's hash, and every change with its kind and clause. A synthesized
"interrupted" result says ``side_effects: unknown``: the call's tool may already have run,
and only its result was lost.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Any, Iterable

import orjson

from .. import __version__, formats
from ..engine import RULE_ID, RULE_SOURCE, SIDE_EFFECTS_UNKNOWN, kind
from ..io import (InputError, describe_os_error, failing_as, json_safe, kept_mode, new_file_mode, read_bytes,
                  text)
from ..pipeline import run
from .agents import AGENTS
from .scan import Row
from .verdict import AGENT_REPAIRS, CHANGES, FAILS

__all__ = ["MANIFEST", "NEEDS_COPY", "check_destination", "fix", "resume_steps", "steps_sentence"]

MANIFEST = "manifest.json"
NEEDS_COPY = (FAILS, AGENT_REPAIRS, CHANGES)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sidecars(path: str) -> list[str]:
    """A SQLite database's write-ahead log and index beside it: part of what the agent wrote."""
    return [side for side in (path + "-wal", path + "-shm") if os.path.isfile(side)]


def _carry(source: Path, dest: tuple[str, ...], tree: "Tree") -> list[dict[str, Any]]:
    """The other files of a session's folder, copied as they are: the agent resumes the folder
    (a Cline task keeps ``ui_messages.json`` and ``task_metadata.json`` beside its history).
    Only the folder's own regular files: a link (to a private file elsewhere), a FIFO or a
    device is never opened, and each copy keeps its file's mode."""
    out = []
    for other in sorted(source.parent.iterdir()):
        if other == source:
            continue
        read = _own_file(other)
        if read is None:
            continue
        data, mode = read
        written = tree.write((*dest[:-1], other.name), data, mode)
        out.append({"path": text(other), "output": text(written), "size": len(data),
                    "sha256": _sha(data), "sha256_source_after": _sha((_own_file(other) or (b"", 0))[0])})
    return out


def _own_file(path: Path) -> tuple[bytes, int] | None:
    """The bytes and permission bits of ``path`` when it is a regular file itself (not through
    a link); None for anything else. Opened without following a link and without blocking,
    and checked again on the descriptor, so what is read is what was looked at."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with open(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        return handle.read(), stat.S_IMODE(st.st_mode)


class Tree:
    """``DIR`` and everything ``--fix`` writes in it. ``DIR`` is made here, private (0700), with
    an exclusive ``mkdir``; an existing one is taken only when it is an empty folder of this
    user's that nobody else may write in (another user's, or a shared one, could receive links
    planted after any check). It is held open, and every folder and file under it is made
    through descriptors, one component at a time, never through a link and never above ``DIR``
    (a ``..`` in a path is dropped), so a copy lands in ``DIR`` or nowhere."""

    def __init__(self, out: str | os.PathLike) -> None:
        self.name = str(out)
        self.path = Path(os.path.abspath(os.path.expanduser(self.name)))
        try:
            os.makedirs(self.path.parent, exist_ok=True)
            os.mkdir(self.path, 0o700)
        except FileExistsError:
            self._adopt()
        except OSError as exc:
            raise InputError(self.name, f"cannot make the folder: {describe_os_error(exc)}") from None
        try:
            self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise InputError(self.name, f"cannot open the folder: {describe_os_error(exc)}") from None
        st = os.fstat(self.fd)
        if not self._safe(st) or os.listdir(self.fd):
            os.close(self.fd)
            raise InputError(self.name, "--fix DIR changed while it was being made (a link, another owner, "
                                        "files in it): choose a new folder")
        self.dirs: dict[tuple[str, ...], int] = {(): self.fd}

    def _adopt(self) -> None:
        st = os.lstat(self.path)
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            raise InputError(self.name, "--fix needs a new folder; this is a link or a file")
        if not self._safe(st):
            raise InputError(self.name, "--fix needs a new folder, or an empty one of yours that nobody else may "
                                        "write in: another user could plant links in this one")

    @staticmethod
    def _safe(st: os.stat_result) -> bool:
        return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022

    @staticmethod
    def parts(rel: str | os.PathLike) -> tuple[str, ...]:
        """``rel`` as names of folders and file beneath ``DIR``: no root, no ``.``, no ``..``."""
        return tuple(p for p in Path(rel).parts if p not in ("", ".", "..", os.sep) and os.sep not in p)

    def _folder(self, parts: tuple[str, ...]) -> int:
        if parts in self.dirs:
            return self.dirs[parts]
        parent = self._folder(parts[:-1])
        try:
            os.mkdir(parts[-1], 0o700, dir_fd=parent)
        except FileExistsError:
            pass
        fd = os.open(parts[-1], os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                     dir_fd=parent)
        self.dirs[parts] = fd
        return fd

    def exists(self, parts: tuple[str, ...]) -> bool:
        return parts in self.dirs or any(k[:len(parts)] == parts for k in self.dirs)

    def write(self, parts: tuple[str, ...], data: bytes, mode: int) -> Path:
        """``data`` at ``DIR/PARTS`` (mode ``mode``), whole or not at all; returns its path."""
        where = self.path.joinpath(*parts)
        with failing_as(str(where)):
            folder = self._folder(parts[:-1])
            tmp = f".{parts[-1]}.{os.urandom(6).hex()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                         0o600, dir_fd=folder)
            try:
                with open(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(fd)
                    os.fchmod(fd, mode)
                os.replace(tmp, parts[-1], src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                try:
                    os.unlink(tmp, dir_fd=folder)
                except OSError:
                    pass
                raise
        return where

    def close(self) -> None:
        for fd in self.dirs.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self.dirs = {}


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def check_destination(out: str | os.PathLike, roots: Iterable[str]) -> Path:
    """``DIR`` must be new (or an empty folder) and outside every folder scanned."""
    target = Path(out).expanduser().resolve()
    if target.exists():
        if not target.is_dir():
            raise InputError(str(out), "--fix needs a new folder; this is a file")
        if any(target.iterdir()):
            raise InputError(str(out), "--fix needs a new or empty folder, so nothing in it is written over")
    for root in roots:
        r = Path(root).resolve()
        if _inside(target, r):
            raise InputError(str(out), f"--fix DIR is inside a scanned folder ({root}): the agent would find the "
                                       "copies as sessions of its own; choose a folder elsewhere")
    return target


def _change(e: Any, imported: Any, session: str | None) -> dict[str, Any]:
    entry = {"session": session, "stage": e.stage, "kind": e.kind, "clause": e.clause, "label": kind(e.kind).label,
             "drop": e.drop, "tool_call_id": e.tool_call_id, "message": e.message}
    for key, index in (("where", e.origin), ("cause_where", getattr(e, "cause", None))):
        if index is not None and e.stage != "export":
            try:
                entry[key] = imported.where(index)
            except (IndexError, KeyError, TypeError):
                pass
    if kind(e.kind).unknown_effects:       # a result made up: the engine's kind table says so
        entry["side_effects"] = "unknown"
        entry["note"] = SIDE_EFFECTS_UNKNOWN
    return entry


ASIDE = ".before-inspector"      # the original's name once moved aside (kept: it is the original)


def _aside(original: str) -> str:
    """A name beside the original that nothing holds yet, to move the original to."""
    aside, n = original + ASIDE, 1
    while os.path.lexists(aside):
        n += 1
        aside = f"{original}{ASIDE}.{n}"
    return aside


def resume_steps(path: str, dest: Path, fmt: str, sessions: list[dict[str, Any]],
                 records: Iterable[Any] = ()) -> list[dict[str, Any]]:
    """The steps that put the repaired copy ``dest`` in the place of ``path`` and resume each
    session, as data: ``stop`` (quit the agent, and ``also`` what else holds the store open),
    ``move-aside`` (the original, kept under a new name; a database's -wal and -shm
    ``if_present``), ``put`` (the copy in its place), then per session ``run`` (the agent's own
    command) or ``reopen`` (no command: how to reopen it). The agent's facts decide them
    (``Format.agent``, and ``records``: the record of each session's version, ``formats.agent_of``);
    :func:`steps_sentence` words them."""
    agent = formats.REGISTRY[fmt].agent if fmt in formats.REGISTRY else None
    title = agent.title if agent is not None else "the agent"
    original, copy = (str(Path(path).parent), str(dest.parent)) if agent is not None and agent.folder \
        else (path, str(dest))
    aside = _aside(original)
    stop: dict[str, Any] = {"op": "stop", "agent": title}
    also = list(dict.fromkeys(r.stop for r in (agent, *records) if r is not None and r.stop))
    if also:
        stop["also"] = also
    steps: list[dict[str, Any]] = [stop, {"op": "move-aside", "path": original, "to": aside}]
    if agent is not None and agent.database:
        steps += [{"op": "move-aside", "path": original + side, "to": aside + side, "if_present": True}
                  for side in ("-wal", "-shm")]
    steps.append({"op": "put", "from": copy, "to": formats.written_name(original)})
    for one in sessions:
        if one.get("command"):
            steps.append({"op": "run", "command": one["command"], "session": one["session_id"]})
        elif agent is not None and agent.reopen:
            steps.append({"op": "reopen", "how": agent.reopen, "session": one["session_id"]})
    return steps


def steps_sentence(steps: list[dict[str, Any]]) -> str:
    """The steps in one sentence, each worded from its data."""
    words = []
    for step in steps:
        op = step["op"]
        if op == "stop":
            words.append(" and ".join([f"quit {step['agent']}", *step.get("also", ())]))
        elif op == "move-aside":
            words.append(f"move {step['path']} aside to {step['to']}"
                         + (" if it is there" if step.get("if_present") else " (keep it: it is the original)"))
        elif op == "put":
            words.append(f"put the repaired {step['from']} in its place as {step['to']}")
        elif op == "run":
            words.append(f"run `{step['command']}`")
        elif op == "reopen":
            words.append(step["how"] + (f" (session {step['session']})" if step.get("session") else ""))
    return "; ".join(words)


def fix(rows: list[Row], out: str | os.PathLike, roots: Iterable[str]) -> dict[str, Any]:
    """Write the repaired copies and the manifest; returns the manifest."""
    target = check_destination(out, roots)
    by_path: dict[str, list[Row]] = {}
    for row in rows:
        # a session the agent repairs itself and MEM-5 leaves as it is has nothing to write
        if row.status in NEEDS_COPY and (row.verdict.resume is None or row.verdict.resume.changed):
            by_path.setdefault(row.path, []).append(row)
    sources = []
    written: set[tuple[str, ...]] = set()
    tree = Tree(target)
    try:
        sources = _copies(by_path, tree, written)
        manifest = {
            "tool": f"inspector {__version__}", "rule": f"{RULE_ID} ({RULE_SOURCE})",
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "output": text(target),
            "untouched": all(s["untouched"] for s in sources), "sources": sources,
        }
        tree.write((MANIFEST,), orjson.dumps(json_safe(manifest), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE),
                   new_file_mode() & 0o600)
    finally:
        tree.close()
    return manifest


def _copies(by_path: dict[str, list[Row]], tree: Tree, written: set[tuple[str, ...]]) -> list[dict[str, Any]]:
    sources = []
    for path, session_rows in sorted(by_path.items()):
        sidecars = {side: _sha(read_bytes(side)) for side in _sidecars(path)}
        original = read_bytes(path)
        first = session_rows[0]
        agent = AGENTS.get(first.agent) if first.agent else None
        data, changes, sessions, records = original, [], [], []
        for row in session_rows:
            outcome = run(data, path, session=row.session)
            changes += [_change(e, outcome.imported, row.session) for e in outcome.events]
            verdict = row.verdict.resume
            sessions.append({"session": row.session, "status": row.status, "verdict": row.verdict.sentence,
                             "session_id": formats.resume_session_id(outcome.imported, path, row.session),
                             "command": verdict.command if verdict is not None else None})
            records.append(formats.agent_of(outcome.imported))    # the version that wrote it resumes it
            if outcome.changed:
                data = outcome.data
        if data == original:
            continue                         # the agent's own repairs suffice: nothing to copy
        rel = Tree.parts(formats.written_name(first.rel)) or (Path(formats.written_name(path)).name,)
        dest = (first.agent or "sessions", *rel)
        n = 1
        while dest in written or (agent is not None and agent.folder and tree.exists(dest[:-1])):
            n += 1                           # two sources with one place in DIR: keep both
            dest = (first.agent or "sessions", str(n), *rel)
        written.add(dest)
        out = tree.write(dest, data, kept_mode(path))
        carried = _carry(Path(path), dest, tree) if agent is not None and agent.folder else []
        after = read_bytes(path)
        beside = [{"path": text(side), "sha256_before": sha, "sha256_after": _sha(read_bytes(side))
                   if os.path.exists(side) else None} for side, sha in sidecars.items()]
        untouched = after == original and all(b["sha256_before"] == b["sha256_after"] for b in beside) \
            and all(c["sha256"] == c["sha256_source_after"] for c in carried)
        sources.append({
            "path": text(path), "agent": first.agent, "format": first.format, "size": len(original),
            "sha256_before": _sha(original), "sha256_after": _sha(after), "untouched": untouched,
            "sidecars": beside,
            "output": {"path": text(out), "size": len(data), "sha256": _sha(data)},
            "carried": carried, "sessions": sessions, "changes": changes,
            "side_effects_unknown": sum(c.get("side_effects") == "unknown" for c in changes),
        })
        steps = resume_steps(path, Path(out), first.format or "", sessions, records)
        for one, fact in zip(sessions, records):   # where the agent can run the copy where it lies (OPENCODE_DB)
            on_copy = fact.command_for(one["session_id"], text(out), on_copy=True) if fact is not None else None
            if on_copy:
                one["command_on_copy"] = on_copy
        sources[-1].update({"steps": steps, "resume": steps_sentence(steps)})
    return sources

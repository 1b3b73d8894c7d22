"""The doctor's listing: every session of every agent home (or of the folders given), one
row each with its verdict, newest first. :func:`scan` is the function the command line calls;
the TUI's folder browser takes the same two steps one file at a time in the background:
:func:`found` (the files, where and under which agent's home) then :func:`rows_of` (each
file's rows, with the verdict, from bytes read once; in served mode, through the confinement).
A row no session file stands for (a thread Codex's index lists whose rollout is gone:
:func:`codex_missing`) comes out of :func:`found` too, its row already made, so the command
line and the browser list the same rows."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from .. import formats, pipeline
from ..formats import REGISTRY
from ..io import InputError, display_name, read_bytes
from ..sessions import Walked, expand, passed_over
from .agents import AGENTS, agent_for_format
from .homes import Home, codex_home, known_homes
from .verdict import UNREADABLE, RowVerdict, judge

__all__ = ["Found", "Row", "Scan", "codex_missing", "found", "rows_of", "scan"]


@dataclass(slots=True)
class Row:
    """One session and its verdict. ``root`` is the home or folder it was found under and
    ``rel`` its path there (``--fix DIR`` writes ``DIR/<agent>/<rel>``)."""

    agent: str | None
    path: str
    session: str | None
    label: str
    mtime: float
    root: str
    rel: str
    format: str | None
    verdict: RowVerdict
    # A missing thread's rollout found under the home under another path (the index's is stale).
    moved_to: str | None = None

    @property
    def status(self) -> str:
        return self.verdict.status

    def to_dict(self) -> dict[str, Any]:
        v = self.verdict
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.mtime)) if self.mtime else None
        return {"agent": self.agent, "path": self.path, "session": self.session, "label": self.label,
                "modified": when, "format": self.format, "status": v.status, "verdict": v.sentence,
                "target": v.target, "version": v.version, "problems": v.problems,
                "repaired_by_agent": v.repaired_by_agent, "repair": v.repair,
                "command": v.resume.command if v.resume is not None else None,    # the agent's resume command
                "resume": v.resume.to_dict() if v.resume is not None else None}   # inspector.verdict's own


@dataclass(slots=True)
class Scan:
    rows: list[Row]
    homes: list[dict[str, Any]] = field(default_factory=list)   # what was looked at, found or not
    roots: list[str] = field(default_factory=list)              # every folder scanned (existing ones)
    passed_over: list[str] = field(default_factory=list)        # a given folder's files that hold no history


def _short(path: Path, home: Path) -> str:
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


def _unreadable(error: BaseException | str, path: Path | None = None) -> RowVerdict:
    text = str(error)
    if path is not None and text.startswith(display_name(path) + ":"):
        text = text[len(display_name(path)) + 1:].lstrip()     # the row already names the file
    return RowVerdict(UNREADABLE, f"unreadable: {text}")


def _relative(path: Path, root: Path, home_dir: Path | None) -> str:
    """Where a copy goes under ``DIR/<agent>/``: the path in the home folder when it is there
    (``.config/Code/User/globalStorage/<extension>/tasks/...`` keeps editors and extensions
    apart), else the path from the folder that holds the scanned one."""
    for base in ((home_dir,) if home_dir else ()) + (root.parent,):
        try:
            return str(path.relative_to(base))
        except ValueError:
            continue
    return path.name


@dataclass(frozen=True, slots=True)
class Found:
    """A file a scan reads: the home or folder it was found under, the agent whose home that
    is (None for a folder given), and its label (``~/.claude/projects/…``). ``row``: a row
    with no session file to read (a thread Codex lists without its rollout), made by the scan;
    there is nothing to open at ``path``."""

    path: Path
    root: Path
    agent: str | None
    label: str
    home_dir: Path | None = None
    row: Row | None = field(default=None, compare=False)
    walked: bool = False        # found by walking a folder given: passed over if it holds no history


def rows_of(item: Found, read: Callable[[str], bytes] = read_bytes) -> list[Row]:
    """The rows of one file (one per session of a file that holds several), each with its
    verdict; ``read`` gives its bytes (read once). A row the scan already made is itself."""
    if item.row is not None:
        return [item.row]
    return list(_rows_of(item.path, item.root, item.agent, item.label, item.home_dir, read, item.walked))


def _sessions(document: Any) -> list[str | None]:
    """The sessions to judge one by one (a database holding several), else the file as one."""
    return [s.id for s in pipeline.sessions(document)]


def _rows_of(path: Path, root: Path, agent_name: str | None, label: str,
             home_dir: Path | None = None, read: Callable[[str], bytes] = read_bytes,
             walked: bool = False) -> Iterator[Row]:
    """``walked``: found by walking a folder, so a file that holds no history gives no row
    (``sessions.passed_over``), as ``check FOLDER`` passes over it."""
    agent = AGENTS.get(agent_name) if agent_name else None
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = 0.0
    rel = _relative(path, root, home_dir)
    if agent is not None and agent.format not in REGISTRY:
        yield Row(agent.name, str(path), None, label, mtime, str(root), rel, None,
                  _unreadable(f"found in {agent.title}'s home, but this Inspector has no reader for "
                              f"{agent.title} sessions yet"))
        return
    name = display_name(path)
    try:
        document = pipeline.parse(read(str(path)), name)
        sessions = _sessions(document)
    except (InputError, OSError, RecursionError, MemoryError) as exc:
        if walked and passed_over(Walked(path), exc):
            return
        document, sessions = None, [None]
        failed: BaseException | None = exc
    else:
        failed = None
    for session in sessions:
        shown = label + (f" --session {session}" if session is not None else "")
        try:
            if failed is not None:
                raise failed
            outcome = pipeline.outcome(pipeline.read(document, name, session=session), name,
                                       owned=len(sessions) == 1)
        except (InputError, OSError, RecursionError, MemoryError) as exc:
            if walked and passed_over(Walked(path), exc):
                return
            verdict = _unreadable(exc, path)
            if agent is not None and agent.unreadable_note:
                verdict.sentence += f"; {agent.unreadable_note}"
            yield Row(agent_name, str(path), session, shown, mtime, str(root), rel, None, verdict)
            continue
        owner = agent or agent_for_format(outcome.format)
        yield Row(owner.name if owner else None, str(path), session, shown, mtime, str(root), rel,
                  outcome.format, judge(outcome, owner))


def _home_files(homes: Iterable[Home], home_dir: Path) -> Iterator[Found]:
    seen: set[Path] = set()
    for home in homes:
        root = home.root if home.root.is_dir() else home.root.parent
        for path in home.files():
            real = path.resolve()
            if real in seen:          # two homes name one file (Crush's registry and the current folder)
                continue
            seen.add(real)
            base = root if path.is_relative_to(root) else path.parent
            yield Found(path, base, home.agent, _short(path, home_dir), home_dir)


def found(paths: list[str] | None = None, env: Mapping[str, str] | None = None,
          cwd: str | os.PathLike | None = None) -> tuple[Iterator[Found], list[dict[str, Any]], list[str]]:
    """The files a scan reads (lazily, as the homes are walked), then the rows no file stands
    for (:func:`codex_missing`, only when the homes are scanned), the homes looked at (found
    or not) and the folders scanned: see :func:`scan`."""
    env = os.environ if env is None else env
    home_dir = Path(env.get("HOME") or os.path.expanduser("~"))
    if paths:
        roots = [str(Path(p).resolve()) for p in paths if Path(p).is_dir()]
        homes_seen: list[dict[str, Any]] = [{"agent": None, "path": p, "via": "given", "exists": Path(p).exists()}
                                            for p in paths]

        def given() -> Iterator[Found]:
            for p in paths:
                root = Path(p)
                base = root if root.is_dir() else root.parent
                for f in expand([p]):
                    yield Found(Path(f), base, None, display_name(f), walked=isinstance(f, Walked))
        return given(), homes_seen, roots
    homes = known_homes(env, cwd)
    roots = sorted({str(h.root.resolve()) for h in homes if h.root.is_dir()})
    homes_seen = [{"agent": h.agent, "path": str(h.root), "via": h.via, "note": h.note, "exists": h.exists}
                  for h in homes]
    return chain(_home_files(homes, home_dir), _unfiled(env, home_dir)), homes_seen, roots


def _unfiled(env: Mapping[str, str], home_dir: Path) -> Iterator[Found]:
    for row in codex_missing(env):
        yield Found(Path(row.path), Path(row.root), row.agent, row.label, home_dir, row)


def scan(paths: list[str] | None = None, env: Mapping[str, str] | None = None,
         cwd: str | os.PathLike | None = None,
         progress: Callable[[Row], None] | None = None) -> Scan:
    """Every session with its verdict, newest first.

    With ``paths``, the session files of those files and folders (the formats decide which
    files are sessions); without, every known home of every agent (``homes.known_homes``),
    ``env`` and ``cwd`` standing for the process's environment and current folder."""
    files, homes_seen, roots = found(paths, env, cwd)
    rows: list[Row] = []
    skipped: list[str] = []
    for item in files:
        got = rows_of(item)
        if not got and item.walked:
            skipped.append(item.label)
        for row in got:
            rows.append(row)
            if progress is not None:
                progress(row)
    rows.sort(key=lambda r: (-r.mtime, r.path, r.session or ""))
    return Scan(rows, homes_seen, roots, skipped)


def codex_missing(env: Mapping[str, str]) -> list[Row]:
    """One row per thread of Codex's thread index (``state_5.sqlite``) whose rollout is not
    on disk, plain or compressed: Codex lists the thread and ``codex resume`` cannot open it
    (openai/codex #47002, #40426). A rollout found under the home with the thread's id is named
    (the row's path went stale when the file moved). An index that cannot be read is one
    unreadable row, never a crash."""
    home_dir = Path(env.get("HOME") or os.path.expanduser("~"))
    root, _ = codex_home(env)
    db = formats.codex_state_database(env, root)
    if not db.is_file():
        return []
    label = _short(db, home_dir)
    try:
        mtime = db.stat().st_mtime
        threads = formats.codex_threads(db)
    except (InputError, OSError) as exc:
        return [Row("codex", str(db), None, label, 0.0, str(db.parent), db.name, None, _unreadable(exc, db))]
    rows = []
    for thread in threads:
        if thread.present:
            continue
        elsewhere = sorted(p for sub in ("sessions", "archived_sessions") if (root / sub).is_dir()
                           for p in (root / sub).glob(f"**/rollout-*{thread.id}.jsonl*")
                           if p.name.endswith((".jsonl", ".jsonl.zst")))
        title = f" ({thread.title})" if thread.title else ""
        sentence = (f"missing: {db.name} lists thread {thread.id}{title} with its rollout at {thread.rollout_path}, "
                    f"and no rollout is there (plain or .zst)")
        if elsewhere:
            sentence += f"; a rollout with this id is at {_short(elsewhere[0], home_dir)} (the row's path is stale)"
        rows.append(Row("codex", thread.rollout_path, thread.id, f"{label} thread {thread.id}", mtime, str(root),
                        _relative(Path(thread.rollout_path), root, home_dir), None,
                        RowVerdict(UNREADABLE, sentence), str(elsewhere[0]) if elsewhere else None))
    return rows

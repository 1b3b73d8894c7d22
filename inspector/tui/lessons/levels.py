"""Levels: a lesson as a small JSON file (``inspector learn FILE``), and the learner's progress.

A level holds a start history (a bundled sample by name, or the document itself), what the
learner is asked, hints given one at a time, a reference solution and where the case comes
from. Four kinds:

- ``stage``: predict, row by row, what one or more MEM-5 stages do to the start history
  (the six first lessons); the engine's own answer is the reference.
- ``goal``: edit the start history in the playground until the project's checker gives the
  verdict the goal names (these providers accept it, as given or after MEM-5's repair; or
  these engine events happen), losing no real result, in as few edits as the reference
  solution (a list of edits on the document's entries, :func:`apply_solution`).
- ``providers``: say which providers refuse the start history; scored against the checker.
- ``inject``: from a valid history, one key applies a realistic failure
  (:mod:`.inject`); the learner first says which providers will refuse the broken history.

No textual here: the file is read and written here, judged in :mod:`.judge`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...io import InputError, atomic_write, dumps, parse_json
from .. import edits

VERSION = 1  # the "inspector-level" field: the file format's version
KINDS = ("stage", "goal", "providers", "inject")
AS_GIVEN, AFTER_MEM5 = "as given", "after MEM-5"
MOMENTS = (AS_GIVEN, AFTER_MEM5)
OPS = ("delete", "insert", "replace", "move")


def builtin_dir() -> Path:
    """The built-in levels: ``inspector/lessons/`` (shipped in the wheel with the package)."""
    return Path(__file__).resolve().parent.parent.parent / "lessons"


@dataclass(frozen=True, slots=True)
class Level:
    """One level as its file says (see the module's docstring); ``path`` where it was read."""

    ident: str
    title: str
    kind: str
    about: str
    start: Mapping[str, Any]
    stages: tuple[str, ...] = ()
    goal: Mapping[str, Any] = field(default_factory=dict)
    ask: Mapping[str, Any] = field(default_factory=dict)
    inject: str | None = None
    hints: tuple[str, ...] = ()
    solution: Any = None
    source: Mapping[str, Any] = field(default_factory=dict)
    path: str | None = None

    @property
    def name(self) -> str:
        """The start history's file name (what the playground's title shows)."""
        return str(self.start.get("sample") or self.start.get("name") or f"{self.ident}.json")

    def start_bytes(self) -> bytes:
        """The start history as a file's bytes."""
        from ...bundled import samples_dir

        if "sample" in self.start:
            return (samples_dir() / str(self.start["sample"])).read_bytes()
        return dumps(self.start["document"], 1)  # orjson.OPT_INDENT_2

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"inspector-level": VERSION, "title": self.title, "kind": self.kind,
                               "about": self.about, "start": dict(self.start)}
        if self.stages:
            out["stages"] = list(self.stages)
        if self.goal:
            out["goal"] = dict(self.goal)
        if self.ask:
            out["ask"] = dict(self.ask)
        if self.inject:
            out["inject"] = self.inject
        out["hints"] = list(self.hints)
        if self.solution is not None:
            out["solution"] = self.solution
        if self.source:
            out["source"] = dict(self.source)
        return out

    def to_bytes(self) -> bytes:
        return dumps(self.as_json(), 1) + b"\n"


class LevelError(InputError):
    """A level file that is not one: the file, and what is wrong (JSON errors with line:col)."""


def _need(cond: bool, name: str, what: str) -> None:
    if not cond:
        raise LevelError(name, what)


def parse(data: bytes, name: str, ident: str | None = None) -> Level:
    """A level from a file's bytes; :class:`LevelError` names the file and the fault."""
    from ...targets import TARGETS

    value = parse_json(data, name)  # an InputError with line and column for bad JSON
    _need(isinstance(value, dict), name, "a level is a JSON object")
    _need(value.get("inspector-level") == VERSION, name,
          f'not a level file: "inspector-level": {VERSION} is missing')
    kind = value.get("kind")
    _need(kind in KINDS, name, f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    for key in ("title", "about"):
        _need(isinstance(value.get(key), str) and bool(value[key]), name, f'"{key}" must be a non-empty string')
    start = value.get("start")
    _need(isinstance(start, dict) and (isinstance(start.get("sample"), str) or "document" in start), name,
          '"start" must name a bundled "sample" or hold the "document"')
    hints = value.get("hints", [])
    _need(isinstance(hints, list) and all(isinstance(h, str) for h in hints), name, '"hints" must be strings')
    stages = value.get("stages", [])
    goal, ask = value.get("goal", {}), value.get("ask", {})
    if kind == "stage":
        _need(isinstance(stages, list) and bool(stages), name, 'a stage level lists its "stages"')
    if kind == "goal":
        _need(isinstance(goal, dict) and bool(goal.get("accept") or goal.get("events")), name,
              'a goal level\'s "goal" names providers to "accept" or engine "events"')
        _need(all(t in TARGETS for t in goal.get("accept", [])), name, f"unknown provider in goal.accept")
        _need(goal.get("when", AFTER_MEM5) in MOMENTS, name, f'goal.when is one of {", ".join(MOMENTS)}')
        _check_ops(value.get("solution"), name)
    if kind in ("providers", "inject"):
        _need(isinstance(ask, dict) and isinstance(ask.get("targets"), list) and bool(ask["targets"]), name,
              f'a {kind} level\'s "ask" lists the "targets" the learner judges')
        _need(all(t in TARGETS for t in ask["targets"]), name, "unknown provider in ask.targets")
        _need(ask.get("when", AS_GIVEN) in MOMENTS, name, f'ask.when is one of {", ".join(MOMENTS)}')
        solution = value.get("solution")
        _need(isinstance(solution, dict) and isinstance(solution.get("refuse"), list), name,
              'the solution of a providers level is {"refuse": [providers]}')
    if kind == "inject":
        from .inject import INJECTIONS

        _need(value.get("inject") in INJECTIONS, name, f"inject is one of {', '.join(INJECTIONS)}")
    return Level(ident or Path(name).stem, value["title"], kind, value["about"], start, tuple(stages), goal, ask,
                 value.get("inject"), tuple(hints), value.get("solution"), value.get("source", {}), name)


def _check_ops(ops: Any, name: str) -> None:
    _need(isinstance(ops, list), name, 'a goal level\'s "solution" is a list of edits')
    for k, op in enumerate(ops):
        _need(isinstance(op, dict) and op.get("op") in OPS, name, f"solution[{k}]: op is one of {', '.join(OPS)}")


def read(path: str | os.PathLike[str]) -> Level:
    """A level file (``inspector learn FILE``)."""
    from ...io import display_name, read_bytes

    return parse(read_bytes(path), display_name(path))


def builtins() -> list[Level]:
    """The built-in levels, in the order of their file names."""
    folder = builtin_dir()
    return [parse(p.read_bytes(), p.name, p.stem) for p in sorted(folder.glob("*.json"))]


# -- the reference solution: edits on the document's entries, through the playground's edits ----
def apply_solution(native: edits.Native, ops: Sequence[Mapping[str, Any]]) -> edits.Native:
    """``native`` with every edit of a goal level's solution applied, in order, by the same
    edit operations the playground's keys make (one op, one edit)."""
    for op in ops:
        native = edit_of(native, op).apply(native)
    return native


def edit_of(native: edits.Native, op: Mapping[str, Any]) -> edits.Edit:
    """One solution op as the playground's edit: ``at`` an entry of the history list (``block``
    [key, index] one block of it); ``after`` for an insert (null: at the end)."""
    kind = op["op"]
    if kind == "insert":
        after = op.get("after")
        target = edits.Target("entries", int(after)) if after is not None else None
        return edits.insert_edit(native, target, list(op["values"]), "entry")
    block = op.get("block")
    target = (edits.Target("block", int(op["at"]), 1, str(block[0]), int(block[1])) if block
              else edits.Target("entries", int(op["at"]), int(op.get("count", 1))))
    if kind == "delete":
        return edits.delete_edit(native, target)
    if kind == "replace":
        return edits.replace_edit(native, target, op["value"])
    moved = edits.move_edit(native, target, int(op.get("by", -1)))
    if moved is None:
        raise ValueError(f"cannot move {target.describe(native.container)} past the edge")
    return moved


# -- progress, in the user's state folder ------------------------------------------------------
def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/inspector`` (an absolute value only, as the XDG spec says), else
    ``~/.local/state/inspector``."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path(env.get("HOME") or Path.home()) / ".local" / "state"
    return root / "inspector"


def progress_path(env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / "learn-progress.json"


def load_progress(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """Every level's best score so far (``{"got": n, "of": m}`` by level id); an unreadable
    file is no progress (it is written again on the next score)."""
    path = path or progress_path()
    try:
        value = parse_json(path.read_bytes(), str(path))
    except (OSError, InputError):
        return {}
    levels = value.get("levels") if isinstance(value, dict) else None
    return {k: v for k, v in levels.items() if isinstance(v, dict)} if isinstance(levels, dict) else {}


def record(ident: str, got: int, of: int, path: Path | None = None) -> dict[str, dict[str, Any]]:
    """Keep a level's score if it is the best so far; returns the progress. A state folder
    that cannot be written leaves the progress in memory (the lesson goes on)."""
    path = path or progress_path()
    progress = load_progress(path)
    best = progress.get(ident)
    if best is None or (got, -of) > (int(best.get("got", 0)), -int(best.get("of", 0))):
        progress[ident] = {"got": got, "of": of}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, dumps({"levels": progress}, 1) + b"\n")
        except OSError:
            pass
    return progress


__all__ = ["AFTER_MEM5", "AS_GIVEN", "KINDS", "Level", "LevelError", "apply_solution", "builtin_dir", "builtins",
           "edit_of", "load_progress", "parse", "progress_path", "read", "record", "state_dir"]

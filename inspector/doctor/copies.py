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
import time
from pathlib import Path
from typing import Any, Iterable

import orjson

from .. import __version__, formats
from ..engine import RULE_ID, RULE_SOURCE, SIDE_EFFECTS_UNKNOWN, kind
from ..io import InputError, atomic_write, read_bytes
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


def _carry(source: Path, dest: Path) -> list[dict[str, Any]]:
    """The other files of a session's folder, copied as they are: the agent resumes the folder
    (a Cline task keeps ``ui_messages.json`` and ``task_metadata.json`` beside its history)."""
    out = []
    for other in sorted(source.parent.iterdir()):
        if other == source or not other.is_file():
            continue
        data = read_bytes(other)
        atomic_write(dest.parent / other.name, data, inputs=(other,))
        out.append({"path": str(other), "output": str(dest.parent / other.name), "size": len(data),
                    "sha256": _sha(data), "sha256_source_after": _sha(read_bytes(other))})
    return out


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


def resume_steps(path: str, dest: Path, fmt: str, sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps that put the repaired copy ``dest`` in the place of ``path`` and resume each
    session, as data: ``stop`` (quit the agent), ``move-aside`` (the original, kept under a new
    name; a database's -wal and -shm ``if_present``), ``put`` (the copy in its place), then per
    session ``run`` (the agent's own command) or ``reopen`` (no command: how to reopen it). The
    agent's facts decide them (``Format.agent``); :func:`steps_sentence` words them."""
    agent = formats.REGISTRY[fmt].agent if fmt in formats.REGISTRY else None
    title = agent.title if agent is not None else "the agent"
    original, copy = (str(Path(path).parent), str(dest.parent)) if agent is not None and agent.folder \
        else (path, str(dest))
    aside = _aside(original)
    steps: list[dict[str, Any]] = [{"op": "stop", "agent": title},
                                   {"op": "move-aside", "path": original, "to": aside}]
    if agent is not None and agent.database:
        steps += [{"op": "move-aside", "path": original + side, "to": aside + side, "if_present": True}
                  for side in ("-wal", "-shm")]
    steps.append({"op": "put", "from": copy, "to": original})
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
            words.append(f"quit {step['agent']}")
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
    written: set[Path] = set()
    target.mkdir(parents=True, exist_ok=True)
    for path, session_rows in sorted(by_path.items()):
        sidecars = {side: _sha(read_bytes(side)) for side in _sidecars(path)}
        original = read_bytes(path)
        first = session_rows[0]
        agent = AGENTS.get(first.agent) if first.agent else None
        data, changes, sessions = original, [], []
        for row in session_rows:
            outcome = run(data, path, session=row.session)
            changes += [_change(e, outcome.imported, row.session) for e in outcome.events]
            verdict = row.verdict.resume
            sessions.append({"session": row.session, "status": row.status, "verdict": row.verdict.sentence,
                             "session_id": formats.resume_session_id(outcome.imported, path, row.session),
                             "command": verdict.command if verdict is not None else None})
            if outcome.changed:
                data = outcome.data
        if data == original:
            continue                         # the agent's own repairs suffice: nothing to copy
        dest = target / (first.agent or "sessions") / first.rel
        n = 1
        while dest in written:               # two sources with one place in DIR: keep both
            n += 1
            dest = target / (first.agent or "sessions") / str(n) / first.rel
        written.add(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(dest, data, inputs=(path,))
        carried = _carry(Path(path), dest) if agent is not None and agent.folder else []
        after = read_bytes(path)
        beside = [{"path": side, "sha256_before": sha, "sha256_after": _sha(read_bytes(side))
                   if os.path.exists(side) else None} for side, sha in sidecars.items()]
        untouched = after == original and all(b["sha256_before"] == b["sha256_after"] for b in beside) \
            and all(c["sha256"] == c["sha256_source_after"] for c in carried)
        sources.append({
            "path": path, "agent": first.agent, "format": first.format, "size": len(original),
            "sha256_before": _sha(original), "sha256_after": _sha(after), "untouched": untouched,
            "sidecars": beside,
            "output": {"path": str(dest), "size": len(data), "sha256": _sha(data)},
            "carried": carried, "sessions": sessions, "changes": changes,
            "side_effects_unknown": sum(c.get("side_effects") == "unknown" for c in changes),
        })
        steps = resume_steps(path, dest, first.format or "", sessions)
        for one in sessions:        # where the agent can run the copy where it lies (OPENCODE_DB)
            fact = formats.REGISTRY[first.format].agent if first.format in formats.REGISTRY else None
            on_copy = fact.command_for(one["session_id"], str(dest), on_copy=True) if fact is not None else None
            if on_copy:
                one["command_on_copy"] = on_copy
        sources[-1].update({"steps": steps, "resume": steps_sentence(steps)})
    manifest = {
        "tool": f"inspector {__version__}", "rule": f"{RULE_ID} ({RULE_SOURCE})",
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "output": str(target),
        "untouched": all(s["untouched"] for s in sources), "sources": sources,
    }
    atomic_write(target / MANIFEST, orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    return manifest

"""What every command must leave true on a session file of any store, however hostile.

Each command is run as a user runs it (the CLI, in this process) under a time bound, and:
its exit status is 0, 1 or 2; a failure is one line that starts with the file's name (with
line:column when the bytes are not JSON) and is never a bug report or a traceback;
normalize's output checks clean in its own format (a fixed point); a line, row or record of
the input is in the output as it was, or an event names its removal or rewrite; the input
and its sidecars keep their bytes and times; nothing but the outputs asked for is left in
the folder.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import orjson

from inspector.io import InputError
from inspector.pipeline import run_file

from .harness import RUNS, assert_clean_failure, cli_run

BOUND = 30                 # seconds any one command may take on a case (they take well under one)
REMOVALS = ("entry-removed", "entry-rewritten", "entry-relinked", "entry-moved", "line-repaired")


class Hang(BaseException):
    """A command ran past :data:`BOUND` (a BaseException: no handler of the CLI takes it)."""


@contextmanager
def bounded(seconds: int = BOUND):
    def expire(signum, frame):
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run(suite: str, *argv: str) -> tuple[int, bytes, str]:
    with bounded():
        code, out, err = cli_run(*argv)
    RUNS[suite] += 1
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err and "this is a bug" not in err, (argv, err)
    return code, out, err


def state(path: Path) -> dict[str, tuple[bytes, int, int]]:
    """The file and its SQLite sidecars, as bytes, modification time and inode."""
    found = {}
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        if p.exists():
            st = os.stat(p)
            found[p.name] = (p.read_bytes(), st.st_mtime_ns, st.st_ino)
    return found


def not_json(data: bytes) -> bool:
    try:
        orjson.loads(data.removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return True
    return False


def check_case(path: Path, suite: str, kind: str) -> None:
    """Every command on one case; ``kind`` is its store's container (lines, doc or db)."""
    name = str(path)
    before = state(path)
    listing = sorted(p.name for p in path.parent.iterdir())
    outs = []
    for n, extra in enumerate(([], ["--strict"])):
        out = path.parent / f"out{n}{path.suffix}"
        argv = ["normalize", name, "-q", "-o", str(out), *extra]
        code, stdout, err = run(suite, *argv)
        if code:
            assert_clean_failure(code, err, name, argv)
            if kind == "doc" and not_json(path.read_bytes()):
                assert re.match(rf"{re.escape(name)}:\d+:\d+: ", err), (argv, err)   # line:column
            assert not out.exists()
            continue
        outs.append(out.name)
        fmt = run_file(path).imported.format
        code, report, err = run(suite, "check", str(out), "--from", fmt, *extra)
        assert code == 0, ("not a fixed point", argv, fmt, report.decode(), err)
        if not extra:
            nothing_lost(path, out, kind)
    for argv in (["check", name], ["check", name, "--strict"], ["explain", name], ["explain", name, "--json"]):
        code, _, err = run(suite, *argv)
        if code == 2:
            assert_clean_failure(code, err, name, argv)
        else:
            assert code in ((0, 1) if argv[0] == "check" else (0,)), (argv, code, err)
    assert state(path) == before, "the input (or a sidecar) was touched"
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([*listing, *outs]), "something was left behind"


def nothing_lost(path: Path, out: Path, kind: str) -> None:
    """Every line (row, record) of the input is in the output unchanged, or an event says
    what became of it; with no change at all, the output is the input's own bytes."""
    try:
        outcome = run_file(path)
    except InputError:
        return
    events = outcome.events
    said = " ".join(e.message for e in events if e.kind in REMOVALS)
    if not outcome.changed:
        assert out.read_bytes() == path.read_bytes(), "nothing to change, yet the bytes differ"
        return
    if kind == "lines":
        lines = path.read_bytes().removeprefix(b"\xef\xbb\xbf").split(b"\n")
        kept = Counter(out.read_bytes().removeprefix(b"\xef\xbb\xbf").split(b"\n"))
        for i, line in enumerate(lines):     # a line an event names may be gone; any other is kept
            if line.strip() and not re.search(rf"\bLine {i + 1}\b", said):
                assert kept[line], (f"line {i + 1} lost", line[:200], said[:500])
                kept[line] -= 1
    elif kind == "db":
        kept = Counter(text for _, _, text in _rows(out))
        for table, key, text in _rows(path):
            if kept[text]:
                kept[text] -= 1
                continue
            word = "Row" if table == "agent_messages" else "Part"
            assert re.search(rf"\b{word} {re.escape(str(key))}\b", said), (f"{table} {key} lost", said)
    else:
        # A record may be rewritten in place (a synthesized result written into it); one
        # whose identity is gone from the output must be one an event removed.
        before, after = _records(path), set(_records(out))
        gone = [r for r in before if r not in after]
        changes = sum(e.drop for e in events) + sum(e.kind in REMOVALS for e in events)
        assert len(gone) <= changes, (f"records {gone[:5]} lost, {changes} changes said",
                                      [e.message[:200] for e in events])


def _records(path: Path) -> list[str]:
    """The identity of each record of a JSON session (message id, ``ts``, part id; else its text)."""
    try:
        doc = orjson.loads(path.read_bytes().removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:     # deeper than any reader goes: the input was refused whole
        return []
    if isinstance(doc, dict):
        doc = doc.get("messages", [])
        if doc and isinstance(doc[0], dict) and "parts" in doc[0]:
            doc = [p for m in doc if isinstance(m, dict) for p in (m.get("parts") or [])]
    if not isinstance(doc, list):
        return []
    return [repr(r.get("id", r.get("ts"))) if isinstance(r, dict) and ("id" in r or "ts" in r)
            else json.dumps(r, sort_keys=True) for r in doc]


def _rows(path: Path) -> list[tuple[str, object, object]]:
    """(table, key, JSON text) of each message row of an Agents SDK or OpenCode database."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "agent_messages" in tables:
            return [("agent_messages", r, t) for r, t in conn.execute("SELECT rowid, message_data FROM agent_messages")]
        return [("part", r, t) for r, t in conn.execute("SELECT id, data FROM part")]
    finally:
        conn.close()

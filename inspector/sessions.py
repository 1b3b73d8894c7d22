"""Agent session files from the command line: where a repaired session is written, the
``--in-place`` swap with its backup, and the session files in a folder.

A session file is the agent's own record, so it is never written over by default: the repair
goes beside it (``NAME.repaired.jsonl``), and ``--in-place`` first keeps the original as
``NAME.bak`` (``NAME.bak.1``... when that exists) and refuses if the agent wrote to the file
meanwhile.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from .formats import REGISTRY
from .io import InputError, atomic_write, display_name, parse_json, read_bytes, read_head, write_new
from .pipeline import parse as parse_bytes, select_session

# The agents' session formats (the rest of the registry is request bodies).
SESSION_FORMATS = ("claude-code", "codex-rollout", "gemini-cli", "agents-sqlite")

SESSION_SUFFIXES = (".jsonl", ".json", ".db", ".sqlite", ".sqlite3")
SKIP_DIRS = {".git", "node_modules", "__pycache__"}


def is_session(outcome: Any) -> bool:
    return outcome.imported.format in SESSION_FORMATS


def repaired_name(path: str | os.PathLike) -> str:
    p = Path(path)
    return str(p.with_name(f"{p.stem}.repaired{p.suffix or '.jsonl'}"))


def session_output(path: str, outcome: Any) -> str | None:
    """Where ``normalize`` writes by default: beside a session file, stdout for anything else."""
    if str(path) == "-" or not hasattr(outcome.imported.document, "to_bytes") \
            or outcome.to not in ("same", outcome.imported.format):
        return None
    return repaired_name(path)


def in_place(path: str, outcome: Any) -> str:
    """Replace ``path`` by the repair atomically, keeping the original; returns the backup's name."""
    name = display_name(path)
    if not is_session(outcome):
        raise InputError(name, "--in-place is for agent session files; write other formats with -o")
    p = Path(path)
    before = p.stat()
    original = p.read_bytes()
    document = outcome.imported.document
    now = parse_bytes(original, name, outcome.format)
    if getattr(document, "session", None) is not None:
        now = select_session(now, document.session, name)
    if now != document:
        raise InputError(name, "the file changed while it was being repaired (is the agent still writing it?); "
                               "nothing was written")
    n = 0
    while True:  # the first free NAME.bak[.N]: a name taken by anything, a dangling link too, is skipped
        backup = p.with_name(p.name + (f".bak.{n}" if n else ".bak"))
        try:
            write_new(backup, original, stat.S_IMODE(before.st_mode))
            break
        except FileExistsError:
            n += 1
    after = p.stat()
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        raise InputError(name, f"the file changed while it was being repaired; nothing was replaced "
                               f"(the copy {backup} is kept)")
    atomic_write(p, outcome.data)
    return str(backup)


def expand(paths: list[str]) -> Iterator[str]:
    """Files as given; a folder gives the session files under it (recursively, sorted)."""
    for path in paths:
        if path != "-" and Path(path).is_dir():
            found = list(_sessions_under(Path(path)))
            if not found:
                yield path              # read as a file: "is a directory", exit 2
            yield from found
        else:
            yield path


def each_session(paths: Iterator[str], session: str | None) -> Iterator[tuple[str, str | None, str]]:
    """(path, session, label) per session to check: a database holding several sessions gives
    one per session when no --session is given."""
    sniff = REGISTRY["agents-sqlite"].sniff
    for path in paths:
        name = display_name(path)
        if session is None and path != "-" and Path(path).is_file():
            try:
                with open(path, "rb") as handle:
                    head = handle.read(1 << 20)
                if sniff(head, path):
                    sessions = getattr(parse_bytes(read_bytes(path), name), "sessions", {})
                    if len(sessions) > 1:
                        for sid in sessions:
                            yield path, sid, f"{name} --session {sid}"
                        continue
            except (OSError, InputError):
                pass                       # reported where it is read
        yield path, session, name if session is None else f"{name} --session {session}"


def claims(head: bytes, name: str) -> bool:
    """Whether a session format claims a file by its first bytes (JSONL or SQLite; the JSON
    session formats are told by their content, see ``_json_session``)."""
    return any(REGISTRY[f].sniff(head, name) for f in SESSION_FORMATS)


def _sessions_under(root: Path) -> Iterator[str]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for f in files:
            if f.endswith(SESSION_SUFFIXES) and ".repaired." not in f:
                found.append(os.path.join(folder, f))
    for path in sorted(found):
        try:
            head = read_head(path)     # to the end of the first line, however long
        except OSError:
            yield path                 # unreadable (permission, a broken link): checked, to fail by name
            continue
        if not path.endswith(".json"):
            if claims(head, path):
                yield path
        elif head.lstrip().startswith(b"{") and _json_session(path):
            yield path


def _json_session(path: str) -> bool:
    """A JSON file one of the JSON session formats claims (read whole: they are small)."""
    try:
        with open(path, "rb") as handle:
            document = parse_json(handle.read(), path)
    except (OSError, InputError):
        return False
    return any(REGISTRY[f].evidence(document) for f in SESSION_FORMATS)


# The API each agent sends its history to: what a resume of the unrepaired session hits.
RESUME_TARGET = {"claude-code": "anthropic", "codex-rollout": "openai-responses", "gemini-cli": "gemini",
                 "agents-sqlite": "openai-responses"}


def why(imported: Any, result: Any) -> str:
    """Why a session would fail to resume, in a few words: the first thing its API rejects in
    the history as it is (with where it is), and the kinds of change the repair makes."""
    if imported.format not in SESSION_FORMATS:
        return ""
    from .targets import check, failed

    words = []
    # As the agent sends it today: without the results the import put back on the chain.
    back = {e.origin for e in imported.events if e.kind == "result-recovered"}
    keep = [i for i in range(len(imported.messages)) if i not in back]
    problems = [p for p in check([imported.messages[i] for i in keep], RESUME_TARGET[imported.format])
                if failed([p])]
    if problems:
        first = problems[0]
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        words.append(f"resume fails now: {first.target} {first.rule} at {imported.where(keep[first.index])}{more}")
    kinds = Counter(e.kind for e in [*imported.events, *result.events])
    if kinds:
        words.append("repair: " + ", ".join(f"{k} x{n}" if n > 1 else k for k, n in kinds.items()))
    return f" ({'; '.join(words)})" if words else ""

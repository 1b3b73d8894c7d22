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

from . import formats
from .io import (InputError, OutputError, atomic_stream, atomic_write, describe_os_error, display_name, read_bytes,
                 write_new)
from .pipeline import parse as parse_bytes, select_session


def is_session(outcome: Any) -> bool:
    return formats.is_session_format(outcome.imported.format)


def repaired_name(path: str | os.PathLike) -> str:
    p = Path(path)
    return str(p.with_name(f"{p.stem}.repaired{p.suffix or '.jsonl'}"))


def session_output(path: str, outcome: Any) -> str | None:
    """Where ``normalize`` writes by default: beside a session file, stdout for anything else."""
    if str(path) == "-" or not formats.writes_whole_file(outcome.imported.format) \
            or outcome.to not in ("same", outcome.imported.format):
        return None
    return repaired_name(path)


def in_place(path: str, outcome: Any) -> str:
    """Replace ``path`` by the repair atomically, keeping the original; returns the backup's name.

    A store that is a live database writes the repair into itself (its format's ``replace``,
    in one transaction under SQLite's own lock). A session file is swapped: the repaired
    copy is written and synced, the file is checked again right before the rename, and the
    inode replaced is checked once more after it; an agent line written meanwhile means
    the original (with that line) stays or is put back, and nothing is replaced."""
    name = display_name(path)
    if not is_session(outcome):
        raise InputError(name, "--in-place is for agent session files; write other formats with -o")
    p = Path(path)
    before = p.stat()
    mode = stat.S_IMODE(before.st_mode)
    document = outcome.imported.document
    replace = formats.get(outcome.imported.format).replace
    if replace is not None:
        return replace(str(p), document, outcome.exported, lambda data: _backup(p, data, mode))
    with open(p, "rb") as old:    # the inode the rename replaces, held to see a write into it
        original = old.read()
        if _moved(os.fstat(old.fileno()), before):
            raise InputError(name, _CHANGED + "; nothing was written")
        now = parse_bytes(original, name, outcome.format)
        if formats.chosen_session(document) is not None:
            now = select_session(now, formats.chosen_session(document), name)
        if now != document:
            raise InputError(name, _CHANGED + "; nothing was written")
        backup = _backup(p, original, mode)
        with atomic_stream(p) as handle:
            try:
                handle.write(outcome.data)
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as exc:   # a full disk names the session, not standard output
                raise OutputError(name, f"cannot write the repair: {describe_os_error(exc)}; "
                                        f"nothing was replaced (the copy {backup} is kept)") from None
            if _moved(p.stat(), before):    # the last look before the rename: a failure here removes the copy
                raise InputError(name, f"{_CHANGED}; nothing was replaced (the copy {backup} is kept)")
        late = os.fstat(old.fileno())
        if _moved(late, before, inode=False):
            old.seek(0)
            atomic_write(p, old.read())   # the agent wrote into the old file during the rename: put it back
            raise InputError(name, f"{_CHANGED}; the original, with what the agent wrote, is back in place "
                                   f"and nothing was replaced (the copy {backup} is kept)")
    return str(backup)


_CHANGED = "the file changed while it was being repaired (is the agent still writing it?)"


def _moved(now: os.stat_result, before: os.stat_result, inode: bool = True) -> bool:
    """Whether a file is not the one read: another size or modification time (or inode)."""
    return (now.st_size, now.st_mtime_ns) != (before.st_size, before.st_mtime_ns) \
        or (inode and (now.st_ino, now.st_dev) != (before.st_ino, before.st_dev))


def _backup(p: Path, data: bytes, mode: int) -> str:
    """``data`` at the first free ``NAME.bak[.N]``: a name taken by anything, a dangling link
    too, is skipped (never followed)."""
    n = 0
    while True:
        backup = p.with_name(p.name + (f".bak.{n}" if n else ".bak"))
        try:
            write_new(backup, data, mode)
            return str(backup)
        except FileExistsError:
            n += 1


def expand(paths: list[str]) -> Iterator[str]:
    """Files as given; a folder gives the session files under it (recursively, sorted)."""
    for path in paths:
        if path != "-" and Path(path).is_dir():
            found = list(formats.session_files(path))
            if not found:
                yield path              # read as a file: "is a directory", exit 2
            yield from found
        else:
            yield path


def each_session(paths: Iterator[str], session: str | None) -> Iterator[tuple[str, str | None, str]]:
    """(path, session, label) per session to check: a database holding several sessions gives
    one per session when no --session is given."""
    for path in paths:
        name = display_name(path)
        if session is None and path != "-" and Path(path).is_file():
            try:
                with open(path, "rb") as handle:
                    head = handle.read(1 << 20)
                sessions = formats.sessions(parse_bytes(read_bytes(path), name)) \
                    if formats.may_hold_sessions(head, path) else []
                if len(sessions) > 1:
                    for s in sessions:
                        yield path, s.id, f"{name} --session {s.id}"
                    continue
            except (OSError, InputError):
                pass                       # reported where it is read
        yield path, session, name if session is None else f"{name} --session {session}"


def why(imported: Any, result: Any) -> str:
    """Why a session would fail to resume, in a few words: the first thing its API rejects in
    the history as it is (with where it is), and the kinds of change the repair makes."""
    if not formats.is_session_format(imported.format):
        return ""
    from .targets import check, failed

    words = []
    agent = formats.on_resume(imported)
    if agent is not None:
        # The format knows what its agent repairs itself: the import's recoveries stand for
        # those, an entry the agent repairs as it sends it is no refusal, and what is left is
        # what the provider would refuse.
        keep = list(range(len(imported.messages)))
        self_kinds = {r.kind for r, _ in agent.cases}
        fixed = {e.origin for e in imported.events if e.kind in self_kinds and e.origin is not None}
    else:
        # As the agent sends it today: without the results the import put back on the chain.
        back = {e.origin for e in imported.events if e.kind == "result-recovered"}
        keep = [i for i in range(len(imported.messages)) if i not in back]
        fixed = set()
    problems = [p for p in check([imported.messages[i] for i in keep], formats.provider(imported.format))
                if failed([p]) and keep[p.index] not in fixed]
    if agent is not None:
        # A refusal the agent's own claims cover (found by the provider's rule) is no refusal.
        start = next((i for i in keep if imported.messages[i].get("role") not in ("system", "developer")), None) \
            if all(isinstance(imported.messages[i], dict) for i in keep) else None
        claims = [agent.claim(p.rule, keep[p.index], p.tool_call_id, start) for p in problems]
        agent = agent.with_claims([c for c in claims if c is not None])
        problems = [p for p, c in zip(problems, claims) if c is None]
    if problems:
        first = problems[0]
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        lead = "the provider would refuse this" if agent is not None else "resume fails now"
        words.append(f"{lead}: {first.target} {first.rule} at {imported.where(keep[first.index])}{more}")
    if agent is not None:
        words.extend(agent.sentences())
    own = agent_repairs(imported)
    if own:
        words.append(own_words(own))
    kinds = Counter(e.kind for e in [*imported.events, *result.events] if e not in own)
    if kinds:
        words.append("repair: " + ", ".join(f"{k} x{n}" if n > 1 else k for k, n in kinds.items()))
    return f" ({'; '.join(words)})" if words else ""


def agent_repairs(imported: Any) -> list[Any]:
    """The results the agent itself sends when it resumes (a Cline-family placeholder, read by
    the import), which the repair need not write."""
    return [e for e in imported.events if e.kind == "result-placeholder"]


def own_words(own: list[Any]) -> str:
    ids = ", ".join(str(e.tool_call_id) for e in own)
    return f"the agent answers {ids} itself on resume, with a placeholder instead of the real result"

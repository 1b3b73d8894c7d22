"""Outputs of ``inspector normalize`` (plain, ``--strict``, ``--to`` every format) and
``inspector explain --json`` over the samples, the corpus and the session fixtures the tests
build, written to a folder, so that a refactoring can show it changed no byte.

    python bench/same_bytes.py capture /tmp/before
    ... change the code ...
    python bench/same_bytes.py capture /tmp/after
    python bench/same_bytes.py compare /tmp/before /tmp/after
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector import cli  # noqa: E402  (the path above first)
from inspector.formats import FORMATS  # noqa: E402


def fixtures(folder: Path) -> list[Path]:
    """The session files the tests build, written into ``folder``."""
    from tests.sessions import agents_builder, codex_builder, gemini_builder, scenarios

    made = []
    for module, suffix in ((scenarios, ".jsonl"), (codex_builder, ".jsonl"), (gemini_builder, ".json")):
        for name in dir(module):
            fn = getattr(module, name)
            if callable(fn) and getattr(fn, "__module__", "") == module.__name__ and name[0] != "_" \
                    and not isinstance(fn, type) and fn.__code__.co_argcount == 0:
                data = fn()
                if isinstance(data, bytes):
                    path = folder / f"{module.__name__.rsplit('.', 1)[-1]}-{name}{suffix}"
                    path.write_bytes(data)
                    made.append(path)
    made.append(agents_builder.make(folder / "agents-orphan.db", {"s1": agents_builder.orphan_output()}))
    made.append(agents_builder.make(folder / "agents-clean.db", {"s1": agents_builder.clean()}))
    made.append(agents_builder.make(folder / "agents-two.db", {"a": agents_builder.orphan_output(),
                                                               "b": agents_builder.clean()}))
    return made


def run(argv: list[str]) -> bytes:
    out, err = io.BytesIO(), io.BytesIO()
    o, e = io.TextIOWrapper(out, write_through=True), io.TextIOWrapper(err, write_through=True)
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try:
            code = cli.main(argv)
        except SystemExit as stop:
            code = stop.code
    return f"exit {code}\n".encode() + out.getvalue() + b"\n--stderr--\n" + err.getvalue()


UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def canonical(body: bytes, work: Path) -> bytes:
    """A new Claude Code session gets fresh uuids and a new database today's time: named
    here in order of appearance, so that two runs compare equal (``plain`` keeps the bytes
    of an export in the input's own format)."""
    if body.startswith(b"SQLite format 3"):
        copy = work / "dump.db"
        copy.write_bytes(body)
        with contextlib.closing(sqlite3.connect(copy)) as conn:
            body = "\n".join(conn.iterdump()).encode()
        copy.unlink()
        return re.sub(rb"'" + time.strftime("%Y-%m-%d", time.gmtime()).encode() + rb" [0-9:]{8}'", b"'<now>'", body)
    seen: dict[bytes, bytes] = {}
    return UUID.sub(lambda m: seen.setdefault(m.group(), b"uuid-%d" % len(seen)), body)


def capture(dest: Path) -> int:
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        inputs = sorted(p for p in (ROOT / "samples").iterdir() if p.suffix in (".json", ".jsonl", ".db")
                        and p.name != "index.json")
        inputs += sorted((ROOT / "tests" / "corpus").rglob("*.json"))
        inputs += fixtures(work / "fx" if (work / "fx").mkdir() is None else work)
        n = 0
        for path in inputs:
            key = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name).replace("/", "__")
            runs = {"plain": [], "strict": ["--strict"], **{f"to-{f}": ["--to", f] for f in FORMATS}}
            sessions = [None, "a", "b"] if path.name == "agents-two.db" else [None]
            for sid in sessions:
                extra = ["--session", sid] if sid else []
                for label, opts in runs.items():
                    target = work / "out"
                    target.unlink(missing_ok=True)
                    log = run(["normalize", str(path), *opts, *extra, "-q", "-o", str(target)])
                    body = target.read_bytes() if target.exists() else b"<no output>"
                    if label in ("to-claude-code", "to-agents-sqlite"):
                        body = canonical(body, work)
                    (dest / f"{key}{'.' + sid if sid else ''}.{label}").write_bytes(
                        log.replace(str(work).encode(), b"<tmp>").replace(str(ROOT).encode(), b"<root>")
                        + b"\n--output--\n" + body)
                    n += 1
                log = run(["explain", str(path), "--json", *extra])
                (dest / f"{key}{'.' + sid if sid else ''}.explain").write_bytes(
                    log.replace(str(work).encode(), b"<tmp>").replace(str(ROOT).encode(), b"<root>"))
                n += 1
    print(f"{n} outputs of {len(inputs)} inputs in {dest}")
    return 0


def compare(a: Path, b: Path) -> int:
    left = {p.name: p for p in a.iterdir()}
    right = {p.name: p for p in b.iterdir()}
    same = sum(1 for k in left.keys() & right.keys() if left[k].read_bytes() == right[k].read_bytes())
    differ = sorted(k for k in left.keys() & right.keys() if left[k].read_bytes() != right[k].read_bytes())
    only = sorted(left.keys() ^ right.keys())
    print(f"{same} identical, {len(differ)} differ, {len(only)} in one side only")
    for k in differ[:20] + only[:20]:
        print("  ", k)
    digest = hashlib.sha256(b"".join(left[k].read_bytes() for k in sorted(left))).hexdigest()[:16]
    print(f"before digest {digest}")
    return 1 if differ or only else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["capture"]:
        sys.exit(capture(Path(sys.argv[2])))
    if sys.argv[1:2] == ["compare"]:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    sys.exit(__doc__)

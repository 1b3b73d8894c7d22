"""Datasets for the batch tests, and the oracle they are checked against.

The oracle is the command line itself: for every record it calls the CLI's public entry
point (``inspector.cli.main``) on a file holding just that record, ``normalize --compact``
for the output line and ``explain --json`` for the events, with no batching, chunking or
processes. Whatever the batch machinery does, its output and its counts must equal this.
"""

from __future__ import annotations

import io
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from inspector import cli
from inspector.bundled import samples_dir

BAD_LINES = [b'{"messages": [', b"42", b'{"model": "m"}', b"[1, 2", b"\xff\xfe not utf-8"]


def generated_history(rng: random.Random, n: int) -> list:
    """A small agent history with a random share of the damage MEM-5 repairs."""
    msgs: list = [{"role": "system", "content": f"sys {n}"}]
    for turn in range(rng.randint(1, 4)):
        msgs.append({"role": "user", "content": f"question {n}.{turn}"})
        ids = [f"c{n}_{turn}_{k}" for k in range(rng.randint(0, 3))]
        if ids:
            msgs.append({"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": i, "name": "f"} for i in ids]})
            for i in ids:
                if rng.random() > 0.2:
                    msgs.append({"role": "tool", "content": f"result {i}", "tool_call_id": i})
                if rng.random() < 0.1:
                    msgs.append({"role": "tool", "content": "again", "tool_call_id": i})
        msgs.append({"role": "assistant", "content": f"answer {n}.{turn}"})
    if rng.random() < 0.2:
        msgs.insert(1, {"role": "tool", "content": "orphan", "tool_call_id": f"gone{n}"})
    if rng.random() < 0.1:
        msgs.insert(len(msgs) // 2, {"role": "system", "content": "late"})
    if rng.random() < 0.1:
        msgs.append("not a message")
    return msgs


def dataset_lines(count: int, seed: int = 1, bad_every: int = 0) -> list[bytes]:
    """JSONL lines: bundled samples (some as request bodies) and generated histories,
    with a broken line every ``bad_every`` lines when asked."""
    rng = random.Random(seed)
    # index.json lists the samples: it is no history (and is refused as one, issue 25).
    samples = [orjson.loads(p.read_bytes()) for p in sorted(samples_dir().glob("*.json")) if p.name != "index.json"]
    lines = []
    for i in range(count):
        if bad_every and i % bad_every == bad_every // 2:
            lines.append(BAD_LINES[(i // bad_every) % len(BAD_LINES)])
            continue
        doc = samples[i % len(samples)] if i % 3 == 0 else generated_history(rng, i)
        if i % 7 == 0 and isinstance(doc, list):
            doc = {"model": "m", "messages": doc}
        lines.append(orjson.dumps(doc))
    return lines


def write_jsonl(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


@dataclass
class Oracle:
    output: list[bytes] = field(default_factory=list)     # JSONL lines of the good records
    failed_lines: list[int] = field(default_factory=list)  # 1-based line numbers
    kinds: Counter = field(default_factory=Counter)        # (clause, kind) -> events
    records_with: Counter = field(default_factory=Counter)  # (clause, kind) -> records
    drops: Counter = field(default_factory=Counter)        # drops per history -> histories
    changed: int = 0
    read: int = 0


def cli_output(argv: list[str]) -> tuple[int, bytes]:
    """``inspector ARGV`` through the CLI's public entry point: exit status and stdout."""
    out = io.BytesIO()
    saved = sys.stdout, sys.stderr
    stdout = sys.stdout = io.TextIOWrapper(out, encoding="utf-8")
    sys.stderr = io.StringIO()
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    finally:
        stdout.flush()
        sys.stdout, sys.stderr = saved
    data = out.getvalue()
    stdout.detach()
    return code, data


_SEEN: dict[tuple, tuple] = {}  # (record, options, counts) -> what the CLI said: records repeat across tests
_FOLDER = tempfile.TemporaryDirectory(prefix="batch-oracle-")  # one file, rewritten per record


def one_record(line: bytes, fmt: str = "auto", to: str = "same", strict: bool = False,
               counts: bool = False) -> tuple:
    """(normalize's output, or None when it fails; with ``counts``, explain's JSON) for one record."""
    key = (line, fmt, to, strict, counts)
    if key not in _SEEN:
        path = str(Path(_FOLDER.name, "record.json"))
        Path(path).write_bytes(line)
        options = ["--from", fmt] + (["--strict"] if strict else [])
        code, out = cli_output(["normalize", path, "--compact", "-q", "--to", to, *options])
        assert code in (0, 2), (code, line[:200])
        explained = None
        if code == 0 and counts:
            code, report = cli_output(["explain", path, "--json", *options])
            assert code == 0
            explained = orjson.loads(report)
        _SEEN[key] = (out if code == 0 else None, explained)
    return _SEEN[key]


def oracle(lines: list[bytes], fmt: str = "auto", to: str = "same", strict: bool = False,
           counts: bool = False) -> Oracle:
    """What the CLI says of every line; ``counts`` (events, drops) costs one more call a line."""
    o = Oracle()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        o.read += 1
        out, explained = one_record(line, fmt, to, strict, counts)
        if out is None:
            o.failed_lines.append(number)
            continue
        o.output.append(out if out.endswith(b"\n") else out + b"\n")   # JSON Lines: one record a line
        if orjson.loads(out) != orjson.loads(line.removeprefix(b"\xef\xbb\xbf")):  # writing it back changes it
            o.changed += 1
        if not counts:
            continue
        events = [*explained["import"]["events"], *explained["events"], *explained.get("export", {}).get("events", [])]
        keys = [(e["clause"], e["kind"]) for e in events]
        o.kinds.update(keys)
        o.records_with.update(set(keys))
        o.drops[explained["dropped"]] += 1
    return o

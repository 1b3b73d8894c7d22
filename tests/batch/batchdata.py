"""Datasets for the batch tests, and the oracle they are checked against.

The oracle runs the engine record by record, with no batching, chunking or processes:
whatever the batch machinery does, its output and its counts must equal this.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from inspector.bundled import samples_dir
from inspector.io import InputError
from inspector.pipeline import run

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
    samples = [orjson.loads(p.read_bytes()) for p in sorted(samples_dir().glob("*.json"))]
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


def oracle(lines: list[bytes], fmt: str = "auto") -> Oracle:
    o = Oracle()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        o.read += 1
        try:
            outcome = run(line, "x", fmt, compact=True)
        except InputError:
            o.failed_lines.append(number)
            continue
        result = outcome.result
        o.output.append(outcome.data)
        keys = [(e.clause, e.kind) for e in result.events]
        o.kinds.update(keys)
        o.records_with.update(set(keys))
        o.drops[result.dropped] += 1
        if outcome.changed:
            o.changed += 1
    return o

"""Line-damage benchmark: what finding damaged lines costs the reading of a long session.

Builds the Claude Code session of ``bench/sessions.py`` (``--turns`` tool-using turns; 20,000
turns are about 100,000 lines), then prints, best of ``--repeat``:

- before: the line reader as it was before it looked for damage (split at ``\\n``,
  ``orjson.loads`` each line, a line that is not JSON kept and skipped);
- after: ``formats.jsonl.split``, the reader every JSON Lines store uses now, on the clean file,
  with and without the U+2028 scan a store like Gemini CLI's asks for;
- damaged: ``split`` on the same file with ``--damaged`` lines damaged (a third each cut by a
  raw line break inside a string, glued to the next line, prefixed with NUL bytes), every one
  of them mended; and the clean file followed by 5,000 records cut short in a row (none can
  be mended: each is tried once and reported);

and the ratios to "before" (best of the interleaved runs, in CPU time, so that other work on a
shared machine weighs less; each with the collector paused as the pipeline's parse runs). A clean file never takes the damage path, so "after" must stay
within noise of "before".

    python bench/line_damage.py                  # 20,000 turns, about 100,000 lines
    python bench/line_damage.py --turns 2000 --damaged 50
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.sessions import build  # noqa: E402
from inspector.engine import gc_paused  # noqa: E402
from inspector.formats.jsonl import split  # noqa: E402
from inspector.io import _NOT_READ, BOM, loads_surrogates  # noqa: E402


def split_before(data: bytes) -> tuple[list[bytes], list, list[int]]:
    """The reader before damage was looked for (``formats/jsonl.py`` at 2db3e9c), for the ratio."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    raw = data.split(b"\n")
    if raw and raw[-1] == b"":
        raw.pop()
    entries, bad = [], []
    for i, line in enumerate(raw):
        if not line.strip():
            entries.append(None)
            continue
        try:
            entries.append(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            entry = loads_surrogates(line, exc)
            if entry is _NOT_READ:
                entries.append(None)
                bad.append(i)
            else:
                entries.append(entry)
    return raw, entries, bad


def damage(data: bytes, count: int) -> bytes:
    """``count`` lines spread over the file, damaged in turn three ways."""
    lines = data[:-1].split(b"\n")
    step = max(len(lines) // (count + 1), 2)
    out: list[bytes] = []
    done = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if done < count and i and i % step == 0 and i + 1 < len(lines):
            kind = done % 3
            done += 1
            if kind == 0:
                k = line.index(b'"uuid":"') + 12          # inside the uuid string
                out += [line[:k], line[k:]]
            elif kind == 1:
                out.append(line + lines[i + 1])
                i += 1
            else:
                out.append(b"\x00" * 64 + line)
        else:
            out.append(line)
        i += 1
    return b"\n".join(out) + b"\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=20_000)
    ap.add_argument("--damaged", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    clean = build(args.turns)
    broken = damage(clean, args.damaged)
    lines = clean.count(b"\n")
    print(f"session: {lines:,} lines, {len(clean) / 1e6:.1f} MB; damaged copy: {args.damaged} lines damaged")

    cut = b'{"type":"user","message":{"role":"user","content":"cut short'
    cuts = clean + b"\n".join(cut + b" %d" % n for n in range(5000)) + b"\n"
    runs = {
        "before": lambda: split_before(clean),
        "after": lambda: split(clean, "claude-code", "s.jsonl"),
        "scan": lambda: split(clean, "gemini-cli-log", "s.jsonl", separators=True),
        "mended": lambda: split(broken, "claude-code", "s.jsonl"),
        "cuts": lambda: split(cuts, "claude-code", "s.jsonl"),
    }
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(args.repeat):           # interleaved, so a busy machine weighs on each alike
        for key, fn in runs.items():
            with gc_paused():              # as the pipeline parses: no collection over the new objects
                start = time.process_time()
                fn()
                times[key].append(time.process_time() - start)
    before, after, scan, mended, many = (min(times[k]) for k in runs)
    doc = split(broken, "claude-code", "s.jsonl")
    assert not doc.bad and sum(d.mended for d in doc.damage) == args.damaged, (len(doc.bad), len(doc.damage))
    assert split(clean, "claude-code", "s.jsonl").to_bytes() == clean

    print(f"before (the old reader), clean:  {before * 1000:8.1f} ms")
    print(f"after, clean:                    {after * 1000:8.1f} ms   {after / before:5.2f}x")
    print(f"after, clean, U+2028 scan:       {scan * 1000:8.1f} ms   {scan / before:5.2f}x")
    print(f"after, {args.damaged} damaged lines mended: {mended * 1000:8.1f} ms   {mended / before:5.2f}x")
    print(f"after, 5,000 cut lines in a row added: {many * 1000:8.1f} ms   {many / before:5.2f}x")


if __name__ == "__main__":
    main()

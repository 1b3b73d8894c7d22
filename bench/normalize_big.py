"""``inspector normalize`` of a large OpenAI Chat request body, next to orjson alone.

Builds a request body of about 100 MB (``{"model", "tools", "messages"}``, calls spelled
``{"id", "type": "function", "function": {name, arguments}}``, the engine benchmark's mix of
breakage) under ``/tmp``, then times, each as a whole process as a user runs it:

- baseline: ``python -c`` that reads the file, ``orjson.loads``, ``orjson.dumps`` with
  ``OPT_INDENT_2`` and writes the bytes to a file;
- inspector: ``python -m inspector normalize BODY -o OUT`` (import time, detection, import,
  engine, export and the atomic write included);

and prints every run's wall-clock and CPU times, the best of each and their ratios (goal: at
most 1.8).

    python bench/normalize_big.py                 # about 100 MB, 5 runs each
    python bench/normalize_big.py --mb 20 --runs 3
    python bench/normalize_big.py --profile       # cProfile of one in-process normalize
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GOAL = 1.8
BASELINE = ("import sys, orjson; data = orjson.loads(open(sys.argv[1], 'rb').read()); "
            "open(sys.argv[2], 'wb').write(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))")


def openai_message(m: object) -> object:
    """The engine benchmark's message in Chat Completions' spelling (broken entries kept)."""
    if not isinstance(m, dict) or m.get("role") != "assistant" or not m.get("tool_calls"):
        return m
    calls = []
    for c in m["tool_calls"]:
        if "function" in c:
            calls.append(c)
            continue
        calls.append({"id": c["tool_call_id"], "type": "function",
                      "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}})
    return {"role": "assistant", "content": m["content"] or None, "tool_calls": calls}


def build(mb: int, path: Path) -> None:
    import orjson

    sys.path.insert(0, str(HERE))
    from engine import TOOLS, build as history  # the engine benchmark's history

    n = mb * 4_300                 # about 235 bytes a message in this spelling
    body = {"model": "gpt-4.1", "tools": [{"type": "function", "function": {"name": t, "parameters": {}}}
                                          for t in TOOLS],
            "messages": [openai_message(m) for m in history(n)]}
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(orjson.dumps(body))      # compact, as a client sends it
    os.replace(tmp, path)


def timed(argv: list[str], tree: Path) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one process: on a shared machine the
    CPU time is the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": str(tree)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def profile(path: Path, out: Path) -> None:
    import cProfile
    import pstats

    sys.path.insert(0, str(ROOT))
    from inspector import cli

    prof = cProfile.Profile()
    prof.runcall(cli.main, ["normalize", str(path), "-o", str(out), "-q"])
    pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=100, help="size of the body in MB (default 100)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each process (default 5)")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the Inspector source tree to time (default: this one)")
    ap.add_argument("--profile", action="store_true", help="cProfile one normalize instead")
    args = ap.parse_args()
    path = Path(f"/tmp/inspector-bench-openai-{args.mb}mb.json")
    if not path.exists():
        start = time.perf_counter()
        build(args.mb, path)
        print(f"built {path} in {time.perf_counter() - start:.1f} s")
    out = path.with_name(path.stem + ".out.json")
    print(f"body: {path}: {path.stat().st_size / 1e6:.1f} MB")
    if args.profile:
        profile(path, out)
        return 0
    base_cmd = [sys.executable, "-c", BASELINE, str(path), str(out)]
    insp_cmd = [sys.executable, "-m", "inspector", "normalize", str(path), "-o", str(out), "-q"]
    base, insp = [], []
    for _ in range(args.runs):     # interleaved, so a busy moment costs both sides
        base.append(timed(base_cmd, args.tree))
        insp.append(timed(insp_cmd, args.tree))
    for label, runs in (("orjson read+indent-write", base), ("inspector normalize -o", insp)):
        print(f"{label + ':':26s}" + "  ".join(f"{w:.2f}" for w, _ in runs) + " s wall;  "
              + "  ".join(f"{c:.2f}" for _, c in runs) + " s CPU")
    for i, what in enumerate(("wall", "CPU")):
        b, n = min(r[i] for r in base), min(r[i] for r in insp)
        print(f"best {what + ':':5s} {b:.2f} s vs {n:.2f} s   ratio {n / b:.2f}  "
              f"(goal <= {GOAL}: {'met' if n / b <= GOAL else 'NOT met'})")
    out.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

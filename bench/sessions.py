"""Session-file benchmark: what repairing a long Claude Code session costs next to just
reading its lines as JSON.

Builds a session of ``--turns`` tool-using turns (each: a user line, an assistant message
split over two lines, a result line, a progress line; one turn in fifty lost its result, one
in a hundred has a parallel result hung off the chain), then prints, best of ``--repeat``:

- baseline: split the bytes into lines and ``orjson.loads`` each one;
- inspector: ``pipeline.run`` on the bytes (parse, chain walk, import, normalize, line-exact
  export) and ``Outcome.data``;

and their ratio.

    python bench/sessions.py                 # 20,000 turns (about 100,000 lines, 60 MB)
    python bench/sessions.py --turns 2000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector.pipeline import run  # noqa: E402
from tests.sessions.claude_builder import Session, text, tool  # noqa: E402


def build(turns: int) -> bytes:
    s = Session()
    s.user("start")
    for t in range(turns):
        a, b = s.assistant(f"msg_{t:08d}", text(f"step {t}: running the next command"),
                           tool(f"toolu_{t:08d}a", f"make step-{t}"))
        if t % 100 == 7:
            c, = s.assistant(f"msg_{t:08d}", tool(f"toolu_{t:08d}b", "git status"))
            s.result(f"toolu_{t:08d}a", "ok " * 40, parent=b["uuid"])
            s.result(f"toolu_{t:08d}b", "clean", parent=c["uuid"])
        elif t % 50 != 3:
            s.result(f"toolu_{t:08d}a", "ok " * 40)
        s.system(f"progress {t}")
        s.user(f"continue with step {t + 1}")
    return s.data()


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = build(args.turns)
    lines = data.count(b"\n")
    base = best(lambda: [orjson.loads(x) for x in data.split(b"\n") if x], args.repeat)
    out = run(data, "bench.jsonl")
    inspector = best(lambda: run(data, "bench.jsonl").data, args.repeat)
    print(f"session: {lines:,} lines, {len(data) / 1e6:.1f} MB; dropped {out.result.dropped}, "
          f"synthesized {out.result.synthesized}, recovered "
          f"{sum(1 for e in out.imported.events if e.kind == 'result-recovered')}")
    print(f"baseline (split + orjson.loads per line): {base * 1000:8.1f} ms")
    print(f"inspector (parse, import, normalize, export, bytes): {inspector * 1000:8.1f} ms")
    print(f"ratio: {inspector / base:.2f}")


if __name__ == "__main__":
    main()

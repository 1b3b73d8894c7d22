"""Engine benchmark: how much does normalizing cost next to just reading and writing JSON?

Builds a realistic 200,000-message history (about 40 MB: user turns, assistant turns
with one to three parallel calls and JSON arguments, tool results of varied sizes, a few
percent broken), writes it under ``bench/data/`` (git-ignored), then measures, in this
one run and each in a fresh subprocess so that memory figures do not mix:

- baseline: read the file, ``orjson.loads``, ``orjson.dumps`` (indented, as exports are);
- inspector: read and parse with ``inspector.io.read_bytes`` and ``parse_json``, ``normalize``, and
  ``inspector.io.dump_messages`` (the one serialization every export uses), as
  ``inspector normalize`` runs it: the document it parsed is its own, so the engine runs
  in its zero-copy mode (``copy=False``);
- the same with ``normalize``'s default, which gives the result call objects of its own
  (what an API caller that keeps its input gets);

and prints the times (best of ``--repeat``; wall-clock, and CPU time beside it), their ratios (goal: at most 2.5), and the
peak resident memory of each process (VmHWM, or ``ru_maxrss``; tracemalloc would slow
the run), next to that of an idle process that only imported the same modules.

    python bench/engine.py                     # 200,000 messages, 3 repeats
    python bench/engine.py --messages 20000    # quicker
    python bench/engine.py --profile           # cProfile of normalize, top 25 by own time
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
GOAL = 2.5

# --- building the history -------------------------------------------------------------

WORDS = (
    "the a deploy service request latency error timeout retry cache user account invoice "
    "order payment region cluster node pod config secret token database query index table "
    "migration rollback release build pipeline test failure warning metric alert dashboard "
    "customer ticket priority owner schedule window backup restore snapshot volume network "
    "firewall rule policy quota limit plan renewal refund shipment carrier forecast report"
).split()
TOOLS = {
    "search_docs": lambda r: {"query": _words(r, 4, 9), "limit": r.choice([3, 5, 10])},
    "read_file": lambda r: {"path": f"src/{r.choice(WORDS)}/{r.choice(WORDS)}.py", "start": r.randint(1, 400)},
    "run_shell": lambda r: {"command": f"pytest -q tests/test_{r.choice(WORDS)}.py -k {r.choice(WORDS)}",
                            "timeout": 120},
    "sql_query": lambda r: {"sql": f"SELECT id, status FROM {r.choice(WORDS)}s WHERE {r.choice(WORDS)}_id = "
                                   f"{r.randint(1, 99999)} LIMIT 50"},
    "get_forecast": lambda r: {"city": r.choice(["Oslo", "Lisbon", "Porto", "Madrid", "Kyoto", "Lima"]),
                               "days": r.randint(1, 7), "units": "metric"},
    "create_ticket": lambda r: {"title": _words(r, 4, 8), "priority": r.choice(["P1", "P2", "P3"]),
                                "labels": [r.choice(WORDS) for _ in range(r.randint(0, 3))]},
    "http_get": lambda r: {"url": f"https://api.example.com/v2/{r.choice(WORDS)}/{r.randint(1, 9999)}",
                           "headers": {"accept": "application/json"}},
}


def _words(r: random.Random, low: int, high: int) -> str:
    return " ".join(r.choice(WORDS) for _ in range(r.randint(low, high)))


def _result(r: random.Random, tool: str) -> str:
    size = r.choices([1, 2, 6, 24], weights=[62, 28, 9, 1])[0]
    if tool in ("sql_query", "http_get", "get_forecast"):
        rows = [{"id": r.randint(1, 10**6), "status": r.choice(WORDS), "note": _words(r, 1, 5)} for _ in range(size)]
        return json.dumps(rows)
    return "\n".join(_words(r, 5, 14) for _ in range(size))


def build(n: int, seed: int = 5) -> list:
    """About ``n`` messages with a realistic mix of breakage (each kind well under 1%)."""
    r = random.Random(seed)
    out: list = [{"role": "system", "content": "You are an operations agent. Use tools; never guess. " + _words(r, 20, 40)}]
    counter = 0
    system_at = n // 2
    while len(out) < n:
        if system_at and len(out) >= system_at:
            out.append({"role": "system", "content": "Reminder: policy changed; " + _words(r, 8, 16)})
            system_at = 0
        out.append({"role": "user", "content": _words(r, 6, 30) + "?"})
        for _ in range(r.choices([0, 1, 2], weights=[25, 55, 20])[0]):
            calls = []
            for _ in range(r.choices([1, 2, 3], weights=[60, 28, 12])[0]):
                counter += 1
                tool = r.choice(list(TOOLS))
                calls.append({"tool_call_id": f"call_{counter:07d}", "name": tool, "arguments": TOOLS[tool](r)})
            roll = r.random()
            if roll < 0.002:                       # falsy id, answered by a result with the same id
                calls[0]["tool_call_id"] = r.choice(["0", "", 0])
            elif roll < 0.004 and counter > 10:    # an id declared a second time
                calls[0]["tool_call_id"] = f"call_{counter - 5:07d}"
            elif roll < 0.05:                      # OpenAI spelling: id + function, null content
                for c in calls:
                    c["id"] = c.pop("tool_call_id")
                    c["type"] = "function"
                    c["function"] = {"name": c.pop("name"), "arguments": json.dumps(c.pop("arguments"))}
            content = None if roll < 0.05 else r.choice(["", "", "Let me check. " + _words(r, 3, 10)])
            out.append({"role": "assistant", "content": content, "tool_calls": calls})
            for c in calls:
                cid = c.get("tool_call_id", c.get("id"))
                tool = c.get("name") or c["function"]["name"]
                fate = r.random()
                if fate < 0.006:                   # unanswered (crash mid-loop)
                    continue
                row = {"role": "tool", "content": _result(r, tool), "tool_call_id": cid}
                out.append(row)
                if fate < 0.012:                   # duplicate after a retry
                    out.append(dict(row))
            if r.random() < 0.006:                 # orphan (compaction cut its call)
                out.append({"role": "tool", "content": _result(r, "run_shell"), "tool_call_id": f"call_x{counter}"})
        out.append({"role": "assistant", "content": _words(r, 10, 60) + "."})
        if r.random() < 0.002:
            out.append(r.choice([None, "--- resumed ---", {"type": "checkpoint", "step": counter}]))
    del out[n:]
    return out


def data_path(n: int, seed: int) -> Path:
    return DATA / f"history-{n}-{seed}.json"


def write_data(n: int, seed: int) -> None:
    import orjson

    DATA.mkdir(parents=True, exist_ok=True)
    path = data_path(n, seed)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(orjson.dumps(build(n, seed)))  # compact, as stores and logs keep them
    os.replace(tmp, path)


def ensure_data(n: int, seed: int) -> Path:
    """Built in a child process, so this one stays small: on Linux a child's
    ``ru_maxrss`` starts from its parent's peak."""
    path = data_path(n, seed)
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--build", "--messages", str(n), "--seed", str(seed)], check=True)
    return path


def peak_rss_kb() -> int:
    """This process's own peak resident memory: VmHWM is per address space and starts
    afresh at exec, unlike ``ru_maxrss``, which a child inherits from its parent."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# --- measuring, each in a fresh process -----------------------------------------------

def _child(which: str, path: str, repeat: int) -> None:
    import orjson

    sys.path.insert(0, str(ROOT))
    from inspector.engine import normalize
    from inspector.io import dump_messages, parse_json, read_bytes

    best = cpu = float("inf")
    info = {}
    if which == "idle":
        print(json.dumps({"maxrss_kb": peak_rss_kb()}))
        return
    for _ in range(repeat):
        start, started = time.perf_counter(), time.process_time()
        if which == "orjson":
            data = orjson.loads(Path(path).read_bytes())
            out = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
            info = {"messages": len(data)}
        else:
            data = parse_json(read_bytes(path), path)
            result = normalize(data, copy=which == "copying")
            out = dump_messages(result.messages)
            info = {"messages": len(data), "out": len(result.messages), "dropped": result.dropped,
                    "events": len(result.events), "synthesized": result.synthesized}
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - started)
        info["bytes_out"] = len(out)
        del data, out
        if which != "orjson":
            del result
    info["seconds"] = best
    info["cpu"] = cpu
    info["maxrss_kb"] = peak_rss_kb()
    print(json.dumps(info))


def measure(which: str, path: Path, repeat: int) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", which, str(path), "--repeat", str(repeat)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def idle_rss() -> int:
    """Resident memory of a process that only imported what a measurement imports."""
    proc = subprocess.run([sys.executable, __file__, "--child", "idle", "-"], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)["maxrss_kb"]


def profile(path: Path) -> None:
    import cProfile
    import pstats

    sys.path.insert(0, str(ROOT))
    from inspector.engine import normalize
    from inspector.io import parse_json, read_bytes

    data = parse_json(read_bytes(path), str(path))
    prof = cProfile.Profile()
    prof.runcall(normalize, data, copy=False)   # as `inspector normalize` runs it
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3, help="best of N timings per measurement")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--build", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child", nargs=2, metavar=("WHICH", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], args.child[1], args.repeat)
        return 0
    if args.build:
        write_data(args.messages, args.seed)
        return 0

    started = time.perf_counter()
    path = ensure_data(args.messages, args.seed)
    print(f"history: {path.relative_to(ROOT)}: {args.messages:,} messages, "
          f"{path.stat().st_size / 1e6:.1f} MB (ready in {time.perf_counter() - started:.1f} s)")
    if args.profile:
        profile(path)
        return 0
    base = measure("orjson", path, args.repeat)
    ours = measure("normalize", path, args.repeat)
    copying = measure("copying", path, args.repeat)
    idle = idle_rss()
    ratio = ours["seconds"] / base["seconds"]
    print(f"normalize: {ours['out']:,} messages out, dropped {ours['dropped']}, "
          f"synthesized {ours['synthesized']}, {ours['events']:,} events")
    print(f"orjson load+dump:              {base['seconds']:.3f} s   peak RSS {base['maxrss_kb'] / 1024:.0f} MB")
    print(f"load+normalize+dump:           {ours['seconds']:.3f} s   peak RSS {ours['maxrss_kb'] / 1024:.0f} MB")
    print(f"ratio:                         {ratio:.2f}  (goal <= {GOAL}: {'met' if ratio <= GOAL else 'MISSED'})")
    print(f"CPU time (steadier on a shared machine): {base['cpu']:.3f} s vs {ours['cpu']:.3f} s   "
          f"ratio {ours['cpu'] / base['cpu']:.2f}")
    print(f"the same, result calls copied: {copying['seconds']:.3f} s   peak RSS {copying['maxrss_kb'] / 1024:.0f} MB"
          f"   ratio {copying['seconds'] / base['seconds']:.2f}  (normalize's default for API callers)")
    print(f"idle interpreter + imports:    peak RSS {idle / 1024:.0f} MB   (best of {args.repeat} runs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

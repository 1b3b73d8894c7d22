"""Benchmark of ``inspector batch`` on Parquet: throughput against a pyarrow-only read and
write of the same file, and peak memory as the number of rows grows.

Generates a chat dataset as Hugging Face datasets store one (an id, a ``messages`` list of
OpenAI chat messages with JSON-string arguments, a score), in row groups of ``--group``
rows, with the damage stored traces carry (results lost, written twice, orphaned) in about
a third of the rows; once with ``messages`` as a list of structs and once as JSON text.
For each size it measures, each as its own process:

- the floor: pyarrow reads every row group and writes it to a new file with the same
  codec (``ParquetFile.read_row_group`` + ``ParquetWriter.write_table``), nothing else;
- ``inspector batch IN.parquet -o OUT.parquet --workers N``;
- the peak memory of each (proportional resident memory summed over the process and its
  children, sampled every 50 ms; ``bench/batch.py``'s sampler).

Memory is bounded by a row group, not by the file: the goal is a peak that does not grow
from 1 to 4 million rows.

    python bench/parquet.py                              # 1 and 4 million rows, struct and text
    python bench/parquet.py --sizes 100000 --kinds text  # quicker
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from batch import compile_bytecode, footprint  # noqa: E402

WORDS = ("the order invoice customer weather forecast Lisbon Porto refund shipment database query "
         "result error timeout retry payment account session summary report status pending").split()


def text(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(lo, hi)))


def history(rng: random.Random, n: int) -> list[dict]:
    msgs: list[dict] = [{"role": "system", "content": text(rng, 10, 30)}]
    for turn in range(rng.randint(1, 3)):
        msgs.append({"role": "user", "content": text(rng, 5, 25)})
        ids = [f"call_{n}_{turn}_{k}" for k in range(rng.choice((0, 1, 1, 2)))]
        if ids:
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": i, "type": "function",
                 "function": {"name": rng.choice(("search", "sql")), "arguments": orjson.dumps({"q": text(rng, 1, 5)}).decode()}}
                for i in ids]})
            for i in ids:
                roll = rng.random()
                if roll < 0.12:
                    continue                                     # lost
                msgs.append({"role": "tool", "tool_call_id": i, "content": text(rng, 5, 40)})
                if roll > 0.92:
                    msgs.append({"role": "tool", "tool_call_id": i, "content": text(rng, 2, 5)})  # twice
        msgs.append({"role": "assistant", "content": text(rng, 5, 30)})
    if rng.random() < 0.1:
        msgs.insert(len(msgs) // 2, {"role": "tool", "tool_call_id": f"gone_{n}", "content": "orphan"})
    return msgs


def generate(path: Path, rows: int, group: int, as_text: bool, seed: int = 11) -> None:
    """``rows`` rows, one row group of ``group`` generated histories written again and again
    (with new ids), so that generating 4 million rows takes seconds and bounded memory."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed)
    pool = [history(rng, i) for i in range(group)]
    messages = pa.array([orjson.dumps(h).decode() for h in pool]) if as_text else pa.array(pool)
    scores = pa.array([round(rng.random(), 6) for _ in range(group)])
    schema = pa.schema([("id", pa.string()), ("messages", messages.type), ("score", pa.float64())],
                       metadata={b"huggingface": b'{"info": {"features": "bench"}}'})
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for first in range(0, rows, group):
            n = min(group, rows - first)
            ids = pa.array([f"row-{first + k}" for k in range(n)])
            writer.write_table(pa.table([ids, messages.slice(0, n), scores.slice(0, n)], schema=schema),
                               row_group_size=group)


def floor(src: str, dst: str) -> None:
    """pyarrow alone: every row group read and written again, with the input's codec."""
    import pyarrow.parquet as pq

    source = pq.ParquetFile(src)
    with pq.ParquetWriter(dst, source.schema_arrow, compression="zstd") as writer:
        for index in range(source.num_row_groups):
            table = source.read_row_group(index)
            writer.write_table(table, row_group_size=table.num_rows)


def measured(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (every process) and peak memory (MB of PSS summed over the
    command and its children, sampled every 50 ms) of one run: at millions of rows one run
    of each is what the time allows; the CPU seconds are what load on a shared machine
    does not inflate."""
    import resource

    import psutil

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = psutil.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, sum(footprint(p) for p in [proc, *proc.children(recursive=True)]))
        except psutil.NoSuchProcess:
            pass
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 4_000_000])
    parser.add_argument("--kinds", nargs="+", choices=("struct", "text"), default=["struct", "text"])
    parser.add_argument("--group", type=int, default=10_000, help="rows per row group (default 10,000)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1])
    parser.add_argument("--floor", nargs=2, metavar=("SRC", "DST"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        floor(*args.floor)
        return
    compile_bytecode()
    inspector = [sys.executable, "-m", "inspector", "batch"]
    with tempfile.TemporaryDirectory(prefix="bench-parquet-", dir=os.environ.get("BENCH_TMP")) as tmp:
        work = Path(tmp)
        for kind in args.kinds:
            for rows in args.sizes:
                data = work / f"{kind}-{rows}.parquet"
                start = time.perf_counter()
                generate(data, rows, args.group, kind == "text")
                mb = data.stat().st_size / 2**20
                print(f"\n{rows:,} rows, messages as {'JSON text' if kind == 'text' else 'structs'}: "
                      f"{mb:.1f} MB (zstd), row groups of {args.group:,} (generated in {time.perf_counter() - start:.0f} s)",
                      flush=True)
                out = str(work / "out.parquet")
                runs = [("pyarrow floor (read+write)", [sys.executable, __file__, "--floor", str(data), out])]
                runs += [(f"batch --workers {n}", inspector + [str(data), "-o", out, "--workers", str(n), "-q"])
                         for n in args.workers]
                figures = {}
                for label, cmd in runs:
                    seconds, cpu, peak = measured(cmd)
                    os.unlink(out)
                    figures[label] = seconds, cpu
                    print(f"  {label:<28} {seconds:8.2f} s  {rows / seconds:10,.0f} rows/s  cpu {cpu:7.2f} s  "
                          f"({rows / cpu:,.0f} rows per cpu-second)  peak memory {peak:7.1f} MB", flush=True)
                base = figures["pyarrow floor (read+write)"]
                for n in args.workers:
                    wall, cpu = figures[f"batch --workers {n}"]
                    print(f"  --workers {n} / floor: {wall / base[0]:.1f}x the time, {cpu / base[1]:.1f}x the cpu")
                data.unlink()


if __name__ == "__main__":
    main()

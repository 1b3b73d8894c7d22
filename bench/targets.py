"""Provider-check benchmark: is ``check --target`` linear in the calls of one turn?

Builds one history with a single assistant turn of ``--calls`` parallel calls (default
40,000), each answered by its own result, then a closing assistant text and a new user
question. For every target it times, best of ``--repeat``:

- ``normalize``: the engine on the flat messages (the yardstick);
- ``check``: the provider check on the engine's output, given the pipeline Outcome of the
  history read in the target's own format where there is one (so the native-block rules
  run too), else the flat messages;

and prints both times and their ratio. A linear check stays in the same order as
normalize at every size; a quadratic one grows with the size (issue #12: 30x at 40,000).

    python bench/targets.py                        # 40,000 calls, 3 repeats
    python bench/targets.py --calls 10000 40000    # two sizes, to see the growth
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.engine import normalize  # noqa: E402
from inspector.pipeline import run  # noqa: E402

TARGETS_WITH_FORMAT = {"openai-chat", "openai-responses", "anthropic", "bedrock", "gemini"}


def history(calls: int) -> list[dict]:
    ids = [f"c{k:08d}" for k in range(calls)]      # 9 characters: valid for every target
    msgs: list[dict] = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"},
                        {"role": "assistant", "content": "",
                         "tool_calls": [{"tool_call_id": i, "name": "f", "arguments": "{}"} for i in ids]}]
    msgs += [{"role": "tool", "content": "r", "tool_call_id": i} for i in ids]
    msgs += [{"role": "assistant", "content": "done"}, {"role": "user", "content": "next"}]
    return msgs


def checker():
    """``(subject, target) -> problems`` for whichever API this tree has."""
    try:
        from inspector.targets import TARGETS, check
    except ImportError:                                   # before the targets package
        from inspector.engine.targets import TARGETS, check_target

        return TARGETS, lambda outcome, target: check_target(outcome.result.messages, target)
    return TARGETS, check


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, nargs="+", default=[40_000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    targets, check = checker()
    print(f"{'calls':>8}  {'target':<17} {'normalize s':>11} {'check s':>9} {'ratio':>7}  problems")
    for n in args.calls:
        flat = history(n)
        norm = best(lambda: normalize(flat), args.repeat)
        flat_outcome = run(flat, "bench", "flat")
        for target in targets:
            outcome = flat_outcome
            if target in TARGETS_WITH_FORMAT:
                native = run(flat, "bench", "flat", to=target).exported
                outcome = run(native, "bench", target)
            found = check(outcome, target)
            took = best(lambda: check(outcome, target), args.repeat)
            print(f"{n:>8}  {target:<17} {norm:>11.3f} {took:>9.3f} {took / norm:>7.2f}  {len(found)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

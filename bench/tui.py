"""TUI benchmark: time to the first full screen and per stage switch, headless, on the
engine benchmark's 200,000-message history, next to `inspector normalize` on that file.

Both sides are measured from a fresh process launch, so both pay interpreter start and
imports: the base is `inspector normalize FILE -o OUT --from flat` (load, normalize,
dump; the format is named so that detection is not part of either side); the TUI
side launches a child that runs the app headless at 160x50 and reports when the loaded
diff is on screen. Then, in the same child, each stage key is pressed and timed until the
screen has processed it (`pilot.pause()`), cold (just after the first screen, while the
other stages are still being prepared in the background) and again warm; this includes
the test harness's own delay per key, printed separately, and the app's own share (the
handler plus painting the table and panes) is printed too. The report also says whether the
stage preparation was still running when the cold keys began (the harness waits for the
process to be idle after the first screen, so on a quiet machine it has finished), and
the load average around the run (other processes on the machine skew every figure).

    python bench/tui.py                    # 200,000 messages (bench/engine.py builds the file)
    python bench/tui.py --messages 20000   # quicker
    python bench/tui.py --edits-only       # only the playground's edit-to-screen figure

The playground's figure is taken on a history of 1,000 messages (``--edit-messages``): on
view 0, ``x`` deletes the selected entry and ``ctrl+z`` takes it back, alternately; each key
is timed until the screen shows the re-read, repaired history (the edit's worker has read
the native document again, every stage's result is installed, the table painted), and the
app's own share (key handled to history installed, without the harness) is printed too.

Goals: first screen at most 2x the normalize time; every stage switch under 0.2 s; an edit
on a 1,000-message history on screen within 0.1 s of its key.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIRST_SCREEN_GOAL = 2.0
SWITCH_GOAL = 0.2
EDIT_GOAL = 0.1
EDIT_KEYS = 20  # delete and ctrl+z, alternately
KEYS = ["1", "2", "3", "4", "0", "n", "n", "p", "3", "s", "d", "d", "s"]


def _child(path: str, launched: float) -> None:
    sys.path.insert(0, str(ROOT))
    from inspector.tui.app import make_app
    from textual.geometry import Region

    from inspector.tui.widgets.diff_table import DiffTable

    async def go() -> dict:
        app = make_app(path, fmt="flat")
        out: dict = {}
        async with app.run_test(size=(160, 50)) as pilot:
            while True:
                await pilot.pause(0.005)
                main = app.main
                if main.doc is not None and main.loading_source is None:
                    break
            await pilot.pause()  # one more refresh: the diff is painted
            table = main.query_one(DiffTable)
            assert table.row_count > 0
            out["first_screen"] = time.time() - launched
            # Whether the stage preparation (a worker thread) was still running when the cold
            # keys began: its CPU time delays every "processed screen" until it ends.
            out["preparing_at_cold"] = any(w.group == "warm" and not w.is_finished for w in app.workers)
            out["messages"] = len(main.doc.raw)
            out["events"] = len(main.doc.result.events)
            for label, keys in (("cold", KEYS), ("warm", KEYS)):
                times = []
                for key in keys:
                    start = time.perf_counter()
                    await pilot.press(key)
                    await pilot.pause()
                    times.append((key, time.perf_counter() - start, main.view))
                out[label] = times
                if label == "cold":  # let the background preparation finish before "warm"
                    await app.workers.wait_for_complete()
            # The harness's own cost per key: a key bound to nothing.
            start = time.perf_counter()
            for _ in range(5):
                await pilot.press("x")
                await pilot.pause()
            out["noop_key"] = (time.perf_counter() - start) / 5
            # The app's own cost of a switch: the handler, then painting every line of the table
            # and the panes it updated (what the next frame draws).
            direct = []
            for view in (1, 2, 3, 4, 0, 3):
                start = time.perf_counter()
                main.action_stage(view)
                for widget in (table, main.query_one("#details-body"), main.query_one("#journey-body")):
                    widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
                direct.append((str(view), time.perf_counter() - start, main.view))
            out["direct"] = direct
            start = time.perf_counter()
            await pilot.press("end")
            await pilot.pause()
            out["scroll_end"] = time.perf_counter() - start
            start = time.perf_counter()
            for _ in range(20):
                await pilot.press("pageup")
                await pilot.pause()
            out["page_key"] = (time.perf_counter() - start) / 20
            start = time.perf_counter()
            for _ in range(20):
                table.action_page(-1)
                table.render_lines(Region(0, 0, table.size.width, table.size.height))
            out["page_direct"] = (time.perf_counter() - start) / 20
        return out

    print(json.dumps(asyncio.run(go())))


def _edit_child(path: str) -> None:
    sys.path.insert(0, str(ROOT))
    from inspector.tui.app import make_app

    async def go() -> dict:
        app = make_app(path, fmt="flat")
        out: dict = {"keys": [], "app": []}
        async with app.run_test(size=(160, 50)) as pilot:
            main = app.main
            while main.doc is None or main.loading_source is not None:
                await pilot.pause(0.005)
            await app.workers.wait_for_complete()
            await pilot.press("0")
            await pilot.press("pagedown")
            await pilot.pause()
            out["messages"] = len(main.doc.raw)
            frames: list[float] = []
            paint = main._compositor_refresh

            def painted() -> None:  # when the screen's compositor renders a frame (what a terminal is sent)
                paint()
                frames.append(time.perf_counter())

            main._compositor_refresh = painted
            for k in range(EDIT_KEYS):
                shown = main.doc
                start = time.perf_counter()
                await pilot.press("delete" if k % 2 == 0 else "ctrl+z")
                while main.doc is shown or main.editing.pending is not None:
                    await pilot.pause(0.001)
                await pilot.pause()  # the frame that paints it
                out["keys"].append(time.perf_counter() - start)
                out["app"].append(main.timing.shown - main.timing.key)
                out.setdefault("to_handler", []).append(main.timing.key - start)
                out.setdefault("to_installed", []).append(main.timing.shown - start)
                out.setdefault("to_frame", []).append(next(f for f in frames if f >= main.timing.shown) - start)
                await pilot.pause(0.2)  # the verdicts and stage warm-up of this edit start 0.1 s after it
                await app.workers.wait_for_complete()
            out["edits"] = main.edits.describe()
            noop = []
            for _ in range(5):  # the harness's own cost of a key: one bound to nothing
                start = time.perf_counter()
                await pilot.press("f12")
                await pilot.pause()
                noop.append(time.perf_counter() - start)
            out["noop"] = sorted(noop)[2]
        return out

    print(json.dumps(asyncio.run(go())))


def _edit_run(path: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--edit-child", str(path)], capture_output=True, text=True,
                          check=True, cwd=ROOT, env={**os.environ, "TEXTUAL": ""})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _edits(messages: int, seed: int) -> bool:
    from engine import ensure_data

    path = ensure_data(messages, seed)
    run = _edit_run(path)
    keys, own = sorted(run["keys"]), sorted(run["app"])
    print(f"playground, {run['messages']:,} messages: edit to screen (delete / ctrl+z, key to painted screen), "
          f"{len(keys)} keys: median {keys[len(keys) // 2]:.3f} s, worst {keys[-1]:.3f} s "
          f"(the test harness's own waits included); app side only (key handled to history installed): median "
          f"{own[len(own) // 2]:.4f} s, worst {own[-1]:.4f} s")
    for label in ("to_handler", "to_installed", "to_frame"):
        t = sorted(run[label])
        print(f"  key press to {label[3:]}: median {t[len(t) // 2]:.3f} s, worst {t[-1]:.3f} s"
              + (f" (goal < {EDIT_GOAL}: the first frame rendered with the edited history)" if label == "to_frame" else ""))
    print(f"  harness cost of one key (a key bound to nothing, median of 5): {run['noop']:.3f} s")
    frame = sorted(run["to_frame"])
    return frame[-1] < EDIT_GOAL


def _normalize_seconds(path: Path, repeat: int) -> float:
    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "inspector", "normalize", str(path), "-o", str(out), "-q",
                            "--from", "flat"],
                           check=True, cwd=ROOT)
            best = min(best, time.perf_counter() - start)
    return best


def _tui_run(path: Path) -> dict:
    launched = time.time()
    proc = subprocess.run([sys.executable, __file__, "--child", str(path), repr(launched)],
                          capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "TEXTUAL": ""})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3, help="best of N for each side")
    ap.add_argument("--edit-messages", type=int, default=1_000)
    ap.add_argument("--edits-only", action="store_true", help="only the playground's edit-to-screen figure")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--edit-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], float(args.child[1]))
        return 0
    if args.edit_child:
        _edit_child(args.edit_child)
        return 0
    sys.path.insert(0, str(HERE))
    if args.edits_only:
        return 0 if _edits(args.edit_messages, args.seed) else 1
    from engine import ensure_data  # the engine benchmark's history, built once

    path = ensure_data(args.messages, args.seed)
    load_before = os.getloadavg()
    print(f"file: {path.relative_to(ROOT)} ({path.stat().st_size / 1e6:.1f} MB)")
    base = _normalize_seconds(path, args.repeat)
    runs = [_tui_run(path) for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["first_screen"])
    print(f"messages: {best['messages']:,}, events: {best['events']:,}")
    print(f"inspector normalize (process, load+normalize+dump): {base:.3f} s (best of {args.repeat})")
    first = best["first_screen"]
    print(f"TUI first full screen (process launch to loaded diff): {first:.3f} s (best of {args.repeat})")
    print(f"ratio first screen / normalize: {first / base:.2f} (goal <= {FIRST_SCREEN_GOAL})")
    worst = 0.0
    for label in ("cold", "warm"):
        steps = max((r[label] for r in runs), key=lambda t: max(s for _, s, _ in t))
        worst = max(worst, max(s for _, s, _ in steps))
        print(f"stage keys, {label} (key: seconds -> view), worst run: " +
              ", ".join(f"{k}: {s:.3f}->{v}" for k, s, v in steps))
    print(f"harness cost of one key (a key bound to nothing): {best['noop_key']:.3f} s")
    direct = max((r["direct"] for r in runs), key=lambda t: max(s for _, s, _ in t))
    print("stage switch, app side only (handler + painting table and panes): " +
          ", ".join(f"{k}: {s:.4f}" for k, s, _ in direct))
    print(f"slowest stage switch, key to processed screen: {worst:.3f} s (goal < {SWITCH_GOAL})")
    print(f"scroll to the last row (end key): {best['scroll_end']:.3f} s; page up, key to processed screen: "
          f"{best['page_key']:.3f} s per key, app side only: {best['page_direct']:.4f} s")
    busy = sum(r["preparing_at_cold"] for r in runs)
    print(f"stage preparation still running when the cold keys began: {busy} of {len(runs)} runs")
    print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}, after: {:.2f} {:.2f} {:.2f}".format(
        *load_before, *os.getloadavg()))
    edits_ok = _edits(args.edit_messages, args.seed)
    ok = first / base <= FIRST_SCREEN_GOAL and worst < SWITCH_GOAL and edits_ok
    print("goals met" if ok else "goals NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

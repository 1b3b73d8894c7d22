"""Do two revisions of Inspector give the same bytes? A check for restructurings.

    python bench/same_outputs.py BASE [OTHER]

BASE and OTHER are git revisions (OTHER defaults to the work tree as it is). Both are run
over the same inputs: every bundled sample, every body of tests/corpus, and the broken and
clean session files that the test builders in tests/sessions write. For each input the
CLI runs ``normalize`` (plain, ``--strict`` and ``--to`` every history format), ``explain
--json`` and ``check``; the exit code, standard output, standard error and the written file
are compared byte for byte. It prints how many cases ran and which differ, and exits 1 if
any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TO = ("flat", "openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")

# Runs inside one tree's interpreter: the CLI in-process, each call's output captured at the
# file-descriptor level, so whatever the CLI writes (text or bytes) is what is compared.
DRIVER = r'''
import hashlib, json, os, sys, tempfile
from inspector import cli
cases = json.loads(sys.stdin.read())
digest = {}
for name, argv, out in cases:
    if out and os.path.exists(out):
        os.remove(out)
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as o, tempfile.TemporaryFile() as e:
        sys.stdout.flush(); sys.stderr.flush()
        os.dup2(o.fileno(), 1); os.dup2(e.fileno(), 2)
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:
            code = f"raised {type(exc).__name__}"
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2)
            os.close(saved[0]); os.close(saved[1])
        o.seek(0); e.seek(0)
        written = open(out, "rb").read() if out and os.path.exists(out) else b""
        digest[name] = [code, hashlib.sha256(o.read()).hexdigest(), hashlib.sha256(e.read()).hexdigest(),
                        hashlib.sha256(written).hexdigest()]
print(json.dumps(digest))
'''


def build_inputs(folder: Path) -> list[Path]:
    """Copies of the samples and the corpus, and the session files the test builders write."""
    files: list[Path] = []
    for src in sorted((ROOT / "samples").glob("[0-9]*")):
        shutil.copy(src, folder / src.name)
        files.append(folder / src.name)
    for src in sorted((ROOT / "tests" / "corpus").rglob("*.json")):
        if src.name == "SOURCES.json":
            continue
        dst = folder / f"corpus-{src.parent.name}-{src.name}"
        shutil.copy(src, dst)
        files.append(dst)
    sys.path.insert(0, str(ROOT / "tests"))
    from sessions import agents_builder, codex_builder, gemini_builder, scenarios  # noqa: PLC0415
    for module, suffix in ((scenarios, ".jsonl"), (codex_builder, ".jsonl"), (gemini_builder, ".json")):
        for name, fn in vars(module).items():
            if callable(fn) and getattr(fn, "__module__", "") == module.__name__ and not name.startswith("_"):
                try:
                    data = fn()
                except TypeError:
                    continue
                if isinstance(data, bytes):
                    path = folder / f"{module.__name__.split('.')[-1]}-{name}{suffix}"
                    path.write_bytes(data)
                    files.append(path)
    for name in ("orphan_output", "clean"):
        files.append(agents_builder.make(folder / f"agents-{name}.db", {"s1": getattr(agents_builder, name)()}))
    return files


def cases(files: list[Path]) -> list[list]:
    out = []
    for f in files:
        n = f.name
        o = f"out/{n}.out"
        out.append([f"{n} normalize", ["normalize", n, "-o", o], o])
        out.append([f"{n} normalize --strict", ["normalize", n, "--strict", "-o", o], o])
        for to in TO:
            out.append([f"{n} normalize --to {to}", ["normalize", n, "--to", to, "-o", o], o])
        out.append([f"{n} explain --json", ["explain", n, "--json"], None])
        out.append([f"{n} check", ["check", n], None])
    return out


def run_tree(tree: Path, workdir: Path, todo: list[list]) -> dict[str, list]:
    (workdir / "out").mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-c", DRIVER], input=json.dumps(todo), cwd=workdir, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the driver failed in {tree}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def checkout(rev: str, into: Path) -> Path:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(into), rev], check=True,
                   capture_output=True)
    return into


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("other", nargs="?", help="a revision (default: the work tree as it is)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        inputs = tmp_path / "inputs"
        inputs.mkdir()
        todo = cases(build_inputs(inputs))
        trees = [checkout(args.base, tmp_path / "base")]
        trees.append(checkout(args.other, tmp_path / "other") if args.other else ROOT)
        try:
            a, b = (run_tree(t, inputs, todo) for t in trees)
        finally:
            for t in trees:
                if t != ROOT:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(t)],
                                   capture_output=True)
    differ = [name for name in a if a[name] != b.get(name)]
    files = len({c[0].split(" ")[0] for c in todo})
    print(f"{len(todo):,} cases over {files} inputs: {len(todo) - len(differ):,} identical, {len(differ):,} differ")
    for name in differ[:40]:
        print(f"  differs: {name}: {a[name][0]} vs {b.get(name, ['missing'])[0]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

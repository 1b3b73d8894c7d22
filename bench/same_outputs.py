"""Do two source trees write the same bytes? For a change that must not change behaviour.

Runs ``normalize -o -`` and ``explain --json``, each with and without ``--strict``, on every
bundled sample, every corpus file and any file named on the command line, once per tree
(each tree in a child process of its own), and compares exit codes, standard output and
standard error byte for byte.

    python bench/same_outputs.py /work/main               # this tree against main
    python bench/same_outputs.py /work/main bench/data/history-200000-5.json
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = (("normalize", "-o", "-"), ("normalize", "-o", "-", "--strict"), ("explain", "--json"),
            ("explain", "--json", "--strict"))


def inputs(extra: list[str]) -> list[str]:
    samples = sorted(p for p in (ROOT / "samples").iterdir() if p.is_file())
    corpus = sorted(p for p in (ROOT / "tests" / "corpus").rglob("*")
                    if p.is_file() and p.suffix in (".json", ".jsonl", ".sqlite", ".db"))
    return [str(p) for p in (*samples, *corpus)] + [str(Path(e).resolve()) for e in extra]


def child(files: list[str]) -> None:
    """In the tree under test: a digest of what every command writes, one line per run."""
    import inspector
    from inspector import cli

    print(json.dumps(str(Path(inspector.__file__).resolve().parent.parent)))   # the tree really run
    for f in files:
        for command in COMMANDS:
            out, err = io.BytesIO(), io.StringIO()
            text = io.TextIOWrapper(out, encoding="utf-8")
            with contextlib.redirect_stdout(text), contextlib.redirect_stderr(err):
                try:
                    code = cli.main([command[0], f, *command[1:]])
                except SystemExit as exc:
                    code = exc.code
            text.flush()
            digest = hashlib.sha256(out.getvalue()).hexdigest()
            print(json.dumps([" ".join((command[0], f, *command[1:])), code, digest, err.getvalue()]))


def run(tree: Path, files: list[str]) -> list[str]:
    proc = subprocess.run([sys.executable, __file__, "--child", *files], capture_output=True, text=True,
                          check=True, env={"PYTHONPATH": str(tree), "PATH": ""}, cwd=tree)
    ran, *lines = proc.stdout.splitlines()
    if Path(json.loads(ran)) != tree:
        raise SystemExit(f"{tree}: the child imported inspector from {json.loads(ran)}")
    return lines


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
        return 0
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    files = inputs(sys.argv[2:])
    theirs, ours = run(Path(sys.argv[1]).resolve(), files), run(ROOT, files)
    differ = [json.loads(a)[0] for a, b in zip(theirs, ours) if a != b]
    print(f"{len(files)} files, {len(ours)} runs: {len(differ)} differ")
    for name in differ[:20]:
        print("  " + name)
    return 1 if differ or len(theirs) != len(ours) else 0


if __name__ == "__main__":
    sys.exit(main())

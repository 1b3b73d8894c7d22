"""Run every command on one file, in-process, and check what any input must leave true.

The invariants (issue 12): the exit status is 0, 1 or 2 and nothing else; an error is one
line on standard error that names the file, never a traceback; normalize's output is a
fixed point (``check`` on it, read in the output's format, exits 0); the input file is
never touched. Each call of :func:`run_every_command` counts its command runs in ``RUNS``.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
from collections import Counter
from pathlib import Path

import pytest

from inspector import cli
from inspector.formats import FORMATS
from inspector.io import InputError
from inspector.pipeline import run_file

RUNS: Counter = Counter()  # command runs per suite, reported at the end of the session
TALLIES: Counter = Counter()  # other counts a suite reports (rows written meanwhile, how kills ended)

# Every command and option set a script would use. ``--to`` each format, ``same`` too.
NORMALIZE = [[], ["--strict"], *(["--to", fmt] for fmt in FORMATS), ["--compact", "--strict", "--to", "same"]]
REPORTS = [["explain"], ["explain", "--json"], ["explain", "--strict"], ["check"], ["check", "--strict"]]


def cli_run(*argv: str) -> tuple[int, bytes, str]:
    """``inspector ARGV`` in this process: exit status, standard output, standard error."""
    out = io.BytesIO()
    text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    err = io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:  # argparse: a usage error
            code = exc.code
    text.flush()
    return code, out.getvalue(), err.getvalue()


def assert_clean_failure(code: int, err: str, name: str, argv) -> None:
    assert code == 2, (argv, code, err)
    lines = err.splitlines()
    assert len(lines) == 1, (argv, err)
    assert "Traceback" not in err and "Error:" not in lines[0].split(": ", 1)[0], (argv, err)
    assert lines[0].startswith(name), (argv, err)


def output_format(path: Path, args: list[str], fmt: str) -> str:
    """The format normalize wrote: ``--to``'s, or the input's own for ``same``."""
    if "--to" in args and args[args.index("--to") + 1] != "same":
        return args[args.index("--to") + 1]
    return run_file(path, fmt).imported.format


def run_every_command(path: Path, suite: str, fmt: str = "auto") -> None:
    """Every command on ``path``; assert the invariants. ``fmt`` is passed as ``--from``."""
    name = str(path)
    before = path.read_bytes(), os.stat(path).st_mtime_ns
    source = ["--from", fmt] if fmt != "auto" else []
    work = path.parent / "out"
    work.mkdir(exist_ok=True)
    for i, args in enumerate(NORMALIZE):
        out = work / f"{path.stem}.{i}.json"
        argv = ["normalize", name, "-q", "-o", str(out), *args, *source]
        code, stdout, err = cli_run(*argv)
        RUNS[suite] += 1
        if code != 0:
            assert_clean_failure(code, err, name, argv)
            assert not out.exists()
            continue
        assert stdout == b"" and err == "", (argv, err)
        # The output is a fixed point: check, in the output's own format, finds nothing.
        written = output_format(path, args, fmt)
        strict = ["--strict"] if "--strict" in args else []
        code, report, err = cli_run("check", str(out), "--from", written, *strict)
        RUNS[suite] += 1
        assert code == 0, (argv, written, report.decode(), err)
    for args in REPORTS:
        argv = [*args, name, *source]
        code, stdout, err = cli_run(*argv)
        RUNS[suite] += 1
        if code == 2:
            assert_clean_failure(code, err, name, argv)
        else:
            assert code in ((0, 1) if args[0] == "check" else (0,)), (argv, code, err)
            assert "Traceback" not in err
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before, "the input was touched"


def imports(path: Path, fmt: str = "auto") -> bool:
    try:
        run_file(path, fmt)
    except InputError:
        return False
    return True


DEVICES = {"null": 3, "full": 7}  # Linux's memory devices: minor numbers under major 1


def private_device(folder: Path, name: str) -> Path:
    """A private twin of /dev/null or /dev/full in ``folder`` where this user may create
    device nodes (root): a test never writes to the system's own, which other programs
    share and a regression could replace. Others cannot replace /dev files, so they get
    the system's device (or a skip where there is none)."""
    node = folder / name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, DEVICES[name]))
        os.close(os.open(node, os.O_WRONLY))  # a file system mounted nodev refuses this
        return node
    except OSError:
        node.unlink(missing_ok=True)
    system = Path("/dev") / name
    if not system.exists() or not stat.S_ISCHR(os.stat(system).st_mode) or os.access("/dev", os.W_OK):
        pytest.skip(f"no safe {name} device here")
    return system

"""One command line: shared options defined once, one set of exit codes, one error printer."""

from __future__ import annotations

import io

import pytest

from inspector import cli
from inspector.cli_options import (
    EXIT_ERROR, EXIT_INTERRUPTED, Parser, from_option, print_error, strict_option, to_option,
)
from inspector.formats import REGISTRY
from inspector.io import InputError, JSONWriteError, dump_messages


def _choices(parser, dest):
    return next(a.choices for a in parser._actions if a.dest == dest)


def _subparsers(parser):
    return next(a for a in parser._actions if a.dest == "command").choices


def test_every_command_takes_the_shared_options_from_one_definition():
    subs = _subparsers(cli.build_parser())
    for name in ("normalize", "explain", "check"):
        assert _choices(subs[name], "fmt") == ("auto", *REGISTRY)
    for name in ("normalize", "explain"):
        assert _choices(subs[name], "to") == ("same", *REGISTRY)
    for name in ("normalize", "explain", "check"):
        assert any(a.dest == "strict" for a in subs[name]._actions)
    launcher = Parser(prog="x", parents=[from_option(), to_option(), strict_option()])
    args = launcher.parse_args(["--from", "gemini", "--to", "flat", "--strict"])
    assert (args.fmt, args.to, args.strict) == ("gemini", "flat", True)


def test_usage_errors_exit_2_with_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.build_parser().parse_args(["normalize", "--from", "klingon", "x.json"])
    assert stop.value.code == EXIT_ERROR
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("inspector normalize: error:")


def test_the_error_printer_prints_one_line_and_returns_the_exit_code():
    out = io.StringIO()
    assert print_error(InputError("h.json", "unexpected character", 3, 14), stream=out) == EXIT_ERROR
    assert out.getvalue() == "h.json:3:14: unexpected character\n"
    out = io.StringIO()
    try:
        dump_messages([{1j: 1}])
    except JSONWriteError as exc:
        assert print_error(exc, "big.json", stream=out) == EXIT_ERROR
    assert out.getvalue().startswith("big.json: cannot write the result as JSON:")
    assert print_error(KeyboardInterrupt(), stream=io.StringIO()) == EXIT_INTERRUPTED
    with pytest.raises(ZeroDivisionError):
        print_error(ZeroDivisionError("a bug"), stream=io.StringIO())


def test_batch_offers_only_formats_that_fit_on_one_line():
    """A session file format (JSONL, SQLite) cannot be one record of a JSONL output."""
    import subprocess
    import sys

    def batch(*args):
        return subprocess.run([sys.executable, "-m", "inspector", "batch", *args], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=60)

    refused = batch("-", "-o", "out.jsonl", "--to", "claude-code")
    assert refused.returncode == 2 and "invalid choice: 'claude-code'" in refused.stderr
    assert "anthropic" in batch("--help").stdout

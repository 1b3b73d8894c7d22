"""`inspector --help` shows the TUI's own options (the TUI is no subcommand, so argparse would
not), and every subcommand's help ends with one example that its parser accepts."""

from __future__ import annotations

import re
import shlex

import pytest

from inspector import cli


def _help(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_the_top_help_names_every_option_of_the_tui_and_where_to_read_more(capsys):
    text = _help(capsys, ["--help"])
    flags = [a.option_strings[-1] for a in cli.tui_parser()._actions if a.option_strings and a.dest != "help"]
    assert {"--target", "--watch", "--session", "--strict", "--reasoning", "--from"} <= set(flags)
    for flag in flags:
        assert re.search(rf"^  {flag}\b", text, flags=re.M), flag
    assert "'inspector FILE --help'" in text


def test_file_help_is_the_tuis_own(capsys):
    text = _help(capsys, ["history.json", "--help"])
    assert "--watch" in text and "--target" in text and "example:" in text


def _example(text: str) -> list[str]:
    example = text.rsplit("example:\n", 1)[1].strip().splitlines()[0]
    return shlex.split(example.split("  #")[0])


@pytest.mark.parametrize("command", cli.COMMANDS)
def test_each_subcommand_shows_one_example_its_parser_accepts(capsys, command):
    words = _example(_help(capsys, [command, "--help"]))
    assert words[:2] == ["inspector", command], words
    args = cli.build_parser().parse_args(words[1:])
    assert args.command == command


def test_the_tui_example_parses(capsys):
    words = _example(_help(capsys, ["--help"]))
    assert words[0] == "inspector" and cli.tui_parser().parse_args(words[1:]).file

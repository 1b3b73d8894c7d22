"""The command line: thin views of the engine's result.

``inspector FILE`` (or no file, or ``-``) opens the TUI; ``normalize``, ``explain`` and
``check`` are for scripts and pipelines. User errors print one line and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

import orjson

from . import __version__
from .engine import CLAUSES, KINDS, RULE_ID, RULE_SOURCE, STAGES, Result, normalize
from .formats import FORMATS, import_history
from .io import InputError, atomic_write, display_name, dump_messages, load_json

EXIT_OK, EXIT_CHANGED, EXIT_ERROR = 0, 1, 2
COMMANDS = ("normalize", "explain", "check")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors exit 2 with one line, like input errors
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="inspector",
        description=f"Repair LLM conversation histories by {RULE_ID} and show why every change happened.",
        epilog="Run 'inspector FILE' (or 'inspector' alone for the bundled samples) to open the TUI.",
    )
    parser.add_argument("--version", action="version", version=f"inspector {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def source(p: argparse.ArgumentParser) -> None:
        p.add_argument("--from", dest="fmt", default="auto", choices=("auto", *FORMATS),
                       help="input format (default: detect)")

    p = sub.add_parser("normalize", help="write the normalized history as JSON")
    p.add_argument("file", metavar="FILE|-", help="history file, or - for standard input")
    p.add_argument("-o", "--output", metavar="OUT", help="write here (atomically) instead of stdout")
    p.add_argument("--compact", action="store_true", help="one line, no indentation")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    source(p)

    p = sub.add_parser("explain", help="report every change, stage by stage, with its clause")
    p.add_argument("file", metavar="FILE|-")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    source(p)

    p = sub.add_parser("check", help="exit 1 if normalizing would change any file, 0 if none")
    p.add_argument("files", metavar="FILE", nargs="+")
    source(p)
    return parser


def _load(path: str, fmt: str) -> tuple[list[Any], Result]:
    document = load_json(path)
    imported = import_history(document, display_name(path), fmt)
    return imported.messages, normalize(imported.messages)


def summary(result: Result) -> str:
    return f"dropped {result.dropped}, synthesized {result.synthesized}, moved {result.moved}"


def cmd_normalize(args: argparse.Namespace) -> int:
    _, result = _load(args.file, args.fmt)
    data = dump_messages(result.messages, compact=args.compact)
    if args.output and args.output != "-":
        atomic_write(args.output, data, inputs=(args.file,))
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    if not args.quiet:
        print(summary(result), file=sys.stderr)
    return EXIT_OK


def explain_json(result: Result) -> dict[str, Any]:
    return {
        "dropped": result.dropped,
        "messages": result.messages,
        "events": [e.to_dict() for e in result.events],
        "stages": [{"name": s.name, "messages": s.messages, "origins": s.origins} for s in result.stages],
    }


def explain_text(name: str, messages: list[Any], result: Result) -> str:
    lines = [
        f"{name}: {len(messages)} in, {len(result.messages)} out; {summary(result)}",
        f"rule: {RULE_ID} ({RULE_SOURCE})",
    ]
    for stage in result.stages:
        clause = CLAUSES[str(STAGES.index(stage.name) + 1)]
        lines.append("")
        lines.append(f"{stage.name} (clause {clause.number}: {clause.title}): "
                     f"{len(stage.events) or 'no'} event{'s' if len(stage.events) != 1 else ''}")
        for e in stage.events:
            where = "new row" if e.origin is None else f"#{e.origin}"
            tag = "drop" if e.drop else KINDS[e.kind].label if e.kind in KINDS else "note"
            lines.append(f"  {where:>7}  ({e.clause}) {e.kind:<22} [{tag}] {e.message}")
    return "\n".join(lines) + "\n"


def cmd_explain(args: argparse.Namespace) -> int:
    messages, result = _load(args.file, args.fmt)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(explain_json(result), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        sys.stdout.write(explain_text(display_name(args.file), messages, result))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    worst = EXIT_OK
    for path in args.files:
        try:
            messages, result = _load(path, args.fmt)
        except InputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            worst = EXIT_ERROR
            continue
        if result.messages == messages and not result.events:
            print(f"{display_name(path)}: ok, nothing to change")
        else:
            print(f"{display_name(path)}: would change: {summary(result)}, "
                  f"{len(result.events)} event{'s' if len(result.events) != 1 else ''}")
            worst = max(worst, EXIT_CHANGED)
    return worst


HANDLERS = {"normalize": cmd_normalize, "explain": cmd_explain, "check": cmd_check}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        return run_tui(argv)
    args = build_parser().parse_args(argv)
    try:
        return HANDLERS[args.command](args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def run_tui(argv: list[str]) -> int:
    parser = _Parser(prog="inspector", description="Open the inspection TUI on FILE, standard input (-), "
                     "or the gallery of bundled samples when no file is given.")
    parser.add_argument("file", nargs="?", metavar="FILE|-")
    args = parser.parse_args(argv)
    from .tui.app import run  # textual is imported only for the TUI

    return run(args.file)

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
from .engine import RULE_ID, RULE_SOURCE, STAGES, Result
from .engine.rule import CLAUSE_BY_STAGE
from .engine.strict import ALL_KINDS, STRICT_CLAUSES
from .engine.targets import TARGETS as CHECK_TARGETS, check_target
from .formats import FORMATS, SESSION_FORMATS, TARGETS as EXPORT_FORMATS, Imported, export_history
from .io import InputError, atomic_write, display_name
from .pipeline import run_file

EXIT_OK, EXIT_CHANGED, EXIT_ERROR = 0, 1, 2
COMMANDS = ("normalize", "explain", "check", "batch")


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
        p.add_argument("--from", dest="fmt", default="auto", choices=("auto", *FORMATS, *SESSION_FORMATS),
                       help="input format (default: detect)")
        p.add_argument("--session", metavar="ID", help="the session to read in a file that holds several "
                       "(an Agents SDK SQLite database)")

    p = sub.add_parser("normalize", help="write the normalized history as JSON")
    p.add_argument("file", metavar="FILE|-", help="history file, or - for standard input")
    p.add_argument("-o", "--output", metavar="OUT", help="write here (atomically) instead of stdout; a session "
                   "file goes to NAME.repaired.jsonl beside it unless -o is given (-o - for stdout)")
    p.add_argument("--in-place", action="store_true",
                   help="session files: replace the input atomically, keeping it as NAME.bak")
    p.add_argument("--compact", action="store_true", help="one line, no indentation")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    p.add_argument("--to", default="same", choices=EXPORT_FORMATS,
                   help="output format (default: same as the input)")
    p.add_argument("--strict", action="store_true",
                   help="also move separated results next to their calls and drop early ones (beyond MEM-5)")
    source(p)

    p = sub.add_parser("explain", help="report every change, stage by stage, with its clause")
    p.add_argument("file", metavar="FILE|-")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.add_argument("--strict", action="store_true", help="add the strict stage (beyond MEM-5)")
    source(p)

    p = sub.add_parser("check", help="exit 1 if normalizing would change any file, 0 if none")
    p.add_argument("files", metavar="FILE", nargs="+", help="files, or folders searched for session files")
    p.add_argument("--target", choices=CHECK_TARGETS,
                   help="also list what this provider would still reject after normalizing")
    p.add_argument("--strict", action="store_true", help="check the strict output (beyond MEM-5)")
    source(p)

    from .batch.cli import add_parser as add_batch_parser

    add_batch_parser(sub)
    return parser


def _import(path: str, fmt: str, strict: bool = False, session: str | None = None) -> tuple[Imported, Result]:
    outcome = run_file(path, fmt, strict=strict, session=session)
    return outcome.imported, outcome.result


def summary(result: Result) -> str:
    return f"dropped {result.dropped}, synthesized {result.synthesized}, moved {result.moved}"


def cmd_normalize(args: argparse.Namespace) -> int:
    from .sessions import in_place, session_output

    if args.in_place and (args.output or args.file == "-"):
        raise InputError(display_name(args.file), "--in-place needs a file and no -o")
    outcome = run_file(args.file, args.fmt, args.to, args.strict, args.compact, args.session)
    result, data = outcome.result, outcome.data
    output = args.output or session_output(args.file, outcome)
    if args.in_place:
        backup = in_place(args.file, outcome)
        if not args.quiet:
            print(f"{display_name(args.file)}: replaced; the original is kept as {backup}", file=sys.stderr)
    elif output and output != "-":
        atomic_write(output, data, inputs=(args.file,))
        if not args.quiet and not args.output:
            print(f"wrote {output}", file=sys.stderr)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    if not args.quiet:
        print(summary(result), file=sys.stderr)
        for note in outcome.imported.extra.get("export-notes", ()):
            print(f"  {note[1]}", file=sys.stderr)
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
        if stage.name in STAGES:
            clause = CLAUSE_BY_STAGE[stage.name]
            title = f"clause {clause.number}: {clause.title}"
        else:
            title = f"Inspector's extension beyond MEM-5, clauses {', '.join(STRICT_CLAUSES)}"
        lines.append("")
        lines.append(f"{stage.name} ({title}): "
                     f"{len(stage.events) or 'no'} event{'s' if len(stage.events) != 1 else ''}")
        for e in stage.events:
            where = "new row" if e.origin is None else f"#{e.origin}"
            known = ALL_KINDS.get(e.kind)
            tag = "drop" if e.drop else known.label if known else "note"
            lines.append(f"  {where:>7}  ({e.clause}) {e.kind:<22} [{tag}] {e.message}")
    return "\n".join(lines) + "\n"


def cmd_explain(args: argparse.Namespace) -> int:
    imported, result = _import(args.file, args.fmt, args.strict, args.session)
    messages = imported.messages
    if args.json:
        report = explain_json(result)
        report["format"] = imported.format
        report["import"] = import_json(imported)
        sys.stdout.buffer.write(orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        text = explain_text(display_name(args.file), messages, result)
        if imported.format != "flat":
            text = import_text(imported) + text
        sys.stdout.write(text)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from .sessions import each_session, expand, why

    worst = EXIT_OK
    for path, session, label in each_session(expand(args.files), args.session):
        try:
            imported, result = _import(path, args.fmt, args.strict, session)
        except InputError as exc:
            print(exc, file=sys.stderr)
            worst = EXIT_ERROR
            continue
        if unchanged(imported, result):
            print(f"{label}: ok, nothing to change")
        else:
            print(f"{label}: would change: {summary(result)}, "
                  f"{len(result.events)} event{'s' if len(result.events) != 1 else ''}{why(imported, result)}")
            worst = max(worst, EXIT_CHANGED)
        if args.target:
            problems = check_target(result.messages, args.target)
            worst = max(worst, EXIT_CHANGED if problems else EXIT_OK)
            print(target_text(display_name(path), args.target, imported, result, problems), end="")
    return worst


def cmd_batch(args: argparse.Namespace) -> int:
    from .batch.cli import run

    return run(args)


def unchanged(imported: Imported, result: Result) -> bool:
    """Nothing to change: no event, and the output in the input's own format equals the input."""
    if result.events:
        return False
    if imported.format == "flat":
        return result.messages == imported.messages
    return export_history(imported, result) == imported.document


def import_json(imported: Imported) -> dict[str, Any]:
    """The import step: which original message each flat message came from."""
    return {
        "format": imported.format,
        "notes": imported.notes,
        "sources": [imported.where(i) for i in range(len(imported.messages))],
        "events": [e.to_dict() for e in imported.events],
    }


def import_text(imported: Imported) -> str:
    lines = [f"import ({imported.format}): {len(imported.messages)} flat messages"]
    lines += [f"  note: {n}" for n in imported.notes]
    for i in range(len(imported.messages)):
        lines.append(f"  #{i:<5} <- {imported.where(i)}")
    for e in imported.events:
        lines.append(f"  #{e.origin}  ({e.clause}) {e.kind} {_printable(e.message)}")
    return "\n".join(lines) + "\n\n"


def _printable(text: str) -> str:
    """Ids inside provider error texts are data: escape control characters for the terminal."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def target_text(name: str, target: str, imported: Imported, result: Result, problems: list) -> str:
    if not problems:
        return f"{name}: {target} would accept it after normalizing\n"
    lines = [f"{name}: {target} would still reject {len(problems)} thing{'s' if len(problems) != 1 else ''}:"]
    for p in problems:
        origin = result.origins[p.index] if p.index < len(result.origins) else None
        where = f"from {imported.where(origin)}" if origin is not None else "a synthesized row"
        lines.append(f"  #{p.index} ({where}) [{p.rule}]{' (--strict repairs)' if p.strict else ''}")
        lines.append(f"    error: {_printable(p.error)}")
        lines.append(f"    fix: {p.fix}")
    return "\n".join(lines) + "\n"


HANDLERS = {"normalize": cmd_normalize, "explain": cmd_explain, "check": cmd_check, "batch": cmd_batch}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        return run_tui(argv)
    args = build_parser().parse_args(argv)
    try:
        return HANDLERS[args.command](args)
    except InputError as exc:
        print(exc, file=sys.stderr)
        return EXIT_ERROR
    except orjson.JSONEncodeError as exc:
        # orjson reads deeper nesting than it writes: say so instead of a traceback.
        print(f"{display_name(getattr(args, 'file', '-'))}: cannot write the result as JSON: {exc}",
              file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def run_tui(argv: list[str]) -> int:
    parser = _Parser(prog="inspector", description="Open the inspection TUI on FILE, standard input (-), "
                     "or the gallery of bundled samples when no file is given.")
    parser.add_argument("file", nargs="?", metavar="FILE|-")
    parser.add_argument("--from", dest="fmt", default="auto", choices=("auto", *FORMATS, *SESSION_FORMATS),
                        help="input format (default: detect)")
    parser.add_argument("--strict", action="store_true",
                        help="start with the strict stage on (an extension beyond MEM-5; t toggles it)")
    args = parser.parse_args(argv)
    from .tui.app import run  # textual is imported only for the TUI

    return run(args.file, fmt=args.fmt, strict=args.strict)

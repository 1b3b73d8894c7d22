"""The command line: thin views of the engine's result.

``inspector FILE`` (or no file, or ``-``) opens the TUI; ``normalize``, ``explain`` and
``check`` are for scripts and pipelines. User errors print one line and exit 2.
"""

from __future__ import annotations

import argparse
import gc
import re
import sys
import textwrap
from contextlib import nullcontext
from typing import Any, Sequence

import orjson

from . import __version__
from .cli_options import (
    EXIT_CHANGED, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, Parser, from_option, print_error, reasoning_option,
    strict_option, to_option,
)
from .engine import (
    CLAUSES, DROP_COUNT_NOTE, KNOWN_LIMITS, KNOWN_LIMITS_FIX, RULE_ID, RULE_SOURCE, RULE_SPEC, RULE_TITLE,
    STAGE_BY_NAME, Event, Result, gc_paused, kind,
)
from .formats import Imported, has_import_step
from .io import InputError, atomic_write, display_name, dumps, printable
from .pipeline import Outcome, as_written_for, run_file
from .process import mend_closed_streams, silence_stdout, terminated_cleanly
from .targets import TARGETS as CHECK_TARGETS, check as check_target, check_template, failed as target_failed
from .targets import load_template

COMMANDS = ("normalize", "explain", "check", "doctor", "batch", "serve", "learn", "why", "share")

__all__ = ["COMMANDS", "EXIT_CHANGED", "EXIT_ERROR", "EXIT_OK", "build_parser", "entry", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="inspector",
        description=f"Repair LLM conversation histories by {RULE_ID} and show why every change happened.",
        epilog=tui_summary(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"inspector {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser("normalize", help="write the normalized history as JSON",
                       parents=[from_option(), to_option(), strict_option(), reasoning_option()])
    p.add_argument("file", metavar="FILE|-", help="history file, or - for standard input")
    p.add_argument("-o", "--output", metavar="OUT", help="write here (atomically) instead of stdout; a session "
                   "file or database goes beside it as NAME.repaired.EXT unless -o is given (-o - for stdout)")
    p.add_argument("--in-place", action="store_true",
                   help="session files: replace the input atomically, keeping it as NAME.bak")
    p.add_argument("--even-if-agent-repairs", action="store_true",
                   help="write Inspector's repair beside a session even where the agent repairs every case itself "
                        "on resume (by default nothing is written then, and the exit is 0)")
    session_option(p)
    p.add_argument("--compact", action="store_true", help="one line, no indentation")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")

    p = sub.add_parser("explain", help="report every change, stage by stage, with its clause",
                       parents=[from_option(), to_option(), strict_option(), reasoning_option()])
    p.add_argument("file", metavar="FILE|-", nargs="?")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.add_argument("--rule", action="store_true",
                   help="print MEM-5 itself, clause by clause, and its known limits, in this project's words")
    session_option(p)

    p = sub.add_parser("check", help="exit 1 if normalizing would change any file, 0 if none",
                       parents=[from_option(), strict_option(), reasoning_option()])
    p.add_argument("files", metavar="FILE", nargs="+", help="files, or folders searched for history and session files (a file there that holds no history is passed over and named)")
    session_option(p)
    p.add_argument("--target", choices=CHECK_TARGETS,
                   help="also list what this provider would still reject after normalizing; exit 1 on an "
                        "error, while warnings are printed but do not fail")
    p.add_argument("--model", metavar="MODEL",
                   help="the model the history is sent to (default: the one a session last ran on, where its store "
                        "records it); a session resumed with another model than the one that signed its reasoning "
                        "is reported")
    p.add_argument("--template", metavar="PATH",
                   help="also render the history with this chat template (a Jinja file or a tokenizer_config.json) "
                        "as transformers does, and report what it raises; exit 1 if it raises")
    p.add_argument("--json", action="store_true",
                   help="one JSON object a line per history checked: what MEM-5 changes and the resume verdict "
                        "(status, provider, refusals, the agent's own repairs and what each costs)")

    from .doctor.command import add_parser as add_doctor_parser

    add_doctor_parser(sub)
    from .batch.cli import add_parser as add_batch_parser

    add_batch_parser(sub)
    from .serve import add_parser as add_serve_parser

    add_serve_parser(sub)
    learn = sub.add_parser("learn", help="levels in the TUI: predict what a MEM-5 stage or a provider does, reach "
                                         "a goal the checker judges, break a valid session and see",
                           description="Open the levels (the built-in ones, with your progress), or play one "
                                       "level FILE (a level exported with L). Example: inspector learn "
                                       "my-level.json")
    learn.add_argument("file", nargs="?", metavar="FILE", help="a level file (JSON) to play")
    add_why_parsers(sub)
    for name, command in sub.choices.items():   # one example each, under its options
        command.epilog = f"example:\n  {EXAMPLES[name]}"
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def add_why_parsers(sub: Any) -> None:
    """``why`` and ``share`` (docs/why.md, docs/share.md)."""
    p = sub.add_parser("why", help="which rule an error text stands for, what it means, the fix; with FILE, "
                                   "the entries it names and the repaired copy", parents=[from_option()])
    p.add_argument("text", metavar="ERROR_TEXT", help="the error as the provider or the agent showed it (- reads it "
                   "from standard input)")
    p.add_argument("file", metavar="FILE", nargs="?", help="the history or session file the error came from")
    session_option(p)
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.add_argument("--fix", action="store_true", help="write the repaired copy (atomically, never over FILE)")
    p.add_argument("-o", "--output", metavar="OUT", help="where the repaired copy goes (default NAME.repaired.EXT)")
    p = sub.add_parser("share", help="a minimal, redacted copy of a case to attach to an issue: same verdict, "
                                     "same repair, no keys, paths or addresses", parents=[from_option()])
    p.add_argument("file", metavar="FILE")
    session_option(p)
    p.add_argument("-o", "--output", metavar="CASE", required=True, help="the redacted copy (written atomically)")
    p.add_argument("--html", metavar="PAGE", help="also write one self-contained page: the stages and the verdict")
    p.add_argument("--target", choices=CHECK_TARGETS, help="the provider whose verdict must hold (default: every one)")
    p.add_argument("--keep-all", action="store_true", help="keep every entry (redact only)")


# One example per subcommand, shown at the end of its --help (tests/test_cli_help.py runs each).
EXAMPLES = {
    "normalize": "inspector normalize history.json -o history.fixed.json   # write the repaired history",
    "explain": "inspector explain history.json   # every change, stage by stage, with its clause",
    "check": "inspector check --target anthropic request.json   # exit 1 if anything would change or be refused",
    "doctor": "inspector doctor   # every agent session under your home folder, and which would fail on resume",
    "batch": "inspector batch data.jsonl -o fixed.jsonl   # a dataset, one history per line, and its health report",
    "serve": "inspector serve ~/histories   # the TUI in a web browser, on files of that folder only",
    "learn": "inspector learn   # the levels; inspector learn my-level.json plays one level file",
    "why": "inspector why \"tool_use ids were found without tool_result blocks\" session.jsonl   # rule, entries, fix",
    "share": "inspector share session.jsonl -o case.jsonl --html case.html   # a redacted copy to attach to an issue",
}


def tui_parser() -> argparse.ArgumentParser:
    """The TUI's own command line (``inspector [FILE|FOLDER|-] [options]``)."""
    parser = Parser(prog="inspector", parents=[from_option(), strict_option(), reasoning_option()],
                    description="Open the inspection TUI on FILE, standard input (-), a FOLDER's history and "
                                "session files, or the gallery of bundled samples when no file is given. In "
                                "the TUI, t toggles --strict and R --reasoning.",
                    epilog="example:\n  inspector history.json --target anthropic   # open a file, with "
                           "Anthropic's verdict", formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", metavar="FILE|FOLDER|-")
    session_option(parser)
    parser.add_argument("--target", choices=("auto", *CHECK_TARGETS), default="auto",
                        help="the provider whose verdict the TUI shows (default auto: the one the format "
                             "speaks; a flat history shows every provider's); v picks another in the TUI")
    parser.add_argument("--model", metavar="MODEL",
                        help="the model the history is sent to, as check --model (default: the one a session "
                             "last ran on, where its store records it); the verdict line names it")
    parser.add_argument("--watch", action="store_true",
                        help="read FILE again whenever it changes on disk (an agent writing its session), "
                             "keeping the stage, filters and selection, and say what changed")
    return parser


# What each TUI option does, in a few words, for ``inspector --help`` (a new option without a
# line here fails tests/test_cli_help.py).
TUI_OPTIONS = {
    "fmt": ("--from FORMAT", "the input's format (default: detect)"),
    "strict": ("--strict", "start with the strict stage on (beyond MEM-5; t toggles it)"),
    "reasoning": ("--reasoning keep|strip", "keep signed reasoning as read (default), or strip it (R)"),
    "session": ("--session ID", "the session to open in a file that holds several"),
    "target": ("--target PROVIDER", "whose verdict the screen shows (default auto; v picks another)"),
    "model": ("--model MODEL", "the model it is sent to (default: the session's own)"),
    "watch": ("--watch", "read FILE again whenever it changes on disk"),
}


def tui_summary() -> str:
    """The TUI's options, one line each, for ``inspector --help``: the TUI is no subcommand,
    so argparse alone would never show them there."""
    lines = ["The TUI: 'inspector [FILE|FOLDER|-] [options]' opens a file, standard input or a folder",
             "(no file: the gallery of bundled samples). Its options ('inspector FILE --help' for all):"]
    for action in tui_parser()._actions:
        if action.option_strings and action.dest != "help":
            flag, meaning = TUI_OPTIONS[action.dest]
            lines.append(f"  {flag:<24} {meaning}")
    lines += ["", "example:", "  inspector history.json --target anthropic   # open a file, with Anthropic's verdict"]
    return "\n".join(lines)


def session_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--session", metavar="ID", help="the session to read in a file that holds several "
                   "(an Agents SDK SQLite database)")


def cmd_normalize(args: argparse.Namespace) -> int:
    from .sessions import in_place, session_output

    if args.in_place and (args.output is not None or args.file == "-"):
        raise InputError(display_name(args.file), "--in-place needs a file and no -o")
    outcome = run_file(args.file, args.fmt, args.to, args.strict, args.compact, args.session, args.reasoning)
    data = outcome.data
    output = args.output if args.output is not None else session_output(args.file, outcome)
    if args.output is None and not args.in_place and output is not None and not args.even_if_agent_repairs:
        from .verdict import resume_verdict

        verdict = resume_verdict(outcome, session=args.session)
        if verdict.agent_covers:         # the agent repairs every case itself: nothing to write
            if not args.quiet:
                print(f"{printable(display_name(args.file))}: nothing written: {printable(verdict.sentence())}; "
                      "--even-if-agent-repairs writes Inspector's repair anyway", file=sys.stderr)
            return EXIT_OK
    if args.in_place:
        backup = in_place(args.file, outcome)
        if not args.quiet:
            from .formats import written_name    # a compressed Codex rollout's repair is its plain file
            plain = written_name(args.file)
            done = "replaced" if plain == args.file else f"repaired as {display_name(plain)}, the file Codex reads"
            print(printable(f"{display_name(args.file)}: {done}; the original is kept as {backup}"), file=sys.stderr)
    elif output is not None and output != "-":
        # A name normalize chose is never written through a link; either way the copy of a
        # private session stays private (the input's permission bits).
        atomic_write(output, data, inputs=(args.file,), proposed=args.output is None, mode_of=args.file)
        if not args.quiet and args.output is None:
            print(f"wrote {printable(str(output))}", file=sys.stderr)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    if not args.quiet:
        print(outcome.result.summary(), file=sys.stderr)
        for e in outcome.export_events:
            print(f"  {printable(e.message)}", file=sys.stderr)
    return EXIT_OK


def explain_json(result: Result) -> dict[str, Any]:
    return {
        "dropped": result.dropped,
        "messages": result.messages,
        "events": [e.to_dict() for e in result.events],
        "stages": [{"name": s.name, "messages": s.messages, "origins": s.origins} for s in result.stages],
    }


def _event_line(e: Event) -> str:
    where = "new row" if e.origin is None else f"#{e.origin}"
    tag = "drop" if e.drop else kind(e.kind).label
    return f"  {where:>7}  ({e.clause}) {e.kind:<22} [{tag}] {printable(e.message)}"


def explain_text(name: str, messages: list[Any], result: Result) -> str:
    lines = [
        f"{printable(name)}: {len(messages)} in, {len(result.messages)} out; {result.summary()}",
        f"rule: {RULE_ID} ({RULE_SOURCE})",
    ]
    for stage in result.stages:
        spec = STAGE_BY_NAME[stage.name]
        title = spec.title if spec.extension else f"clause {spec.clause}: {spec.title}"
        lines.append("")
        lines.append(f"{stage.name} ({title}): "
                     f"{len(stage.events) or 'no'} event{'s' if len(stage.events) != 1 else ''}")
        lines += [_event_line(e) for e in stage.events]
    return "\n".join(lines) + "\n"


def export_text(outcome: Outcome) -> str:
    events = outcome.export_events
    lines = ["", f"export ({outcome.output_format}): {len(events) or 'no'} event{'s' if len(events) != 1 else ''}"]
    lines += [_event_line(e) for e in events]
    return "\n".join(lines) + "\n"


def rule_text() -> str:
    """MEM-5 as this project reads it, for a reader with no network: each clause, the known
    limits of the literal rule, and where the rule itself is published."""
    lines = [f"{RULE_ID}: {RULE_TITLE}", f"  {RULE_SPEC}", f"  {RULE_SOURCE}", ""]
    for clause in CLAUSES.values():
        lines.append(f"Clause {clause.number} ({clause.stage}): {clause.title}")
        lines += [f"  {line}" for line in textwrap.wrap(clause.summary, 88)]
        lines.append("")
    lines.append("Counting drops")
    lines += [f"  {line}" for line in textwrap.wrap(DROP_COUNT_NOTE, 88)]
    lines += ["", "Known limits of the literal rule"]
    for limit in KNOWN_LIMITS:
        wrapped = textwrap.wrap(limit, 86)
        lines += [f"  - {wrapped[0]}", *(f"    {line}" for line in wrapped[1:])]
    lines += [f"  {line}" for line in textwrap.wrap(KNOWN_LIMITS_FIX, 88)]
    lines += ["", "These are summaries in Inspector's own words; the rule's text is at the address above."]
    return "\n".join(lines) + "\n"


def cmd_explain(args: argparse.Namespace) -> int:
    if args.rule:
        if args.json:
            sys.stdout.buffer.write(orjson.dumps({
                "rule": RULE_ID, "title": RULE_TITLE, "source": RULE_SOURCE, "spec": RULE_SPEC,
                "clauses": [{"number": c.number, "stage": c.stage, "title": c.title, "summary": c.summary}
                            for c in CLAUSES.values()],
                "drop_count": DROP_COUNT_NOTE, "known_limits": list(KNOWN_LIMITS), "beyond": KNOWN_LIMITS_FIX,
            }, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
        else:
            sys.stdout.write(rule_text())
        return EXIT_OK
    if args.file is None:
        raise InputError("explain", "give a FILE (or - for standard input), or --rule for the rule itself")
    outcome = run_file(args.file, args.fmt, args.to, args.strict, session=args.session,
                       reasoning=args.reasoning)
    imported, result = outcome.imported, outcome.result
    if args.json:
        report = explain_json(result)
        report["format"] = outcome.format
        report["import"] = import_json(imported)
        report["export"] = {"format": outcome.output_format,
                            "events": [e.to_dict() for e in outcome.export_events]}
        report["changed"] = outcome.changed
        sys.stdout.buffer.write(dumps(report, orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        text = explain_text(display_name(args.file), imported.messages, result) + export_text(outcome)
        if has_import_step(imported.format):
            text = import_report(imported) + text
        sys.stdout.write(text)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from .sessions import PASSED_OVER, each_session, expand, passed_over
    from .verdict import judged_model, resume_verdict

    worst = EXIT_OK
    template = load_template(args.template) if args.template else None
    for path, session in each_session(expand(args.files), args.session, args.fmt):
        label = session.label
        try:
            outcome = session.run(strict=args.strict, reasoning=args.reasoning)
            verdict = resume_verdict(outcome, args.target, args.model, session.id)
        except Exception as exc:       # one bad file is reported and the others still checked
            if passed_over(path, exc):  # a folder's JSON that is no history (an index, a config)
                if args.json:
                    sys.stdout.buffer.write(orjson.dumps({"file": label, "passed_over": PASSED_OVER},
                                                         option=orjson.OPT_APPEND_NEWLINE))
                else:
                    print(printable(f"{label}: passed over, {PASSED_OVER}"))
                continue
            worst = max(worst, print_error(exc, path))
            continue
        report: dict[str, Any] = {"file": label, "format": outcome.format, "changed": outcome.changed,
                                  "summary": outcome.result.summary(), "status": verdict.row_status,
                                  "verdict": verdict.to_dict()}
        if not args.json:
            # one line per history, ending with the agent's own command that resumes it
            print(printable(check_line(label, outcome, verdict)
                            + (f"; resume with: {verdict.command}" if verdict.command else "")))
        # Where the agent repairs every case MEM-5 would change itself, the resume works: exit 0.
        if outcome.changed and not verdict.agent_covers:
            worst = max(worst, EXIT_CHANGED)
        if args.target:
            problems = check_target(as_written_for(outcome, args.target), args.target,
                                    judged_model(outcome.imported, args.target, args.model))
            # Warnings are printed but do not fail: only an error (documented and observed) does.
            worst = max(worst, EXIT_CHANGED if target_failed(problems) else EXIT_OK)
            report["after_normalizing"] = [p.to_dict() for p in problems]
            if not args.json:
                print(target_text(label, args.target, problems), end="")
        if template is not None:
            problems = check_template(outcome, template)
            worst = max(worst, EXIT_CHANGED if target_failed(problems) else EXIT_OK)
            report["template"] = [p.to_dict() for p in problems]
            if not args.json:
                print(target_text(label, f"the chat template {template.name}", problems), end="")
        if args.json:
            sys.stdout.buffer.write(orjson.dumps(report, option=orjson.OPT_APPEND_NEWLINE))
    return worst


def check_line(label: str, outcome: Any, verdict: Any) -> str:
    """``check``'s line for one history: the verdict's status word first (the one vocabulary
    of ``inspector.verdict``, as doctor and the browser show it), then what MEM-5 would
    change, the resume verdict in its one wording, and the kinds of change the repair makes."""
    from .verdict import STATUS_WORDS

    word = STATUS_WORDS[verdict.row_status]
    said = verdict.sentence()
    if not outcome.changed:
        if verdict.per_provider:   # no agent: said per provider
            rest = said.removeprefix("MEM-5 changes nothing; ")
            return f"{label}: {word}, nothing to change" + (f"; {rest}" if verdict.providers else "")
        plain = verdict.status == "resumes" and not verdict.ran_on
        return f"{label}: {word}, nothing to change" + ("" if plain else f" ({said})")
    result = outcome.result
    changes = len(result.events) + len(outcome.export_events)
    words = [said] if verdict.agent is not None or verdict.ran_on or verdict.status != "resumes" else []
    if verdict.per_provider:
        # A flat history MEM-5 changes: its line says what changes (explain: why) and which
        # providers refuse it as given, as the TUI and doctor say.
        words = [said.removeprefix("MEM-5 changes it; ")] if verdict.providers else []
    kinds = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in verdict.repair.items())
    if kinds and words:
        words.append("repair: " + kinds)
    tail = f" ({'; '.join(words)})" if words else ""
    return (f"{label}: {word}: {result.summary()}, "
            f"{changes} event{'s' if changes != 1 else ''}{tail}")


def cmd_batch(args: argparse.Namespace) -> int:
    from .batch.cli import run

    return run(args)


def import_json(imported: Imported) -> dict[str, Any]:
    """The import step: which original message each flat message came from."""
    return {
        "format": imported.format,
        "notes": imported.notes,
        "sources": [imported.where(i) for i in range(len(imported.messages))],
        "events": [e.to_dict() for e in imported.events],
    }


def import_report(imported: Imported) -> str:
    lines = [f"import ({imported.format}): {len(imported.messages)} flat messages"]
    lines += [f"  note: {n}" for n in imported.notes]
    lines += _mapping_lines(imported)
    for e in imported.events:
        row = "no row" if e.origin is None else f"#{e.origin}"   # a line no message came from
        lines.append(f"  {row}  ({e.clause}) {e.kind} {printable(e.message)}")
    return "\n".join(lines) + "\n\n"


MAPPING_LINES = 40   # the text report's cap; --json lists every message's origin


def _mapping_lines(imported: Imported) -> list[str]:
    """Where each flat message came from, a run of whole messages read one to one in a line
    (``#0..#329999 <- messages[0..329999]``), so that the answer is not buried under the
    mapping of a long one-to-one history."""
    out: list[str] = []
    n = len(imported.messages)
    i = 0
    while i < n:
        loc = imported.sources[i]
        j = i
        if isinstance(loc.message, int) and loc.blocks is None and not loc.items:
            while j + 1 < n:
                nxt = imported.sources[j + 1]
                if not (isinstance(nxt.message, int) and nxt.blocks is None and not nxt.items
                        and nxt.message == loc.message + (j + 1 - i)):
                    break
                j += 1
        if j > i:
            out.append(f"  #{i}..#{j} <- {_span(imported.where(i), imported.where(j))}")
        else:
            out.append(f"  #{i:<5} <- {imported.where(i)}")
        i = j + 1
        if len(out) == MAPPING_LINES and i < n:
            out.append(f"  ... #{i}..#{n - 1} as well (explain --json lists every message's origin)")
            break
    return out


_NUMBERED = re.compile(r"(.*?)(\d+)(\]?)")


def _span(first: str, last: str) -> str:
    """``messages[3..9]`` or ``line 4..10``: a run of places that differ in their last number."""
    a, b = _NUMBERED.fullmatch(first), _NUMBERED.fullmatch(last)
    if a and b and a.group(1) == b.group(1) and a.group(3) == b.group(3):
        lead = "lines " if a.group(1) == "line " else a.group(1)
        return f"{lead}{a.group(2)}..{b.group(2)}{a.group(3)}"
    return f"{first} .. {last}"


def target_text(name: str, target: str, problems: list) -> str:
    errors = sum(p.severity == "error" for p in problems)
    warnings = len(problems) - errors
    if not errors:
        head = f"{name}: {target} would accept it after normalizing"
        if not warnings:
            return printable(head) + "\n"
        head += f" ({warnings} warning{'s' if warnings != 1 else ''}; warnings do not fail the check):"
    else:
        head = f"{name}: {target} would still reject {errors} thing{'s' if errors != 1 else ''}"
        head += f" (and warn about {warnings}):" if warnings else ":"
    lines = [head]
    for p in problems:
        where = f"from {p.where}" if p.where else "a synthesized row"
        lines.append(f"  #{p.index} ({where}) {p.severity} [{p.rule}]{' (--strict repairs)' if p.strict else ''}")
        lines.append(f"    error: {p.error}")
        lines.append(f"    fix: {p.fix}")
        lines.append(f"    source: {p.source}")
    return "\n".join(map(printable, lines)) + "\n"     # names, ids and provider texts are data


def cmd_doctor(args: argparse.Namespace) -> int:
    if getattr(args, "tui", False):   # the same scan, in the TUI's folder browser
        if args.fix or args.json:
            print("error: doctor --tui shows the sessions; --fix and --json are for the command line",
                  file=sys.stderr)
            return EXIT_ERROR
        from .tui.app import run_doctor

        return run_doctor(args.paths or None)
    from .doctor.command import run

    return run(args)


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import run

    return run(args)


def cmd_learn(args: argparse.Namespace) -> int:
    level = None
    if args.file:  # read before the TUI starts: a bad file is an error with its place, exit 2
        from .tui.lessons.levels import read

        level = read(args.file)
    from .tui.app import run_lessons  # textual is imported only for the TUI

    return run_lessons(level)


def cmd_why(args: argparse.Namespace) -> int:
    from . import why

    reading = why.read(sys.stdin.read() if args.text == "-" else args.text)
    case = wrote = None
    if args.file is not None:
        case = why.examine(args.file, reading, args.fmt, args.session, args.output)
        if args.fix and (case.entries or case.covered):
            wrote = why.fix(case, args.file)
    if args.json:
        report = why.to_dict(reading, case)
        report["wrote"] = wrote
        sys.stdout.buffer.write(dumps(report, orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        sys.stdout.write(why.report(reading, case, wrote, args.fix))
    return EXIT_OK if reading.known else EXIT_CHANGED


def cmd_share(args: argparse.Namespace) -> int:
    from . import share

    return share.run(args)


HANDLERS = {"normalize": cmd_normalize, "explain": cmd_explain, "check": cmd_check, "doctor": cmd_doctor,
            "batch": cmd_batch, "serve": cmd_serve, "learn": cmd_learn,
            "why": cmd_why, "share": cmd_share}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        return run_tui(argv)
    mend_closed_streams()
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt as exc:      # interrupted while the commands' modules load
        return print_error(exc, "-")
    try:
        # One history per process: its millions of acyclic objects need no cyclic collector
        # (each collection would walk them all again, about a sixth of the run).
        with terminated_cleanly(args.command in ("normalize", "explain", "check", "doctor")), \
                gc_paused() if args.command in ("normalize", "explain") else nullcontext():
            code = HANDLERS[args.command](args)
            sys.stdout.flush()  # a full or closed standard output shows here, not at exit
            return code
    except BrokenPipeError:
        silence_stdout()
        return EXIT_OK
    except (Exception, KeyboardInterrupt) as exc:
        if isinstance(exc, OSError) and not isinstance(exc, InputError):
            silence_stdout()  # what is left is standard output: full, closed, or failing
            return print_error(exc, exc.filename or "<stdout>")
        return print_error(exc, getattr(args, "file", "-"))


def entry() -> int:
    """The process's entry point (the ``inspector`` command and ``python -m inspector``):
    :func:`main`, then everything still alive is moved out of the cyclic collector's reach
    (``gc.freeze``), so that the interpreter's last collection at exit does not walk every
    object of the modules once more: it would find nothing, and it took 9 of the 16 ms
    ``inspector batch`` spent exiting."""
    code = main()
    gc.freeze()
    return code


def run_tui(argv: list[str]) -> int:
    parser = tui_parser()
    args = parser.parse_args(argv)
    from .tui.app import run  # textual is imported only for the TUI

    try:
        return run(args.file, fmt=args.fmt, strict=args.strict, session=args.session, target=args.target,
                   reasoning=args.reasoning, model=args.model, **({"watch": True} if args.watch else {}))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED

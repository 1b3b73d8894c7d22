"""``inspector doctor``: the command line's view of the scan (and of ``--fix``)."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from typing import Any

import orjson

from ..cli_options import EXIT_CHANGED, EXIT_ERROR, EXIT_OK, Parser
from ..io import json_safe, printable
from ..sessions import PASSED_OVER
from ..verdict import STATUS_WORDS   # the one vocabulary: the folder browser and the session picker say the same
from .agents import AGENTS
from .copies import MANIFEST, fix
from .homes import known_homes
from .scan import Row, Scan, scan
from .verdict import AGENT_REPAIRS, CHANGES, FAILS, OK, STATUSES, UNREADABLE

__all__ = ["add_parser", "build_parser", "exit_code", "main", "run", "text_report"]

def _description() -> str:
    """The help's first line, naming every agent whose home the doctor knows (``known_homes``)."""
    with_home = {h.agent for h in known_homes({"HOME": "/"}, "/")}
    titles = ", ".join(a.title for a in AGENTS.values() if a.name in with_home)
    return (f"Find every session of every coding agent on this machine ({titles}), or in the folders given, "
            "and say for each whether a resume works: one line per session, newest first. Nothing is written "
            "unless --fix DIR is given, and then only into DIR.")


DESCRIPTION = _description()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or folders to scan instead of the agents' homes (an Agents SDK database has no home)")
    p.add_argument("--json", action="store_true", help="machine-readable: every row, the homes looked at, the counts")
    p.add_argument("--fix", metavar="DIR",
                   help="write repaired copies into the new folder DIR (never over the originals) with manifest.json: "
                        "each source's SHA-256 before and after, each output's, every change with its clause")
    p.add_argument("--all", action="store_true", help="also list the homes that were looked at and not found")
    p.add_argument("--tui", action="store_true",
                   help="list the sessions in the TUI's folder browser, with the same verdicts; enter opens one")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("doctor", help="find every agent session on this machine and say which would fail on resume",
                       description=DESCRIPTION)
    add_arguments(p)
    return p


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="inspector doctor", description=DESCRIPTION)
    add_arguments(p)
    return p


def _when(mtime: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(mtime)) if mtime else "????-??-?? ??:??"




def row_line(row: Row) -> str:
    agent = row.agent or row.format or "?"
    line = (f"{_when(row.mtime)}  {STATUS_WORDS[row.status]:<13} {agent:<11} "
            f"{printable(row.label)}: {printable(row.verdict.sentence)}")
    how = resume_how(row)
    return line + (f"\n{'':<18}resume: {printable(how)}" if how else "")


def resume_how(row: Row) -> str:
    """How the agent resumes this session: its own command (the verdict's), else how to reopen
    it where the agent has no command line ("": nothing known, or the session is unreadable)."""
    v = row.verdict.resume
    if v is None or row.status == UNREADABLE:
        return ""
    return v.command or v.reopen


def counts(rows: list[Row]) -> dict[str, int]:
    c = Counter(r.status for r in rows)
    return {s: c[s] for s in STATUSES if c[s]}


def text_report(result: Scan, show_all: bool = False) -> str:
    lines = []
    per_agent = Counter(r.agent for r in result.rows)
    found = [h for h in result.homes if h["exists"]]
    given = bool(result.homes) and all(h["via"] == "given" for h in result.homes)
    for h in (result.homes if show_all or given else found):   # a path given is named, found or not
        name = h["agent"] or "given"
        via = f" ({h['via']})" if h["via"] not in ("default", "given") else ""
        state = "" if h["exists"] else "  (not found)"
        lines.append(f"home: {name:<11} {printable(h['path'])}{via}{state}")
    if not found and not given:
        lines.append("no agent home found" + ("" if show_all else " (--all lists where doctor looked)"))
    if lines:
        lines.append("")
    lines += [row_line(r) for r in result.rows]
    lines += [printable(f"{'':<18}{label}: passed over, {PASSED_OVER}") for label in result.passed_over]
    total = len(result.rows)
    c = counts(result.rows)
    agents = ", ".join(f"{AGENTS[a].title if a in AGENTS else a} {n}" for a, n in per_agent.items() if a)
    lines.append("")
    lines.append(f"{total} session{'s' if total != 1 else ''}" + (f" ({agents})" if agents else "") + ": "
                 + (", ".join(f"{STATUS_WORDS[s]} {n}" for s, n in c.items()) or "none found"))
    if any(s in c for s in (FAILS, AGENT_REPAIRS, CHANGES)):
        lines.append("next: inspector doctor --fix DIR writes repaired copies into the new folder DIR "
                     "(the originals are never touched); inspector explain FILE shows every change")
    return "\n".join(lines) + "\n"


def exit_code(rows: list[Row]) -> int:
    """0: every session resumes as it is (or the agent repairs it); 1: something would fail
    or change; 2: a session could not be read."""
    statuses = {r.status for r in rows}
    if UNREADABLE in statuses:
        return EXIT_ERROR
    return EXIT_CHANGED if statuses & {FAILS, CHANGES} else EXIT_OK


def _progress() -> Any:
    """A count on standard error while a large home is read, when a person is watching."""
    if not sys.stderr.isatty():
        return None
    seen = [0]

    def tick(row: Row) -> None:
        seen[0] += 1
        sys.stderr.write(f"\rdoctor: {seen[0]} sessions read")
        sys.stderr.flush()
    return tick


def run(args: argparse.Namespace) -> int:
    tick = _progress()
    result = scan(args.paths or None, progress=tick)
    if tick is not None:
        sys.stderr.write("\r\033[K")
    manifest = None
    if args.fix:
        manifest = fix(result.rows, args.fix, result.roots)
    if args.json:
        report = {"homes": result.homes, "sessions": [r.to_dict() for r in result.rows],
                  "counts": counts(result.rows), "passed_over": [{"file": f, "reason": PASSED_OVER}
                                                                 for f in result.passed_over]}
        if manifest is not None:
            report["fix"] = {"output": manifest["output"], "manifest": f"{manifest['output']}/{MANIFEST}",
                             "untouched": manifest["untouched"], "copies": len(manifest["sources"])}
        sys.stdout.buffer.write(orjson.dumps(json_safe(report), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        sys.stdout.write(text_report(result, args.all))
        if manifest is not None:
            n = len(manifest["sources"])
            proof = ("every source is byte-identical (SHA-256 before and after match)" if manifest["untouched"]
                     else "a source CHANGED while it was read (is the agent running?): see the manifest")
            guessed = sum(s["side_effects_unknown"] for s in manifest["sources"])
            sys.stdout.write(f"fix: wrote {n} repaired cop{'ies' if n != 1 else 'y'} into {manifest['output']}; "
                             f"{proof}; manifest: {manifest['output']}/{MANIFEST}\n")
            sys.stdout.write("fix: the manifest says, per copy, how to put it in place and resume it "
                             "(\"steps\", and \"resume\" in words)\n")
            if guessed:
                sys.stdout.write(f"fix: {guessed} result{'s' if guessed != 1 else ''} made up as \"interrupted\": "
                                 "side effects unknown (the tool may already have run)\n")
    code = exit_code(result.rows)
    if manifest is not None and not manifest["untouched"]:
        code = max(code, EXIT_CHANGED)
    return code


def main(argv: list[str] | None = None) -> int:
    """``python -m inspector.doctor`` until the ``doctor`` subcommand is on the CLI."""
    from ..cli_options import print_error

    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except Exception as exc:
        return print_error(exc, getattr(args, "fix", None) or "-")

"""``inspector batch``: the command line of a batch job, on one machine or on Dask."""

from __future__ import annotations

import argparse
import errno
import sys

import orjson

from ..cli_options import (EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, from_option, print_error, reasoning_option,
                           strict_option, to_option)
from ..io import InputError, atomic_write, describe_os_error
from ..process import interruptible, release_interrupts, silence_stdout
from ..targets import TARGETS as CHECK_TARGETS
from .job import Job, default_workers, run_local
from .report import Health

UNREAD_SAID = 8      # row groups not read, named one a line; the rest counted in one more line


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "batch",
        help="normalize a whole dataset (JSONL, .gz, folders, Parquet) and report its health",
        description="Stream a dataset through the engine in parallel, in input order, and print "
                    "its health report. A record that cannot be read is counted and logged, "
                    "never fatal.",
        parents=[from_option("input format of every record (default: detect each)"), to_option(documents_only=True),
                 strict_option(), reasoning_option()],
    )
    p.add_argument("inputs", metavar="INPUT", nargs="+",
                   help="JSONL file (one history per line; .gz read transparently), folder of "
                        ".json files, - for JSONL on standard input, or Parquet files (.parquet)")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT",
                   help="JSONL file in input order (.gz to compress; - for stdout), a folder "
                        "(trailing / or existing empty folder) mirroring an input folder, or a "
                        ".parquet file for Parquet inputs (their schema, row groups and other columns kept)")
    p.add_argument("--column", metavar="NAME",
                   help="the history is this column of each row (Parquet; default: messages) or this field of each "
                        "JSONL record (default: the record is the history); it is repaired in place, JSON text kept "
                        "as text, every other column or field kept")
    p.add_argument("--id-column", metavar="NAME", help="name each row in the change log by this column's value")
    p.add_argument("--changes", metavar="CHANGES.jsonl",
                   help="write one line per changed record: where it is, its event kinds with clauses and "
                        "counts, dropped / synthesized / moved (and with --target the problems left)")
    p.add_argument("--target", choices=CHECK_TARGETS,
                   help="also count what this provider would still reject after normalizing (report and change log)")
    p.add_argument("--workers", type=_positive, default=None, metavar="N",
                   help=f"processes in all, this one included (default: the number of cores, {default_workers()})")
    p.add_argument("--errors", metavar="ERRORS.jsonl",
                   help="write every failed record's source, line, column and reason here")
    p.add_argument("--report", metavar="REPORT.json", help="also write the health report as JSON")
    p.add_argument("--fail-on-error", action="store_true",
                   help="exit 2 when any record failed (default: 0 once every record was processed)")
    p.add_argument("-q", "--quiet", action="store_true", help="print neither the report table nor the summary")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="run on a Dask cluster: a scheduler address (tcp://host:8786) or 'local'")
    p.add_argument("--blocksize", default="64MiB", metavar="SIZE",
                   help="with --dask: bytes of JSONL per partition (default 64MiB; a Parquet "
                        "partition is one row group)")
    return p


def run(args: argparse.Namespace) -> int:
    job = Job(inputs=args.inputs, output=args.output, workers=args.workers or default_workers(),
              fmt=args.fmt, to=args.to, strict=args.strict, errors=args.errors, report=args.report,
              changes=args.changes, column=args.column, id_column=args.id_column, target=args.target,
              reasoning=args.reasoning)
    with interruptible():  # SIGINT and SIGTERM: the CLI's one policy (inspector.process)
        committed = False
        try:
            job.check()
            if args.dask:
                try:
                    import distributed  # noqa: F401

                    from .dask_runner import parse_blocksize, run_dask
                except ImportError:
                    raise InputError("--dask", "Dask is not installed; pip install 'inspector[dask]'") from None
                if job.parquet:
                    from .parquet_job import run_parquet_dask

                    health = run_parquet_dask(job, args.dask)
                else:
                    health = run_dask(job, args.dask, blocksize=parse_blocksize(args.blocksize))
            elif job.parquet:
                from .parquet_job import run_parquet

                health = run_parquet(job)
            else:
                health = run_local(job)
            # The run holds interrupts from its last record on: the outputs are in place now,
            # and the report follows them before a signal that came meanwhile is raised.
            if job.report:
                atomic_write(job.report, orjson.dumps(health.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE),
                             inputs=tuple(job.inputs))
            committed = True
            release_interrupts()
        except KeyboardInterrupt:
            release_interrupts(raising=False)
            if committed:
                print("batch: interrupted after the run finished: every output" + (" and the report" if job.report else "")
                      + " was written; the health table was not printed", file=sys.stderr)
            else:
                print("batch: interrupted; no output written", file=sys.stderr)
            return EXIT_INTERRUPTED
        except InputError as exc:
            release_interrupts(raising=False)
            return print_error(exc)
    for name, reason in job.unreadable:  # per file, even with -q: these were not processed
        print(f"batch: {name}: {reason}", file=sys.stderr)
    # Per row group, even with -q: not read at all (unless the last line, nothing read, says it).
    said = [] if health.read == health.failed and len(health.reasons) == 1 else health.unread
    for reason in said[:UNREAD_SAID]:
        print(f"batch: {reason}", file=sys.stderr)
    if len(said) > UNREAD_SAID:
        print(f"batch: {len(said) - UNREAD_SAID} more row groups were not read (the errors file names each "
              "row)", file=sys.stderr)
    if not args.quiet:
        try:
            show(health, job)
        except OSError as exc:  # standard output full or closed: the outputs are written already
            silence_stdout()
            print(f"batch: cannot print the health report: {describe_os_error(exc)}", file=sys.stderr)
            return EXIT_ERROR
    if health.read == health.failed:
        what = "no record" if not health.read else f"none of the {health.read:,} records"
        why = health.main_reason()
        print(f"batch: nothing was read: {what} of {', '.join(s.name for s in job.sources)} could be "
              f"processed" + (f": {why}" if why else ""), file=sys.stderr)
        return EXIT_ERROR
    if args.fail_on_error and health.failed:
        return EXIT_ERROR
    return EXIT_OK


def show(health: Health, job: Job) -> None:
    # The table goes to stdout unless the records do.
    table_stream = sys.stderr if job.output == "-" else sys.stdout
    if table_stream is None:  # the shell closed it (>&-)
        raise OSError(errno.EBADF, "standard output is closed")
    table_stream.write(health.render())
    table_stream.flush()
    print(health.summary("<stdout>" if job.output == "-" else job.output), file=sys.stderr)


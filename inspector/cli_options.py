"""The command line's shared parts: options defined once, exit codes, and the one error printer.

``inspector normalize|explain|check``, ``inspector batch`` and the TUI launcher build their
parsers from these ``parents`` (argparse's own way to share options, so no CLI library is
needed for three flags), and every user-facing error goes through :func:`print_error`.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO

from .formats import EXPORT_CHOICES, REASONING_POLICIES, REGISTRY
from .io import EXIT_ERROR, InputError, JSONWriteError, describe_error, display_name, printable

EXIT_OK, EXIT_CHANGED, EXIT_INTERRUPTED = 0, 1, 130  # EXIT_ERROR (2) is io's

STRICT_HELP = "also move separated results next to their calls and drop early ones (an extension beyond MEM-5)"


class Parser(argparse.ArgumentParser):
    """Usage errors exit 2 with one line, like input errors."""

    def error(self, message: str) -> None:
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def _parent() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(add_help=False)


# Each returns a fresh parent parser, for argparse's ``parents=``; the format choices are
# read from the registry when the parser is built.
def from_option(help: str = "input format (default: detect)") -> argparse.ArgumentParser:
    p = _parent()
    p.add_argument("--from", dest="fmt", default="auto", choices=("auto", *REGISTRY), help=help)
    return p


def to_option(documents_only: bool = False) -> argparse.ArgumentParser:
    """``--to``; ``documents_only`` leaves out formats written as whole files of their own
    (JSONL sessions, databases), which cannot be one line of a JSONL output."""
    choices = tuple(c for c in EXPORT_CHOICES if c == "same" or not documents_only or not REGISTRY[c].whole_file)
    p = _parent()
    p.add_argument("--to", default="same", choices=choices, help="output format (default: same as the input)")
    return p


def strict_option() -> argparse.ArgumentParser:
    p = _parent()
    p.add_argument("--strict", action="store_true", help=STRICT_HELP)
    return p


REASONING_HELP = ("keep (default): write reasoning back as it was read, signed blocks untouched; strip: remove "
                  "every reasoning block, signature and encrypted item (for a history moved to another model)")


def reasoning_option() -> argparse.ArgumentParser:
    """``--reasoning keep|strip``: the reasoning policy of the export."""
    p = _parent()
    p.add_argument("--reasoning", default="keep", choices=REASONING_POLICIES, help=REASONING_HELP)
    return p


def print_error(error: BaseException, name: str = "-", stream: IO[str] | None = None) -> int:
    """Print one line for a user-facing error (file, and line:column where known) and
    return the exit code the CLI ends with. Anything else is a bug: it is re-raised."""
    stream = sys.stderr if stream is None else stream
    if isinstance(error, InputError):
        print(printable(str(error)), file=stream)      # a file's name is data: never raw escapes
    elif isinstance(error, (JSONWriteError, OSError, RecursionError, MemoryError)):
        # Too deep to write, a full disk, a closed output: what the user can act on.
        print(printable(describe_error(error, display_name(name))), file=stream)
    elif isinstance(error, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    else:
        raise error
    return EXIT_ERROR

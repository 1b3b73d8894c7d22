"""Where a dialog may write a history: never over an input, never onto a folder, and over
another file only when asked twice. The export and save-edits dialogs share these words."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..io import proposed_refusal, same_file


def refusal(path: str, inputs: Iterable[str]) -> str | None:
    """Why ``path`` cannot be written (the input itself, a folder), or None."""
    if any(same_file(source, path) for source in inputs):
        return f"{path} is the input file: choose another path (the input is never overwritten)."
    if Path(path).is_dir():
        return f"{path} is a folder: give a file name."
    if proposed_refusal(path) is not None:     # a link planted at the name, a FIFO, a device
        return f"{path} is a symbolic link or not a regular file: a dialog never writes through one; choose another name."
    return None


def replace_question(path: str, confirmed: str | None) -> str | None:
    """The question to ask before replacing an existing ``path`` (None: write it; it is new,
    or the user already said yes for this very path)."""
    if Path(path).exists() and confirmed != path:
        return f"{path} exists. Press enter (or Replace) again to replace it, or change the path."
    return None

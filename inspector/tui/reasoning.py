"""Reasoning in the TUI: the marker on a row whose turn carries reasoning, the facts its
details list, and the ``--reasoning`` policy the screen runs the export with.

Everything here is read from what the import and the pipeline report: the import's
:class:`~inspector.formats.Reasoning` records (``imported.reasoning_of(row)``, the block
itself by ``imported.block_of``) and the export's events (the signed-turn notes name their
row as ``origin``; ``--reasoning strip`` reports one ``reasoning-stripped`` event per block
it removes). Nothing decides here what is signed or what a repair does to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from .. import formats
from ..engine import KINDS, Event
from .text import indented, inert, json_block, pretty_json

POLICIES = formats.REASONING_POLICIES  # ("keep", "strip"): the CLI's --reasoning choices
KEEP, STRIP = POLICIES[0], POLICIES[1]
SIGNED_MARK, PLAIN_MARK = "«signed» ", "«reasoning» "
STRIPPED = "reasoning-stripped"


def other(policy: str) -> str:
    """The policy the reasoning key switches to."""
    return STRIP if policy == KEEP else KEEP


def markers(imported: Any) -> dict[int, str]:
    """Row -> the marker the table shows before its text: ``«signed» `` when its turn carries
    reasoning the provider signed or encrypted, ``«reasoning» `` for readable reasoning only."""
    out: dict[int, str] = {}
    for r in getattr(imported, "reasoning", ()):
        if r.row is None:
            continue
        if r.signed or r.row not in out:
            out[r.row] = SIGNED_MARK if r.signed else PLAIN_MARK
    return out


def row_events(export_events: Iterable[Event], row: int | None) -> list[Event]:
    """The export's events that name this row (the signed-turn notes)."""
    return [e for e in export_events if row is not None and e.origin == row]


def counts(imported: Any) -> tuple[int, int]:
    """(reasoning blocks, signed ones) the import read."""
    records = getattr(imported, "reasoning", ())
    return len(records), sum(1 for r in records if r.signed)


def status_text(imported: Any, policy: str, export_events: Sequence[Event]) -> str:
    """The status line's part: the policy, what the import read, what strip removed."""
    blocks, signed = counts(imported)
    if not blocks and policy == KEEP:
        return ""
    text = f"reasoning {policy}"
    if blocks:
        text += f" ({blocks:,} block{'' if blocks == 1 else 's'}, {signed:,} signed)"
    if policy == STRIP:
        stripped = sum(1 for e in export_events if e.kind == STRIPPED)
        text += f": the export removes {stripped:,}"
    return text


def toggled_text(imported: Any, policy: str, export_events: Sequence[Event]) -> str:
    """The toast after R: the policy now, and what it does to this history's export."""
    blocks, signed = counts(imported)
    if policy == STRIP:
        stripped = sum(1 for e in export_events if e.kind == STRIPPED)
        return (f"--reasoning strip: the export removes every reasoning block, signature and encrypted item "
                f"({stripped:,} removal{'' if stripped == 1 else 's'}), so the history can go to another model.")
    return (f"--reasoning keep: the export writes the {blocks:,} reasoning block{'' if blocks == 1 else 's'} "
            f"({signed:,} signed) back as they were read, in place.")


def details_lines(imported: Any, row: int | None, policy: str, export_events: Sequence[Event]) -> list[RenderableType]:
    """The reasoning of a row's turn, block by block: which block, signed or not, the model
    that wrote it (where the document says), the calls it precedes, its text, the original
    block; then what the export does to it under the policy shown."""
    records = imported.reasoning_of(row) if imported is not None and row is not None else []
    if not records:
        return []
    out: list[RenderableType] = [Text(f"\nReasoning in this turn ({len(records)}):", "bold")]
    for r in records:
        head = Text()
        head.append(inert(r.kind), "bold")
        head.append("  " + ("signed" if r.signed else "not signed"))
        if r.encrypted:
            head.append(", encrypted")
        head.append(f"  at {inert(r.loc.describe(imported.container))}")
        if r.model:
            head.append(f"  model {inert(r.model)}")
        if r.before:
            head.append(f"  before call{'s' if len(r.before) > 1 else ''} {', '.join(map(str, r.before))}")
        out.append(indented(head, 2))
        if r.signed:
            out.append(indented(Text("Sent back byte for byte, in place, to the model that issued it: no stage "
                                     "edits, merges or moves it.", "dim"), 4))
        if r.text:
            out.append(indented(Text(inert(r.text)), 4))
        block = imported.block_of(r)
        if isinstance(block, (Mapping, list)):
            out.append(indented(json_block(pretty_json(block)), 4))
    notes = row_events(export_events, row)
    out.append(Text(f"\nWhat the export does to it (--reasoning {policy}):", "bold"))
    for e in notes:
        kind = KINDS.get(e.kind)
        out.append(indented(Text.assemble((f"({e.clause}) {e.kind}", "bold"),
                                          (f"  {kind.label}" if kind is not None else "", "italic")), 2))
        out.append(indented(Text(inert(e.message)), 4))
    if policy == STRIP:
        stripped = sum(1 for e in export_events if e.kind == STRIPPED)
        out.append(indented(Text(f"--reasoning strip: the export removes every reasoning block, signature and "
                                 f"encrypted item ({stripped:,} reasoning-stripped event"
                                 f"{'' if stripped == 1 else 's'} in this export, in its preview: e)."), 2))
    elif not notes:
        out.append(indented(Text("written back as it was read (no export event names this turn).", "dim"), 2))
    return out

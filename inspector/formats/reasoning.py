"""Reasoning on export: what ``--reasoning strip`` removes, and what a repair did to a turn a
provider signed.

Each format's importer lists its reasoning (:class:`~inspector.formats.base.Reasoning` on
``Imported.reasoning``) and its export writes signed blocks back as the very objects it
read, in place. What is left to say is here, read from provenance and the engine's
decisions only (never by comparing texts):

- :func:`note_signed`: a MEM-5 repair that drops a call from a signed turn, drops the turn,
  merges it, or drops rows from the middle of the history before a signed Claude turn is an
  event with what the provider may do (a provider verifies a signature against the turn it
  was issued with; Claude's blocks may go from the front of a history, not its middle);
- :func:`note_omitted`: a conversion writes no reasoning; one ``export-omitted`` event per
  block, with a warning where the request has thinking enabled;
- :func:`strip`: ``--reasoning strip`` runs the format's own ``strip_reasoning`` on the
  written document, one event per removed block.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

from ..engine import Kind, Result, declare
from .base import Exported, Imported, Reasoning

SIGNED, STRIP = "reasoning:signed", "reasoning:strip"
KEEP_POLICY, STRIP_POLICY = "keep", "strip"
POLICIES = (KEEP_POLICY, STRIP_POLICY)

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("reasoning-stripped", STRIP, False, "reasoning removed",
         "--reasoning strip removed a reasoning block, its signature or an encrypted item, so that the history "
         "can go to another model.", "change"),
    Kind("signed-calls-dropped", SIGNED, False, "signed turn lost calls",
         "A repair dropped calls from a turn that carries signed reasoning; the provider may reject the request, "
         "since the signature was issued with the whole turn.", "note"),
    Kind("signed-turn-dropped", SIGNED, False, "signed turn dropped",
         "A repair dropped a turn that carried signed reasoning, and its reasoning with it.", "note"),
    Kind("signed-turn-merged", SIGNED, False, "signed turn merged",
         "The export wrote a turn that carries signed reasoning as one message with another; the provider may "
         "reject the signature.", "note"),
    Kind("signed-history-cut", SIGNED, False, "cut before signed turn",
         "Rows were dropped from the middle of the history before a turn with signed reasoning; providers accept "
         "removals from the front only, and may reject the signature.", "note"),
    Kind("signed-kept-in-place", SIGNED, False, "signed turn not reordered",
         "--strict would reorder the blocks of a turn that carries signed reasoning; Inspector never moves what a "
         "provider signed, so the turn is written as it was.", "note"),
)

RISK = ("The provider checks signed reasoning against the turn it was issued with and may reject the request; "
        "send the history with --reasoning strip if it does.")


def _where(im: Imported, r: Reasoning) -> str:
    return r.loc.describe(im.container)


def note_signed(im: Imported, result: Result, notes: Exported) -> None:
    """Events for repairs that touch a turn carrying signed reasoning (same-format export)."""
    signed: dict[int, Reasoning] = {}
    for r in im.reasoning:
        if r.signed and r.row is not None:
            signed.setdefault(r.row, r)
    if not signed:
        return
    kept = {o for o in result.origins if o is not None}
    lost = result.dropped_calls()
    for row, r in signed.items():
        if row not in kept:
            notes.note("signed-turn-dropped", f"{_where(im, r)} ({r.kind}) was signed; the repair dropped its turn, "
                       "and the reasoning goes with it. " + RISK, origin=row)
        elif lost.get(row):
            calls = im.messages[row].get("tool_calls") or [] if isinstance(im.messages[row], Mapping) else []
            ids = [str(calls[j].get("tool_call_id")) if j < len(calls) and isinstance(calls[j], Mapping) else f"#{j}"
                   for j in sorted(lost[row])]
            notes.note("signed-calls-dropped", f"{_where(im, r)} ({r.kind}) is signed, and the repair dropped call(s) "
                       f"{', '.join(ids[:5])}{' and more' if len(ids) > 5 else ''} from its turn. " + RISK,
                       origin=row)
    for e in list(notes.events):
        if e.kind == "export-merged":
            for row in (e.origin, e.cause):
                if row in signed and row in kept:
                    notes.note("signed-turn-merged", f"{_where(im, signed[row])} ({signed[row].kind}) is signed, and "
                               "its turn is written as one message with another. " + RISK, origin=row)
    _note_cuts(im, result, signed, kept, notes)


# Signatures over the history before them (Claude's thinking, direct or through Bedrock): rows
# may go from its front, not from its middle (router-for-me/CLIProxyAPI#5422). Gemini and
# Responses check a signature against its own turn only.
HISTORY_SIGNED = frozenset({"thinking", "redacted_thinking", "reasoningContent"})


def _note_cuts(im: Imported, result: Result, signed: dict[int, Reasoning], kept: set[int], notes: Exported) -> None:
    """One event per signed turn that rows dropped from the middle of the history precede."""
    signed = {row: r for row, r in signed.items() if r.kind in HISTORY_SIGNED}
    if not signed:
        return
    rows = im.messages
    front = min((o for o in kept if not (isinstance(rows[o], Mapping) and rows[o].get("role") == "system")),
                default=None)
    if front is None:
        return
    middle = [o for o in range(front + 1, max(signed)) if o not in kept]
    if not middle:
        return
    for row in sorted(signed):
        if row not in kept:
            continue
        before = middle[:bisect_left(middle, row)]
        if before:
            shown = ", ".join(im.where(o) for o in before[:5]) + (
                f" and {len(before) - 5} more" if len(before) > 5 else "")
            notes.note("signed-history-cut", f"{_where(im, signed[row])} ({signed[row].kind}) is signed, and the "
                       f"repair dropped {shown} from the middle of the history before it. " + RISK,
                       origin=row, cause=before[0])


def thinking_enabled(document: Any) -> bool:
    """Whether a request body turns thinking or reasoning on (Anthropic ``thinking``,
    Responses ``reasoning``, Gemini ``thinkingConfig``, Chat ``reasoning_effort``)."""
    if not isinstance(document, Mapping):
        return False
    thinking = document.get("thinking")
    if isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "adaptive"):
        return True
    if isinstance(document.get("reasoning"), Mapping) or document.get("reasoning_effort"):
        return True
    config = document.get("generationConfig") or document.get("generation_config")
    return isinstance(config, Mapping) and bool(config.get("thinkingConfig") or config.get("thinking_config"))


def note_omitted(im: Imported, target: str, notes: Exported) -> None:
    """A conversion carries no reasoning: one ``export-omitted`` event per block."""
    warn = (" The request enables thinking: a target that requires the turn's reasoning (Anthropic with thinking "
            "enabled) will refuse the converted turn; disable thinking there, or keep the history in its format."
            if thinking_enabled(im.document) else "")
    for r in im.reasoning:
        what = "signed " if r.signed else ""
        notes.note("export-omitted", f"{_where(im, r)} is {what}reasoning ({r.kind}) of the {im.format} history; "
                   f"{target} cannot carry it, so it is not written.{warn}", origin=r.row)


def strip(fmt: Any, document: Any, notes: Exported) -> Any:
    """``--reasoning strip`` on a written document, by the format's own ``strip_reasoning``
    (a format without one has nothing Inspector knows to remove)."""
    remove = getattr(fmt, "strip_reasoning", None)
    return document if remove is None else remove(document, notes)


def removed(notes: Exported, where: str, what: str, more: str = "") -> None:
    """One removal of ``--reasoning strip`` (the formats' ``strip_reasoning`` call this)."""
    notes.note("reasoning-stripped", f"{where} ({what}) removed (--reasoning strip){more}.")


def history_of(document: Any, key: str) -> tuple[Any, list[Any] | None]:
    """(body, history list) of a written document: a bare list, or ``document[key]``."""
    if isinstance(document, list):
        return None, document
    if isinstance(document, Mapping) and isinstance(document.get(key), list):
        return document, document[key]
    return document, None


def put_back(body: Any, key: str, history: list[Any]) -> Any:
    if body is None:
        return history
    out = dict(body)
    out[key] = history
    return out


def strip_blocks(document: Any, notes: Exported, container: str, key: str,
                 is_reasoning, unsign=None) -> Any:
    """Strip for formats whose messages hold blocks: drop each block ``is_reasoning`` names
    (a message left with none is dropped, and says so), and let ``unsign(block, first_call)``
    return the block without its signature (or None when it has none)."""
    body, history = history_of(document, container)
    if history is None:
        return document
    out: list[Any] = []
    changed = False
    for i, m in enumerate(history):
        blocks = m.get(key) if isinstance(m, Mapping) else None
        if not isinstance(blocks, list):
            out.append(m)
            continue
        new: list[Any] = []
        touched = False
        first_call = True
        for k, b in enumerate(blocks):
            kind = is_reasoning(b)
            where = f"{container}[{i}].{key}[{k}]"
            if kind:
                removed(notes, where, kind)
                touched = True
                continue
            if unsign is not None:
                plain, kept_note = unsign(b, first_call)
                if plain is not None:
                    removed(notes, where, "its signature", kept_note)
                    touched = True
                    b = plain
                first_call = first_call and not _is_call(b)
            new.append(b)
        if not touched:
            out.append(m)
            continue
        changed = True
        if not new:
            removed(notes, f"{container}[{i}]", "a message of reasoning alone", ", so the message goes too")
            continue
        m = dict(m)
        m[key] = new
        out.append(m)
    return put_back(body, container, out) if changed else document


def _is_call(block: Any) -> bool:
    return isinstance(block, Mapping) and any(k in block for k in ("functionCall", "function_call"))

"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``.

Each line is ``{"timestamp", "type", "payload"}``; ``type`` is ``session_meta``,
``response_item`` (a Responses API item: ``message``, ``function_call``,
``function_call_output``, ``reasoning``, ``custom_tool_call``...), ``turn_context``,
``event_msg`` or ``compacted``. A resume rebuilds the history from the ``response_item``
lines in order; a ``compacted`` line with ``replacement_history`` replaces everything before
it by that list (one without it replaces it by its summary ``message``). Rollouts written
before the ``payload`` wrapper hold bare items, one per line, after a first line with the
session's ``id``; both are read.

The items a resume would send are read with the Responses importer; provenance is the line
(and the index inside ``replacement_history``). Export keeps every other line byte-identical:
a dropped item's line goes, a synthesized ``function_call_output`` is a new ``response_item``
line after its call's turn, and a compaction's list is rewritten only when an event touches it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import EXPORT_CLAUSE, Kind, Result, declare
from . import openai_responses, session
from .base import Exported, Imported
from .jsonl import LineFormat, LineLoc, Lines, dump_line
from .format import SESSION, Format

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("entry-moved", EXPORT_CLAUSE, False, "entry moved",
         "A line was moved with the result it holds, next to its call.", "change"),
)


NAME = "codex-rollout"
SUMMARY = "a Codex CLI session rollout (JSON Lines under ~/.codex/sessions/)"
LINE_TYPES = ("session_meta", "response_item", "turn_context", "event_msg", "compacted")
# Item types a bare line of the older layout may hold.
ITEM_TYPES = openai_responses.KNOWN


def claims(entry: Mapping) -> bool:
    kind = entry.get("type")
    if kind in LINE_TYPES and "payload" in entry and "timestamp" in entry:
        return True
    # The older layout: a first line with the session id and instructions, state records.
    return ("id" in entry and "instructions" in entry and "timestamp" in entry and "type" not in entry) \
        or entry.get("record_type") == "state"


HOOKS = LineFormat(NAME, claims, "JSON Lines of {timestamp, type, payload} records (a Codex rollout)")
sniff, parse, dump, evidence = HOOKS.sniff, HOOKS.parse, HOOKS.dump, HOOKS.evidence




@dataclass(slots=True)
class CodexState:
    """What export needs of a rollout import: the Responses import of the items a resume
    sends, where each item is (line, index in a compaction's list), and the items."""

    inner: Imported
    places: list[tuple[int, int | None]]
    items: list[Any]


def item_of(entry: Any) -> Any:
    """The Responses item a line holds, or None for a line that is not one."""
    if not isinstance(entry, Mapping):
        return None
    if entry.get("type") == "response_item" and "payload" in entry:
        return entry["payload"]
    if "payload" not in entry and "record_type" not in entry and (
            entry.get("type") in ITEM_TYPES):
        return entry                       # the older layout: a bare item per line
    return None


def compaction(entry: Any) -> Mapping | None:
    if isinstance(entry, Mapping) and entry.get("type") == "compacted" and isinstance(entry.get("payload"), Mapping):
        return entry["payload"]
    return None


def import_(document: Any, name: str = "<input>") -> Imported:
    document = session.open_store(document, name, NAME, parse, Lines, "a rollout file (JSON Lines)")
    entries = document.entries
    start = 0
    places: list[tuple[int, int | None]] = []      # per sent item: (line, index in replacement_history)
    items: list[Any] = []
    notes: list[str] = []
    for i in range(len(entries) - 1, -1, -1):
        payload = compaction(entries[i])
        if payload is None:
            continue
        start = i + 1
        replacement = payload.get("replacement_history")
        if isinstance(replacement, list):
            for r, item in enumerate(replacement):
                items.append(item)
                places.append((i, r))
            notes.append(f"compacted at line {i + 1}: its replacement_history ({len(replacement)} items) stands "
                         f"for everything before it")
        else:
            summary = payload.get("message")
            items.append({"type": "message", "role": "user", "content": summary if isinstance(summary, str) else ""})
            places.append((i, None))
            notes.append(f"compacted at line {i + 1}: its summary message stands for everything before it")
        break
    for i in range(start, len(entries)):
        item = item_of(entries[i])
        if item is not None:
            items.append(item)
            places.append((i, None))
    inner = openai_responses.import_(items, name)
    im = Imported(NAME, inner.messages, document, notes=notes, container=None, history=entries)
    session.skipped_lines(im, document)
    im.events.extend(dataclasses.replace(e, clause=f"import:{NAME}") for e in inner.events)

    def loc(k: int) -> LineLoc:
        line, r = places[k]
        return LineLoc(line, "replacement_history", (r,)) if r is not None else LineLoc(line)

    for src, calls in zip(inner.sources, inner.calls):
        spans = src.items or (src.message,)
        lines = tuple(dict.fromkeys(places[k][0] for k in spans))
        if len(spans) == 1:
            im.sources.append(loc(spans[0]))
        else:
            im.sources.append(LineLoc(lines[0], None, None, lines) if len(lines) > 1 else loc(spans[0]))
        im.calls.append([loc(c.message) for c in calls])
    im.state = CodexState(inner, places, items)
    sent = sum(1 for p in places if p[1] is None and compaction(entries[p[0]]) is None)
    other = sum(1 for e in entries if isinstance(e, Mapping)) - sent
    im.notes.append(f"{len(items)} items sent on resume; {other} lines not sent (metadata, events, turn context, "
                    f"what a compaction replaced) carried unchanged")
    return im


def export_same(im: Imported, result: Result, notes: Exported) -> Lines:
    doc: Lines = im.document
    entries = doc.entries
    state: CodexState = im.state
    places, items = state.places, state.items
    out_items = openai_responses.export_same(state.inner, result, notes)

    kept: list[int] = []                            # original items, in output order
    after: dict[int, list[Any]] = {}                # item index -> new items written after it
    moved: set[int] = set()
    last = -1
    for item, k in zip(out_items, session.origins(items, out_items)):
        if k is not None and k > last:
            kept.append(k)
            last = k
            continue
        if k is not None:
            moved.add(k)
        after.setdefault(last, []).append(item)
    survive = set(kept)
    removed_lines: set[int] = set()
    for k, (line, r) in enumerate(places):
        if k not in survive and k not in moved and r is None and compaction(entries[line]) is None:
            removed_lines.add(line)
            notes.note("entry-removed", f"Line {line + 1} is removed: the engine dropped its item.")
        elif k in moved and r is None:
            removed_lines.add(line)

    # A compaction's replacement list is rewritten when one of its items goes or a new one joins it.
    rewrite: dict[int, Any] = {}
    comp_line = next((line for line, r in places if r is not None), None)
    if comp_line is not None:
        own = [k for k, (line, r) in enumerate(places) if r is not None]
        new_list: list[Any] = []
        if -1 in after and own:
            new_list.extend(after.pop(-1))
        for k in own:
            if k in survive:
                new_list.append(items[k])
            new_list.extend(after.pop(k, []) if k != own[-1] or len(places) == len(own) else [])
        old = compaction(entries[comp_line])["replacement_history"]
        if len(new_list) != len(old) or any(a is not b for a, b in zip(new_list, old)):
            entry = dict(entries[comp_line])
            entry["payload"] = {**entry["payload"], "replacement_history": new_list}
            rewrite[comp_line] = entry
            notes.note("entry-rewritten", f"Line {comp_line + 1}: the compaction's replacement_history is "
                                              f"rewritten ({len(old)} items in, {len(new_list)} out).")

    # New items (and moved ones) are written after the line of the item before them.
    new_after_line: dict[int, list[tuple[bytes | None, Any]]] = {}
    for k, added in after.items():
        anchor = places[k][0] if k >= 0 else _first_line(entries)
        for item, j in zip(added, session.origins(items, added)):
            if j is not None:
                line = places[j][0]
                new_after_line.setdefault(anchor, []).append((doc.raw[line], entries[line]))
                notes.note("entry-moved", f"Line {line + 1} moves after line {anchor + 1}.")
            else:
                new_after_line.setdefault(anchor, []).append((None, _wrap(entries, anchor, item)))
                notes.note("entry-added", f"A new line after line {anchor + 1} holds a "
                                          f"{item.get('type')} for {item.get('call_id')}.")
    # Rollouts are rewritten with plain line ends, as they always were.
    return session.rewrite_lines(doc, NAME, removed_lines, rewrite, new_after_line, keep_cr=False)


def _first_line(entries: list[Any]) -> int:
    return next((i for i, e in enumerate(entries) if isinstance(e, Mapping)), 0)


def _wrap(entries: list[Any], anchor: int, item: Any) -> Any:
    base = entries[anchor] if 0 <= anchor < len(entries) else None
    if isinstance(base, Mapping) and "payload" not in base and item_of(base) is base:
        return item                         # the older layout writes bare items
    stamp = base.get("timestamp") if isinstance(base, Mapping) else None
    return {"timestamp": stamp, "type": "response_item", "payload": item}


def export_new(im: Imported, result: Result, notes: Exported) -> Lines:
    items = openai_responses.export_new(im, result, notes)
    out = [{"timestamp": None, "type": "response_item", "payload": item} for item in items]
    return Lines(NAME, [dump_line(e) for e in out], out)


# -- registration --------------------------------------------------------------------------

FORMAT = Format(
    NAME, "a Codex CLI rollout", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=openai_responses.FORMAT.describe_block, sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".jsonl",), provider="openai-responses", whole_file=True,
    kinds=EMITS + session.EMITS + openai_responses.FORMAT.kinds,
)

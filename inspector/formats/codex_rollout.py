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
from typing import Any

from ..engine import Result
from ..io import InputError
from . import openai_responses
from .base import Exported, Imported, kind_of
from .jsonl import LineFormat, LineLoc, Lines, dump_line
from .format import SESSION, Format

NAME = "codex-rollout"
LABEL = "Codex CLI rollout"
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
    if isinstance(document, (bytes, bytearray)):
        document = parse(bytes(document), name)
    if not isinstance(document, Lines):
        raise InputError(name, f"{NAME}: expected a rollout file (JSON Lines), got {kind_of(document)}")
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
    for i in document.bad:
        im.note(None, "entry-skipped", f"Line {i + 1} is not JSON; a resume skips it, and it is kept as it is.")
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
    im.extra.update(inner=inner, places=places, items=items)
    sent = sum(1 for p in places if p[1] is None and compaction(entries[p[0]]) is None)
    other = sum(1 for e in entries if isinstance(e, Mapping)) - sent
    im.notes.append(f"{len(items)} items sent on resume; {other} lines not sent (metadata, events, turn context, "
                    f"what a compaction replaced) carried unchanged")
    return im


def export_same(im: Imported, result: Result, notes: Exported) -> Lines:
    doc: Lines = im.document
    entries = doc.entries
    inner: Imported = im.extra["inner"]
    places: list[tuple[int, int | None]] = im.extra["places"]
    items: list[Any] = im.extra["items"]
    out_items = openai_responses.export_same(inner, result, notes)
    index = {id(item): k for k, item in enumerate(items)}

    kept: list[int] = []                            # original items, in output order
    after: dict[int, list[Any]] = {}                # item index -> new items written after it
    moved: set[int] = set()
    last = -1
    for item in out_items:
        k = index.get(id(item))
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
    new_after_line: dict[int, list[tuple[bytes, Any]]] = {}
    for k, extra in after.items():
        anchor = places[k][0] if k >= 0 else _first_line(entries)
        for item in extra:
            j = index.get(id(item))
            if j is not None:
                raw, entry = doc.raw[places[j][0]], entries[places[j][0]]
                notes.note("entry-moved", f"Line {places[j][0] + 1} moves after line {anchor + 1}.")
            else:
                entry = _wrap(entries, anchor, item)
                raw = dump_line(entry)
                notes.note("entry-added", f"A new line after line {anchor + 1} holds a "
                                              f"{item.get('type')} for {item.get('call_id')}.")
            new_after_line.setdefault(anchor, []).append((raw, entry))
    raw_out: list[bytes] = []
    entries_out: list[Any] = []
    for i, line in enumerate(doc.raw):
        if i not in removed_lines:
            if i in rewrite:
                raw_out.append(dump_line(rewrite[i]))
                entries_out.append(rewrite[i])
            else:
                raw_out.append(line)
                entries_out.append(entries[i])
        for raw, entry in new_after_line.get(i, ()):
            raw_out.append(raw)
            entries_out.append(entry)
    return Lines(NAME, raw_out, entries_out, doc.final_newline or not doc.raw, doc.bom)


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
)

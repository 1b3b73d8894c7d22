"""A pi v3 session as pi reads it: the entries of a file (or of OpenClaw's ``transcript_events``
rows), the tree their ``id``/``parentId`` make, and the path from the current leaf to the root.

Built from badlogic/pi-mono at 83378aad7e74a0e2bb8f37c007a9685fb4609d8a (pi 0.58.3),
``packages/coding-agent/src/core/session-manager.ts``: ``loadEntriesFromFile`` (a line that is
not JSON is skipped; the first entry must be the ``session`` header), ``_buildIndex`` (every
entry but the header is indexed by ``id``, a later entry with an id taking the id over; the
leaf is the last entry), ``buildSessionContext`` (the walk from the leaf to the root, the
latest ``compaction`` on it sent as its summary first, then the entries from its
``firstKeptEntryId`` up to it, then those after it). Version 1 files (no ids) are one line
after another; version 2 differs only in the ``hookMessage`` role, read as ``custom``.

oh-my-pi writes the same tree with two additions its own reader honours (can1357/oh-my-pi
``packages/coding-agent/src/session/session-entries.ts`` @ 01d016cac40ff3e15df51753e62af8b85e9fcf77,
``session-context.ts`` @ 081fb4699e4ab4868b2271399bdb6d5f2452a519): the first line may be a
fixed-width title slot (``{"type": "title", "v": 1, "title", "updatedAt", "pad"}``, 256 bytes, so
the title can be rewritten in place) with the ``session`` header on the line after it; and a
``reset_boundary`` entry (``/clear``) after the latest compaction on the path starts what a
resume sends after it (the summary and everything before it stay in the file, unsent).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

HEADER = "session"
IN_CONTEXT = ("message", "custom_message", "branch_summary")
TITLE_SLOT = "title"          # oh-my-pi's first-line title slot, folded away by its loader
RESET = "reset_boundary"      # oh-my-pi's /clear: a resume sends what comes after it


@dataclass(slots=True)
class Walk:
    """The path pi sends: ``path`` lists record indexes root first; ``sent`` the records whose
    message goes out, in the order they go (a compaction's own index stands for its summary);
    ``compaction`` the index of the latest compaction on the path (None: none); ``reset`` the
    index of the ``reset_boundary`` the sent entries follow (None: none, or one a later
    compaction supersedes); ``slot`` the index of oh-my-pi's title slot (None: none)."""

    header: int | None
    path: list[int]
    sent: list[int]
    compaction: int | None = None
    version: int | None = None
    ids: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    reset: int | None = None
    slot: int | None = None


def entry_id(entry: Any) -> str | None:
    value = entry.get("id") if isinstance(entry, Mapping) else None
    return value if isinstance(value, str) else None


def is_header(entry: Any) -> bool:
    return isinstance(entry, Mapping) and entry.get("type") == HEADER


def is_title_slot(entry: Any) -> bool:
    """oh-my-pi's title slot (``parseTitleSlotObject``: type ``title``, ``v`` 1)."""
    return isinstance(entry, Mapping) and entry.get("type") == TITLE_SLOT and entry.get("v") == 1


def walk(entries: list[Any]) -> Walk:
    """The leaf-to-root walk of one session's entries (None: a line pi skips)."""
    objects = [i for i, e in enumerate(entries) if isinstance(e, Mapping)]
    slot = objects[0] if objects and is_title_slot(entries[objects[0]]) else None
    header = next((i for i in objects if i != slot), None)
    if header is not None and not is_header(entries[header]):
        header = None
    version = entries[header].get("version") if header is not None else None
    version = version if isinstance(version, int) and not isinstance(version, bool) else (1 if header is not None else None)
    body = [i for i in objects if i not in (header, slot) and not is_header(entries[i])]
    ids: dict[str, int] = {}
    for i in body:
        key = entry_id(entries[i])
        if key is not None:
            ids[key] = i
    out = Walk(header, [], [], None, version, ids, slot=slot)
    if not body:
        return out
    if version is not None and version < 2:
        path = body                               # a v1 file: one entry after another, no tree
    else:
        path = []
        seen: set[int] = set()
        at: int | None = body[-1]
        while at is not None and at not in seen:
            seen.add(at)
            path.append(at)
            parent = entries[at].get("parentId")
            at = ids.get(parent) if isinstance(parent, str) else None
            if at in seen:
                out.notes.append(f"the parentId chain loops at entry {entry_id(entries[at])!r}; the walk stops there")
                break
        path.reverse()
    out.path = path
    comp = reset = None
    for i in path:
        if entries[i].get("type") == "compaction":
            comp = i
        elif entries[i].get("type") == RESET:
            reset = i
    out.compaction = comp
    if reset is not None and (comp is None or path.index(reset) > path.index(comp)):
        out.reset, out.compaction = reset, None
        out.sent = [i for i in path[path.index(reset) + 1:] if _in_context(entries[i])]
        return out
    if comp is None:
        out.sent = [i for i in path if _in_context(entries[i])]
        return out
    first = entries[comp].get("firstKeptEntryId")
    at_comp = path.index(comp)
    start = _v1_first(entries, comp) if version is not None and version < 2 else None
    kept: list[int] = []
    found = False
    for i in path[:at_comp]:
        if (entry_id(entries[i]) == first and isinstance(first, str)) or i == start:
            found = True
        if found and _in_context(entries[i]):
            kept.append(i)
    if not found:
        out.notes.append(f"the compaction's firstKeptEntryId {first!r} is not on the path: nothing before it is kept")
    out.sent = [comp, *kept, *(i for i in path[at_comp + 1:] if _in_context(entries[i]))]
    return out


def _v1_first(entries: list[Any], comp: int) -> int | None:
    """A v1 compaction's ``firstKeptEntryIndex``: an index into the entries pi parsed (the
    header counted), turned into an id by ``migrateV1ToV2``."""
    index = entries[comp].get("firstKeptEntryIndex")
    parsed = [i for i, e in enumerate(entries) if isinstance(e, Mapping)]
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(parsed):
        return None if is_header(entries[parsed[index]]) else parsed[index]
    return None


def _in_context(entry: Mapping) -> bool:
    kind = entry.get("type")
    if kind == "branch_summary":
        return bool(entry.get("summary"))
    return kind in ("message", "custom_message")


def role(entry: Mapping) -> str | None:
    """The role of a ``message`` entry (v2's ``hookMessage`` read as v3's ``custom``)."""
    message = entry.get("message") if entry.get("type") == "message" else None
    r = message.get("role") if isinstance(message, Mapping) else None
    return "custom" if r == "hookMessage" else (r if isinstance(r, str) else None)

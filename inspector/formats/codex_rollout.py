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
``--strict`` moves the fewest items (the longest run in their original order stays).

Codex repairs two cases itself in every request it sends (openai/codex
``codex-rs/core/src/context_manager/normalize.rs`` at 0803cc58: ``ensure_call_outputs_present``
answers a call without output with ``"aborted"``, ``remove_orphan_outputs`` leaves out an
output without its call); the import notes each such case and :func:`on_resume` declares
them, so ``check`` says what Codex does instead of "resume fails now". The repair still
writes them into the rollout.

A rollout idle for seven days is compressed by Codex to ``rollout-*.jsonl.zst``; it is read as
the plain one and its repair written as plain JSON Lines, the form Codex reads first
(``codex_zst``). A paginated thread's rollout (Codex 0.153+) is read from its response items,
or refused with the reason (``codex_paginated``); the thread index ``state_5.sqlite`` is read
by the doctor (``codex_state``).

Reasoning items (``ResponseItem::Reasoning`` in ``codex-rs/protocol/src/models.rs``: ``summary``,
``content`` only when it holds raw ``reasoning_text``, ``encrypted_content``) are recorded with
the ``model`` of the ``turn_context`` line before them (Codex writes one per turn), so ``check
--model`` can say a rollout resumed with another model replays reasoning that model cannot
read. ``--reasoning strip`` removes their lines (and their place in a compaction's list).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import fields
from pathlib import PurePath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import EXPORT_CLAUSE, IMPORT_CLAUSE, Kind, Result, declare
from ..io import InputError, read_bytes
from . import codex_paginated, codex_zst, openai_responses, reasoning, session
from .base import Exported, Imported
from .jsonl import LineFormat, LineLoc, Lines, dump_line, sniff_lines, split
from .format import Agent, Format, OnResume, SESSION, SelfRepair, Source
from . import identity

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    session.MOVED,
    Kind("call-aborted-on-resume", IMPORT_CLAUSE, False, "Codex answers it on resume",
         "A call has no output in the rollout; Codex itself sends an \"aborted\" output after it on resume.",
         "note", "call"),
    Kind("orphan-dropped-on-resume", IMPORT_CLAUSE, False, "Codex drops it on resume",
         "An output answers no call in the rollout; Codex itself leaves it out of what it sends on resume.", "note"),
)

# What Codex does by itself to the history it sends (codex-rs/core/src/context_manager/normalize.rs
# in openai/codex at 0803cc58789f6445cd3829bc33c6ca21fde17fac: ensure_call_outputs_present and
# remove_orphan_outputs, run on the history before every request, resumed or not).
SOURCE = ("openai/codex codex-rs/core/src/context_manager/normalize.rs (0803cc5), "
          "ensure_call_outputs_present / remove_orphan_outputs")
SELF_REPAIRS = (
    SelfRepair("call-aborted-on-resume", None, "answers a call left without output with \"aborted\"", "",
               SOURCE, rule="call-without-output", lossless=False),
    SelfRepair("orphan-dropped-on-resume", None, "leaves out an output that answers no call", "", SOURCE,
               rule="output-without-call"),
)
# What Codex's built-in ``openai`` provider speaks: the Responses API (see :func:`ran_on`).
OPENAI_WIRE = "openai-responses"
CALLS = {"function_call": "function_call_output", "local_shell_call": "function_call_output",
         "custom_tool_call": "custom_tool_call_output"}


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
dump, evidence = HOOKS.dump, HOOKS.evidence


@dataclass(slots=True, eq=False)
class Rollout(Lines):
    """A rollout read from its compressed form (``.jsonl.zst``): the lines it decompresses to.
    It is written back as plain JSON Lines, the form Codex reads first (``codex_zst``)."""


def sniff(data: bytes, name: str = "<input>") -> bool:
    """A rollout, plain or compressed; a zstd file named ``*.jsonl.zst`` is Codex's by its name
    alone (no other agent writes one), so a damaged one fails here by name, not as "not JSON"."""
    if codex_zst.is_compressed(data):
        return sniff_lines(codex_zst.head(data), claims) or str(name).endswith(".jsonl" + codex_zst.SUFFIX)
    return HOOKS.sniff(data, name)


def parse(data: bytes, name: str = "<input>", **options: Any) -> Lines:
    if not codex_zst.is_compressed(data):
        return HOOKS.parse(data, name, **options)
    lines = split(codex_zst.decompress(data, name), NAME, name)
    return Rollout(**{f.name: getattr(lines, f.name) for f in fields(Lines)})




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
    paginated = codex_paginated.check(entries, name, item_of, compaction)
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
    compressed = isinstance(document, Rollout)
    if compressed:
        notes.append("read from a compressed rollout (.jsonl.zst); a repair is written as plain JSON Lines, "
                     "the form Codex reads before the .zst (" + codex_zst.SOURCE + ")")
    beside = codex_zst.sibling_note(name, compressed)
    if beside is not None:
        notes.append(beside)
    if paginated is not None:
        notes.append(paginated)
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
    models = _models(entries)
    for r in inner.reasoning:
        k = r.loc.message
        line, at = places[k]
        where = loc(k) if at is not None else LineLoc(line, "payload")      # the item itself, for details
        im.reasoning.append(dataclasses.replace(r, loc=where, model=models.get(line)))
    _what_codex_does(im, items, inner)
    sent = sum(1 for p in places if p[1] is None and compaction(entries[p[0]]) is None)
    other = sum(1 for e in entries if isinstance(e, Mapping)) - sent
    im.notes.append(f"{len(items)} items sent on resume; {other} lines not sent (metadata, events, turn context, "
                    f"what a compaction replaced) carried unchanged")
    return im


def _models(entries: list[Any]) -> dict[int, str]:
    """The model of each line: the ``model`` of the last ``turn_context`` before it (Codex
    writes one at the start of every turn; ``codex-rs/protocol`` ``TurnContextItem``)."""
    out: dict[int, str] = {}
    model = None
    for i, e in enumerate(entries):
        if isinstance(e, Mapping) and e.get("type") == "turn_context" and isinstance(e.get("payload"), Mapping):
            m = e["payload"].get("model")
            model = m if isinstance(m, str) and m else model
        if model is not None:
            out[i] = model
    return out


def _encrypted(item: Any) -> str | None:
    """What ``--reasoning strip`` removes from a rollout: a reasoning item, or an item that
    carries ``encrypted_content`` (a remote compaction's ``compaction`` item)."""
    if not isinstance(item, Mapping):
        return None
    kind = item.get("type")
    if kind == "reasoning" or item.get("encrypted_content"):
        return f"a {kind} item" if isinstance(kind, str) else "an encrypted item"
    return None


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip`` on a rollout: every reasoning (or encrypted) item's line goes,
    and a compaction's ``replacement_history`` loses its own; every other line keeps its bytes."""
    if not isinstance(document, Lines):
        return document
    removed: set[int] = set()
    rewrite: dict[int, Any] = {}
    for i, e in enumerate(document.entries):
        what = _encrypted(item_of(e))
        if what is not None:
            removed.add(i)
            reasoning.removed(notes, f"line {i + 1}", what)
            continue
        payload = compaction(e)
        history = payload.get("replacement_history") if payload is not None else None
        if isinstance(history, list):
            kept = []
            for r, item in enumerate(history):
                what = _encrypted(item)
                if what is None:
                    kept.append(item)
                else:
                    reasoning.removed(notes, f"line {i + 1}, replacement_history[{r}]", what)
            if len(kept) != len(history):
                rewrite[i] = {**e, "payload": {**payload, "replacement_history": kept}}
    if not removed and not rewrite:
        return document
    return session.rewrite_lines(document, NAME, removed, rewrite, {}, keep_cr=False)


def _what_codex_does(im: Imported, items: list[Any], inner: Imported) -> None:
    """One import note per case Codex repairs itself in what it sends (see SELF_REPAIRS):
    a call without its output, an output without its call. Notes only: the repair still
    writes the output into the rollout, which the API then gets as Codex would send it."""
    calls: dict[str, set[str]] = {}
    outputs: dict[str, set[str]] = {}
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("call_id"), str) and isinstance(item.get("type"), str):
            kind = item.get("type")
            if kind in CALLS:
                calls.setdefault(CALLS[kind], set()).add(item["call_id"])
            elif kind in ("function_call_output", "custom_tool_call_output"):
                outputs.setdefault(kind, set()).add(item["call_id"])
    row = {c.message: (o, j) for o, cs in enumerate(inner.calls) for j, c in enumerate(cs)}
    flat = {k: o for o, src in enumerate(inner.sources) for k in (src.items or (src.message,))}
    for k, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("call_id"), str) \
                or not isinstance(item.get("type"), str):      # a type that is no text names no kind
            continue
        kind, cid = item.get("type"), item["call_id"]
        line = im.state.places[k][0] + 1
        if kind in CALLS and cid not in outputs.get(CALLS[kind], ()):
            o, j = row.get(k, (None, None))
            im.note(o, "call-aborted-on-resume", f"Line {line}: {kind} {cid} has no output; Codex sends an "
                                                 f"\"aborted\" output after it itself on resume.", call=j,
                    tool_call_id=cid)
        elif kind in ("function_call_output", "custom_tool_call_output") and cid not in calls.get(kind, ()):
            im.note(flat.get(k), "orphan-dropped-on-resume", f"Line {line}: the {kind} for {cid} answers no call; Codex "
                                                      f"leaves it out of what it sends on resume.", tool_call_id=cid)


def ran_on(im: Imported) -> list[tuple[str | None, str | None]]:
    """The provider a rollout ran on and the model of its last turn (the ``model`` of the
    last ``turn_context``, the model that turn was sent to: openai/codex
    ``codex-rs/protocol/src/protocol.rs`` ``TurnContextItem`` at edb4efee), so the rules on
    reasoning another model wrote judge the model a resume sends to.

    The provider is session_meta's ``model_provider``, the id of an entry of Codex's
    provider table (``SessionMeta`` there): a user's ``[model_providers]`` entry (``ollama``,
    ``openrouter``...) is given as recorded. The built-in ``openai`` entry speaks the
    Responses API (``codex-rs/core/src/model_provider_info.rs`` at 001cb8e2,
    ``create_openai_provider``: ``wire_api: WireApi::Responses``), so it is given as
    ``openai-responses``, the format's own provider, never ``openai`` (Chat Completions to
    ``provider_ids``); with no model recorded, nothing (the format's provider stands)."""
    provider = next((e["payload"].get("model_provider") for e in im.history if isinstance(e, Mapping)
                     and e.get("type") == "session_meta" and isinstance(e.get("payload"), Mapping)), None)
    models = _models(im.history)
    model = models[max(models)] if models else None
    if not isinstance(provider, str) or provider in ("", "openai"):
        return [(OPENAI_WIRE, model)] if model is not None else []
    return [(provider, model)]


def on_resume(im: Imported) -> OnResume:
    """What Codex does itself when it resumes this rollout; the version is the session_meta's
    ``cli_version`` (what Codex does here is the same in every version the source shows)."""
    version = None
    for entry in im.history:
        if isinstance(entry, Mapping) and entry.get("type") == "session_meta" and isinstance(entry.get("payload"), Mapping):
            v = entry["payload"].get("cli_version")
            version = v if isinstance(v, str) and v else None
            break
    return OnResume.of("Codex", version, SELF_REPAIRS, im.events)


def export_same(im: Imported, result: Result, notes: Exported) -> Lines:
    doc: Lines = im.document
    entries = doc.entries
    state: CodexState = im.state
    places, items = state.places, state.items
    out_items = openai_responses.export_same(state.inner, result, notes)

    origin = session.origins(items, out_items)
    stay = _staying(origin)                         # the most original items that keep their order
    kept: list[int] = []                            # original items, in output order
    after: dict[int, list[Any]] = {}                # item index -> new items written after it
    moved: set[int] = set()
    last = -1
    for n, (item, k) in enumerate(zip(out_items, origin)):
        if n in stay:
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
            if j is not None and places[j][1] is None:
                line = places[j][0]
                new_after_line.setdefault(anchor, []).append((doc.raw[line], entries[line]))
                notes.note("entry-moved", f"Line {line + 1} moves after line {anchor + 1}.")
            elif j is not None:     # an item of a compaction's list: never the compaction line again
                new_after_line.setdefault(anchor, []).append((None, _wrap(entries, anchor, item)))
                notes.note("entry-moved", f"Item {places[j][1]} of line {places[j][0] + 1}'s replacement_history "
                                          f"moves to a new line after line {anchor + 1}.")
            else:
                new_after_line.setdefault(anchor, []).append((None, _wrap(entries, anchor, item)))
                notes.note("entry-added", f"A new line after line {anchor + 1} holds a "
                                          f"{item.get('type')} for {item.get('call_id')}.")
    # Rollouts are rewritten with plain line ends, as they always were.
    return session.rewrite_lines(doc, NAME, removed_lines, rewrite, new_after_line, keep_cr=False)


def _staying(origin: list[int | None]) -> set[int]:
    """Positions of the output whose original items stay where they are: the longest run
    of them in their original order (so the fewest move; a result moved next to its call
    moves, not everything between them). Patience sorting, O(n log n)."""
    tails: list[int] = []           # per length, the output position ending the best run
    back: dict[int, int | None] = {}
    for n, k in enumerate(origin):
        if k is None:
            continue
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if origin[tails[mid]] < k:  # type: ignore[operator]
                lo = mid + 1
            else:
                hi = mid
        back[n] = tails[lo - 1] if lo else None
        if lo == len(tails):
            tails.append(n)
        else:
            tails[lo] = n
    stay: set[int] = set()
    at = tails[-1] if tails else None
    while at is not None:
        stay.add(at)
        at = back[at]
    return stay


def _first_line(entries: list[Any]) -> int:
    return next((i for i, e in enumerate(entries) if isinstance(e, Mapping)), 0)


def _wrap(entries: list[Any], anchor: int, item: Any) -> Any:
    base = entries[anchor] if 0 <= anchor < len(entries) else None
    if isinstance(base, Mapping) and "payload" not in base and item_of(base) is base:
        return item                         # the older layout writes bare items
    stamp = base.get("timestamp") if isinstance(base, Mapping) else None
    return {"timestamp": stamp, "type": "response_item", "payload": item}


def replace(path: str, document: Any, exported: Any, keep: Any) -> str | None:
    """``--in-place`` on a compressed rollout (see ``codex_zst.replace_compressed``); a plain
    one is swapped as every session file is (None)."""
    if not isinstance(document, Rollout):
        return None
    original = read_bytes(path)
    if parse(original, path) != document:
        raise InputError(path, "the file changed while it was being repaired (is Codex resuming it?); "
                               "nothing was written")
    return codex_zst.replace_compressed(path, original, dump(exported), keep)


def export_new(im: Imported, result: Result, notes: Exported) -> Lines:
    items = openai_responses.export_new(im, result, notes)
    out = [{"timestamp": None, "type": "response_item", "payload": item} for item in items]
    return Lines(NAME, [dump_line(e) for e in out], out)


# -- registration --------------------------------------------------------------------------

# The agent whose store this is (the doctor's table of agents reads it here).
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _uuid_tail(name: str) -> str | None:
    """The session's UUID at the end of its rollout's name (rollout-<time>-<uuid>.jsonl)."""
    found = _UUID.search(PurePath(codex_zst.plain_path(name)).stem)
    return found.group(0) if found else None


AGENT = Agent("codex", "Codex CLI",
              "keep a copy of the original, put the repaired rollout in its place under the same name, then "
              "`codex resume <id>`",
              # `codex resume <SESSION_ID>` takes the rollout's UUID, the tail of its file name
              # (openai/codex docs/getting-started.md, "Resuming interactive sessions").
              command="codex resume {session}",
              session_id=lambda imported, name: _uuid_tail(name),
              versions="rollouts with or without the payload wrapper; .jsonl.zst (0.137 on); paginated (0.153 on)",
              built_from=(
                  Source("openai/codex", "035416bfd9b7", ("codex-rs/core/src/rollout/recorder.rs",),
                         "where and how a rollout is written"),
                  Source("openai/codex", "0803cc58789f", ("codex-rs/core/src/context_manager/normalize.rs",),
                         "the self-repairs"),
                  Source("openai/codex", "3846901efe60", ("codex-rs/rollout/src/compression.rs",),
                         "compressed rollouts, which form a resume reads"),
                  Source("openai/codex", "0136a731", ("codex-rs/rollout/src/policy.rs",), "paginated threads"),
                  Source("openai/codex", "864b3ff5194d", ("codex-rs/state/migrations/0001_threads.sql",),
                         "the thread index, state_5.sqlite"),
                  Source("openai/codex", "69a3f82e6242", ("codex-rs/utils/home-dir/src/lib.rs",), "CODEX_HOME"),
              ))

FORMAT = Format(
    NAME, "a Codex CLI rollout", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=openai_responses.FORMAT.describe_block, sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".jsonl", ".jsonl.zst"), provider="openai-responses", whole_file=True, replace=replace,
    kinds=EMITS + session.EMITS + openai_responses.FORMAT.kinds, on_resume=on_resume, repairs=SELF_REPAIRS,
    strip_reasoning=strip_reasoning,
    pairing=identity.CALL_ORDER,
    agent=AGENT, ran_on=ran_on,
)

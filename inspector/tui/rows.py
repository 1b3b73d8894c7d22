"""The diff the screen shows, read from the engine's provenance: no textual, no rule.

A stage's rows pair its input with its output through origins (input indices): an origin
present before and missing after is a drop, an output row with no origin that was not in
the input is a synthesized result (matched, in order, with the stage's
``result-synthesized`` events), and every marker comes from the stage's events. Rows are
kept as flat arrays and turned into :class:`Row` objects only for what is on screen, so a
200,000-message history costs a few lists per stage, built once, on first view.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len

from ..engine import CLAUSES, MEM5_STAGES, Event, Result, call_id, kind_of, kinds_with, to_id
from ..formats import has_import_step

TAG_LEVEL_COUNT = 4  # the tag's levels of shortening (inspector.tui.layout.TAG_LEVELS names them)
VIEWS = ("input", *MEM5_STAGES)  # 0 is the input as given, then the MEM-5 stages (extensions follow)
IMPORT_VIEW = "import"  # view 0's name when the file was in a provider format
# Kinds that add or move a message, whichever stage records them (``strict`` is an
# extension): read from the engine's own description of each kind.
SYNTH_KINDS = kinds_with("add")
RESTORE_KINDS = kinds_with("restore")
ADD_KINDS = kinds_with("add", "restore")
MOVE_KINDS = kinds_with("move")


def view_names(result: Result, imported: Any = None) -> tuple[str, ...]:
    """View 0 (the input, or the import step for a provider format), then every stage the
    result has: the four MEM-5 stages and, with ``--strict``, Inspector's ``strict``."""
    step = imported is not None and has_import_step(imported.format)
    first = IMPORT_VIEW if step else "input"
    return (first, *(s.name for s in result.stages))

SAME, DROP, ADD, MOVE, CHANGE, GHOST = " ", "-", "+", "↑", "~", "┊"
_CODE = {ord(SAME): SAME, ord(DROP): DROP, ord(ADD): ADD, ord("^"): MOVE, ord(CHANGE): CHANGE, ord("."): GHOST}
_MARKED = re.compile(b"[^" + SAME.encode() + b"]")
_ADDED = re.compile(re.escape(ADD.encode()))
MARK_NAMES = {SAME: "unchanged", DROP: "dropped", ADD: "synthesized", MOVE: "moved", CHANGE: "changed",
              GHOST: "its place before the move"}


@dataclass(slots=True)
class Row:
    """One line of the diff, with everything the panes need to explain it."""

    index: int
    mark: str
    origin: int | None
    before: Any  # the message going into the stage (a raw entry for coerce); None if synthesized
    after: Any  # the message coming out; None if dropped
    events: list[Event]
    key: Any  # identity across stages: the origin, or ("+", id) for a synthesized row
    # Whether the row enters and leaves the stage: a raw entry may itself be JSON null, so
    # these, not ``before is None``, say whether the stage created or dropped it.
    entered: bool = True
    left: bool = True

    @property
    def ghost(self) -> bool:
        """The place a moved message had before the stage (its row at the new place is real)."""
        return self.mark == GHOST

    @property
    def message(self) -> Any:
        return self.after if self.left else self.before


@dataclass(slots=True)
class Step:
    """What happened to one message in one stage, for the journey."""

    stage: str
    status: str  # present, unchanged, changed, moved, dropped, synthesized, gone, not yet
    events: list[Event]


class StageRows:
    """The rows of one view: parallel arrays indexed by row number."""

    def __init__(self, view: int, before: Sequence[Any] | None, after: Sequence[Any],
                 src: Sequence[int], dst: Sequence[int], marks: bytearray, origins: Sequence[int | None],
                 events_at: Mapping[int, list[Event]], synth: dict[int, Event], none_out: set[int],
                 name: str | None = None, imported: Any = None):
        self.view = view
        self.name = name or VIEWS[view]
        self.imported = imported  # view 0 of a provider format: where each row came from
        self.import_at: Mapping[int, list[Event]] = {}  # and the import's events, by flat index
        self.before = before
        self.after = after
        self.src = src
        self.dst = dst
        self.marks = marks
        self.origins = origins  # per row
        self.events_at = events_at
        self.synth = synth  # id(synthesized message) -> its result-synthesized event
        self.none_out = none_out  # ids of every origin-less message in this view's output
        self.ghosts: dict[int, int] = {}  # ghost row -> the input index a moved message had (see _build)
        self._changed: list[int] | None = None
        self._layout: Layout | None = None
        self._lock = threading.Lock()
        self.view_cache: dict[Any, Any] = {}  # what a widget works out once per view (the table's lines)

    def __len__(self) -> int:
        return len(self.marks)

    def mark(self, r: int) -> str:
        return _CODE[self.marks[r]]

    def row(self, r: int) -> Row:
        s, d = self.src[r], self.dst[r]
        if r in self.ghosts:  # a moved message's old place: the message as it entered, going nowhere
            origin = self.origins[r]
            return Row(r, GHOST, origin, self.before[self.ghosts[r]], None, self.events_at.get(origin, []),
                       ("ghost", origin), True, False)
        entered = self.before is not None and s >= 0
        before = self.before[s] if entered else None
        after = self.after[d] if d >= 0 else None
        origin = self.origins[r]
        if origin is not None:
            events = self.events_at.get(origin, [])
            key: Any = origin
        else:
            msg = after if after is not None else before
            event = self.synth.get(id(msg))
            events = [event] if event is not None else []
            key = ("+", id(msg))
        return Row(r, self.mark(r), origin, before, after, events, key, entered, d >= 0)

    def source(self, r: int) -> Any:
        """The message a row's call ids are read from: the one entering the stage."""
        s = self.src[r]
        if self.before is not None and s >= 0:
            return self.before[s]
        if r in self.ghosts:
            return self.before[self.ghosts[r]]
        return self.after[self.dst[r]]

    def layout(self) -> Layout:
        """What sizing the columns needs, measured once over every row (in the background
        worker when it can be): rows with more than one call id, the longest id, the
        longest clause tag."""
        if self._layout is None:
            with self._lock:  # the warm-up worker and a key press may ask at once: measure once
                if self._layout is None:
                    self._layout = _measure(self)
        return self._layout

    def changed(self) -> list[int]:
        if self._changed is None:  # a scan in C: changed rows are few among 200,000
            self._changed = [m.start() for m in _MARKED.finditer(self.marks)]
        return self._changed


@dataclass(frozen=True, slots=True)
class Layout:
    extra: dict[int, int]  # row -> call ids beyond the first (one more line each when wide)
    longest_id: int  # cells of the longest call id any row shows
    widest_ids: int  # cells of every id of one row, space separated
    tags: tuple[int, ...]  # cells of the longest tag at each level of shortening (() : no tag)
    row_of: dict[int, int]  # input index -> row, to put the cursor back on a message at once
    where: int = 0  # characters of the import view's source paths (`messages[3].content[1]`)
    counts: bool = False  # some row has kinds a shortened tag would count (`+1`)


def _measure(rows: StageRows) -> Layout:
    """One pass over the messages entering the stage. Most rows are plain messages or results
    with a string id, read inline; only call-making turns and stored rows (metadata) go
    through :func:`call_ids`. ``widest_ids`` is left at the longest id: one line per call."""
    extra: dict[int, int] = {}
    longest = 0
    before, after, src, dst = rows.before, rows.after, rows.src, rows.dst
    n = len(rows.marks)
    if before is None:
        msgs: Sequence[Any] = after
    elif isinstance(src, range) and len(before) == n:
        msgs = before
    else:  # rows in input order; a row with no input message (a synthesized one) reads its output
        msgs = list(map(before.__getitem__, src))
        for added in _ADDED.finditer(rows.marks):
            r = added.start()
            if src[r] < 0:
                msgs[r] = after[dst[r]]
        for r, i in rows.ghosts.items():
            msgs[r] = before[i]
    for r, msg in enumerate(msgs):
        if msg.__class__ is not dict:
            continue
        calls = msg.get("tool_calls")
        if calls is None:
            tid = msg.get("tool_call_id")
            if "metadata" not in msg:
                if tid.__class__ is str:
                    width = len(tid) if tid.isascii() else cell_len(tid)
                    if width > longest:
                        longest = width
                    continue
                if tid is None and msg.get("role") != "tool":
                    continue
        elif calls.__class__ is list and "metadata" not in msg and "tool_call_id" not in msg:
            if len(calls) > 1:
                extra[r] = len(calls) - 1
            for call in calls:
                cid = call.get("tool_call_id") if call.__class__ is dict else None
                if cid.__class__ is not str:
                    cid = call_id(call) if isinstance(call, Mapping) else "call 0"
                width = len(cid) if cid.isascii() else cell_len(cid)
                if width > longest:
                    longest = width
            continue
        ids = call_ids(msg)
        if len(ids) > 1:
            extra[r] = len(ids) - 1
        for ident, _ in ids:
            width = cell_len(ident)
            if width > longest:
                longest = width
    widest = longest
    tags = [0] * TAG_LEVEL_COUNT
    if rows.view == 0:
        groups: Any = rows.events_at.values()
    else:
        groups = [*rows.events_at.values(), *([e] for e in rows.synth.values())]
    counts = False
    for events in groups:
        for level, width in enumerate(tag_widths(events, rows.view)):
            if width > tags[level]:
                tags[level] = width
        if not counts and rows.view != 0 and len(events) > 1:
            counts = len({e.kind for e in events}) > 1
    for r in rows.ghosts:
        for level, width in enumerate(tag_widths(rows.events_at.get(rows.origins[r], []), rows.view, ghost=True)):
            if width > tags[level]:
                tags[level] = width
    for events in rows.import_at.values():
        width = len(import_tag(events))  # the same at every level
        tags = [max(t, width) for t in tags]
    row_of = dict(zip(rows.origins, range(n)))  # as a comprehension skipping None, at C speed
    row_of.pop(None, None)
    if rows.ghosts:  # a moved message's row is the one at its new place
        row_of = {o: r for r, o in enumerate(rows.origins) if o is not None and r not in rows.ghosts}
    where = 0
    if rows.imported is not None and n:  # paths are alike: a spread of 2,000 rows tells their width
        step = max(n // 2000, 1)
        where = max(len(rows.imported.where(i)) for i in [*range(0, n, step), n - 1])
    return Layout(extra, longest, widest, tuple(tags) if any(tags) else (), row_of, where, counts)


def first_cause(events: Sequence[Event]) -> int | None:
    """The input index behind a row's first event that names one (`→ #1`)."""
    for e in events:
        if e.cause is not None:
            return e.cause
    return None


def tag_text(events: Sequence[Event], view: int, level: int = 0, ghost: bool = False) -> str:
    """The one formatter of the tag that explains a row; ``level`` (see
    :data:`inspector.tui.layout.TAG_LEVELS`) is chosen once for a whole table, so every row
    is shortened alike. Level 0: the clause and every kind, then the cause, `(3)
    call-redeclared, turn-emptied → #1`; level 1: every kind without the clause (the rule
    panel names it), so a row with two kinds still names both where the column has the room
    (issue 35 item 7); level 2: the first kind and how many more (`+1`); level 3: as 2
    without the clause. On the input view, the row's fate: the stage that drops it, or the
    stages that change it. A ``ghost`` (a moved message's old place) says it moved from
    there. The input view's fate and a ghost have no kinds to count: level 1 is their level
    0, levels 2 and 3 their short forms."""
    if not events:
        return ""
    if level == 1 and not (ghost or view == 0):
        return ", ".join(dict.fromkeys(e.kind for e in events)) + _jump(events)
    level = max(level - 1, 0)   # the levels below: the first kind counted, then without the clause
    if ghost:  # the cause, if any, is the real row's to show
        first = events[0]
        head = f"({first.clause}) "  # every event names its clause, as the rows do
        return "moved from here" if level >= 2 else f"{head}{first.kind}: moved from here"
    cause = first_cause(events)
    jump = f" → #{cause}" if cause is not None else ""
    if view == 0:
        drops = [e for e in events if e.drop and e.call is None]
        if drops:
            e = drops[0]
            clause = CLAUSES.get(e.clause)
            where = "" if clause is not None and clause.stage == e.stage else f"{e.stage} "
            if level >= 2:
                return f"→ {e.stage} {e.kind}{jump}"
            return f"→ {where}({e.clause}) {e.kind}{jump}"
        stages: list[str] = []
        for e in events:
            if e.stage not in stages:
                stages.append(e.stage)
        mark = MOVE if any(e.kind in MOVE_KINDS for e in events) else CHANGE  # the later views' own mark
        return f"→ {mark} " + ", ".join(stages) + jump
    kinds: list[str] = []
    for e in events:
        if e.kind not in kinds:
            kinds.append(e.kind)
    first = events[0]  # events are in the order the stage acted: the cause comes first
    # Every event names its clause: a MEM-5 one its number, a strict one the clause the rule
    # panel names (`(strict:adjacent) strict-moved`); level 2 leaves it to the rule panel.
    head = f"({first.clause}) " if level < 2 else ""
    if level == 0 or len(kinds) == 1:
        return head + ", ".join(kinds) + jump
    return f"{head}{kinds[0]} +{len(kinds) - 1}{jump}"


def _jump(events: Sequence[Event]) -> str:
    cause = first_cause(events)
    return f" → #{cause}" if cause is not None else ""


def tag_widths(events: Sequence[Event], view: int, ghost: bool = False) -> tuple[int, ...]:
    """The cells of a row's tag at every level (what the layout picks a level from)."""
    return tuple(len(tag_text(events, view, level, ghost)) for level in range(TAG_LEVEL_COUNT))


def import_tag(events: Sequence[Event]) -> str:
    return f"import: {events[0].kind}" if events else ""


class Model:
    """The engine's result arranged for viewing; stage rows are built lazily and cached."""

    def __init__(self, raw: list[Any], result: Result, imported: Any = None):
        self.raw = raw
        self.result = result
        self.views = view_names(result, imported)
        self.imported = imported if self.views[0] == IMPORT_VIEW else None
        self.import_at: dict[int, list[Event]] = {}
        for e in getattr(self.imported, "events", ()):
            if e.origin is not None:
                self.import_at.setdefault(e.origin, []).append(e)
        self._views: dict[int, StageRows] = {}
        self._lock = threading.Lock()
        self.by_origin: dict[int, list[Event]] = {}
        for e in result.events:
            if e.origin is not None:
                self.by_origin.setdefault(e.origin, []).append(e)
        self.kind_counts = Counter(e.kind for e in result.events)

    # -- views and stages ---------------------------------------------------------
    def stage_of(self, view: int) -> Any:
        """The engine's stage a view shows: view 0 is the input (or the import step) and shows
        none, view N shows ``result.stages[N - 1]``; the one place the two numberings meet."""
        return self.result.stages[view - 1] if view > 0 else None

    def view_of(self, stage_index: int) -> int:
        """The view that shows ``result.stages[stage_index]``."""
        return stage_index + 1

    # -- counts -----------------------------------------------------------------
    def stage_counts(self, view: int) -> dict[str, int]:
        """Drops, insertions, moves and other changes a view shows (from its events)."""
        if view == 0:
            return {"messages": len(self.raw)}
        stage = self.stage_of(view)
        events = stage.events
        drops = sum(1 for e in events if e.drop)
        added = sum(1 for e in events if e.kind in ADD_KINDS)
        moved = sum(1 for e in events if e.kind in MOVE_KINDS)
        return {"dropped": drops, "synthesized": added, "moved": moved,
                "other": len(events) - drops - added - moved,
                "messages": len(stage.messages)}

    # -- rows -------------------------------------------------------------------
    def rows(self, view: int) -> StageRows:
        cached = self._views.get(view)
        if cached is not None:
            return cached
        with self._lock:
            if view not in self._views:
                self._views[view] = self._build(view)
            return self._views[view]

    def _build(self, view: int) -> StageRows:
        raw = self.raw
        if view == 0:
            n = len(raw)
            rows = StageRows(0, None, raw, range(n), range(n), bytearray(b" ") * n, range(n),
                             self.by_origin, {}, set(), self.views[0], self.imported)
            rows.import_at = self.import_at
            return rows
        stage = self.stage_of(view)
        if view == 1:
            before: Sequence[Any] = raw
            b_orig: Sequence[int | None] = range(len(raw))
        else:
            prev = self.stage_of(view - 1)
            before, b_orig = prev.messages, prev.origins
        after, a_orig = stage.messages, stage.origins
        events_at: dict[int, list[Event]] = {}
        for e in stage.events:
            if e.origin is not None:
                events_at.setdefault(e.origin, []).append(e)
        synth_events = [e for e in stage.events if e.kind in SYNTH_KINDS]
        none_out = {id(after[j]) for j, o in enumerate(a_orig) if o is None}
        space, change, move, plus = ord(SAME), ord(CHANGE), ord("^"), ord(ADD)

        def mark_of(origin: int) -> int:
            evs = events_at.get(origin)
            if not evs:
                return space
            if any(e.kind in MOVE_KINDS for e in evs):
                return move
            return plus if any(e.kind in RESTORE_KINDS for e in evs) else change

        # Same provenance in and out: one row per message, no drops, no insertions, no moves.
        if len(before) == len(after) and not synth_events and list(b_orig) == list(a_orig):
            n = len(after)
            marks = bytearray(b" ") * n
            if events_at:
                row_of = {o: r for r, o in enumerate(a_orig) if o is not None and o in events_at}
                for o, r in row_of.items():
                    marks[r] = mark_of(o)
            return StageRows(view, before, after, range(n), range(n), marks, a_orig, events_at, {}, none_out,
                             stage.name)

        n_in, n_out = len(before), len(after)
        if view == 1:
            pos = None
        else:
            pos = [-1] * len(raw)
            for i, o in enumerate(b_orig):
                if o is not None:
                    pos[o] = i
        none_in = {id(before[i]): i for i, o in enumerate(b_orig) if o is None}
        out_src = [-1] * n_out
        in_dst = [-1] * n_in
        new: list[int] = []
        for j, o in enumerate(a_orig):
            if o is None:
                i = none_in.get(id(after[j]), -1)
                if i < 0:
                    new.append(j)
                    continue
            else:
                i = o if pos is None else pos[o]
                if i < 0:  # back from an earlier stage's drop (strict restores a result): no input row
                    continue
            out_src[j] = i
            in_dst[i] = j
        # The k-th new origin-less row is the k-th result-synthesized event of the stage.
        synth = {id(after[j]): e for j, e in zip(new, synth_events)}

        # A message the stage moved (its event says so) shows at its new place, and a ghost
        # row stands at its old place among the input rows (for a teacher: where it was).
        moved_in = set()
        for e in stage.events:
            if e.kind in MOVE_KINDS and e.origin is not None:
                i = e.origin if pos is None else pos[e.origin]
                if i >= 0 and in_dst[i] >= 0:
                    moved_in.add(i)
        src: list[int] = []
        dst: list[int] = []
        origins: list[int | None] = []
        marks = bytearray()
        ghosts: dict[int, int] = {}
        add_s, add_d, add_o, add_m = src.append, dst.append, origins.append, marks.append
        drop, ghost = ord(DROP), ord(".")

        def passing(p: int) -> None:
            """Input row ``p`` is reached in input order: a drop keeps its place there, and so
            does the ghost of a moved message."""
            if in_dst[p] < 0:
                add_s(p); add_d(-1); add_o(b_orig[p]); add_m(drop)
            elif p in moved_in:
                ghosts[len(src)] = p
                add_s(-1); add_d(-1); add_o(b_orig[p]); add_m(ghost)

        p = 0
        for j in range(n_out):
            i = out_src[j]
            if i >= 0:
                o = a_orig[j]
                if i in moved_in:  # at its new place; its old place comes when p reaches it
                    add_s(i); add_d(j); add_o(o); add_m(space if o is None else mark_of(o))
                    continue
                while p < i:  # input rows dropped (or moved away) before this one keep their place
                    passing(p)
                    p += 1
                if p == i:
                    p += 1
                add_s(i); add_d(j); add_o(o)
                add_m(space if o is None else mark_of(o))
            else:
                o = a_orig[j]
                add_s(-1); add_d(j); add_o(o); add_m(plus)
        while p < n_in:
            passing(p)
            p += 1
        # Tuples of numbers leave the collector's watch after its first look; lists never do,
        # and each full collection would walk these 200,000 items again (a stalled keypress).
        rows = StageRows(view, before, after, tuple(src), tuple(dst), marks, tuple(origins), events_at, synth,
                         none_out, stage.name)
        rows.ghosts = ghosts
        return rows

    # -- journeys and filters ------------------------------------------------------
    def journey(self, key: Any) -> list[Step]:
        """What each stage did to one message: read from its events and the stage outputs."""
        steps: list[Step] = []
        stages = self.views[1:]
        if isinstance(key, tuple) and key[0] == "ghost":  # a moved message's old place: that message
            key = key[1]
        if isinstance(key, int):
            events = self.by_origin.get(key, [])
            gone = False
            for name in stages:
                evs = [e for e in events if e.stage == name]
                if any(e.kind in RESTORE_KINDS for e in evs):
                    steps.append(Step(name, "restored", evs))
                    gone = False
                elif gone:
                    steps.append(Step(name, "gone", []))
                elif any(e.drop and e.call is None for e in evs):
                    steps.append(Step(name, "dropped", evs))
                    gone = True
                elif any(e.kind in MOVE_KINDS for e in evs):
                    steps.append(Step(name, "moved", evs))
                elif evs:
                    steps.append(Step(name, "changed", evs))
                else:
                    steps.append(Step(name, "unchanged", []))
            return steps
        ident = key[1]
        born = False
        for v, name in enumerate(stages, start=1):
            rows = self.rows(v)
            if not born:
                event = rows.synth.get(ident)
                if event is not None:
                    born = True
                    steps.append(Step(name, "synthesized", [event]))
                else:
                    steps.append(Step(name, "not yet", []))
            else:
                steps.append(Step(name, "unchanged" if ident in rows.none_out else "gone", []))
        return steps

    def touched_by(self, kind: str) -> set[Any]:
        """Keys of the messages events of one kind touched (origins, or synthesized ids)."""
        keys: set[Any] = {e.origin for e in self.result.events if e.kind == kind and e.origin is not None}
        if kind in SYNTH_KINDS:
            for v, name in enumerate(self.views[1:], start=1):
                if any(e.kind == kind for e in self.stage_of(v).events):
                    keys.update(("+", ident) for ident, e in self.rows(v).synth.items() if e.kind == kind)
        return keys

    def first_view_of(self, kind: str) -> int | None:
        for k, stage in enumerate(self.result.stages):
            if any(e.kind == kind for e in stage.events):
                return self.view_of(k)
        return None

    def filter_rows(self, view: int, *, changed_only: bool = False, keys: set[Any] | None = None,
                    query: str = "") -> list[int] | None:
        """Row numbers that pass every active filter, or None when nothing filters."""
        if not changed_only and keys is None and not query:
            return None
        rows = self.rows(view)
        candidates: Sequence[int] = rows.changed() if changed_only else range(len(rows))
        if keys is not None:
            origins = rows.origins
            plain = {k for k in keys if isinstance(k, int)}
            synth = {k[1] for k in keys if not isinstance(k, int)}
            out = []
            for r in candidates:
                o = origins[r]
                if o is not None:
                    if o in plain:
                        out.append(r)
                elif synth:
                    d = rows.dst[r]
                    msg = rows.after[d] if d >= 0 else rows.before[rows.src[r]]
                    if id(msg) in synth:
                        out.append(r)
            candidates = out
        if query:
            candidates = [r for r in candidates if matches(rows, r, query)]
        return list(candidates)


def matches(rows: StageRows, r: int, query: str) -> bool:
    """Search is over what a row shows: its text and its call ids, ignoring case (and, on
    the import view, where it came from, e.g. ``content[3]``)."""
    d, s = rows.dst[r], rows.src[r]
    query = query.casefold()
    if rows.imported is not None and rows.origins[r] is not None \
            and query in rows.imported.where(rows.origins[r]).casefold():
        return True
    after = rows.after[d] if d >= 0 else None
    before = rows.before[s] if rows.before is not None and s >= 0 else None
    for msg in (after, before if before is not after else None):
        if not isinstance(msg, Mapping):
            continue
        content = msg.get("content")
        if isinstance(content, str) and query in content.casefold():
            return True
        if any(query in ident.casefold() for ident, _ in call_ids(msg)):
            return True
    return False


def original_part(imported: Any, index: int) -> Any:
    """The original blocks flat message ``index`` was read from (its whole message when it
    maps as a whole), from the import's provenance: what the import view previews."""
    original = imported.original(index)
    loc = imported.sources[index]
    if loc.blocks and loc.key and isinstance(original, Mapping):
        blocks = original.get(loc.key)
        if isinstance(blocks, list) and all(0 <= b < len(blocks) for b in loc.blocks):
            picked = [blocks[b] for b in loc.blocks]
            return picked[0] if len(picked) == 1 else picked
    return original


def role_of(msg: Any) -> str:
    """The role, or what stands in its place: `no role`, `number role`, or the entry's own
    type (`string`, `null`) when it is not an object at all."""
    if isinstance(msg, Mapping):
        role = msg.get("role")
        if isinstance(role, str):
            return role
        return "no role" if role is None else f"{_bare(kind_of(role))} role"
    return _bare(kind_of(msg))


def _bare(kind: str) -> str:
    """`an array` -> `array`: short enough for the role column."""
    return kind.split(" ", 1)[1] if kind.startswith(("a ", "an ")) else kind


def call_ids(msg: Any) -> list[tuple[str, int | None]]:
    """The call ids a message shows, as written: (id text, call index or None for a result)."""
    if not isinstance(msg, Mapping):
        return []
    out: list[tuple[str, int | None]] = []
    calls = msg.get("tool_calls")
    meta = msg.get("metadata")
    if calls is None and isinstance(meta, Mapping):
        calls = meta.get("tool_calls")
    if isinstance(calls, list):
        for j, call in enumerate(calls):
            if isinstance(call, Mapping):
                out.append((call_id(call) or f"call {j}", j))
            else:
                out.append((f"call {j}", j))
    if msg.get("role") == "tool" or "tool_call_id" in msg:
        value = msg.get("tool_call_id")
        if value is None and isinstance(meta, Mapping):
            value = meta.get("tool_call_id")
        if value is not None:
            out.append((to_id(value), None))
    return out

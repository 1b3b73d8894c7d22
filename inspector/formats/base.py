"""What every format shares: provenance records, the :class:`Imported` result, and how the
engine's decisions (origins and events) are read back for export.

Provenance is positional: each flat message knows which original message (and which of its
blocks or parts) it came from, and each flat call knows its own block. Export never compares
texts; it only follows these records and the engine's events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from ..engine import EXPORT_CLAUSE, KINDS, Event, Kind, Result, declare, kind_of

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("export-omitted", EXPORT_CLAUSE, False, "omitted on export",
         "Blocks or items with no counterpart in the target format were not written.", "change"),
)


IMPORT_STAGE = "import"
EXPORT_STAGE = "export"
# Drop events that remove one call from its turn (``call`` indexes the flat turn's
# tool_calls): read from each kind's scope in the engine's table, never listed here.


class Loc(NamedTuple):
    """Where a flat message or call came from in the original document.

    ``message`` is the index in the history list, or the name of a top-level field
    (``"system"``, ``"systemInstruction"``). ``key`` names the list inside that message the
    ``blocks`` index into (``content``, ``parts``, ``tool_calls``); ``blocks`` is None when
    the whole message maps to the flat row. ``items`` lists every Responses input item a
    flat row covers (a model turn spans several items). A tuple: histories have millions.
    """

    message: int | str
    key: str | None = None
    blocks: tuple[int, ...] | None = None
    items: tuple[int, ...] | None = None

    def describe(self, container: str | None) -> str:
        if isinstance(self.message, str):
            base = self.message
        else:
            base = f"{container or 'history'}[{self.message}]"
        if self.items and len(self.items) > 1:
            return f"{container or 'history'}[{self.items[0]}..{self.items[-1]}]"
        if self.blocks is None:
            return base
        if len(self.blocks) == 1:
            return f"{base}.{self.key}[{self.blocks[0]}]"
        if not self.blocks:
            return f"{base}.{self.key}"
        return f"{base}.{self.key}[{','.join(map(str, self.blocks))}]"


class PerMessage(Sequence):
    """Provenance of a format whose messages map one to one onto flat messages: a read-only
    list whose item ``i`` is ``make(i, history[i])``, computed when asked, so that a batch
    of records does not build a record per message that nobody reads."""

    __slots__ = ("_history", "_make")

    def __init__(self, history: list[Any], make: Any) -> None:
        self._history = history
        self._make = make

    def __len__(self) -> int:
        return len(self._history)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        return self._make(index, self._history[index])


@dataclass(frozen=True, slots=True)
class Reasoning:
    """One reasoning block, part or item of the original document, as its importer read it.

    ``row`` is the flat row of its turn (None when the turn became no row: a Responses turn
    of reasoning alone, carried as it is). ``loc`` is where it sits in the document; ``kind``
    its own spelling (``thinking``, ``redacted_thinking``, ``reasoning``, ``thought``,
    ``thoughtSignature``, ``reasoningContent``, ``reasoning_content``). ``signed``: it
    carries a signature or an encrypted payload the provider checks, so it must go back
    byte for byte, in place; ``encrypted``: its text is opaque. ``model`` is the model that
    wrote it where the document says so. ``before`` lists the positions, in the row's
    ``tool_calls``, of the calls it precedes in its turn. ``text`` is its readable text
    ("" when encrypted), for a view's details.
    """

    row: int | None
    loc: Loc
    kind: str
    signed: bool
    encrypted: bool = False
    model: str | None = None
    before: tuple[int, ...] = ()
    text: str = ""


@dataclass(slots=True)
class Imported:
    """A document read in one format, as the flat messages the engine consumes.

    ``sources[i]`` is where flat message ``i`` came from, ``calls[i][j]`` where call ``j`` of
    its ``tool_calls`` came from. ``events`` are import-step notes (stage ``import``), e.g.
    how Gemini calls without ids were paired. ``container`` is the document key holding the
    history list (``messages``, ``input``, ``contents``), None when the document is the list.
    ``unconverted`` lists, as ``(index, key, k)``, the blocks, parts and items of the original
    the flat form does not carry (what converting leaves behind). ``state`` is what a format
    keeps for its own export: a dataclass of the format's own, never read by another.
    ``reasoning`` lists the reasoning the document holds (:class:`Reasoning`), in document
    order; :meth:`reasoning_of` gives one row's.
    """

    format: str
    messages: list[Any]
    document: Any
    notes: list[str] = field(default_factory=list)
    sources: list[Loc] = field(default_factory=list)
    calls: list[list[Loc]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    container: str | None = None
    history: list[Any] = field(default_factory=list)
    unconverted: list[tuple[Any, Any, Any]] = field(default_factory=list)
    state: Any = None
    reasoning: list[Reasoning] = field(default_factory=list)
    # Identities the import derived (``formats.identity``) -> the id string the document holds.
    identity: dict[str, Any] = field(default_factory=dict)
    _by_row: dict[int | None, list[Reasoning]] | None = field(default=None, repr=False, compare=False)

    def reasoning_of(self, row: int) -> list[Reasoning]:
        """The reasoning of flat row ``row`` (a marker on the row; the blocks in details),
        from an index built on first use."""
        if self._by_row is None:
            index: dict[int | None, list[Reasoning]] = {}
            for r in self.reasoning:
                index.setdefault(r.row, []).append(r)
            self._by_row = index
        return self._by_row.get(row, [])

    def block_of(self, r: Reasoning) -> Any:
        """The original block, part, item or field a reasoning record names (a view's details)."""
        loc = r.loc
        entry = self.history[loc.message] if isinstance(loc.message, int) else None
        if not isinstance(entry, Mapping) or loc.key is None:
            return entry
        if loc.key not in entry:
            # A session line wraps its message: Claude Code's ``message``, Codex's ``payload``.
            entry = next((entry[w] for w in ("message", "payload") if isinstance(entry.get(w), Mapping)), entry)
        inner = entry.get(loc.key)
        if loc.blocks and isinstance(inner, list) and loc.blocks[0] < len(inner):
            return inner[loc.blocks[0]]
        return inner

    @property
    def signed(self) -> list[Reasoning]:
        """The reasoning a provider signed or encrypted: never edited, merged or moved."""
        return [r for r in self.reasoning if r.signed]

    def add(self, flat: Any, source: Loc, calls: list[Loc] | None = None) -> int:
        self.messages.append(flat)
        self.sources.append(source)
        self.calls.append(calls or [])
        return len(self.messages) - 1

    def note(self, index: int | None, kind: str, message: str, call: int | None = None,
             tool_call_id: str | None = None) -> None:
        self.events.append(Event(IMPORT_STAGE, f"import:{self.format}", kind, False, index, call,
                                 tool_call_id, message))

    def original(self, index: int) -> Any:
        """The original object flat message ``index`` came from (for showing side by side)."""
        loc = self.sources[index]
        if isinstance(loc.message, str):
            return {loc.message: self.document.get(loc.message)} if isinstance(self.document, Mapping) else None
        if loc.items and len(loc.items) > 1:
            return [self.history[k] for k in loc.items]
        return self.history[loc.message]

    def where(self, index: int) -> str:
        """A path such as ``messages[3].content[1]`` for flat message ``index``."""
        return self.sources[index].describe(self.container)


@dataclass(slots=True)
class Exported:
    """One export: the document written and what the export changed on its own, beyond the
    engine's decisions (stage ``export``). An exporter is handed a fresh one and notes into
    it, so the import it reads is never changed and each export has its own events."""

    document: Any = None
    events: list[Event] = field(default_factory=list)

    def note(self, kind: str, message: str, origin: int | None = None, cause: int | None = None) -> None:
        """Record a change the export makes on its own (e.g. two same-role messages written as
        one). ``kind`` is a declared kind: its clause (``export``, a ``strict:`` clause for a
        repair only ``--strict`` asks for, a ``reasoning:`` one) comes from the kind table, as
        the engine's events do. It counts as a change."""
        known = KINDS.get(kind)
        if known is None:
            raise ValueError(f"export event kind {kind!r} is not declared (engine.declare)")
        self.events.append(Event(EXPORT_STAGE, known.clause, kind, False, origin, None, None, message, cause))


def note_unconverted(im: Imported, target: str, notes: Exported) -> None:
    """Converting writes only what the flat form carries: one export event lists the blocks,
    parts and items of the original (recorded at import as ``(index, key, k)``) left behind.
    Reasoning is left out of it: each block has an event of its own (``reasoning.note_omitted``)."""
    thoughts = {(r.loc.message, r.loc.key if r.loc.blocks else None, r.loc.blocks[0] if r.loc.blocks else None)
                for r in im.reasoning}
    lost = [x for x in im.unconverted if x not in thoughts] if thoughts else im.unconverted
    if not lost:
        return
    base = im.container or "history"
    shown = [f"{base}[{i}]" + (f".{key}[{k}]" if key is not None else "") for i, key, k in lost[:5]]
    more = f" and {len(lost) - 5} more" if len(lost) > 5 else ""
    notes.note("export-omitted", f"{len(lost)} block(s) or item(s) of the {im.format} history have no "
                   f"counterpart in {target} and are not written: {', '.join(shown)}{more}.")


def describe_block(block: Any, ids: tuple[str, ...], texts: tuple[str, ...], limit: int = 80) -> str:
    """``tool_use toolu_01 get_weather {"city":"Lyon"}``: a block's kind, id, name and payload,
    with the format's own id and payload keys. A block spelled ``{"functionCall": {...}}``
    (one key, no ``type``) is named by that key and read inside."""
    if not isinstance(block, Mapping):
        return kind_of(block)
    inner: Any = block
    kind = block.get("type")
    if not isinstance(kind, str) and len(block) == 1:
        kind, inner = next(iter(block.items()))
        if not isinstance(inner, Mapping):
            return f"{kind} {as_text(inner)[:limit]}".rstrip()
    words = [str(kind)] if kind is not None else []
    words += [inner[k] for k in ids if isinstance(inner.get(k), str)][:1]
    if isinstance(inner.get("name"), str):
        words.append(inner["name"])
    for key in texts:
        if key in inner and key != "type":
            words.append(as_text(inner[key])[:limit])
            break
    return " ".join(w for w in words if w) or kind_of(block)


def split_body(document: Any, key: str) -> tuple[Mapping | None, list[Any] | None]:
    """(body, history list) for a bare list or an object with ``key``; (None, None) otherwise."""
    if isinstance(document, list):
        return None, document
    if isinstance(document, Mapping) and isinstance(document.get(key), list):
        return document, document[key]
    return None, None


def rebuild(imported: Imported, items: list[Any]) -> Any:
    """Put a rebuilt history back where it came from: a bare list, or the same body."""
    if imported.container is None:
        return items
    body = dict(imported.document)
    body[imported.container] = items
    return body


def join_text(parts: list[str]) -> str:
    return "\n".join(p for p in parts if p)


def as_text(value: Any) -> str:
    """Text of a result payload: strings as they are, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return ""


def call_name(call: Any) -> str:
    if not isinstance(call, Mapping):
        return ""
    fn = call.get("function")
    name = call.get("name")
    if name is None and isinstance(fn, Mapping):
        name = fn.get("name")
    return name if isinstance(name, str) else ""


def call_args(call: Any) -> Any:
    """Arguments in whatever spelling the flat call carries (string or object)."""
    if not isinstance(call, Mapping):
        return None
    for key in ("arguments", "args", "input"):
        if key in call:
            return call[key]
    fn = call.get("function")
    if isinstance(fn, Mapping):
        return fn.get("arguments")
    return None


def args_string(args: Any) -> str:
    if isinstance(args, str):
        return args
    return as_text(args if args is not None else {})


def args_object(args: Any) -> dict[str, Any]:
    if isinstance(args, Mapping):
        return dict(args)
    if isinstance(args, str):
        try:
            value = orjson.loads(args) if args.strip() else {}
        except orjson.JSONDecodeError:
            return {"arguments": args}
        return value if isinstance(value, dict) else {"value": value}
    return {} if args is None else {"value": args}


@dataclass(frozen=True, slots=True)
class Decisions:
    """The engine's decisions, read from provenance only: final rows with their origins,
    and which calls each turn lost."""

    rows: list[tuple[dict[str, Any], int | None]]
    dropped_calls: dict[int, frozenset[int]]
    _calls: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, result: Result) -> "Decisions":
        return cls(list(zip(result.messages, result.origins)), result.dropped_calls())

    @property
    def calls_by_id(self) -> dict[str, Any]:
        """Each final call by its id, built on first use (exporters that pair by id)."""
        if self._calls is None:
            calls = {call["tool_call_id"]: call for msg, _ in self.rows for call in msg.get("tool_calls") or ()}
            object.__setattr__(self, "_calls", calls)   # frozen: a cache, not a decision
            return calls
        return self._calls

    def kept_calls(self, origin: int, count: int) -> list[int]:
        gone = self.dropped_calls.get(origin, frozenset())
        return [j for j in range(count) if j not in gone]

    def losses(self, im: "Imported") -> tuple[dict[int | str, set[int]], list[int]]:
        """What the decisions take out of the native history, read from provenance only.

        The first part maps a native entry (a source's ``message``) to the blocks it loses:
        every block of a dropped row that names its blocks, and the block of each call dropped
        from a row that stays. The second lists, in order, the dropped rows that name no
        blocks: which entries such a row covers is the exporter's to say."""
        kept = {o for _, o in self.rows if o is not None}
        lost: dict[int | str, set[int]] = {}
        whole: list[int] = []
        for o, loc in enumerate(im.sources):
            if o not in kept:
                if loc.blocks is None:
                    whole.append(o)
                else:
                    lost.setdefault(loc.message, set()).update(loc.blocks)
            else:
                for j in self.dropped_calls.get(o, ()):
                    c = im.calls[o][j]
                    lost.setdefault(c.message, set()).add(c.blocks[0])
        return lost, whole

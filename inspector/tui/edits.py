"""The playground's edit model: a history of edits to the native document, with undo and redo.

An edit never touches the document the file was read into, nor anything the engine's
result shares with it: every step builds new lists (copy on write) and keeps the objects it
replaced, so undoing gives back the very objects, and the very bytes, the file held. The
unit of an edit is what the document is made of: an entry of its history list (a message, a
Responses item, a line of a session file), one block of a message, or a top-level field
(Anthropic's ``system``). The flat rows the screen shows are read again from the edited
document by the format's own importer, so provenance stays the import's.

No textual here, and no rule: :class:`EditHistory` is pure and unit-tested.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from ..formats import GONE
from ..io import BOM, MAX_ENTRY_DEPTH, MAX_WRITE_DEPTH, dumps, nesting

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()  # a field that is not there


class NotEditable(Exception):
    """The document is not one the playground edits (a database, a task folder's file)."""


# -- the native document -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Native:
    """One state of the document: its history list, as entries (and, for a session file, each
    entry's line as it was written: None for a line the playground wrote), and its other
    top-level fields. ``shape``: ``list`` (the document is the list), ``body`` (an object
    holding it under ``container``) or ``lines`` (JSON Lines)."""

    shape: str
    items: tuple[Any, ...]
    raw: tuple[bytes | None, ...] | None = None
    body: Mapping[str, Any] | None = None
    container: str | None = None
    bom: bool = False
    final_newline: bool = True

    @classmethod
    def of(cls, document: Any, history: Sequence[Any], container: str | None) -> Native:
        """The native state of an imported document (``Imported.document``, ``.history``,
        ``.container``); :class:`NotEditable` for a store the playground does not write."""
        if isinstance(document, list) and document is history:
            return cls("list", tuple(document))
        if isinstance(document, Mapping) and container is not None and document.get(container) is history:
            return cls("body", tuple(history), body=document, container=container)
        raw = getattr(document, "raw", None)
        if isinstance(raw, list) and getattr(document, "entries", None) is history and hasattr(document, "to_bytes"):
            return cls("lines", tuple(history), tuple(raw), bom=bool(getattr(document, "bom", False)),
                       final_newline=bool(getattr(document, "final_newline", True)))
        raise NotEditable(f"{type(document).__name__} documents are not edited here")

    def __len__(self) -> int:
        return len(self.items)

    def document(self) -> Any:
        """The document an importer reads: a list, or the body with its history replaced.
        (A session file is read again from :meth:`data`, as its own parser reads it.)"""
        if self.shape == "list":
            return list(self.items)
        if self.shape == "body":
            assert self.body is not None and self.container is not None
            return {**self.body, self.container: list(self.items)}
        raise ValueError("a session file is read from its bytes")

    def line(self, k: int) -> bytes:
        raw = self.raw[k] if self.raw is not None else None
        return raw if raw is not None else dumps(self.items[k])

    def data(self, dump: Any = None) -> bytes:
        """The document's bytes: a session file's untouched lines byte for byte; a JSON
        document through ``dump`` (the format's writer, the one ``inspector normalize`` uses)."""
        if self.shape == "lines":
            lines = [line for line in map(self.line, range(len(self.items))) if line != GONE]   # mended away
            body = b"\n".join(lines)
            if self.final_newline and lines:
                body += b"\n"
            return (BOM if self.bom else b"") + body
        document = self.document()
        return dump(document) if dump is not None else dumps(document, orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


# -- edits ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Splice:
    """``items[start:start + len(old)]`` becomes ``new`` (raw lines alongside)."""

    start: int
    old: tuple[Any, ...]
    new: tuple[Any, ...]
    old_raw: tuple[bytes | None, ...] = ()
    new_raw: tuple[bytes | None, ...] = ()

    def inverse(self) -> Splice:
        return Splice(self.start, self.new, self.old, self.new_raw, self.old_raw)

    def apply(self, native: Native) -> Native:
        end = self.start + len(self.old)
        items = native.items
        if not 0 <= self.start <= end <= len(items) or any(a is not b for a, b in zip(items[self.start:end], self.old)):
            raise ValueError("the edit does not fit this document")
        out = replace(native, items=items[:self.start] + self.new + items[end:])
        if native.raw is not None:
            new_raw = self.new_raw or (None,) * len(self.new)
            out = replace(out, raw=native.raw[:self.start] + new_raw + native.raw[end:])
        return out


@dataclass(frozen=True, slots=True)
class SetField:
    """A top-level field of the body set to ``new`` (``MISSING``: removed)."""

    name: str
    old: Any
    new: Any
    at: int | None = None     # the field's place among the body's keys, where a removed one comes back

    def inverse(self) -> SetField:
        return SetField(self.name, self.new, self.old, self.at)

    def apply(self, native: Native) -> Native:
        if native.body is None:
            raise ValueError("the document has no fields")
        if self.new is MISSING:
            body = {k: v for k, v in native.body.items() if k != self.name}
        elif self.name in native.body or self.at is None:
            body = dict(native.body)
            body[self.name] = self.new
        else:                 # put back where it was (an undone delete): the saved bytes are the file's
            items = list(native.body.items())
            items.insert(min(self.at, len(items)), (self.name, self.new))
            body = dict(items)
        return replace(native, body=body)


def field_at(body: Mapping[str, Any] | None, name: str) -> int | None:
    """The place of ``name`` among ``body``'s keys (None when it is not there)."""
    return next((i for i, key in enumerate(body or ()) if key == name), None)


@dataclass(frozen=True, slots=True)
class Edit:
    """One user edit: its steps, what it is called in the history, and where the cursor goes
    after it (an entry index, or a field name) and after its undo."""

    label: str
    steps: tuple[Splice | SetField, ...]
    focus: Any = None
    block: int | None = None
    undo_focus: Any = None

    def apply(self, native: Native) -> Native:
        for step in self.steps:
            native = step.apply(native)
        return native

    def inverse(self) -> Edit:
        return Edit(f"undo {self.label}", tuple(s.inverse() for s in reversed(self.steps)), self.undo_focus,
                    None, self.focus)


# -- targets: what one row of view 0 is in the native document -------------------------------
@dataclass(frozen=True, slots=True)
class Target:
    """``kind``: ``entries`` (``items[start:start+count]``), ``block`` (block ``block`` of
    ``items[start][key]``) or ``field`` (top-level field ``name``)."""

    kind: str
    start: int = 0
    count: int = 1
    key: str | None = None
    block: int | None = None
    name: str | None = None

    def describe(self, container: str | None, lines: bool = False) -> str:
        if self.kind == "field":
            return str(self.name)
        if lines:
            return f"line {self.start + 1}" if self.count == 1 else f"lines {self.start + 1}-{self.start + self.count}"
        base = container or "history"
        if self.kind == "block":
            return f"{base}[{self.start}].{self.key}[{self.block}]"
        return f"{base}[{self.start}]" if self.count == 1 else f"{base}[{self.start}..{self.start + self.count - 1}]"


def target_of(native: Native, loc: Any) -> Target:
    """The native unit a flat row's provenance (:class:`inspector.formats.Loc`) names: one
    block when the row came from exactly one block of a JSON message, else the entries."""
    message = loc.message
    if isinstance(message, str):
        return Target("field", name=message)
    items = getattr(loc, "items", None)
    if items and len(items) > 1 and list(items) == list(range(items[0], items[-1] + 1)):
        return Target("entries", items[0], len(items))
    blocks = getattr(loc, "blocks", None)
    key = getattr(loc, "key", None)
    if native.shape != "lines" and blocks is not None and len(blocks) == 1 and key is not None:
        entry = native.items[message] if 0 <= message < len(native.items) else None
        if isinstance(entry, Mapping) and isinstance(entry.get(key), list) and blocks[0] < len(entry[key]):
            return Target("block", message, 1, key, blocks[0])
    return Target("entries", message, 1)


def value_of(native: Native, target: Target) -> Any:
    """What the editor shows for a target: the block, the entry, a run of entries as a list."""
    if target.kind == "field":
        assert native.body is not None
        return native.body.get(str(target.name))
    if target.kind == "block":
        return native.items[target.start][target.key][target.block]
    if target.count == 1:
        return native.items[target.start]
    return list(native.items[target.start:target.start + target.count])


def _entries(native: Native, start: int, count: int) -> tuple[tuple[Any, ...], tuple[bytes | None, ...]]:
    old = native.items[start:start + count]
    return old, (native.raw[start:start + count] if native.raw is not None else ())


def _with_block(entry: Mapping[str, Any], key: str, blocks: list[Any]) -> dict[str, Any]:
    out = dict(entry)
    out[key] = blocks
    return out


def replace_edit(native: Native, target: Target, value: Any) -> Edit:
    """The target replaced by ``value`` (a run of entries: by the entries of a list)."""
    where = target.describe(native.container, native.shape == "lines")
    if target.kind == "field":
        assert native.body is not None
        name = str(target.name)
        return Edit(f"edit {where}", (SetField(name, native.body.get(name, MISSING), value, field_at(native.body, name)),), name, None, name)
    if target.kind == "block":
        entry = native.items[target.start]
        blocks = list(entry[target.key])
        blocks[target.block] = value
        return Edit(f"edit {where}", (_splice(native, target.start, 1, (_with_block(entry, target.key, blocks),)),),
                    target.start, target.block, target.start)
    new = tuple(value) if target.count > 1 and isinstance(value, list) else (value,)
    return Edit(f"edit {where}", (_splice(native, target.start, target.count, new),), target.start, None,
                target.start)


def _splice(native: Native, start: int, count: int, new: tuple[Any, ...],
            new_raw: tuple[bytes | None, ...] = ()) -> Splice:
    old, old_raw = _entries(native, start, count)
    if native.raw is not None and not new_raw:
        new_raw = (None,) * len(new)
    return Splice(start, old, new, old_raw, new_raw)


def delete_edit(native: Native, target: Target) -> Edit:
    where = target.describe(native.container, native.shape == "lines")
    if target.kind == "field":
        assert native.body is not None
        name = str(target.name)
        return Edit(f"delete {where}", (SetField(name, native.body.get(name, MISSING), MISSING, field_at(native.body, name)),), 0, None, name)
    if target.kind == "block":
        entry = native.items[target.start]
        blocks = list(entry[target.key])
        del blocks[target.block]
        return Edit(f"delete {where}", (_splice(native, target.start, 1, (_with_block(entry, target.key, blocks),)),),
                    target.start, None, target.start)
    after = min(target.start, max(len(native.items) - target.count - 1, 0))
    return Edit(f"delete {where}", (_splice(native, target.start, target.count, ()),), after, None, target.start)


def insert_edit(native: Native, target: Target | None, values: Sequence[Any], label: str) -> Edit:
    """New entries after the target's entry (at the front for a field, at the end of an empty history)."""
    if target is None:
        at = len(native.items)
    elif target.kind == "field":
        at = 0
    else:
        at = target.start + target.count
    return Edit(f"insert {label}", (_splice(native, at, 0, tuple(values)),), at, None,
                target.start if target is not None and target.kind != "field" else 0)


def move_edit(native: Native, target: Target, delta: int) -> Edit | None:
    """The target one place up (``delta`` -1) or down (+1): a block within its message, entries
    past their neighbour. None at the edge (or for a field, which has no place in the list)."""
    where = target.describe(native.container, native.shape == "lines")
    word = "up" if delta < 0 else "down"
    if target.kind == "field":
        return None
    if target.kind == "block":
        entry = native.items[target.start]
        blocks = list(entry[target.key])
        to = target.block + delta
        if not 0 <= to < len(blocks):
            return None
        blocks[target.block], blocks[to] = blocks[to], blocks[target.block]
        return Edit(f"move {where} {word}",
                    (_splice(native, target.start, 1, (_with_block(entry, target.key, blocks),)),),
                    target.start, to, target.start)
    start, count = target.start, target.count
    if delta < 0:
        if start == 0:
            return None
        lo = start - 1
        old, old_raw = _entries(native, lo, count + 1)
        new, new_raw = old[1:] + old[:1], old_raw[1:] + old_raw[:1]
        focus = lo
    else:
        if start + count >= len(native.items):
            return None
        lo = start
        old, old_raw = _entries(native, lo, count + 1)
        new, new_raw = old[-1:] + old[:-1], old_raw[-1:] + old_raw[:-1]
        focus = start + 1
    return Edit(f"move {where} {word}", (Splice(lo, old, new, old_raw, new_raw),), focus, None, start)


# -- the history ---------------------------------------------------------------------------
@dataclass(slots=True)
class EditHistory:
    """The edits made to one document, in order, with a position: undo steps back, redo
    forward, a new edit after an undo drops what was undone. ``saved`` is the position last
    written to a file (None: never)."""

    base: Native
    current: Native = field(init=False)
    done: list[Edit] = field(default_factory=list)
    undone: list[Edit] = field(default_factory=list)
    saved: int | None = None

    def __post_init__(self) -> None:
        self.current = self.base

    @property
    def position(self) -> int:
        return len(self.done)

    @property
    def total(self) -> int:
        return len(self.done) + len(self.undone)

    @property
    def edited(self) -> bool:
        """Whether the document differs from the input (some edit is applied)."""
        return bool(self.done)

    @property
    def unsaved(self) -> bool:
        """Edits not in any file written: what quitting would lose."""
        return self.edited and self.saved != self.position

    def apply(self, edit: Edit) -> Native:
        self.current = edit.apply(self.current)
        self.done.append(edit)
        self.undone.clear()
        if self.saved is not None and self.saved > self.position - 1:
            self.saved = None  # the saved state was in the redo branch just dropped
        return self.current

    def undo(self) -> Edit | None:
        """Step back; the edit undone (its ``undo_focus`` says where the cursor goes)."""
        if not self.done:
            return None
        edit = self.done.pop()
        self.current = edit.inverse().apply(self.current)
        self.undone.append(edit)
        return edit

    def redo(self) -> Edit | None:
        if not self.undone:
            return None
        edit = self.undone.pop()
        self.current = edit.apply(self.current)
        self.done.append(edit)
        return edit

    def discard(self) -> Edit | None:
        """Take back the last edit for good (the document it made could not be read): no redo."""
        edit = self.undo()
        if edit is not None:
            self.undone.pop()
        return edit

    def describe(self) -> str:
        """``edit 3 of 5``: where the history stands, for the title."""
        return f"edit {self.position} of {self.total}" if self.total else "no edits"


def parse_value(text: str, name: str = "<editor>") -> Any:
    """The editor's text as JSON; :class:`inspector.io.InputError` with line and column."""
    from ..io import InputError, parse_json

    if not text.strip():
        raise InputError(name, "empty: write one JSON value (delete removes the entry instead)", 1, 1)
    value = parse_json(text.encode("utf-8"), name)
    if nesting(value, MAX_ENTRY_DEPTH) > MAX_ENTRY_DEPTH:   # a save could not write it (R3-15)
        raise InputError(name, f"nested too deeply: an entry can hold at most {MAX_ENTRY_DEPTH} levels of lists "
                               f"and objects, so that the file (at most {MAX_WRITE_DEPTH}) can be saved", 1, 1)
    return value


def as_text(value: Any) -> str:
    """A value as the editor shows it: JSON indented by two; a value nested deeper than orjson
    writes is written here without recursion (R3-16); what cannot be JSON, as its repr."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        pass
    try:
        return _deep_text(value)
    except (TypeError, ValueError):
        return "<a value the editor cannot show as JSON>"


def _deep_text(value: Any) -> str:
    """``value`` as JSON indented by two, with an explicit stack instead of recursion."""
    out: list[str] = []
    stack: list[tuple[str, Any, int]] = [("value", value, 0)]
    while stack:
        what, item, level = stack.pop()
        if what == "text":
            out.append(item)
            continue
        pad = "  " * (level + 1)
        if isinstance(item, dict) and item:
            out.append("{\n")
            parts: list[tuple[str, Any, int]] = []
            for n, (key, child) in enumerate(item.items()):
                parts.append(("text", pad + orjson.dumps(str(key)).decode() + ": ", level))
                parts.append(("value", child, level + 1))
                parts.append(("text", (",\n" if n < len(item) - 1 else "\n"), level))
            parts.append(("text", "  " * level + "}", level))
            stack.extend(reversed(parts))
        elif isinstance(item, (list, tuple)) and item:
            out.append("[\n")
            parts = []
            for n, child in enumerate(item):
                parts.append(("text", pad, level))
                parts.append(("value", child, level + 1))
                parts.append(("text", (",\n" if n < len(item) - 1 else "\n"), level))
            parts.append(("text", "  " * level + "]", level))
            stack.extend(reversed(parts))
        elif isinstance(item, (dict, list, tuple)):
            out.append("{}" if isinstance(item, dict) else "[]")
        else:
            out.append(orjson.dumps(item).decode())
    return "".join(out)

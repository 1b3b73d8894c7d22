"""Agent session files written as JSON Lines: the raw lines kept byte for byte, beside what
each one parses to.

A session exporter changes only the lines an event touches; every other line goes back out
as the exact bytes it came in as (line ending included), in the same order. A line that is
not JSON (a write cut short by a crash) is kept as it is and parses to ``None``; the agent's
own loader skips such a line, and so does the importer.

A file with such lines is read again for damage (``damage.py``): a record cut by raw line
breaks, NUL padding, records glued on one line are mended where only one reading is
possible, each found place kept on ``Lines.damage`` with its line and column. A clean file
never takes that path: it costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..io import _NOT_READ, BOM, InputError, dumps, loads_surrogates
from .base import Loc
from .damage import GONE, SEPARATORS, Damage, mend, records_of

SCAN_LINES = 64          # sniffing looks at this many non-blank lines at most
_PADDING = b" \t\r\n\x00"   # white space, and the NULs a crash leaves


@dataclass(slots=True, eq=False)
class Lines:
    """A JSONL file as lines. ``raw[i]`` is line ``i`` (0-based) without its ``\\n``;
    ``entries[i]`` is what it parses to (None: blank or not JSON)."""

    format: str
    raw: list[bytes]
    entries: list[Any]
    final_newline: bool = True
    bom: bool = False
    bad: list[int] = field(default_factory=list)      # lines that are not JSON
    damage: list[Damage] = field(default_factory=list)   # what was found damaged, mended or not

    def to_bytes(self) -> bytes:
        raw = self.raw
        if GONE in raw:                 # lines a mended record took in, NUL padding: not written
            raw = [line for line in raw if line != GONE]
        body = b"\n".join(raw)
        if self.final_newline and raw:
            body += b"\n"
        return (BOM if self.bom else b"") + body

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lines) and self.raw == other.raw and self.final_newline == other.final_newline

    __hash__ = None  # type: ignore[assignment]

    def __len__(self) -> int:
        return len(self.raw)


def split(data: bytes, fmt: str, name: str, separators: bool = False) -> Lines:
    """The file as lines. ``separators``: the agent's own reader breaks lines at U+2028 and
    U+2029 too (Node's ``readline``), so a raw one inside a string is damage to mend."""
    bom = data.startswith(BOM)
    if bom:
        data = data[len(BOM):]
    raw = data.split(b"\n")
    final = bool(raw) and raw[-1] == b""
    if final:
        raw.pop()
    entries: list[Any] = []
    bad: list[int] = []
    for i, line in enumerate(raw):
        if not line.strip():
            entries.append(None)
            continue
        try:
            entries.append(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            # A line holding half an emoji (JSON.stringify writes "\ud83d") is a whole entry
            # the agent sends on resume, not a cut write: read it (issue 31 item 6, R3-24).
            entry = loads_surrogates(line, exc)
            if entry is _NOT_READ:
                entries.append(None)
                bad.append(i)
            else:
                entries.append(entry)
    damage: list[Damage] = []
    if bad or (separators and (SEPARATORS[0] in data or SEPARATORS[1] in data)):
        raw, entries, bad, final, damage = mend(raw, entries, bad, final, separators)
    if bad and not any(isinstance(e, Mapping) for e in entries):
        raise InputError(name, f"{fmt}: no JSON object on any line; expected a session file (JSON Lines)")
    return Lines(fmt, raw, entries, final, bom, bad, damage)


def first_objects(data: bytes, limit: int = SCAN_LINES) -> list[Mapping]:
    """The JSON objects on the first few non-blank lines (for sniffing), without a full parse."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    found: list[Mapping] = []
    start = 0
    seen = 0
    broken = False          # a line that was not JSON came before: the next may be its continuation
    while seen < limit and start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end]
        start = end + 1
        if not line.strip(_PADDING):
            continue
        seen += 1
        if not line.lstrip(_PADDING).startswith(b"{"):
            if found:
                return found
            if broken:          # the rest of a record cut by a raw line break
                continue
            return []
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            glued = records_of(line)          # records glued, or NULs around them (damage.py)
            found.extend(glued)
            broken = not glued
            continue
        if isinstance(value, Mapping):
            found.append(value)
    return found


def sniff_lines(data: bytes, claims: Callable[[Mapping], bool]) -> bool:
    """True when the bytes are JSON Lines (not one JSON document) and a line is claimed."""
    objects = first_objects(data)
    if not objects:
        return False
    return any(claims(o) for o in objects)


def dump_line(entry: Any) -> bytes:
    """A line written the way the agents write theirs: compact JSON, keys in their order; a
    U+2028 or U+2029 in it is written as its escape (the same text), so that no reader that
    breaks lines there (Node's ``readline``: Gemini CLI, Copilot CLI) cuts the new line."""
    line = dumps(entry)
    if SEPARATORS[0] in line or SEPARATORS[1] in line:
        line = line.replace(SEPARATORS[0], b"\\u2028").replace(SEPARATORS[1], b"\\u2029")
    return line


def describe_line(line: int, key: str | None = None, blocks: tuple[int, ...] | None = None) -> str:
    base = f"line {line + 1}"
    if not key or blocks is None:
        return base
    if len(blocks) == 1:
        return f"{base}, {key}[{blocks[0]}]"
    if not blocks:
        return f"{base}, {key}"
    return f"{base}, {key}[{','.join(map(str, blocks))}]"


class LineLoc(Loc):
    """A :class:`Loc` whose ``message`` is a 0-based line number: it reads ``line 214,
    content[0]`` (1-based, as editors number lines). ``items`` lists every line a flat row
    covers (one API message split over several lines)."""

    __slots__ = ()

    def describe(self, container: str | None = None) -> str:
        if self.items and len(self.items) > 1:
            return "lines " + ", ".join(str(i + 1) for i in self.items)
        return describe_line(self.message, self.key, self.blocks)


@dataclass(frozen=True, slots=True)
class LineFormat:
    """The raw-bytes hooks every JSON Lines session format shares: a format names itself,
    says which lines are its own, and why a parsed file is one of its sessions."""

    name: str
    claims: Callable[[Mapping], bool]
    reason: str
    separators: bool = False        # the agent's reader breaks lines at U+2028/U+2029 (see split)

    def sniff(self, data: bytes, name: str = "<input>") -> bool:
        return sniff_lines(data, self.claims)

    def parse(self, data: bytes, name: str = "<input>", **options: Any) -> Lines:
        return split(data, self.name, name, self.separators)

    def dump(self, document: Lines, compact: bool = False) -> bytes:
        return document.to_bytes()

    def evidence(self, document: Any) -> list[str]:
        return [self.reason] if isinstance(document, Lines) and document.format == self.name else []

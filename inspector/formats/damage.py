"""Damage inside the lines of an agent's JSON Lines session, found with its line and column,
mended where only one reading is possible, and reported otherwise.

The damage agents' files show (github/copilot-cli #2649, #2490, #2012, #2658, #2217, #2927,
#4098; anthropics/claude-code #50347, #53821):

- a raw line break inside a record, most often inside a string: one record over two or more
  physical lines (#2649). The lines are joined when together they are one JSON object: a
  break inside a string is written as the escape ``\\n`` (with a ``\\r`` before it, ``\\r\\n``),
  a break between tokens (white space to JSON) is left out; a line that is a whole object
  on its own is never taken into a join;
- NUL bytes: the padding a crash leaves where the file was extended but never written
  (#2217, #2927). A line of NULs only is removed, wherever it lies (between the lines of a
  record cut by raw line breaks too); NULs around or between records are removed
  when each run lies outside the records (what remains parses, and no record's text
  changes); NULs anywhere else are reported;
- two records glued on one line (``}{``): split, one line each; a record cut short and a
  whole one written right after it (#4098): the whole one gets a line of its own, the cut
  one stays (it is not JSON and is reported);
- a record cut short with nothing after it: reported with where it ends (the existing
  ``entry-skipped`` note, now with a position), never guessed at;
- a raw U+2028 or U+2029 inside a string: valid JSON, and fine for an agent that splits its
  file at ``\\n`` only (Claude Code's CLI, Codex's Rust reader, Goose, Gemini CLI). It is
  damage only for an agent whose reader also breaks lines there (Node's ``readline``, which
  Copilot CLI's loader uses: #2012, #2658), and a store says so (``separators=True``): the
  character is then written as its escape, which reads back as the same text.

Only the damaged lines change; every other byte of the file is kept. A mended line's bytes
are the ones the repaired copy holds. A line taken into the one before it, or removed as
padding, stays in the reading as :data:`GONE` (never written), so every line keeps the
number it has in the file; only glued records, once split, move the lines after them, and
that note says so. Each place found is a :class:`Damage` on ``Lines.damage``: the import
notes it (``line-mended``, or ``entry-skipped`` with the column and the reason) and the copy
names each line of the file it changes (``line-repaired``), in ``formats/session.py``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ..io import _NOT_READ, loads_surrogates

JOIN_LIMIT = 100_000     # physical lines one record may span before a join is given up
CANDIDATES = 64          # starts of a glued whole record tried after a cut one
SEPARATORS = (b"\xe2\x80\xa8", b"\xe2\x80\xa9")      # U+2028, U+2029 in UTF-8

_NULS = re.compile(rb"\x00+")
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_TOKENS = re.compile(rb'\\.|["{}\[\]]', re.S)
_MISSING = object()


@dataclass(frozen=True, slots=True)
class Damage:
    """One damaged place. ``line``/``column``: 1-based, in the file read; ``lines``: the
    0-based lines of the document read (the repaired copy's numbering) it became; ``read``:
    what the import says of it; ``written``: what writing the copy does, one sentence per
    line of the file it changes (none when nothing is mended and the line stays as it is)."""

    kind: str            # joined | glued | cut-then-glued | nul | padding | separator | cut | not-json
    line: int
    column: int
    lines: tuple[int, ...]
    read: str
    written: tuple[str, ...] = ()      # one sentence per line of the file the copy changes

    @property
    def mended(self) -> bool:
        return bool(self.written)


def load(data: bytes) -> Any:
    """One JSON text, or ``_MISSING``; a lone surrogate escape is read as the split does."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        value = loads_surrogates(data, exc)
        return _MISSING if value is _NOT_READ else value


def _error(data: bytes) -> tuple[str, int, int] | None:
    """orjson's complaint about ``data``: (message, 1-based column in characters, byte offset)."""
    try:
        orjson.loads(data)
        return None
    except orjson.JSONDecodeError as exc:
        msg = str(exc).split(": line ")[0]
        pos = exc.pos
        offset = pos if data.isascii() else len(data.decode("utf-8", "replace")[:pos].encode("utf-8"))
        return msg, pos + 1, min(offset, len(data))


def _column(data: bytes, offset: int) -> int:
    return len(data[:offset].decode("utf-8", "replace")) + 1


def _records(data: bytes) -> list[tuple[int, bytes, Any]] | None:
    """The JSON objects ``data`` holds one after another (whitespace between them allowed),
    each with its byte offset, or None when it is anything else."""
    out: list[tuple[int, bytes, Any]] = []
    at = 0
    while True:
        while at < len(data) and data[at] in b" \t":
            at += 1
        if at >= len(data):
            return out or None
        rest = data[at:]
        value = load(rest)
        if value is not _MISSING:
            if not isinstance(value, Mapping):
                return None
            out.append((at, rest.rstrip(b" \t"), value))
            return out
        err = _error(rest)
        if err is None or not err[0].startswith("unexpected content after document"):
            return None
        end = err[2]
        head = rest[:end].rstrip(b" \t")
        value = load(head)
        if not isinstance(value, Mapping) or end == 0:
            return None
        out.append((at, head, value))
        at += end
        if len(out) > 100_000:
            return None


def _cut_then_whole(data: bytes, firsts: frozenset[str]) -> list[tuple[int, bytes, Any]] | None:
    """A record cut short and whole ones written right after it: the cut text (value
    ``_MISSING``) and the records, or None. The whole record starts at or before the place
    the parser stopped (everything before it is a valid beginning of JSON); its start is the
    last ``{`` before that place after which the rest is whole records, each opening with a
    key some whole line of the file opens with (``firsts``): an object nested in the cut
    record, closed right where the cut fell, is no record of the file. The cut text is
    searched again, as the next run would read it on its own line: the parser may run on
    over several glued records before it stops, and then only the last of them is found
    (a bounded number of times, for a line built to make it slow)."""
    if not firsts:
        return None
    found: list[tuple[int, bytes, Any]] = []
    head = data
    for _ in range(CANDIDATES):
        split = _whole_after_cut(head, firsts)
        if split is None:
            break
        at, records = split
        found[:0] = [(at + o, b, v) for o, b, v in records]
        head = head[:at]
    return [(0, head, _MISSING)] + found if found else None


def _whole_after_cut(data: bytes, firsts: frozenset[str]) -> tuple[int, list[tuple[int, bytes, Any]]] | None:
    """Where the whole records after a cut one start in ``data``, and those records (see
    ``_cut_then_whole``)."""
    err = _error(data)
    if err is None:
        return None
    stop = err[2]
    tried = 0
    at = data.rfind(b"{", 1, stop + 1)
    while at > 0 and tried < CANDIDATES:
        tried += 1
        found = _records(data[at:])
        if found is not None and all(v and next(iter(v)) in firsts for _, _, v in found):
            return at, found
        at = data.rfind(b"{", 1, at)
    return None


def _without_nuls(line: bytes) -> list[tuple[int, bytes, Any]] | None:
    """The records of a line once its NUL bytes are left out, when every run of them lies
    outside the records' strings (so no record's text changes); None otherwise."""
    kept, cuts, at = [], [], 0
    for m in _NULS.finditer(line):
        kept.append(line[at:m.start()])
        at = m.end()
        cuts.append(sum(map(len, kept)))
    kept.append(line[at:])
    text = b"".join(kept)
    found = _records(text.strip(b" \t"))
    if found is None:
        return None
    spans = [(m.start(), m.end()) for m in _STRING.finditer(text)]
    if any(start < c < end for c in cuts for start, end in spans):
        return None
    lead = len(text) - len(text.lstrip(b" \t"))
    return [(lead + o, b, v) for o, b, v in found]


def records_of(line: bytes) -> list[Any]:
    """The whole records a line that is not one JSON text holds when only glued records or
    NUL bytes outside them are wrong with it (for sniffing a file's first lines)."""
    found = _without_nuls(line) if b"\x00" in line else _records(line.strip(b" \t\r"))
    return [v for _, _, v in found or ()]


def _pieces(line: bytes, firsts: frozenset[str]) -> list[tuple[int, bytes, Any]] | None:
    """What a line that is not one JSON text holds when NULs, glued records or a cut record
    with a whole one after it are all that is wrong: (byte offset, bytes, value or
    ``_MISSING`` for a cut record) per piece; ``[]`` for NUL padding; None for anything else."""
    if b"\x00" in line:
        if not line.replace(b"\x00", b"").strip():
            return []
        whole = _without_nuls(line)
        if whole is not None:
            return whole
        segments = [(m.start(), m.group()) for m in re.finditer(rb"[^\x00]+", line)]
        segments = [(o, s) for o, s in segments if s.strip()]
    else:
        segments = [(0, line)]
    out: list[tuple[int, bytes, Any]] = []
    for start, seg in segments:
        lead = len(seg) - len(seg.lstrip(b" \t"))
        body = seg.strip(b" \t")
        # Between NUL runs a piece is whole records or one cut write; two cut pieces side by
        # side are one text the NULs fell inside, which no reading can mend.
        found = _records(body) or (None if len(segments) > 1 else _cut_then_whole(body, firsts))
        if found is None:
            if out and out[-1][2] is _MISSING:
                return None
            out.append((start + lead, body, _MISSING))
        else:
            out.extend((start + lead + o, b, v) for o, b, v in found)
    if not any(v is not _MISSING for _, _, v in out):
        return None
    return out


def _joined(parts: list[bytes]) -> bytes:
    """The physical lines ``parts`` as one line: a break inside a string is written as the
    escape ``\\n`` (a ``\\r`` before it as ``\\r``), a break between the record's tokens,
    white space to JSON, is left out."""
    text = b"\n".join(parts)
    breaks = []
    at = 0
    for part in parts[:-1]:
        at += len(part)
        breaks.append(at)
        at += 1
    spans = [(m.start(), m.end()) for m in _STRING.finditer(text)]
    k = 0
    out: list[bytes] = []
    last = 0
    for b in breaks:
        while k < len(spans) and spans[k][1] <= b:
            k += 1
        inside = k < len(spans) and spans[k][0] < b
        cr = b > 0 and text[b - 1:b] == b"\r" and (not inside or spans[k][0] < b - 1)
        stop = b - 1 if cr else b
        out.append(text[last:stop])
        if inside:
            out.append(b"\\r\\n" if cr else b"\\n")
        last = b + 1
    out.append(text[last:])
    return b"".join(out)


def _scan(part: bytes, inside: bool, depth: int) -> tuple[bool, int]:
    """Whether a record's text is inside a string after ``part``, and how deep in its
    objects and arrays, given where it was before (one pass, at C speed but for the tokens)."""
    for m in _TOKENS.finditer(part):
        token = m.group()
        if token == b'"':
            inside = not inside
        elif not inside and len(token) == 1:
            depth += 1 if token in b"{[" else -1
    return inside, depth


def _padding(line: bytes) -> bool:
    """A line of NUL bytes and nothing else (white space aside): a crash's padding."""
    return b"\x00" in line and not line.replace(b"\x00", b"").strip()


def _join(raw: list[bytes], i: int, bad: set[int], entries: list[Any]
          ) -> tuple[int, bytes, Any, list[int]] | None:
    """Lines ``i``..``j`` as the one record they are when raw line breaks cut it: (j, the
    joined line, its value, the lines of NUL padding between them), or None. The lines are
    followed, one pass over each, until the record's text closes; only then is the join
    parsed. Padding is removed wherever it lies, so a record it fell inside is joined without
    it, as the copy, read again, joins it."""
    first = raw[i]
    if not first.lstrip(b" \t").startswith(b"{") or b"\x00" in first:
        return None
    inside, depth = _scan(first, False, 0)
    if not inside and depth <= 0:
        return None                                  # closed on its own line: not cut by a break
    pads: list[int] = []
    for j in range(i + 1, min(len(raw), i + JOIN_LIMIT)):
        if j not in bad and isinstance(entries[j], Mapping):
            return None                              # a whole record of its own: never taken in
        if _padding(raw[j]):
            pads.append(j)
            continue
        inside, depth = _scan(raw[j], inside, depth)
        if inside or depth > 0:
            n = j - i
            if n <= 8 or not n & (n - 1):            # now and then (O(n) in all): still a beginning of JSON?
                text = _joined(_kept(raw, i, j, pads))
                err = _error(text)
                if err is not None and "end of data" not in err[0] and err[2] < len(text.rstrip(b"\r")) - 1:
                    return None
            continue
        if depth < 0:
            return None
        text = _joined(_kept(raw, i, j, pads))     # a CRLF file's last \r stays: JSON reads it as white space
        value = load(text)
        return (j, text, value, pads) if isinstance(value, Mapping) else None
    return None


def _kept(raw: list[bytes], i: int, j: int, pads: list[int]) -> list[bytes]:
    """Lines ``i``..``j`` but the padding among them."""
    if not pads:
        return raw[i:j + 1]
    gone = set(pads)
    return [raw[k] for k in range(i, j + 1) if k not in gone]


def _escape_separators(line: bytes) -> bytes:
    return line.replace(SEPARATORS[0], b"\\u2028").replace(SEPARATORS[1], b"\\u2029")


def _where(physical: int, logical: int) -> str:
    """``Line N`` of the file read, and the reading's number when a glued line split earlier
    moved it."""
    return f"Line {physical}" if physical == logical else f"Line {physical} (line {logical} as read)"


def _unread(physical: int, logical: int, col: int, why: str) -> str:
    """Where a line left unread is not JSON, and why (the note gives the reading's number)."""
    at = f"column {col}" if physical == logical else f"line {physical} of the file, column {col}"
    return f"{at}: {why}"


def _reason(line: bytes) -> tuple[int, str]:
    """Why a line that stays unread is not JSON: (column, words)."""
    if b"\x00" in line:
        inner = line.strip(b"\x00")
        if b"\x00" in inner.rstrip(b"\r"):
            col = _column(line, line.index(b"\x00"))
            return col, (f"it holds NUL bytes inside its text from column {col}, which no reading can tell "
                         f"from the record")
        col, why = _reason(inner)
        lead = len(line) - len(line.lstrip(b"\x00"))
        return col + lead, f"{why}, and NUL bytes lie around it"
    err = _error(line)
    if err is None:
        return 1, "it holds no record"
    msg, col, _ = err
    if "end of data" in msg:
        return col, "the record is cut short (it stops before it is closed)"
    return col, f"{msg} at column {col}"


class _Reader:
    """The mended lines, built one physical line at a time (see :func:`mend`)."""

    def __init__(self, separators: bool):
        self.separators = separators
        self.raw: list[bytes] = []
        self.entries: list[Any] = []
        self.bad: list[int] = []
        self.found: list[Damage] = []

    def put(self, physical: int, line: bytes, entry: Any) -> int:
        if self.separators and entry is not None and (SEPARATORS[0] in line or SEPARATORS[1] in line):
            at = min(p for p in (line.find(SEPARATORS[0]), line.find(SEPARATORS[1])) if p >= 0)
            col = _column(line, at)
            count = line.count(SEPARATORS[0]) + line.count(SEPARATORS[1])
            where = _where(physical, len(self.raw) + 1)
            self.found.append(Damage(
                "separator", physical, col, (len(self.raw),),
                f"{where}, column {col}: {_count(count, 'raw U+2028/U+2029')} inside a string, which this agent's "
                f"line reader takes for a line break (it would cut the record there and lose it)",
                (f"{where}: {_count(count, 'raw U+2028/U+2029')} written as the escape \\u2028 or \\u2029; the "
                 f"text reads back the same, and the agent's reader no longer cuts the record there.",)))
            line = _escape_separators(line)
        self.raw.append(line)
        self.entries.append(entry)
        return len(self.raw) - 1

    def unread(self, physical: int, line: bytes) -> None:
        col, why = _reason(line)
        at = self.put(physical, line, None)
        self.bad.append(at)
        self.found.append(Damage("cut" if "cut short" in why else "not-json", physical, col, (at,),
                                 _unread(physical, at + 1, col, why)))

    def pieces(self, physical: int, body: bytes, pieces: list[tuple[int, bytes, Any]], cr: bool) -> None:
        """A damaged line's pieces: each whole record a line of the reading, a cut record kept
        on a line of its own beside the whole one after it (before it, at the end)."""
        end = b"\r" if cr else b""
        where = _where(physical, len(self.raw) + 1)
        nuls = body.count(b"\x00")
        if not pieces:
            at = self.put(physical, GONE, None)
            self.found.append(Damage(
                "padding", physical, 1, (at,),
                f"{where} is {_count(nuls, 'NUL byte')} and nothing else (what a crash leaves where the file was "
                f"extended but never written)",
                (f"{where}, {_count(nuls, 'NUL byte')} and nothing else, is removed.",)))
            return
        groups: list[list[tuple[int, bytes, Any]]] = [[]]
        for piece in pieces:
            groups[-1].append(piece)
            if piece[2] is not _MISSING:
                groups.append([])
        if not groups[-1]:
            groups.pop()
        elif len(groups) > 1:
            groups[-2].extend(groups.pop())         # cut text after the last whole record stays with it
        placed = []
        for group in groups:
            text = b"\n".join(b + end for _, b, _ in group)
            value = next(v for _, _, v in group if v is not _MISSING)
            placed.append(self.put(physical, text, value))
        whole = len(groups)
        cut = [(o, b) for o, b, v in pieces if v is _MISSING]
        if nuls:
            col = _column(body, body.index(b"\x00"))
            self.found.append(Damage(
                "nul", physical, col, tuple(placed),
                f"{where}, column {col}: {_count(nuls, 'NUL byte')} outside its record text; read without them",
                (f"{where}: {_count(nuls, 'NUL byte')} outside its record text removed; the record text is "
                 f"unchanged.",)))
        if cut:
            first = _column(body, next(o for o, _, v in pieces if v is not _MISSING))
            self.found.append(Damage(
                "cut-then-glued", physical, first, tuple(placed),
                f"{where}: a record cut short, then {_count(whole, 'whole record')} written on the same line from "
                f"column {first}; the whole record is read, the cut one (not JSON) is kept on a line of its own",
                (f"{where} held a record cut short and {_count(whole, 'whole record')} glued to it; the cut record "
                 f"goes on a line of its own, kept as it was (not JSON), so the whole one is read.",)))
        if whole > 1:
            second = [o for o, _, v in pieces if v is not _MISSING][1]
            col = _column(body, second)
            lines = ", ".join(str(p + 1) for p in placed)
            self.found.append(Damage(
                "glued", physical, col, tuple(placed),
                f"{where}: {_count(whole, 'record')} glued on one line (the second from column {col}); read as "
                f"{_word(whole)}, lines {lines}: from here on a line read is numbered {_count(whole - 1, 'more')} than "
                f"in the file",
                (f"{where} was {_count(whole, 'record')} glued on one line; split, one line each (lines {lines} of "
                 f"the copy).",)))


GONE = b"\n"       # a physical line now part of the line before it, or NUL padding removed: never
#                     written (no line of a split file can equal it), so the reading keeps the
#                     file's numbering


def mend(raw: list[bytes], entries: list[Any], bad: list[int], final: bool, separators: bool
         ) -> tuple[list[bytes], list[Any], list[int], bool, list[Damage]]:
    """The lines of a file, mended where the damage has one reading, with every damaged
    place found (see the module docstring). Only damaged lines change; a line taken into the
    one before it, or removed, stays in the reading as :data:`GONE`, so every other line keeps
    its number (only glued records split into lines of their own move the lines after them)."""
    badset = set(bad)
    firsts = frozenset(next(iter(e)) for e in entries if isinstance(e, Mapping) and e
                       and isinstance(next(iter(e)), str))
    out = _Reader(separators)
    n = len(raw)
    i = 0
    while i < n:
        line = raw[i]
        if i not in badset:
            out.put(i + 1, line, entries[i])
            i += 1
            continue
        cr = line.endswith(b"\r")
        body = line[:-1] if cr else line
        pieces = _pieces(body, firsts)
        if pieces is not None:
            out.pieces(i + 1, body, pieces, cr)
            i += 1
            continue
        joined = _join(raw, i, badset, entries)
        if joined is None:
            out.unread(i + 1, line)
            i += 1
            continue
        j, text, value, pads = joined
        err = _error(line)
        col = err[1] if err else _column(line, len(line))
        where = _where(i + 1, len(out.raw) + 1)
        others = [str(k + 1) for k in range(i + 1, j + 1) if k not in set(pads)]
        span = f"line {others[0]}" if len(others) == 1 else f"lines {', '.join(others[:-1])} and {others[-1]}"
        at = out.put(i + 1, text, value)
        taken, gone = [at], set(pads)
        for k in range(i + 1, j + 1):
            if k in gone:
                out.pieces(k + 1, raw[k], [], False)     # removed as padding, with its own note
            else:
                taken.append(out.put(i + 1, GONE, None))
        out.found.append(Damage(
            "joined", i + 1, col, tuple(taken),
            f"{where}, column {col}: a raw line break carried this record on over {span}; read as the one "
            f"record they are",
            (f"{where} and {span} were one record cut by raw line breaks; joined into {where.lower()}, each break "
             f"inside a string written as the escape \\n, any other left out.",
             *(f"Line {k} is taken into line {i + 1}: it was the rest of that line's record." for k in others))))
        i = j + 1
    if not final and out.found and out.found[-1].kind == "padding" and out.found[-1].line == n:
        final = True        # the NUL padding that ended the file unended is gone; the line before it ended
    return out.raw, out.entries, out.bad, final, out.found


def _word(n: int) -> str:
    return {1: "one", 2: "two", 3: "three"}.get(n, str(n))


def _count(n: int, word: str) -> str:
    return f"{_word(n)} {word}{'s' if n != 1 and not word.endswith(('9', 'more')) else ''}"

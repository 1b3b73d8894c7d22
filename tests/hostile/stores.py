"""Hostile session files of every store, built from the bundled samples.

A case is the sample of one store with hostile changes made the way a crash, a second
writer or a stranger would make them: a parent chain that loops or names itself, an id used
twice, a field of the wrong type, a value nested far too deep, then the bytes themselves
changed (a last line cut off mid-write, CRLF line endings, a BOM, a byte that is not UTF-8, a
NUL, a line over a megabyte). The same operations serve the hypothesis strategies and the
fixed corpus (:data:`CORPUS`), so a case found by one can be written down in the other.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from inspector.bundled import samples_dir

from .strategies import to_text

HUGE = 1_100_000                 # a line over a megabyte (the sniffers' and readers' limits)


def _sample(name: str) -> bytes:
    return (samples_dir() / name).read_bytes()


@dataclass(frozen=True)
class Store:
    """A store's sample and how its files are spelled: ``kind`` is ``lines`` (JSON Lines),
    ``doc`` (one JSON document) or ``db`` (SQLite); ``fmt`` its ``--from`` name."""

    name: str
    fmt: str
    sample: str
    kind: str
    file: str                    # the name a case is written under

    def base(self) -> bytes:
        return _sample(self.sample)


STORES = {
    "claude-code": Store("claude-code", "claude-code", "21-claude-code-session.jsonl", "lines", "s.jsonl"),
    "codex": Store("codex", "codex-rollout", "22-codex-rollout.jsonl", "lines", "rollout-s.jsonl"),
    "gemini-cli": Store("gemini-cli", "gemini-cli", "23-gemini-cli-session.json", "doc", "session-s.json"),
    "cline": Store("cline", "cline", "25-roo-code-task.api_conversation_history.json", "doc",
                   "api_conversation_history.json"),
    "opencode-export": Store("opencode-export", "opencode-export", "27-opencode-export.json", "doc", "export.json"),
    "agents-sqlite": Store("agents-sqlite", "agents-sqlite", "24-agents-sdk-session.db", "db", "conv.db"),
    "opencode": Store("opencode", "opencode", "26-opencode-session.db", "db", "opencode.db"),
}


# -- the structure of a session: what each store links by ---------------------------------

def records(store: Store, doc: Any) -> list[Any]:
    """The records a store's links run between (lines, messages, parts)."""
    if store.kind == "lines":
        return doc
    if store.name == "gemini-cli":
        return doc.get("messages") if isinstance(doc, dict) and isinstance(doc.get("messages"), list) else []
    if store.name == "opencode-export":
        msgs = doc.get("messages") if isinstance(doc, dict) else None
        return msgs if isinstance(msgs, list) else []
    return doc if isinstance(doc, list) else []


def _ident(store: Store, rec: Any) -> Any:
    if not isinstance(rec, dict):
        return None
    if store.name == "claude-code":
        return rec.get("uuid")
    if store.name == "opencode-export":
        return rec.get("info", {}).get("id") if isinstance(rec.get("info"), dict) else None
    return rec.get("id")


def _set_parent(store: Store, rec: Any, parent: Any) -> None:
    if not isinstance(rec, dict):
        return
    if store.name == "claude-code":
        rec["parentUuid"] = parent
    elif store.name == "opencode-export" and isinstance(rec.get("info"), dict):
        rec["info"]["parentID"] = parent
    else:
        rec["parentId"] = parent


def _calls(rec: Any) -> list[dict]:
    """The call and result ids of a record, wherever its store keeps them (as dicts to edit)."""
    found: list[dict] = []
    stack = [rec]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if any(k in value for k in ("call_id", "tool_use_id", "callID")) or (
                    value.get("type") == "tool_use" and "id" in value) or ("id" in value and "args" in value):
                found.append(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


def _call_key(value: dict) -> str:
    for key in ("call_id", "tool_use_id", "callID"):
        if key in value:
            return key
    return "id"


# -- the operations -------------------------------------------------------------------------
# Each takes the store, the parsed session (edited in place; lines are a list of values) and
# a random source; the ones that work on bytes take and return bytes.

def op_cycle(store: Store, doc: Any, rnd: random.Random) -> None:
    recs = [r for r in records(store, doc) if _ident(store, r) is not None]
    if len(recs) >= 2:
        a, b = rnd.sample(recs, 2)
        _set_parent(store, a, _ident(store, b))
        _set_parent(store, b, _ident(store, a))


def op_self_parent(store: Store, doc: Any, rnd: random.Random) -> None:
    recs = [r for r in records(store, doc) if _ident(store, r) is not None]
    if recs:
        rec = rnd.choice(recs)
        _set_parent(store, rec, _ident(store, rec))


def op_duplicate(store: Store, doc: Any, rnd: random.Random) -> None:
    """A record written twice (a retry): its uuid or id is then not unique."""
    recs = records(store, doc)
    if recs:
        k = rnd.randrange(len(recs))
        recs.insert(rnd.randrange(len(recs) + 1), json.loads(json.dumps(recs[k])))


def op_same_call_id(store: Store, doc: Any, rnd: random.Random) -> None:
    """Two calls (or a call and another's result) under one id."""
    calls = [c for r in records(store, doc) for c in _calls(r)]
    if len(calls) >= 2:
        a, b = rnd.sample(calls, 2)
        b[_call_key(b)] = a.get(_call_key(a))


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


def _place(doc: Any, rnd: random.Random) -> tuple[Any, Any] | None:
    paths = [p for p in _paths(doc) if p]
    if not paths:
        return None
    path = rnd.choice(paths)
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    return parent, path[-1]


def op_wrong_type(store: Store, doc: Any, rnd: random.Random, value: Any = None) -> None:
    """Any field the reader touches holding another JSON type (``value``, or a random one)."""
    place = _place(doc, rnd)
    if place is not None:
        parent, step = place
        parent[step] = value if value is not None else rnd.choice(
            [None, True, 0, -1, 1.5, "", "x", [], {}, [1, "a"], {"a": None}, "\u0000", "[bold]x[/]"])


def op_delete(store: Store, doc: Any, rnd: random.Random) -> None:
    place = _place(doc, rnd)
    if place is not None:
        parent, step = place
        del parent[step]


def op_deep(store: Store, doc: Any, rnd: random.Random) -> None:
    """A value nested deeper than JSON writers go (spliced in as text: see ``to_text``)."""
    place = _place(doc, rnd)
    if place is not None:
        parent, step = place
        parent[step] = f"\u00a7HOSTILE\u00a7d{rnd.choice([254, 256, 600, 1000])}{rnd.choice('ol')}"


STRUCTURE: dict[str, Callable[..., None]] = {
    "cycle": op_cycle, "self-parent": op_self_parent, "duplicate": op_duplicate, "same-call-id": op_same_call_id,
    "wrong-type": op_wrong_type, "delete": op_delete, "deep": op_deep,
}


def _line_spans(data: bytes) -> list[tuple[int, int]]:
    spans, start = [], 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if data[start:end].strip():
            spans.append((start, end))
        start = end + 1
    return spans


def b_truncate(data: bytes, rnd: random.Random) -> bytes:
    """The last line cut mid-write: no newline after it, its JSON unfinished."""
    spans = _line_spans(data)
    if not spans:
        return data
    a, b = spans[-1]
    return data[:a + rnd.randrange(1, max(2, b - a))]


def b_crlf(data: bytes, rnd: random.Random) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def b_bom(data: bytes, rnd: random.Random) -> bytes:
    return b"\xef\xbb\xbf" + data


def _inside_string(data: bytes, rnd: random.Random) -> int | None:
    """An offset just after an opening quote of a string value (``": "`` or ``":"``)."""
    spots = [i + 2 for i in range(len(data) - 2) if data[i:i + 2] == b':"'] + \
            [i + 3 for i in range(len(data) - 3) if data[i:i + 3] == b': "']
    return rnd.choice(spots) if spots else None


def b_bad_utf8(data: bytes, rnd: random.Random) -> bytes:
    at = _inside_string(data, rnd)
    return data if at is None else data[:at] + rnd.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"]) + data[at:]


def b_nul(data: bytes, rnd: random.Random) -> bytes:
    """A raw NUL byte in a string (not JSON), or between lines (a file a crash zero-filled)."""
    if rnd.random() < 0.5:
        at = _inside_string(data, rnd)
        return data if at is None else data[:at] + b"\x00" + data[at:]
    spans = _line_spans(data)
    end = spans[rnd.randrange(len(spans))][1] + 1 if spans else 0
    return data[:end] + b"\x00" * rnd.choice([1, 8, 512]) + b"\n" + data[end:]


BYTES: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "truncate": b_truncate, "crlf": b_crlf, "bom": b_bom, "bad-utf8": b_bad_utf8, "nul": b_nul,
}


def huge_value(doc: Any, rnd: random.Random) -> None:
    """One string of a record grown past a megabyte (a pasted log, a base64 image)."""
    strings = [p for p in _paths(doc) if p and isinstance(_get(doc, p), str)]
    if strings:
        path = rnd.choice(strings)
        _get(doc, path[:-1])[path[-1]] = "y" * HUGE


def _get(doc: Any, path: tuple) -> Any:
    for step in path:
        doc = doc[step]
    return doc


# -- a whole case ---------------------------------------------------------------------------

def _parse(store: Store, data: bytes) -> Any:
    if store.kind == "lines":
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    return json.loads(data)


def _write(store: Store, doc: Any) -> bytes:
    if store.kind == "lines":
        return b"".join(to_text(line) + b"\n" for line in doc)
    if store.name in ("gemini-cli", "opencode-export"):   # both stores write their files indented
        text = json.dumps(doc, indent=2, ensure_ascii=False)
        return to_text(json.loads(text)) if "\u00a7HOSTILE" in text else text.encode()
    return to_text(doc)


def make_file(store: Store, ops: list[str], seed: int, huge: bool = False) -> bytes:
    """The store's sample with ``ops`` applied in order (structure first, then bytes)."""
    rnd = random.Random(seed)
    doc = _parse(store, store.base())
    for op in ops:
        if op in STRUCTURE:
            STRUCTURE[op](store, doc, rnd)
    if huge:
        huge_value(doc, rnd)
    data = _write(store, doc)
    for op in ops:
        if op in BYTES:
            data = BYTES[op](data, rnd)
    return data


# -- SQLite stores: rows edited inside a copy of the sample database -------------------------

def _table(store: Store) -> tuple[str, str]:
    return ("agent_messages", "message_data") if store.name == "agents-sqlite" else ("part", "data")


def make_db(store: Store, path: Path, ops: list[str], seed: int) -> None:
    """The store's sample database at ``path`` with its rows made hostile: a row's JSON
    edited by the structure operations, a row written twice, text that is not JSON, not
    UTF-8, NULL, a number or a blob where JSON text belongs."""
    rnd = random.Random(seed)
    path.write_bytes(store.base())
    table, column = _table(store)
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")       # one file: a case is its bytes
        rows = conn.execute(f"SELECT rowid, {column} FROM {table} ORDER BY rowid").fetchall()
        for op in ops:
            rid, text = rnd.choice(rows)
            if op in STRUCTURE and op != "duplicate":
                doc = json.loads(text)
                STRUCTURE[op](store, [doc] if op in ("cycle", "same-call-id") else doc, rnd)
                new: Any = to_text(doc).decode("utf-8", "surrogatepass")
            elif op == "duplicate":
                cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
                keep = [c for c in cols if c != "id"] if store.name == "agents-sqlite" else cols
                values = conn.execute(f"SELECT {', '.join(keep)} FROM {table} WHERE rowid = ?", (rid,)).fetchone()
                if store.name == "opencode":   # the id is a primary key: a copy under another id
                    values = (values[0] + "dup", *values[1:])
                conn.execute(f"INSERT INTO {table} ({', '.join(keep)}) VALUES ({', '.join('?' * len(keep))})",
                             values)
                continue
            elif op == "bad-utf8":
                new = text.encode()[:5] + b"\xff\xfe" + text.encode()[5:]
            elif op == "nul":
                new = text[:3] + "\x00" + text[3:]
            elif op == "truncate":
                new = text[:rnd.randrange(1, len(text))]
            elif op == "not-text":
                new = rnd.choice([None, 42, 1.5, b"\x00\x01{", ""])
            else:
                continue
            try:
                conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (new, rid))
            except sqlite3.IntegrityError:       # NOT NULL: the schema keeps this one out
                pass
        conn.commit()
    finally:
        conn.close()


DB_OPS = ["wrong-type", "delete", "deep", "cycle", "same-call-id", "duplicate", "bad-utf8", "nul", "truncate",
          "not-text"]
LINE_OPS = [*STRUCTURE, *BYTES]


def ops_strategy(store: Store) -> st.SearchStrategy[list[str]]:
    names = DB_OPS if store.kind == "db" else LINE_OPS
    return st.lists(st.sampled_from(names), min_size=1, max_size=4)


# The fixed corpus: every hostile shape named in issue 25, once per store it applies to.
CORPUS: list[tuple[str, tuple[str, ...], bool]] = [
    *((s, ops, False) for s in ("claude-code", "codex", "gemini-cli", "cline", "opencode-export")
      for ops in (("cycle",), ("self-parent",), ("duplicate",), ("same-call-id",), ("truncate",), ("crlf",),
                  ("bom",), ("bad-utf8",), ("nul",), ("deep",), ("wrong-type",), ("bom", "crlf", "truncate"),
                  ("cycle", "duplicate", "self-parent"))),
    *((s, (), True) for s in ("claude-code", "codex", "gemini-cli", "cline", "opencode-export")),
    *((s, (op,), False) for s in ("agents-sqlite", "opencode") for op in DB_OPS),
]

"""OpenCode sessions, in the three shapes OpenCode keeps them:

- **the database** ``~/.local/share/opencode/opencode.db`` (``$XDG_DATA_HOME/opencode``; another
  file with ``OPENCODE_DB``), SQLite in WAL mode: ``session``, ``message(id, session_id,
  time_created, data)`` and ``part(id, message_id, session_id, data)``, ``data`` being the object
  as JSON text without the ids held in columns (anomalyco/opencode
  ``packages/opencode/src/session/session.sql.ts`` @ 063e8306d9895af9bdd175306cfa4fa3291fd83a);
- **the legacy tree** ``storage/session/<project>/<id>.json``, ``storage/message/<session>/<id>.json``,
  ``storage/part/<message>/<id>.json`` of builds before the database (``storage/json-migration.ts``
  @ 0a8a0ed8bb798343e09cf7fb1bad0a08ee573b98), read from a session file;
- **``opencode export``** output, ``{"info", "messages": [{"info", "parts"}]}`` printed by
  ``JSON.stringify(_, null, 2)`` (``cli/cmd/export.ts`` @ cfa809bf335301036f4a320b38260445daa8f390).

A call and its result are one ``tool`` part (``state.status`` ``pending``, ``running``,
``completed`` or ``error``), so a result cannot be orphaned; what breaks a resume is a call id
declared twice or unusable. Import reads what OpenCode sends on resume, step by step after its
code (``session/message-v2.ts`` @ 007a9409bafea06d6b9084ff1f6d1fe9f5e3a803: ``filterCompacted``,
``toModelMessages``; ``provider/transform.ts`` @ 000f6280d904296fe8628344b98bef096ae26fb4; the AI
SDK's ``convertToModelMessages``, vercel/ai ``packages/ai/src/ui/convert-to-model-messages.ts`` @
004d06cd58a91a509a4d6e2413844dcba6b1e87c, and ``@ai-sdk/anthropic``,
``packages/anthropic/src/convert-to-anthropic-messages-prompt.ts`` @
01ab106e549d9bd8f582a2b42480235bac2e0d4a), into the Anthropic request it builds, and reads that with the Anthropic importer. What OpenCode repairs itself is an import
note, not a change: a ``pending``/``running`` call is sent with the error result "[Tool
execution was interrupted]" (the real result is lost; the tool may have run), text streamed
after a call is moved before it (since PR #22646), unsigned or foreign reasoning is left out.

The database is read through ``store.sqlite.read_live`` (its ``-wal`` or hot ``-journal``
applied in a private copy, as OpenCode's next open sees it), and a repaired copy keeps the
file's journal mode.

Export is a repaired copy OpenCode resumes: for the database, the same database with the
dropped parts' rows deleted and rewritten parts' ``data`` updated, every other row as it was
(run it with ``OPENCODE_DB=<copy> opencode -s <session>``); for an export or a tree session, an
export document whose untouched parts keep their bytes (``OPENCODE_DB=<new.db> opencode import
<file>``: importing into the database that already holds the session keeps its old rows, as
``opencode import`` inserts with ``onConflictDoNothing``, ``cli/cmd/import.ts`` @
020ac73edc13a96d368fbebd5239b6650a5874dc).

Reasoning parts (``type: "reasoning"``, a provider's signature or encrypted payload in
``metadata``, the model on the message's ``providerID``/``modelID``) are recorded whether
OpenCode sends them (as ``thinking``, signed, to the model that wrote them) or leaves them out;
``--reasoning strip`` removes their rows or their place in the export.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from ..engine import IMPORT_CLAUSE, Kind, Result, declare
from ..io import InputError, parse_json
from . import anthropic, reasoning, session
from .base import Decisions, Exported, Imported, Loc, Reasoning, args_object, call_args, call_name, kind_of
from .format import Agent, Format, OnResume, SESSION, SelfRepair, SessionInfo
from . import identity
from .store.jsontext import array_spans, key_at
from .store.request import Block, Request, lost
from .store.side import files, read_regular
from .store.sqlite import open_checked, read_live, replace_rows, schema_head, with_mode

NAME = "opencode"
EXPORT = "opencode-export"
HEADER = b"SQLite format 3\x00"
INTERRUPTED = "[Tool execution was interrupted]"
NO_RESULT = "Tool call was interrupted; no result."
# What OpenCode repairs itself on resume: a tool part still pending or running is sent with an
# error result of its own (import event ``agent-placeholder``); the one claim every verdict reads.
SELF_REPAIRS = (
    SelfRepair("agent-placeholder", None,
               f"answers a call still pending or running with the error \"{INTERRUPTED}\"", "",
               "anomalyco/opencode packages/opencode/src/session/message-v2.ts @ "
               "007a9409bafea06d6b9084ff1f6d1fe9f5e3a803 (toModelMessages)", lossless=False),
)
CLAUDE_ID = re.compile(r"[^a-zA-Z0-9_-]")
# The model a session resumes with when its messages name none (the fixtures' provider).
DEFAULT_MODEL = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}

EMITS = declare(
    Kind("agent-placeholder", IMPORT_CLAUSE, False, "agent's own result",
         "The agent sends this call with an error result of its own (the call was interrupted); the real "
         "result is lost and the tool may have run.", "note", "call"),
    session.NOT_SENT,
    Kind("agent-reordered", IMPORT_CLAUSE, False, "reordered by the agent",
         "The agent moves this text ahead of the calls it followed before sending (older builds send "
         "it as stored, which the provider refuses).", "note"),
)


def pretty(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``, OpenCode's spelling of an export."""
    return json.dumps(value, ensure_ascii=False, indent=2)


def compact(value: Any) -> str:
    """``JSON.stringify(value)``: what drizzle writes into a ``data`` column."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- the three containers ---------------------------------------------------------------------

Row = tuple[str, str, list[tuple[str, str, str]]]      # message id, data, [(part id, session id, data)]


@dataclass(slots=True, eq=False)
class OpenCodeDB:
    """An OpenCode database read from a copy; ``session`` is the one being repaired.

    ``data`` is a consistent image (the WAL applied), ``original`` the file's own bytes (what
    goes out when nothing changed and no WAL was pending); ``rows`` maps a session id to its
    message rows in ``(time_created, id)`` order, each with its parts in id order, as text:
    a session's JSON is decoded when it is read (a database holds hundreds)."""

    data: bytes
    original: bytes
    titles: dict[str, tuple[str, int]]
    rows: dict[str, list[Row]]
    session: str | None = None
    wal: bool = False
    mode: bytes = b""              # the file's journal-mode header bytes, which a repaired copy keeps
    format: str = NAME
    _decoded: dict[str, tuple[list[dict[str, Any]], list[str]]] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        return with_mode(self.data if self.wal else self.original, self.mode)

    def messages(self, sid: str) -> list[dict[str, Any]]:
        """The session's messages as OpenCode hydrates them: ``{"info", "parts"}``."""
        return self._decode(sid)[0]

    def skipped(self, sid: str) -> list[str]:
        """Rows of the session that are not JSON objects (OpenCode cannot read them either)."""
        return self._decode(sid)[1]

    def _decode(self, sid: str) -> tuple[list[dict[str, Any]], list[str]]:
        if sid not in self._decoded:
            out: list[dict[str, Any]] = []
            bad: list[str] = []
            for mid, text, parts in self.rows.get(sid, []):
                info = _object(text)
                if info is None:
                    bad.append(f"message {mid}")
                    continue
                decoded = []
                for pid, psid, ptext in parts:
                    body = _object(ptext)
                    if body is None:
                        bad.append(f"part {pid}")
                        continue
                    decoded.append({**body, "id": pid, "sessionID": psid, "messageID": mid})
                out.append({"info": {**info, "id": mid, "sessionID": sid}, "parts": decoded})
            self._decoded[sid] = (out, bad)
        return self._decoded[sid]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpenCodeDB) and self.rows == other.rows

    __hash__ = None  # type: ignore[assignment]


def _object(text: Any) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):    # not JSON, or nested deeper than it reads
        return None
    return value if isinstance(value, dict) else None


@dataclass(slots=True, eq=False)
class OpenCodeExport:
    """One session as an ``opencode export`` document; ``text`` is the file as read (None for a
    tree session or a document handed over already parsed), ``tree`` the storage folder a
    legacy session was read from."""

    doc: dict[str, Any]
    text: str | None = None
    tree: str | None = None
    bom: bool = False
    format: str = EXPORT

    def to_bytes(self) -> bytes:
        text = (self.text if self.text is not None else pretty(self.doc) + "\n").encode()
        return b"\xef\xbb\xbf" + text if self.bom else text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpenCodeExport) and self.doc == other.doc

    __hash__ = None  # type: ignore[assignment]


# -- reading the database -------------------------------------------------------------------

def _connect(data: bytes, name: str) -> sqlite3.Connection:
    """The image in memory (WAL is a property of a file; memory has none), checked whole."""
    return open_checked(data, name, NAME)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}


def sniff(data: bytes, name: str = "<input>") -> bool:
    """OpenCode's schema in the head of an SQLite file, or its file name (a grown schema can
    sit in pages far into a large database)."""
    if not data.startswith(HEADER):
        return False
    head = schema_head(data, name)
    if b"update_session_message_count_on_insert" in head and b"CREATE TABLE `part`" not in head:
        return False        # Crush's schema: the Go OpenCode's opencode.db, which Crush reads
    return b"message_session_time_created_id_idx" in head or b"CREATE TABLE `part`" in head \
        or re.fullmatch(r"opencode(-[A-Za-z0-9._-]+)?\.db", os.path.basename(name)) is not None


def parse(data: bytes, name: str = "<input>", **options: Any) -> OpenCodeDB:
    """The database as OpenCode's next open reads it (``store.sqlite.read_live``): its
    sessions' rows as text, each session decoded when it is read."""
    image, original = read_live(data, name, NAME)
    conn = _connect(image, name)
    try:
        db = _read_rows(conn, image, data, original is None, name)
    except sqlite3.Error as exc:
        raise InputError(name, f"{NAME}: cannot read the database ({exc})") from None
    finally:
        conn.close()
    db.mode = bytes(data[18:20])
    return db


_parse = parse


def _read_rows(conn: sqlite3.Connection, image: bytes, data: bytes, wal: bool, name: str) -> OpenCodeDB:
    """The sessions' message and part rows, as text (decoded per session when asked)."""
    if not ({"id", "session_id", "time_created", "data"} <= _columns(conn, "message")
            and {"id", "message_id", "data"} <= _columns(conn, "part")):
        raise InputError(name, f"{NAME}: no message and part tables with data columns; not an OpenCode database")
    titles: dict[str, tuple[str, int]] = {}
    if {"id", "title", "time_updated"} <= _columns(conn, "session"):
        for sid, title, updated in conn.execute("SELECT id, title, time_updated FROM session "
                                                "ORDER BY time_updated DESC, id"):
            titles[str(sid)] = (title or "", updated or 0)
    parts: dict[str, list[tuple[str, str, str]]] = {}
    for pid, mid, sid, text in conn.execute("SELECT id, message_id, session_id, data FROM part "
                                            "ORDER BY message_id, id"):
        parts.setdefault(mid, []).append((pid, sid, text))
    rows: dict[str, list[Row]] = {sid: [] for sid in titles}
    for mid, sid, text in conn.execute("SELECT id, session_id, data FROM message ORDER BY session_id, "
                                       "time_created, id"):
        rows.setdefault(str(sid), []).append((mid, text, parts.get(mid, [])))
        titles.setdefault(str(sid), ("", 0))
    db = OpenCodeDB(image, data, titles, rows, wal=wal)
    if len(rows) == 1:
        db.session = next(iter(rows))
    return db


def dump(document: Any, compact: bool = False) -> bytes:
    """A database as its bytes; an export as OpenCode prints it (its own text when it has one),
    or on one line when asked (a record of a JSON Lines batch)."""
    if isinstance(document, OpenCodeDB):
        return document.to_bytes()
    doc = document.doc if isinstance(document, OpenCodeExport) else document
    if compact:
        return orjson.dumps(doc, option=orjson.OPT_APPEND_NEWLINE)
    return document.to_bytes() if isinstance(document, OpenCodeExport) else (pretty(doc) + "\n").encode()


# -- reading an export or a tree ----------------------------------------------------------------

def _is_export(doc: Any) -> bool:
    if not (isinstance(doc, Mapping) and isinstance(doc.get("info"), Mapping) and isinstance(doc.get("messages"), list)):
        return False
    msgs = doc["messages"]
    return all(isinstance(m, Mapping) and isinstance(m.get("info"), Mapping) and isinstance(m.get("parts"), list)
               for m in msgs) and any(m["info"].get("role") in ("user", "assistant") for m in msgs) \
        or (not msgs and str(doc["info"].get("id", "")).startswith("ses_"))


def _is_tree_session(doc: Any) -> bool:
    return isinstance(doc, Mapping) and str(doc.get("id", "")).startswith("ses_") and "messages" not in doc \
        and isinstance(doc.get("time"), Mapping) and ("projectID" in doc or "directory" in doc) and "title" in doc


def sniff_export(data: bytes, name: str = "<input>") -> bool:
    head = data[:1 << 16].removeprefix(b"\xef\xbb\xbf").lstrip()
    return head.startswith(b"{") and head[1:].lstrip().startswith(b'"info"') and b'"ses_' in head \
        and b'"messages"' in data and b'"parts"' in data


def parse_export(data: bytes, name: str = "<input>", **options: Any) -> OpenCodeExport:
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data[3 if bom else 0:].decode("utf-8")
        doc = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        parse_json(data, name)          # the one JSON error: FILE:LINE:COLUMN and what is wrong there
        reason = "nested too deeply to read" if isinstance(exc, RecursionError) else f"not JSON ({exc})"
        raise InputError(name, f"{EXPORT}: {reason}") from None
    if not _is_export(doc):
        raise InputError(name, f"{EXPORT}: expected an opencode export document ({{info, messages}})")
    return OpenCodeExport(doc, text, bom=bom)


def _read_tree(info: Mapping, name: str) -> OpenCodeExport:
    """The session of a legacy tree, from its session file ``storage/session/<project>/<id>.json``."""
    path = Path(name)
    root = path.parent.parent.parent if len(path.parents) >= 3 else None
    sid = str(info.get("id") or path.stem)
    folder = root / "message" / sid if root else None
    try:
        names = sorted(n for n in files().listdir(folder) if n.endswith(".json")) if folder is not None else None
    except (OSError, InputError):
        names = None
    if folder is None or names is None:
        raise InputError(name, f"{EXPORT}: a legacy session file, but its messages are not in "
                               f"{folder or 'storage/message/' + sid}")
    messages = []
    for mname in names:
        mfile = folder / mname
        try:
            minfo = json.loads(read_regular(mfile).decode("utf-8"))
            pfolder = root / "part" / mfile.stem
            try:
                pnames = sorted(n for n in files().listdir(pfolder) if n.endswith(".json"))
            except FileNotFoundError:
                pnames = []
            parts = [json.loads(read_regular(pfolder / p).decode("utf-8")) for p in pnames]
        except (OSError, ValueError) as exc:      # UnicodeDecodeError is a ValueError
            raise InputError(str(mfile), f"{EXPORT}: unreadable tree file ({exc})") from None
        if not isinstance(minfo, dict):
            raise InputError(str(mfile), f"{EXPORT}: a message file holds {kind_of(minfo)}, not a message")
        parts = [p for p in parts if isinstance(p, dict)]
        messages.append({"info": minfo, "parts": sorted(parts, key=lambda p: str(p.get("id", "")))})
    messages.sort(key=lambda m: str(m["info"].get("id", "")))
    return OpenCodeExport({"info": dict(info), "messages": messages}, None, str(root))


# -- what OpenCode sends ------------------------------------------------------------------------

def _key(value: Any) -> Any:
    """An id as a set key (a stored id that is not text still compares, and never raises)."""
    return value if isinstance(value, (str, int, float, type(None))) else repr(value)


def _filter_compacted(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``MessageV2.filterCompacted``: the summary of the newest finished compaction, what it
    retained, and what came after."""
    result: list[dict[str, Any]] = []
    completed: set[str] = set()
    retain = None
    for msg in reversed(messages):
        info = msg["info"]
        result.append(msg)
        if retain:
            if info.get("id") == retain:
                break
            continue
        if info.get("role") == "user" and _key(info.get("id")) in completed:
            part = next((p for p in msg["parts"] if isinstance(p, Mapping) and p.get("type") == "compaction"), None)
            if part is None:
                continue
            if not part.get("tail_start_id"):
                break
            retain = part["tail_start_id"]
            if info.get("id") == retain:
                break
            continue
        if info.get("role") == "assistant" and info.get("summary") and info.get("finish") and not info.get("error"):
            completed.add(_key(info.get("parentID")))
    result.reverse()

    def tail(m: dict[str, Any]) -> Any:
        return next((p.get("tail_start_id") for p in m["parts"] if isinstance(p, Mapping)
                     and p.get("type") == "compaction" and p.get("tail_start_id") is not None), None)

    ci = max((k for k, m in enumerate(result) if m["info"].get("role") == "user" and tail(m)), default=-1)
    if ci >= 0:
        cid = result[ci]["info"].get("id")
        si = next((k for k, m in enumerate(result) if k > ci and m["info"].get("role") == "assistant"
                   and m["info"].get("summary") and m["info"].get("parentID") == cid), -1)
        ti = next((k for k, m in enumerate(result) if m["info"].get("id") == tail(result[ci])), -1)
        if 0 <= ti < ci and si > ci:
            return result[ci:si + 1] + result[ti:ci] + result[si + 1:]
    return result


def resumed_model(messages: list[dict[str, Any]]) -> dict[str, str]:
    """The model a resume talks to: the last user message's (``lastUser.model``)."""
    for msg in reversed(messages):
        model = msg["info"].get("model")
        if msg["info"].get("role") == "user" and isinstance(model, Mapping) and model.get("modelID"):
            return {"providerID": str(model.get("providerID")), "modelID": str(model["modelID"])}
    return dict(DEFAULT_MODEL)


def _pid(part: Any) -> str:
    return str(part.get("id", "?")) if isinstance(part, Mapping) else "?"


def request(messages: list[dict[str, Any]]) -> Request:
    """Steps 1 to 6 of a resume (see the module docstring), keeping each block's part."""
    kept = _filter_compacted(messages)
    req = Request(history=messages)
    place = {id(msg): i for i, msg in enumerate(messages)}
    if len(kept) < len(messages):
        req.notes.append(("entry-not-sent", f"{len(messages) - len(kept)} message(s) before the newest compaction "
                                            "are not sent; OpenCode sends its summary instead.", None))
    model = resumed_model(kept)
    claude = "claude" in model["modelID"]
    # Model messages: (role, [Block]); an assistant message is cut at each step-start.
    model_msgs: list[tuple[str, list[Block]]] = []
    for msg in kept:
        m = place[id(msg)]
        info, parts = msg["info"], [p for p in msg["parts"] if isinstance(p, Mapping)]
        if not parts:
            continue
        if info.get("role") == "user":
            blocks = []
            for k, p in enumerate(msg["parts"]):
                kind = p.get("type") if isinstance(p, Mapping) else None
                if kind == "text" and not p.get("ignored"):
                    blocks.append(Block({"type": "text", "text": str(p.get("text", ""))}, m, k, "text"))
                elif kind == "file" and p.get("mime") not in ("text/plain", "application/x-directory"):
                    blocks.append(Block({"type": "image", "source": {"type": "url", "url": p.get("url")}}, m, k, "file"))
                elif kind == "compaction":
                    blocks.append(Block({"type": "text", "text": "What did we do so far?"}, m, k, "text"))
                elif kind == "subtask":
                    blocks.append(Block({"type": "text", "text": "The following tool was executed by the user"},
                                        m, k, "text"))
            model_msgs.append(("user", blocks))
            continue
        if info.get("role") != "assistant":
            continue
        error = info.get("error")
        if error and not (isinstance(error, Mapping) and error.get("name") == "MessageAbortedError"
                          and any(p.get("type") not in ("step-start", "reasoning") for p in parts)):
            req.notes.append(("entry-not-sent", f"Message {info.get('id')} ended in an error "
                                                f"({error.get('name') if isinstance(error, Mapping) else error}); "
                                                "OpenCode does not send it.", None))
            continue
        same = (model["providerID"], model["modelID"]) == (info.get("providerID"), info.get("modelID"))
        step: list[Block] = []
        steps = [step]
        for k, p in enumerate(msg["parts"]):
            kind = p.get("type") if isinstance(p, Mapping) else None
            if kind == "step-start":
                step = []
                steps.append(step)
            elif kind == "text":
                step.append(Block({"type": "text", "text": str(p.get("text", ""))}, m, k, "text"))
            elif kind == "reasoning":
                meta = (p.get("metadata") or {}).get("anthropic") if same else None
                meta = meta if isinstance(meta, Mapping) else {}
                if meta.get("signature") is not None and p.get("text"):
                    step.append(Block({"type": "thinking", "thinking": p["text"], "signature": meta["signature"]},
                                      m, k, "reasoning"))
                elif meta.get("redactedData") is not None and p.get("text"):
                    step.append(Block({"type": "redacted_thinking", "data": meta["redactedData"]}, m, k, "reasoning"))
                elif p.get("text"):
                    req.notes.append(("entry-not-sent", f"Reasoning part {_pid(p)} is not sent: "
                                      + ("it was written by another model." if not same else "it has no signature."),
                                      None))
            elif kind == "tool":
                _tool(req, step, p, m, k, claude)
        for blocks in steps:
            calls = [b for b in blocks if b.role == "call"]
            if not blocks or (not calls and not any(b.role in ("text", "reasoning") for b in blocks)):
                continue
            body = [b for b in blocks if b.role != "result"]
            model_msgs.append(("assistant", body))
            results = [b for b in blocks if b.role == "result"]
            if results:
                model_msgs.append(("tool", results))
    # ProviderTransform for Anthropic: empty text/reasoning out, then empty messages; text
    # trailing a call moved first (PR #22646).
    normal: list[tuple[str, list[Block]]] = []
    for role, blocks in model_msgs:
        blocks = [b for b in blocks if not (b.body.get("type") == "text" and b.body.get("text") == "")]
        if not blocks:
            continue
        if role == "assistant":
            kinds = [b.role == "call" for b in blocks]
            if True in kinds and False in kinds[kinds.index(True):]:
                late = [b for b in blocks[kinds.index(True):] if b.role != "call"]
                req.notes.append(("agent-reordered", "OpenCode moves " + ", ".join(
                    f"part {_pid(messages[b.row]['parts'][b.part])}" for b in late) + " ahead of the call(s) "
                    "it followed in its step; builds before PR #22646 send it after them, which Anthropic refuses.",
                    None))
                blocks = [b for b in blocks if b.role != "call"] + [b for b in blocks if b.role == "call"]
        normal.append((role, blocks))
    # @ai-sdk/anthropic: user and tool messages in a row are one user message, assistant ones one.
    for role, blocks in normal:
        side = "assistant" if role == "assistant" else "user"
        if req.messages and req.messages[-1]["role"] == side:
            req.messages[-1]["content"].extend(b.body for b in blocks)
        else:
            req.messages.append({"role": side, "content": [b.body for b in blocks]})
        for b in blocks:
            req.blocks[id(b.body)] = b
    if req.messages and req.messages[-1]["role"] == "assistant":
        last = req.messages[-1]["content"][-1]
        if last.get("type") == "text":
            last["text"] = last["text"].strip()
    return req


def _tool(req: Request, step: list[Block], p: Mapping, m: int, k: int, claude: bool) -> None:
    state = p.get("state") if isinstance(p.get("state"), Mapping) else {}
    status = state.get("status")
    cid = p.get("callID")
    cid = cid if isinstance(cid, str) else "" if cid is None else str(cid)
    sent_id = CLAUDE_ID.sub("_", cid) if claude else cid
    args = state.get("input") if isinstance(state.get("input"), Mapping) else {}
    step.append(Block({"type": "tool_use", "id": sent_id, "name": str(p.get("tool", "")), "input": args}, m, k, "call"))
    if status == "completed":
        compacted = isinstance(state.get("time"), Mapping) and state["time"].get("compacted")
        text = "[Old tool result content cleared]" if compacted else str(state.get("output", ""))
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": sent_id, "content": text}
    elif status == "error":
        meta = state.get("metadata") if isinstance(state.get("metadata"), Mapping) else {}
        if meta.get("interrupted") is True and isinstance(meta.get("output"), str):
            result = {"type": "tool_result", "tool_use_id": sent_id, "content": meta["output"]}
        else:
            result = {"type": "tool_result", "tool_use_id": sent_id, "content": str(state.get("error", "")),
                      "is_error": True}
    else:
        result = {"type": "tool_result", "tool_use_id": sent_id, "content": INTERRUPTED, "is_error": True}
        req.notes.append(("agent-placeholder", f"Part {_pid(p)} ({p.get('tool')} call {cid}) is still {status}: "
                                               f"OpenCode sends it with the error result \"{INTERRUPTED}\" itself, so "
                                               "nothing is refused; the real result is lost and the tool may have "
                                               "run (side effects unknown).", cid))
    step.append(Block(result, m, k, "result"))


# -- import -----------------------------------------------------------------------------------

@dataclass(slots=True)
class OpenCodeState:
    """What export needs: the OpenCode messages as sent, the request, and its Anthropic import."""

    request: Request
    inner: Imported


def _session_messages(document: Any, name: str) -> tuple[Any, list[dict[str, Any]], str]:
    if isinstance(document, (bytes, bytearray)):
        data = bytes(document)
        document = parse(data, name) if data.startswith(HEADER) else parse_export(data, name)
    if isinstance(document, OpenCodeDB):
        if document.session is None:
            raise session.must_choose(NAME, len(document.rows), ", ".join(
                f"{s.id} ({s.first_user[:40]!r})" for s in listing(document)[:10]), name)
        return document, document.messages(document.session), document.session
    if isinstance(document, Mapping) and _is_export(document):
        document = OpenCodeExport(dict(document))
    elif isinstance(document, Mapping) and _is_tree_session(document):
        document = _read_tree(document, name)
    if not isinstance(document, OpenCodeExport):
        raise InputError(name, f"{NAME}: expected an OpenCode database, export or session file, got {kind_of(document)}")
    return document, document.doc["messages"], str(document.doc["info"].get("id", ""))


def import_(document: Any, name: str = "<input>") -> Imported:
    if isinstance(document, (bytes, bytearray)) and bytes(document).startswith(HEADER):
        document = parse(bytes(document), name)
    if isinstance(document, OpenCodeDB) and not document.rows:
        return session.empty_store(NAME, document)
    document, messages, sid = _session_messages(document, name)
    req = request(messages)
    inner = anthropic.import_(req.messages, name)
    fmt = NAME if isinstance(document, OpenCodeDB) else EXPORT
    im = Imported(fmt, inner.messages, document, container="messages", history=messages)
    im.events.extend(inner.events)
    for src, calls in zip(inner.sources, inner.calls):
        im.sources.append(req.loc(src))
        im.calls.append([req.loc(c) for c in calls])
    asked: dict[Any, int] = {}            # where each call id is asked for, found in one pass
    for i, m in enumerate(inner.messages):
        for c in m.get("tool_calls") or ():
            asked.setdefault(_key(c.get("tool_call_id")), i)
    for kind, sentence, cid in req.notes:
        row = asked.get(_key(cid)) if cid is not None else None
        im.note(row, kind, sentence, tool_call_id=cid)
    if isinstance(document, OpenCodeDB):
        for what in document.skipped(sid):
            im.note(None, "entry-skipped", f"The {what} row is not JSON; OpenCode cannot read it either, and it is "
                                           "kept as it is.")
        im.notes.append(f"session {sid!r}: {len(messages)} messages; {len(document.rows) - 1} other "
                        f"session(s) left as they are" + ("; the WAL was read from a copy" if document.wal else ""))
    im.state = OpenCodeState(req, inner)
    _record_reasoning(im, req, inner)
    return im


# Where a provider's signature or encrypted reasoning rides in a reasoning part's ``metadata``
# (the AI SDK's providerMetadata: @ai-sdk/anthropic ``signature`` / ``redactedData``,
# @ai-sdk/openai ``reasoningEncryptedContent``, @ai-sdk/google ``thoughtSignature``).
SIGNED_KEYS = ("signature", "redactedData", "reasoningEncryptedContent", "thoughtSignature")


def _signed_part(part: Mapping) -> tuple[bool, bool]:
    """(signed, encrypted) of a reasoning part, from its provider metadata."""
    meta = part.get("metadata")
    signed = encrypted = False
    for value in meta.values() if isinstance(meta, Mapping) else ():
        if isinstance(value, Mapping):
            signed = signed or any(isinstance(value.get(k), str) and value[k] for k in SIGNED_KEYS)
            encrypted = encrypted or any(isinstance(value.get(k), str) and value[k]
                                         for k in ("redactedData", "reasoningEncryptedContent"))
    return signed, encrypted


def _record_reasoning(im: Imported, req: Request, inner: Imported) -> None:
    """Every reasoning part of the session, in order: a part OpenCode sends (as a
    ``thinking`` or ``redacted_thinking`` block) with its row and the calls it precedes, one
    it leaves out (unsigned, or written by another model than the one resumed) with no row.
    The model is the message's own ``modelID``."""
    sent: dict[tuple[int, int], Reasoning] = {}
    for r in inner.reasoning:
        content = req.messages[r.loc.message]["content"] if isinstance(r.loc.message, int) else []
        block = req.blocks.get(id(content[r.loc.blocks[0]])) if r.loc.blocks and r.loc.blocks[0] < len(content) else None
        if block is not None:
            sent[(block.row, block.part)] = r
    for m, msg in enumerate(req.history):
        info = msg["info"]
        model = info.get("modelID") if isinstance(info.get("modelID"), str) and info.get("modelID") else None
        for k, part in enumerate(msg["parts"]):
            if not (isinstance(part, Mapping) and part.get("type") == "reasoning"):
                continue
            signed, encrypted = _signed_part(part)
            text = part.get("text") if isinstance(part.get("text"), str) else ""
            r = sent.get((m, k))
            im.reasoning.append(Reasoning(r.row if r else None, Loc(m, "parts", (k,)), "reasoning", signed,
                                          encrypted, model, r.before if r else (), text))


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: every reasoning part of the session goes (its row deleted from
    the database, or cut out of the export text), every other row and byte as it was."""
    if isinstance(document, OpenCodeDB):
        if document.session is None:
            return document
        messages = document.messages(document.session)
    elif isinstance(document, OpenCodeExport):
        messages = document.doc["messages"]
    else:
        return document
    removed: set[str] = set()
    for msg in messages:
        for part in msg["parts"]:
            if isinstance(part, Mapping) and part.get("type") == "reasoning":
                removed.add(_pid(part))
                reasoning.removed(notes, f"part {_pid(part)} of message {msg['info'].get('id')}", "a reasoning part")
    if not removed:
        return document
    if isinstance(document, OpenCodeDB):
        return _repair_db(document, removed, {})
    return _repair_export(document, removed, {})


# -- export -------------------------------------------------------------------------------------

def _changes(im: Imported, result: Result) -> tuple[set[tuple[int, int]], dict[tuple[int, int], dict[str, Any]]]:
    """The parts to remove and the parts to rewrite, as (sent message, part) pairs."""
    state: OpenCodeState = im.state
    req, inner = state.request, state.inner
    d = Decisions.of(result)
    kept_rows = {o for _, o in d.rows if o is not None}
    gone: set[tuple[int, int]] = {(b.row, b.part) for b in lost(req, inner, result)}
    # A turn the engine dropped takes its reasoning parts with it (a step of reasoning alone
    # would be sent as an assistant message of thinking alone).
    gone.update((r.loc.message, r.loc.blocks[0]) for r in im.reasoning
                if r.row is not None and r.row not in kept_rows and r.loc.blocks)
    rewrite: dict[tuple[int, int], dict[str, Any]] = {}
    calls = req.calls()
    for msg, o in d.rows:
        if o is None and msg.get("role") == "tool":
            cid = msg.get("tool_call_id")
            for b in calls.get(_key(cid), ()):
                if (b.row, b.part) not in gone:
                    part = req.history[b.row]["parts"][b.part]
                    st = part.get("state") if isinstance(part.get("state"), Mapping) else {}
                    new = dict(part)
                    new["state"] = {"status": "error", "input": st.get("input", {}), "error": NO_RESULT,
                                    "time": {"start": (st.get("time") or {}).get("start", 0),
                                             "end": (st.get("time") or {}).get("start", 0)}}
                    rewrite[(b.row, b.part)] = new
                    break
    return gone, rewrite


def export_same(im: Imported, result: Result, notes: Exported) -> Any:
    if im.state is None:                 # a store that holds no session
        return im.document
    gone, rewrite = _changes(im, result)
    document = im.document
    if not gone and not rewrite:
        return document
    sent = im.state.request.history
    removed = {_pid(sent[m]["parts"][k]) for m, k in gone}
    changed = {_pid(sent[m]["parts"][k]): part for (m, k), part in rewrite.items()}
    for (m, k) in sorted(gone):
        p = sent[m]["parts"][k]
        if p.get("type") == "reasoning":
            notes.note("entry-removed", f"Part {_pid(p)} (reasoning of message {sent[m]['info'].get('id')}) is "
                                        "removed: the engine dropped its turn, and the reasoning goes with it.")
            continue
        notes.note("entry-removed", f"Part {_pid(p)} (a {p.get('tool', p.get('type'))} call "
                                    f"{p.get('callID')!r} of message {sent[m]['info'].get('id')}) is removed: the "
                                    "engine dropped its call, and OpenCode keeps a call and its result in one part.")
    for pid in changed:
        notes.note("entry-rewritten", f"Part {pid} now holds the error result \"{NO_RESULT}\" for its call.")
    if isinstance(document, OpenCodeDB):
        return _repair_db(document, removed, changed)
    return _repair_export(document, removed, changed)


def _repair_db(db: OpenCodeDB, removed: set[str], changed: dict[str, dict[str, Any]]) -> OpenCodeDB:
    conn = _connect(db.data, "<memory>")
    try:
        conn.executemany("DELETE FROM part WHERE id = ?", [(pid,) for pid in sorted(removed)])
        conn.executemany("UPDATE part SET data = ? WHERE id = ?",
                         [(compact({k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}), pid)
                          for pid, part in changed.items()])
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    out = _parse(data, "<repaired>")
    out.session, out.mode = db.session, db.mode
    return out


def _repair_export(doc: OpenCodeExport, removed: set[str], changed: dict[str, dict[str, Any]]) -> OpenCodeExport:
    """The same export with the removed parts cut out of its text and rewritten ones replaced;
    every other byte stays (a tree session, or a document with no text, is printed anew)."""
    new = {"info": doc.doc["info"], "messages": [
        {**m, "parts": [changed.get(_pid(p), p) for p in m["parts"] if _pid(p) not in removed]}
        for m in doc.doc["messages"]]}
    for k, v in doc.doc.items():
        new.setdefault(k, v)
    if doc.text is None:
        return OpenCodeExport(new, None)
    try:
        text = _spliced(doc, removed, changed)
        if json.loads(text) != new:
            text = None
    except (ValueError, IndexError, AttributeError, TypeError):
        text = None
    # A text the scan cannot follow (duplicate keys...) is printed anew, as OpenCode prints.
    return OpenCodeExport(new, text, bom=doc.bom)


def _spliced(doc: OpenCodeExport, removed: set[str], changed: dict[str, dict[str, Any]]) -> str:
    text = doc.text
    edits: list[tuple[int, int, str]] = []
    messages = array_spans(text, key_at(text, ("messages",)))[2]
    for m, (mstart, _) in zip(doc.doc["messages"], messages):
        first, last, spans = array_spans(text, key_at(text, ("parts",), mstart))
        keep = [_pid(p) not in removed for p in m["parts"]]
        if spans and not any(keep):
            edits.append((first, last, "[]"))
            continue
        nxt_kept: list[int | None] = [None] * len(spans)   # the start of the next kept part, the end of the last
        prev_kept: list[int | None] = [None] * len(spans)
        for k in range(len(spans) - 2, -1, -1):
            nxt_kept[k] = spans[k + 1][0] if keep[k + 1] else nxt_kept[k + 1]
        for k in range(1, len(spans)):
            prev_kept[k] = spans[k - 1][1] if keep[k - 1] else prev_kept[k - 1]
        for k, (p, (a, b)) in enumerate(zip(m["parts"], spans)):
            if not keep[k]:
                nxt, prev = nxt_kept[k], prev_kept[k]
                edits.append((a, nxt, "") if nxt is not None else (prev, b, ""))
            elif _pid(p) in changed:
                indent = text[text.rfind("\n", 0, a) + 1:a]
                edits.append((a, b, pretty(changed[_pid(p)]).replace("\n", "\n" + indent)))
    # One pass over the text; cuts of neighbouring parts overlap and are joined.
    out: list[str] = []
    pos = 0
    for a, b, piece in sorted(edits):
        a = max(a, pos)
        out += (text[pos:a], piece)
        pos = max(pos, b)
    out.append(text[pos:])
    return "".join(out)


def _new_document(im: Imported, result: Result, notes: Exported) -> dict[str, Any]:
    """Another format's repaired history as one OpenCode session (an export document): a user
    message per user row, an assistant step per assistant row with a tool part per call holding
    the call's result (an error part for a synthesized one), system text on the first user
    message (OpenCode sends a user message's ``system`` with its own prompt)."""
    counter = iter(range(1, 1 << 30))

    def ident(prefix: str) -> str:
        return f"{prefix}_{next(counter):012x}inspector0000"

    sid = ident("ses")
    results = {m.get("tool_call_id"): (m, o) for m, o in zip(result.messages, result.origins)
               if m.get("role") == "tool"}
    system = [m["content"] for m in result.messages if m.get("role") == "system" and m.get("content")]
    messages: list[dict[str, Any]] = []
    user = None
    for t, m in enumerate(result.messages):
        role, when = m.get("role"), t * 1000
        if role == "user" or (role not in ("assistant", "tool", "system")):
            info: dict[str, Any] = {"id": ident("msg"), "sessionID": sid, "role": "user", "time": {"created": when},
                                    "agent": "build", "model": dict(DEFAULT_MODEL)}
            if system and user is None:
                info["system"] = "\n\n".join(system)
            user = info["id"]
            messages.append({"info": info, "parts": [{"id": ident("prt"), "sessionID": sid, "messageID": info["id"],
                                                      "type": "text", "text": m.get("content", "")}]})
        elif role == "assistant":
            mid = ident("msg")
            parts: list[dict[str, Any]] = [{"id": ident("prt"), "sessionID": sid, "messageID": mid, "type": "step-start"}]
            if m.get("content"):
                parts.append({"id": ident("prt"), "sessionID": sid, "messageID": mid, "type": "text", "text": m["content"]})
            for call in m.get("tool_calls") or ():
                cid = call["tool_call_id"]
                answer, origin = results.get(cid, ({}, None))
                args = args_object(call_args(call))
                state: dict[str, Any] = {"status": "completed", "input": args, "output": answer.get("content", ""),
                                         "title": call_name(call), "metadata": {}, "time": {"start": when, "end": when}}
                if origin is None:
                    state = {"status": "error", "input": args, "error": NO_RESULT, "time": {"start": when, "end": when}}
                parts.append({"id": ident("prt"), "sessionID": sid, "messageID": mid, "type": "tool", "callID": cid,
                              "tool": call_name(call), "state": state})
            finish = "tool-calls" if m.get("tool_calls") else "stop"
            parts.append({"id": ident("prt"), "sessionID": sid, "messageID": mid, "type": "step-finish",
                          "reason": finish, "cost": 0, "tokens": {"input": 0, "output": 0, "reasoning": 0,
                                                                  "cache": {"read": 0, "write": 0}}})
            messages.append({"info": {"id": mid, "sessionID": sid, "parentID": user or "", "role": "assistant",
                                      "mode": "build", "agent": "build", "path": {"cwd": "", "root": ""}, "cost": 0,
                                      "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                                      "modelID": DEFAULT_MODEL["modelID"], "providerID": DEFAULT_MODEL["providerID"],
                                      "time": {"created": when, "completed": when}, "finish": finish},
                             "parts": parts})
    if system and user is None:
        notes.note("export-omitted", "The history has system text but no user message to carry it; it is not written.")
    return {"info": {"id": sid, "slug": "inspector-import", "version": "inspector", "projectID": "global",
                     "directory": "", "title": f"{im.format} history", "time": {"created": 0, "updated": 0}},
            "messages": messages}


NEW_SCHEMA = """
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL,
  `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
"""


def export_new(im: Imported, result: Result, notes: Exported) -> OpenCodeDB:
    """Another format's history as a database holding one session, for Inspector's own reading:
    OpenCode runs its migrations on a database it opens, so hand it an export instead
    (``--to opencode-export``, then ``opencode import``)."""
    doc = _new_document(im, result, notes)
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(NEW_SCHEMA)
        info = doc["info"]
        conn.execute("INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, 0, 0)",
                     (info["id"], info["projectID"], info["slug"], info["directory"], info["title"], info["version"]))
        for m in doc["messages"]:
            i = m["info"]
            conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (i["id"], info["id"], i["time"]["created"],
                         i["time"]["created"], compact({k: v for k, v in i.items() if k not in ("id", "sessionID")})))
            conn.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", [
                (p["id"], i["id"], info["id"], i["time"]["created"], i["time"]["created"],
                 compact({k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")})) for p in m["parts"]])
        conn.commit()
        data = conn.serialize()
    finally:
        conn.close()
    return _parse(data, "<new>")


def export_new_document(im: Imported, result: Result, notes: Exported) -> OpenCodeExport:
    """Another format's history as an ``opencode export`` document, which ``opencode import`` reads."""
    return OpenCodeExport(_new_document(im, result, notes))


# -- sessions of a database ----------------------------------------------------------------------

def _first_user(messages: list[dict[str, Any]]) -> str:
    for m in messages:
        if m["info"].get("role") == "user":
            for p in m["parts"]:
                if isinstance(p, Mapping) and p.get("type") == "text" and isinstance(p.get("text"), str):
                    return p["text"]
    return ""


def listing(db: OpenCodeDB) -> list[SessionInfo]:
    """Every session of the database, newest first: id, messages, first prompt, last update."""
    return [SessionInfo(sid, len(db.rows[sid]), _first_user(db.messages(sid)),
                        _when(db.titles.get(sid, ("", 0))[1]))
            for sid in sorted(db.rows, key=lambda s: db.titles.get(s, ("", 0))[1], reverse=True)]


def _when(ms: Any) -> str | None:
    try:
        return datetime.fromtimestamp(int(ms) / 1000, tz=timezone.utc).isoformat(timespec="seconds") if ms else None
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def select(db: OpenCodeDB, sid: str, name: str = "<input>") -> OpenCodeDB:
    """The database with ``sid`` chosen (``--session ID``): a shallow copy, so the database
    given keeps its own choice."""
    return session.selected(db, sid, db.rows, name, NAME)


def chosen(db: OpenCodeDB) -> str | None:
    return db.session


def replace(path: str, before: OpenCodeDB, after: OpenCodeDB, keep: Any) -> str:
    """``--in-place`` on the live database: the repaired rows written into it through SQLite, in
    one write transaction (a file swapped in would meet the old ``-wal`` on the next open)."""
    sid = before.session
    scope = {"session": ("id = ?", (sid,)), "message": ("session_id = ?", (sid,)),
             "part": ("session_id = ?", (sid,))}
    return replace_rows(path, before.data, after.data, keep, NAME, scope if sid is not None else None)


def evidence(document: Any) -> list[str]:
    return ["an SQLite database with OpenCode's message and part tables"] if isinstance(document, OpenCodeDB) else []


def evidence_export(document: Any) -> list[str]:
    if isinstance(document, OpenCodeExport) or _is_export(document):
        return ['an "info" session and "messages" of {info, parts} (opencode export)']
    if _is_tree_session(document):
        return ["an OpenCode session file of the legacy storage tree (ses_ id, projectID, title)"]
    return []


def describe_part(block: Any) -> str:
    """A part (or a whole message) by its type, tool and call id, or state."""
    if isinstance(block, Mapping) and isinstance(block.get("parts"), list) and "info" in block:
        info = block["info"] if isinstance(block["info"], Mapping) else {}
        return f"{info.get('role', 'message')} {info.get('id', '')}".rstrip()
    if not isinstance(block, Mapping):
        return kind_of(block)
    kind = str(block.get("type", kind_of(block)))
    if kind == "tool":
        st = block.get("state") if isinstance(block.get("state"), Mapping) else {}
        return f"tool {block.get('callID', '')} {block.get('tool', '')} {st.get('status', '')}".replace("  ", " ").strip()
    if kind in ("text", "reasoning") and isinstance(block.get("text"), str):
        return f"{kind} {block['text'][:80]}"
    return kind


# -- registration --------------------------------------------------------------------------------

# The agent whose store this is (the doctor's table of agents reads it here).
AGENT = Agent("opencode", "OpenCode",
              "`OPENCODE_DB=<repaired .db> opencode -s <session id>`; or quit OpenCode, move opencode.db and "
              "its -wal and -shm aside (keep them: they are the original), put the repaired database in its "
              "place with no -wal or -shm beside it (the copy already holds the -wal's commits; a stale one "
              "would undo the repair), then `opencode -s <session id>`",
              # `opencode --session/-s <id>` opens that session and OPENCODE_DB points it at another
              # database: this record's own steps above; the source file was not re-read for issue 34.
              command="opencode --session {session}", command_on_copy="OPENCODE_DB={path} opencode --session {session}",
              database=True)


def ran_on(im: Imported) -> list[tuple[str | None, str | None]]:
    """The provider and model of each assistant message (``providerID``/``modelID``), then the
    one the resume talks to when the last user message records it (``resumed_model``)."""
    out: list[tuple[str | None, str | None]] = []
    for msg in im.history if isinstance(im.history, list) else ():
        info = msg.get("info") if isinstance(msg, Mapping) else None
        if not isinstance(info, Mapping):
            continue
        if info.get("role") == "assistant" and isinstance(info.get("providerID"), str):
            out.append((info["providerID"], info.get("modelID") if isinstance(info.get("modelID"), str) else None))
    for msg in reversed(im.history if isinstance(im.history, list) else ()):
        info = msg.get("info") if isinstance(msg, Mapping) else None
        model = info.get("model") if isinstance(info, Mapping) and info.get("role") == "user" else None
        if isinstance(model, Mapping) and isinstance(model.get("providerID"), str):
            out.append((model["providerID"], model.get("modelID") if isinstance(model.get("modelID"), str) else None))
            break
    return out


def on_resume(im: Imported) -> OnResume:
    """What OpenCode answers itself on resume (no version recorded)."""
    return OnResume.of("OpenCode", None, SELF_REPAIRS, im.events)


FORMAT = Format(
    NAME, "an OpenCode database", "OpenCode's session database (opencode.db; --session ID picks a session)",
    evidence, import_, export_same, export_new, describe_block=describe_part, sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".db",), provider="anthropic", whole_file=True,
    sessions=listing, select=select, chosen=chosen, kinds=EMITS + session.EMITS + anthropic.FORMAT.kinds,
    strip_reasoning=strip_reasoning, replace=replace,
    pairing=identity.ADJACENT,
    agent=AGENT,
    on_resume=on_resume, repairs=SELF_REPAIRS,
    ran_on=ran_on,
)

EXPORT_FORMAT = Format(
    EXPORT, "an OpenCode export or session file",
    "an `opencode export` document, or a session file of OpenCode's legacy storage/ tree",
    evidence_export, import_, export_same, export_new_document, describe_block=describe_part, sniff=sniff_export,
    parse=parse_export, dump=dump, kind=SESSION, suffixes=(".json",), provider="anthropic",
    kinds=EMITS + session.EMITS + anthropic.FORMAT.kinds, strip_reasoning=strip_reasoning,
    pairing=identity.ADJACENT,
    ran_on=ran_on,
)

"""Gemini CLI sessions, in the three shapes the CLI saves:

- **append-only session logs** (``~/.gemini/tmp/<project>/chats/session-*.jsonl``, current
  CLIs): one record per line, read and appended as the CLI does (``gemini_log.py``);
- **saved session records** (``chats/session-*.json``, before the logs):
  ``{sessionId, projectHash, startTime, lastUpdated, messages}``, written by the chat
  recording service as ``JSON.stringify(record, null, 2)``;
- **``/chat save`` checkpoints** (``checkpoint-<tag>.json``) as ``{"history": [Content...]}``.
  A bare ``Content[]`` list is the Gemini API's own shape and is read as ``gemini``.

A message record has ``id``, ``timestamp``, ``type`` (``user``, ``gemini``, ``info``,
``error``, ``warning``) and ``content`` (a string, or a list of parts in current CLIs); a
``gemini`` record lists its ``toolCalls`` (``id``, ``name``, ``args``, ``status``, the
``result`` parts that answered it) and its ``thoughts`` (summaries: ``subject``,
``description``). Import reads what a resume sends: the records turned into Gemini contents
as the CLI turns them (``gemini_resume.py``), read by the Gemini importer, each row's
provenance the record field it came from (``messages[1].toolCalls[0].result[0]``, ``line 7,
toolCalls[1]``). Reasoning is the Gemini importer's: a record's ``thoughts`` are sent as
thought text parts (unsigned), and a record whose content is the model's own turn keeps its
thought parts and ``thoughtSignature``s (signed). Sources: google-gemini/gemini-cli
``packages/core/src/services/chatRecordingService.ts``, ``chatRecordingTypes.ts``,
``core/geminiChat.ts``, ``utils/sessionUtils.ts`` and ``core/logger.ts`` at 5411f113.

Export changes only the record fields an event touches: a synthesized result becomes its
tool call's ``result`` (a ``functionResponse`` with an error) and its status ``cancelled``;
a dropped call leaves ``toolCalls`` (or the content part that sent it); a dropped result
leaves the record part it came from; a record left with nothing sent goes. A ``.json``
record is written back as its own bytes while nothing changes, else as the CLI writes it; a
log is appended to (``gemini_log.py``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ..engine import IMPORT_CLAUSE, Kind, Result, declare
from ..io import InputError, dumps, parse_json
from . import gemini, gemini_log, gemini_resume, reasoning, session
from .base import Decisions, Exported, Imported, Loc, kind_of
from .base import describe_block as _describe
from .format import Agent, Format, OnResume, SESSION, SelfRepair, Source
from . import identity
from .gemini import Gemini
from .gemini_resume import Src
from .jsonl import Lines

NAME = "gemini-cli"
SUMMARY = "a Gemini CLI saved session (chats/session-*.json) or /chat save checkpoint"
LOG_NAME = gemini_log.NAME
LOG_SUMMARY = "a Gemini CLI session log (JSON Lines under ~/.gemini/tmp/<project>/chats/)"
SOURCE = "google-gemini/gemini-cli packages/core/src @ 5411f113"

EMITS = declare(
    Kind("result-resent", IMPORT_CLAUSE, False, "result sent twice",
         "Gemini CLI's resume sends this result a second time: it is in its tool call's record and in a user "
         "record of function responses (google-gemini/gemini-cli#29365).", "note"),
)

# What Gemini CLI does itself to what it resumes: ids for calls and responses that have none,
# paired by name and position (ensureStableToolIds, utils/sessionUtils.ts, run on the history
# when the chat starts: core/geminiChat.ts).
SELF_REPAIRS = (
    SelfRepair("id-derived", None, "pairs a call and a response that carry no id by their name and position",
               "", SOURCE + ": utils/sessionUtils.ts ensureStableToolIds"),
)


_PART = re.compile(r"contents\[(\d+)\]\.parts\[(\d+)\]")


class RecordLoc(Loc):
    """Where a row came from in a session: ``message`` is the record's index (a ``.json``
    record) or its line (a log), ``key`` the path of the field inside it; ``blocks`` is None
    only for a whole record of a ``.json`` session (views read a run of those as a range)."""

    __slots__ = ()

    def describe(self, container: str | None = None) -> str:
        return self.key or f"messages[{self.message}]"


class Checkpoint(Gemini):
    name = NAME
    container = "history"
    system_fields = ()


CHECKPOINT = Checkpoint()


@dataclass(slots=True)
class RecordsState:
    """What export needs: the records a resume reads (``log``: how a log holds them), the
    Gemini import of what it sends, and each sent part's source."""

    records: list[Any]
    heads: list[tuple[str, str]]
    anchors: list[int]
    contents: list[dict[str, Any]]
    sources: list[list[Src]]
    inner: Imported
    log: gemini_log.Log | None = None


def is_record(document: Any) -> bool:
    if not isinstance(document, Mapping) or not isinstance(document.get("messages"), list):
        return False
    return "sessionId" in document and ("projectHash" in document or "startTime" in document)


def is_checkpoint(document: Any) -> bool:
    if not isinstance(document, Mapping) or not isinstance(document.get("history"), list):
        return False
    return all(isinstance(c, Mapping) and "parts" in c for c in document["history"]) and "messages" not in document


def log_evidence(document: Any) -> list[str]:
    if isinstance(document, Lines) and document.format == LOG_NAME:
        return ["JSON Lines opening with a Gemini CLI session's metadata (a chats/session-*.jsonl log)"]
    return []


def evidence(document: Any) -> list[str]:
    if is_record(document):
        return ['a Gemini CLI session record ("sessionId", "messages" with "gemini" records)']
    if is_checkpoint(document):
        return ['a Gemini CLI /chat save checkpoint ({"history": [contents with parts]})']
    return []


# -- import -------------------------------------------------------------------------------

def import_(document: Any, name: str = "<input>") -> Imported:
    if isinstance(document, (bytes, bytearray)):
        document = parse(bytes(document), name)
    if is_checkpoint(document):
        return CHECKPOINT.import_(document, name)
    if isinstance(document, Lines):
        log = gemini_log.read(document)
        heads = [p.head() for p in log.places]
        im = _read(document, name, log.records, heads, [p.line for p in log.places], document.entries, None,
                   LOG_NAME)
        im.state.log = log
        session.skipped_lines(im, document, "Gemini CLI skips it")
        return im
    if not is_record(document):
        raise InputError(name, f"{NAME}: expected a session log (JSON Lines), a saved session "
                               f"({{\"sessionId\", \"messages\"}}) or a checkpoint ({{\"history\": [...]}}), "
                               f"got {kind_of(document)}")
    messages = document["messages"]
    heads = [(f"messages[{i}]", ".") for i in range(len(messages))]
    return _read(document, name, messages, heads, list(range(len(messages))), messages, "messages", NAME)


def _read(document: Any, name: str, records: list[Any], heads: list[tuple[str, str]], anchors: list[int],
          history: list[Any], container: str | None, fmt: str) -> Imported:
    contents, sources = gemini_resume.convert(records)
    inner = gemini.SPEC.import_({"contents": contents}, name)
    im = Imported(fmt, inner.messages, document, container=container, history=history)
    state = RecordsState(records, heads, anchors, contents, sources, inner)
    im.state = state

    def place(r: int, path: str, whole: bool = False) -> RecordLoc:
        return RecordLoc(anchors[r], path, None if whole and container is not None else ())

    def at(s: Src) -> RecordLoc:
        head, sep = heads[s.record]
        sub = s.path()
        return place(s.record, f"{head}{sep}{sub}" if sub else head, not sub)

    def of(src: Loc) -> RecordLoc:
        c = src.message
        parts = sources[c] if isinstance(c, int) else []
        picked = [parts[k] for k in src.blocks] if src.blocks is not None else parts
        if len(picked) == 1:
            return at(picked[0])
        whole = {s.record for s in picked} if picked else set()
        if len(whole) == 1:
            r = next(iter(whole))
            if all(s.field == "compressedHistory" for s in picked):
                return place(r, f"{heads[r][0]}{heads[r][1]}compressedHistory[{picked[0].a}]")
            return place(r, heads[r][0], True)
        return at(picked[0]) if picked else RecordLoc(0, "", ())

    def named(message: str) -> str:
        """The Gemini importer's sentence, naming the record fields instead of the contents."""
        def part(m: re.Match) -> str:
            c, k = int(m.group(1)), int(m.group(2))
            return at(sources[c][k]).key if c < len(sources) and k < len(sources[c]) else m.group(0)
        return _PART.sub(part, message)

    im.events.extend(dataclasses.replace(e, clause=f"import:{fmt}", message=named(e.message)) for e in inner.events)

    for loc, calls in zip(inner.sources, inner.calls):
        im.sources.append(of(loc))
        im.calls.append([at(sources[c.message][c.blocks[0]]) for c in calls])
    for r in inner.reasoning:
        s = sources[r.loc.message][r.loc.blocks[0]]
        model = records[s.record].get("model") if isinstance(records[s.record], Mapping) else None
        im.reasoning.append(dataclasses.replace(r, loc=at(s), model=model if isinstance(model, str) else r.model))
    im.unconverted = list(dict.fromkeys((anchors[sources[c][k].record], None, None) for c, _, k in inner.unconverted))
    _note_resent(im, state)
    sent = len({s.record for parts in sources for s in parts})
    im.notes.append(f"{len(records)} records; {sent} sent on resume, the rest (info, error and warning records, "
                    f"slash commands, session context, empty replies) kept as they are")
    return im


def _note_resent(im: Imported, state: RecordsState) -> None:
    """One import note per result a resume sends again (google-gemini/gemini-cli#29365)."""
    first: dict[Any, int] = {}
    for o, row in enumerate(im.messages):
        if not isinstance(row, Mapping) or row.get("role") != "tool":
            continue
        cid = row.get("tool_call_id")
        try:
            seen = first.setdefault(cid, o)
        except TypeError:
            continue
        if seen != o:
            loc = state.inner.sources[o]
            src = state.sources[loc.message][loc.blocks[0]] if loc.blocks else None
            if src is not None and src.field == "content":
                im.note(o, "result-resent", f"{im.where(o)}: the result for {cid!r} is also at {im.where(seen)}; "
                                            f"Gemini CLI's resume sends both (google-gemini/gemini-cli#29365), and "
                                            f"the first one is kept.", tool_call_id=cid)


def on_resume(im: Imported) -> OnResume:
    """What Gemini CLI does itself on resume; its sessions record no version."""
    return OnResume.of("Gemini CLI", None, SELF_REPAIRS, im.events)


# -- export -------------------------------------------------------------------------------

def _decide(im: Imported, result: Result) -> tuple[dict[int, dict[str, Any]], set[int]]:
    """The records the repair changes (their new value) and the ones it removes."""
    state: RecordsState = im.state
    inner, sources = state.inner, state.sources
    d = Decisions.of(result)
    # The system instruction (a source named by its field, not an index) is not a record.
    lost, whole = d.losses(inner)
    drops: set[Src] = {sources[m][k] for m, ks in lost.items() if isinstance(m, int) for k in ks}
    drops.update(p for o in whole if isinstance(inner.sources[o].message, int)
                 for p in sources[inner.sources[o].message])
    # Synthesized results: each for the call the engine wrote with its id (a cast id too).
    where: dict[Any, tuple[Src, Mapping]] = {}
    for row, o in d.rows:
        if o is None or row.get("role") != "assistant":
            continue
        for call, j in zip(row.get("tool_calls") or (), d.kept_calls(o, len(inner.calls[o]))):
            c = inner.calls[o][j]
            part = state.contents[c.message]["parts"][c.blocks[0]]
            where.setdefault(call.get("tool_call_id"), (sources[c.message][c.blocks[0]], part["functionCall"]))
    derived = gemini._state(inner).derived
    synth: dict[int, list[tuple[Src, dict[str, Any]]]] = {}
    for row, o in d.rows:
        if o is None and row.get("role") == "tool" and row.get("tool_call_id") in where:
            src, fc = where[row["tool_call_id"]]
            fr: dict[str, Any] = {"id": row["tool_call_id"]} if row["tool_call_id"] not in derived else {}
            fr.update({"name": fc.get("name"), "response": {"error": row["content"]}})
            synth.setdefault(src.record, []).append((src, {"functionResponse": fr}))
    every: dict[int, set[Src]] = {}
    for parts in sources:
        for s in parts:
            every.setdefault(s.record, set()).add(s)
    touched: dict[int, set[Src]] = {}
    for s in drops:
        touched.setdefault(s.record, set()).add(s)
    gone = {r for r, ds in touched.items() if ds == every[r] and r not in synth}
    changed = {r: _rebuild(state.records[r], touched.get(r, set()), synth.get(r, []))
               for r in (touched.keys() | synth.keys()) - gone}
    return changed, gone


def _without(items: list[Any], gone: set[int | None]) -> list[Any]:
    return [x for k, x in enumerate(items) if k not in gone]


def _rebuild(record: Mapping, drops: set[Src], synth: list[tuple[Src, dict[str, Any]]]) -> dict[str, Any]:
    """The record with the dropped parts gone and each synthesized result in its call's place."""
    new = dict(record)
    by: dict[str, set[Any]] = {}
    for s in drops:
        by.setdefault(s.field, set()).add(s.a if s.field != "result" and s.field != "compressedHistory"
                                          else (s.a, s.b))
    calls = record.get("toolCalls")
    if isinstance(calls, list) and (by.get("result") or by.get("toolCalls") or synth):
        calls = [dict(tc) if isinstance(tc, Mapping) else tc for tc in calls]
        for j, k in by.get("result", ()):
            result = calls[j].get("result")
            calls[j]["result"] = None if k is None or not isinstance(result, list) else \
                [p for i, p in enumerate(result) if (j, i) not in by["result"]] or None
        new["toolCalls"] = calls
    history = record.get("compressedHistory")
    if isinstance(history, list) and (by.get("compressedHistory") or any(s.field == "compressedHistory"
                                                                         for s, _ in synth)):
        history = [dict(c) if isinstance(c, Mapping) else c for c in history]
        for c, k in by.get("compressedHistory", ()):
            parts = history[c].get("parts")
            history[c]["parts"] = [p for i, p in enumerate(parts) if (c, i) not in by["compressedHistory"]] \
                if isinstance(parts, list) else []
        new["compressedHistory"] = history
    for src, part in synth:
        _answer(new, src, part)
    if by.get("toolCalls") and isinstance(new.get("toolCalls"), list):
        new["toolCalls"] = _without(new["toolCalls"], by["toolCalls"])
    if by.get("content"):
        content = record.get("content")
        new["content"] = _without(content, by["content"]) if isinstance(content, list) else (
            [] if isinstance(content, list) else "")
    if by.get("thoughts") and isinstance(record.get("thoughts"), list):
        new["thoughts"] = _without(record["thoughts"], by["thoughts"])
    if isinstance(new.get("compressedHistory"), list) and by.get("compressedHistory"):
        new["compressedHistory"] = [c for c in new["compressedHistory"]
                                    if not (isinstance(c, Mapping) and c.get("parts") == [])]
    return new


def _answer(record: dict[str, Any], src: Src, part: dict[str, Any]) -> None:
    """Write a synthesized result where the CLI keeps its call's result."""
    fr = part["functionResponse"]
    if src.field == "compressedHistory":
        history = record["compressedHistory"]
        nxt = history[src.a + 1] if src.a + 1 < len(history) else None
        if isinstance(nxt, Mapping) and nxt.get("role") == "user" and isinstance(nxt.get("parts"), list) and \
                all(isinstance(p, Mapping) and "functionResponse" in p for p in nxt["parts"]):
            history[src.a + 1] = {**nxt, "parts": [*nxt["parts"], part]}
        else:
            history.insert(src.a + 1, {"role": "user", "parts": [part]})
        return
    calls = record.get("toolCalls")
    if not isinstance(calls, list):
        calls = record["toolCalls"] = []
    if src.field == "toolCalls":
        j = src.a
    else:   # a call the record's own content sends: its tool call, found by id, or a new one
        j = next((k for k, tc in enumerate(calls) if isinstance(tc, Mapping) and "id" in fr
                  and tc.get("id") == fr["id"]), None)
        if j is None:
            calls.append({**({"id": fr["id"]} if "id" in fr else {}), "name": fr.get("name"), "args": {},
                          "result": None, "status": "cancelled", "timestamp": record.get("timestamp")})
            j = len(calls) - 1
    calls[j] = {**calls[j], "result": [part], "status": "cancelled"}


def export_same(im: Imported, result: Result, notes: Exported) -> Any:
    if is_checkpoint(im.document):
        return CHECKPOINT.export_same(im, result, notes)
    changed, gone = _decide(im, result)
    if not changed and not gone:
        return im.document
    state: RecordsState = im.state
    if isinstance(im.document, Lines):
        return gemini_log.append(im.document, state.log, changed, gone, notes)
    out = [changed.get(i, msg) for i, msg in enumerate(state.records) if i not in gone]
    body = RecordFile(im.document, None, im.document.newline if isinstance(im.document, RecordFile) else True)
    body["messages"] = out
    return body


def export_new(im: Imported, result: Result, notes: Exported) -> Any:
    """A checkpoint (``{"history": [...]}``) from another format's history."""
    return {"history": CHECKPOINT.export_new(im, result, notes)[CHECKPOINT.container]}


def export_new_log(im: Imported, result: Result, notes: Exported) -> Lines:
    """A log from another format's history: a metadata line, then one record per content, so
    that a resume sends those very contents (a model record's content is its whole turn). The
    CLI reads a log only with a ``sessionId`` and a ``projectHash``; the hash of a project this
    history never had is a stand-in derived from the contents (the CLI lists the sessions of the
    ``chats`` folder they are in, whatever their hash)."""
    contents = CHECKPOINT.export_new(im, result, notes)[CHECKPOINT.container]
    digest = hashlib.sha256(dumps(contents)).hexdigest()     # too deep to write: a JSONWriteError
    session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, "inspector:gemini-cli-log:" + digest))
    entries: list[Any] = [{"sessionId": session_id, "projectHash": digest, "startTime": None, "lastUpdated": None,
                           "kind": "main"}]
    for k, content in enumerate(contents):
        role = content.get("role") if isinstance(content, Mapping) else None
        entries.append({"id": str(uuid.uuid5(uuid.UUID(session_id), str(k))), "timestamp": None,
                        "type": "gemini" if role == "model" else "user",
                        "content": content.get("parts", []) if isinstance(content, Mapping) else []})
    return Lines(LOG_NAME, [gemini_log.dump_line(e) for e in entries], entries)


# -- --reasoning strip --------------------------------------------------------------------

def _unreasoned(record: Any, where: str, notes: Exported) -> dict[str, Any] | None:
    """A ``gemini`` record without its thoughts, thought parts and signatures (None: it has none)."""
    if not isinstance(record, Mapping) or record.get("type") != "gemini":
        return None
    new = dict(record)
    touched = False
    thoughts = record.get("thoughts")
    if isinstance(thoughts, list) and thoughts:
        for k in range(len(thoughts)):
            reasoning.removed(notes, f"{where}thoughts[{k}]", "thought summary")
        new["thoughts"] = []
        touched = True
    content = record.get("content")
    if isinstance(content, list):
        parts, first_call = [], True
        for k, part in enumerate(content):
            if gemini._thought(part):
                reasoning.removed(notes, f"{where}content[{k}]", "thought")
                touched = True
                continue
            plain, more = gemini._unsign(part, first_call)
            if plain is not None:
                reasoning.removed(notes, f"{where}content[{k}]", "its signature", more)
                part, touched = plain, True
            first_call = first_call and not reasoning._is_call(part)
            parts.append(part)
        new["content"] = parts
    return new if touched else None


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: thought summaries, thought parts and signatures go."""
    if is_checkpoint(document):
        return reasoning.strip_blocks(document, notes, "history", "parts", gemini._thought, gemini._unsign)
    if isinstance(document, Lines):
        log = gemini_log.read(document)
        changed = {}
        for r, record in enumerate(log.records):
            head, sep = log.places[r].head()
            new = _unreasoned(record, head + sep, notes)
            if new is not None:
                changed[r] = new
        return gemini_log.append(document, log, changed, set(), notes) if changed else document
    if not is_record(document):
        return document
    messages = list(document["messages"])
    touched = False
    for i, record in enumerate(messages):
        new = _unreasoned(record, f"messages[{i}].", notes)
        if new is not None:
            messages[i], touched = new, True
    if not touched:
        return document
    body = RecordFile(document, None, document.newline if isinstance(document, RecordFile) else True)
    body["messages"] = messages
    return body


# -- bytes --------------------------------------------------------------------------------

class RecordFile(dict):
    """A saved session read from its bytes: the record, with the file's own bytes (``raw``,
    written back as they are while nothing changes) and whether it ended with a newline."""

    __slots__ = ("raw", "newline")

    def __init__(self, record: Mapping, raw: bytes | None, newline: bool) -> None:
        super().__init__(record)
        self.raw, self.newline = raw, newline


def sniff(data: bytes, name: str = "<input>") -> bool:
    """A saved session by its own keys at the top of the file (the CLI writes ``sessionId``
    first); a log is the log format's (``gemini_log.sniff``)."""
    if gemini_log.sniff(data, name):
        return False
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and b'"sessionId"' in head and b'"messages"' in data[:1 << 16] \
        and (b'"projectHash"' in head or b'"startTime"' in head)


def parse(data: bytes, name: str = "<input>") -> Any:
    """Either shape, by its bytes: ``--from`` either name reads a log or a saved session."""
    if gemini_log.sniff(data, name):
        return gemini_log.parse(data, name)
    document = parse_json(data, name)
    if is_record(document):
        return RecordFile(document, data, data.rstrip(b" \t\r").endswith(b"\n"))
    return document


def dump(document: Any, compact: bool = False) -> bytes:
    """A log is its lines (appended to). A record read from a file and left unchanged is its
    own bytes; any other is written in the CLI's own spelling, ``JSON.stringify(record, null,
    2)``, with no newline after it (``chatRecordingService.ts`` and ``logger.ts`` for
    checkpoints) when the file it came from had none."""
    if isinstance(document, Lines):
        return document.to_bytes()
    if isinstance(document, RecordFile) and document.raw is not None and not compact:
        return document.raw
    # A document handed over already parsed has no ending of its own: it gets the usual one.
    newline = compact or not isinstance(document, RecordFile) or document.newline
    return orjson.dumps(document, option=0 if compact else orjson.OPT_INDENT_2) + (b"\n" if newline else b"")


# -- registration --------------------------------------------------------------------------

# The agent whose store this is (the doctor's table of agents reads it here).
def _session_id(document: Any) -> str | None:
    """The id a saved session records at its top (a checkpoint has none)."""
    sid = document.get("sessionId") if isinstance(document, dict) else None
    return sid if isinstance(sid, str) and sid else None


AGENT = Agent("gemini-cli", "Gemini CLI",
              "keep a copy of the original, write the repaired session over its name, then "
              "`gemini --resume <session id>`",
              # `gemini --resume <UUID>` resumes a saved session by its sessionId
              # (geminicli.com/docs/cli/session-management, "Resume by ID").
              command="gemini --resume {session}",
              session_id=lambda imported, name: _session_id(imported.document),
              versions=".json records (before 0.39), .jsonl logs (0.39 on), /chat save checkpoints",
              built_from=(
                  Source("google-gemini/gemini-cli", "5411f113",
                         ("packages/core/src/services/chatRecordingService.ts", "chatRecordingTypes.ts",
                          "packages/core/src/core/geminiChat.ts", "packages/core/src/utils/sessionUtils.ts",
                          "packages/core/src/core/logger.ts"),
                         "the records, the log and what a resume sends"),
                  Source("google-gemini/gemini-cli", "043a08807bd3", ("packages/core/src/config/storage.ts",),
                         "where sessions are kept"),
                  Source("google-gemini/gemini-cli", "016443b5e7bf",
                         ("packages/core/src/services/chatRecordingService.ts",), "the session files' names"),
                  Source("google-gemini/gemini-cli", "04fbf50725b9", ("packages/core/src/core/logger.ts",),
                         "checkpoint paths"),
                  Source("google-gemini/gemini-cli", "e62caf67", (),
                         "PR #21334's compression_marker record, not in the mainline at 5411f113"),
                  Source("lyfuci/ai-terminal-manager", "39009366", ("src/atm/sources/gemini.py",),
                         "what real 0.58 logs hold"),
              ))

FORMAT = Format(
    NAME, "a Gemini CLI session", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=lambda block: _describe(block, ("id",), ("text", "args", "response", "result")),
    sniff=sniff, parse=parse, dump=dump, kind=SESSION, suffixes=(".json",), provider="gemini",
    kinds=EMITS + session.EMITS + gemini.FORMAT.kinds, on_resume=on_resume, repairs=SELF_REPAIRS,
    strip_reasoning=strip_reasoning,
    pairing=identity.BY_NAME,
    agent=AGENT,
)
# The logs: the same records, read and written the same way, in a file of their own.
LOG_FORMAT = Format(
    LOG_NAME, "a Gemini CLI session log", LOG_SUMMARY, log_evidence, import_, export_same, export_new_log,
    describe_block=FORMAT.describe_block, sniff=gemini_log.sniff, parse=parse, dump=dump, kind=SESSION,
    suffixes=(".jsonl",), provider="gemini", whole_file=True,
    kinds=EMITS + gemini_log.EMITS + session.EMITS + gemini.FORMAT.kinds, on_resume=on_resume, repairs=SELF_REPAIRS,
    strip_reasoning=strip_reasoning,
    pairing=identity.BY_NAME,
    agent=AGENT,
)

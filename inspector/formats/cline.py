"""Cline, Roo Code and Kilo Code tasks: ``<globalStorage>/<extension id>/tasks/<taskId>/
api_conversation_history.json``, the Anthropic messages each extension sends again when a task
is resumed, with the extension's own keys (``ts``, ``isSummary``, ``condenseId`` /
``condenseParent``, ``truncationId`` / ``truncationParent``, reasoning blocks and items).
``ui_messages.json`` and ``task_metadata.json`` beside it are not sent and never touched.

What a resume sends is not the file: each extension filters it first, and the importer reads
exactly what that filter lets through, with each flat row's record and block
(``messages[12].content[1]``). Sources (repository @ commit, path):

- **Cline** 3.35-3.89 (cline/cline @ e1bdeeff68e9, v3.89.2; ``apps/vscode/src/...``, ``src/...``
  before 791d2389): ``core/task/index.ts`` ``resumeTaskFromHistory``;
  ``core/context/context-management/ContextManager.ts`` ``getAndAlterTruncatedMessages``:
  messages 0-1 and what follows the truncation range (``conversationHistoryDeletedRange`` of
  the task in ``state/taskHistory.json``, also stamped on ``ui_messages.json``), results
  stripped from the first message after the cut, then ``ensureToolResultsFollowToolUse``: the
  message after a turn with calls gets one result per call in call order (``"result missing"``
  for a missing one, the last of two for one id, none for an id the turn does not declare).
  Cline 4 (db6d18a98a34, ``apps/vscode/src/sdk/legacy-task-handling.ts``) reads the same folder
  once, with its own placeholders, and then keeps the task in its SDK store.
- **Roo Code** 3.43+ (RooCodeInc/Roo-Code @ 67def7214a61, v3.52.1): ``src/core/task/Task.ts``
  ``resumeTaskFromHistory`` (a trailing call is answered "Task was interrupted before this tool
  call could be completed.", the new user message passes ``validateAndFixToolResultIds``) and
  ``attemptApiRequest``; ``src/core/condense/index.ts`` ``getEffectiveApiHistory``: from the
  last summary on, results whose call is not in that part removed, truncated messages hidden;
  ``buildCleanConversationHistory`` and ``src/api/transform/anthropic-filter.ts``: reasoning
  items and blocks Anthropic does not know are not sent.
- **Kilo Code** 5.x (Kilo-Org/kilocode-legacy @ fd53d631dae1, v5.10.4): the same resume; the
  condense summary is an assistant message and the filter only hides tagged messages.

A call the extension answers itself on resume is read with the extension's placeholder result
(import event ``result-placeholder``): the verdict says the agent repairs it, and nothing is
written for it. Export writes the same file with only the records an event touches: a dropped
block leaves its record, a record left empty goes, a synthesized result joins the user message
after its call (or a new one there). Every other record keeps its exact bytes; changed records
are written as the extensions write (``JSON.stringify``, no indentation, no final newline).

Reasoning: Anthropic ``thinking`` / ``redacted_thinking`` blocks (Cline keeps an unsigned
``thinking`` for history and never sends it), Roo Code's ``reasoning`` blocks and records
(``encrypted_content`` when an OpenAI model wrote them) and ``reasoning_details`` are recorded
with their turn and Cline's ``modelInfo.modelId``; ``--reasoning strip`` removes them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..engine import IMPORT_CLAUSE, INTERRUPTED, Kind, Result, declare
from ..io import BOM, InputError, parse_json
from . import reasoning, session
from .anthropic import SPEC as ANTHROPIC
from .anthropic import result_text
from .base import Decisions, Exported, Imported, Loc, Reasoning, args_object, call_args, call_name, join_text, kind_of
from .base import describe_block as _describe
from .format import Agent, Format, OnResume, SESSION, SelfRepair
from . import identity
from .store.jsontext import element_spans
from .store.side import read_regular

NAME = "cline"
LABEL = "Cline / Roo Code / Kilo Code task"
SUMMARY = "a Cline, Roo Code or Kilo Code task (tasks/<taskId>/api_conversation_history.json)"
HISTORY_FILE = "api_conversation_history.json"
AGENTS = {"cline": "Cline", "roo": "Roo Code", "kilo": "Kilo Code"}
EXTENSION_IDS = {"saoudrizwan.claude-dev": "cline", "rooveterinaryinc.roo-cline": "roo", "kilocode.kilo-code": "kilo"}
# What each agent answers a call with on resume, and where it does (cited in the import event).
PLACEHOLDER = {
    "cline": ("result missing", "since Cline 3.35.0: ContextManager.ts ensureToolResultsFollowToolUse"),
    "roo": ("Task was interrupted before this tool call could be completed.", "Task.ts resumeTaskFromHistory"),
    "kilo": ("Task was interrupted before this tool call could be completed.", "Task.ts resumeTaskFromHistory"),
}
VALIDATOR_TEXT = "Tool execution was interrupted before completion."
VALIDATOR_SOURCE = "since Roo Code 3.36.3: validateToolResultIds.ts validateAndFixToolResultIds"
# What the extension repairs itself on resume (the import reads its placeholder as sent, event
# ``result-placeholder``): the one claim, read by every verdict (inspector.verdict).
SELF_REPAIRS = (
    SelfRepair("result-placeholder", None, "answers a call left without a result with a placeholder",
               "", f"Cline {PLACEHOLDER['cline'][1]}; Roo Code and Kilo Code {PLACEHOLDER['roo'][1]}; "
               f"Roo Code {VALIDATOR_SOURCE}", lossless=False),
)
# Block types the Anthropic handlers of Roo and Kilo let through (anthropic-filter.ts).
ANTHROPIC_BLOCKS = frozenset({"text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking", "document"})

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("result-placeholder", IMPORT_CLAUSE, False, "agent's own placeholder",
         "The agent answers this call itself when the task is resumed, with a placeholder instead of the "
         "real result; nothing is written for it.", "note"),
    Kind("block-not-sent", IMPORT_CLAUSE, False, "not sent by the agent",
         "The agent leaves this stored block out of what it sends on resume (a result its filter drops, "
         "reasoning kept for history); it stays in the file.", "note"),
)


# -- the file: records and their bytes ---------------------------------------------------

@dataclass(eq=False)
class TaskFile:
    """``api_conversation_history.json`` as read: the records, each record's exact bytes, and
    what the folder around it says (which extension wrote it, Cline's truncation range)."""

    records: list[Any]
    data: bytes
    spans: list[tuple[int, int]]
    agent: str
    why_agent: str
    deleted_range: tuple[int, int] | None = None
    path: str | None = None
    pieces: list[bytes] | None = None          # set on a rewritten file: each record's bytes
    plain: bool = False                        # read from a parsed list, not a file: export a list

    def to_bytes(self) -> bytes:
        if self.pieces is None:
            return self.data
        # What surrounds the records (a BOM, the brackets, spacing) stays as it was.
        return self.data[:self.spans[0][0]] + b",".join(self.pieces) + self.data[self.spans[-1][1]:]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):            # a task read from a parsed list exports a list
            return self.plain and other == self.records
        return isinstance(other, TaskFile) and other.to_bytes() == self.to_bytes()

    __hash__ = None  # type: ignore[assignment]


def stringify(value: Any) -> bytes:
    """``JSON.stringify(value)``: compact, non-ASCII as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8", "surrogatepass")


def sniff(head: bytes, name: str) -> bool:
    """A task history is told by its name (``api_conversation_history.json``, also with a
    prefix such as ``25-roo-code.``) and a JSON array."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.endswith(HISTORY_FILE) and head.lstrip(BOM + b" \t\r\n").startswith(b"[")


def parse(data: bytes, name: str) -> TaskFile:
    return read_task(data, name, Path(name).is_file())


def read_task(data: bytes, name: str, on_disk: bool) -> TaskFile:
    """The file's records and spans; ``on_disk``: ``name`` is the file, so the folder around
    it says which extension wrote it (and Cline's truncation range)."""
    records = parse_json(data, name)
    if not isinstance(records, list):
        raise InputError(name, f"{NAME}: {HISTORY_FILE} holds a JSON array of messages, got {kind_of(records)}")
    body = data[len(BOM):] if data.startswith(BOM) else data
    offset = len(data) - len(body)
    spans = [(a + offset, b + offset) for a, b in element_spans(body, body.index(b"["))]
    if len(spans) != len(records):
        spans = []                             # unusual spacing: every record is re-serialized on change
    folder = Path(name).parent if on_disk else None
    agent, why = which_agent(records, folder)
    deleted = cline_range(folder) if agent == "cline" and folder is not None else None
    return TaskFile(records, data, spans, agent, why, deleted, name)


def which_agent(records: list[Any], folder: Path | None) -> tuple[str, str]:
    """Which extension wrote the task: its globalStorage folder names it; else its records."""
    if folder is not None:
        for part in reversed(folder.resolve().parts if folder.exists() else folder.parts):
            agent = EXTENSION_IDS.get(part.lower())
            if agent:
                return agent, f"its task folder is under {part}"
        if (folder / "history_item.json").exists():
            return "roo", "its task folder has the history_item.json Roo Code writes"
    dicts = [r for r in records if isinstance(r, Mapping)]
    if any("modelInfo" in r or "metrics" in r for r in dicts):
        return "cline", "its assistant messages carry the modelInfo and metrics Cline writes"
    summaries = [r for r in dicts if r.get("isSummary") is True]
    if summaries and summaries[-1].get("role") == "assistant":
        return "kilo", "its condense summary is an assistant message, as Kilo Code (and Roo Code before 3.43) writes it"
    return "roo", "its messages carry ts and no Cline metadata, as Roo Code writes them"


def cline_range(folder: Path) -> tuple[int, int] | None:
    """Cline's truncation range for the task: its HistoryItem in state/taskHistory.json, else
    the last ui message that carries it."""
    state = folder.parent.parent / "state" / "taskHistory.json"
    try:
        for item in orjson.loads(read_regular(state)):
            if isinstance(item, Mapping) and item.get("id") == folder.name:
                return _range(item.get("conversationHistoryDeletedRange"))
    except (OSError, orjson.JSONDecodeError, TypeError):
        pass
    try:
        ui = orjson.loads(read_regular(folder / "ui_messages.json"))
    except (OSError, orjson.JSONDecodeError):
        return None
    for msg in reversed(ui if isinstance(ui, list) else []):
        if isinstance(msg, Mapping) and "conversationHistoryDeletedRange" in msg:
            return _range(msg["conversationHistoryDeletedRange"])
    return None


def _range(value: Any) -> tuple[int, int] | None:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return value[0], value[1]
    return None


def evidence(document: Any) -> list[str]:
    """A parsed task file (told by its name, see :func:`sniff`), or a list of messages each of
    which carries the integer ``ts`` the extensions stamp on every record: a repaired copy
    under another name, or a batch record. No provider takes ``ts`` on a message (Anthropic
    refuses extra fields), so the key is the extensions' alone."""
    if isinstance(document, TaskFile):
        return [f"an {HISTORY_FILE} of a {AGENTS[document.agent]} task"]
    if isinstance(document, list) and document and all(_stamped(m) for m in document):
        return [f"every message carries the ts a Cline-family task stamps ({HISTORY_FILE} under another name)"]
    return []


def _stamped(message: Any) -> bool:
    return (isinstance(message, Mapping) and isinstance(message.get("role"), str)
            and isinstance(message.get("ts"), int) and not isinstance(message.get("ts"), bool))


# -- what a resume sends -------------------------------------------------------------------

@dataclass(slots=True)
class Item:
    """One block of a sent message: stored (``record``, ``index``) or the agent's own
    placeholder (``placeholder`` text, for call ``call``)."""

    block: Any
    record: int | None = None
    index: int | None = None
    placeholder: str | None = None
    call: str | None = None


@dataclass(slots=True)
class Sent:
    role: str
    record: int | None                 # the stored record; None for the message the resume adds
    items: list[Item] = field(default_factory=list)
    whole: bool = False                # content is a string: the record maps to one row
    resumed: bool = False              # the message the resume writes (no tags of its own)


def _blocks(record: int, msg: Mapping) -> Sent:
    content = msg.get("content")
    sent = Sent(msg["role"], record)
    if isinstance(content, str):
        sent.items.append(Item({"type": "text", "text": content}, record, None))
        sent.whole = True
    elif isinstance(content, list):
        sent.items = [Item(b, record, k) for k, b in enumerate(content)]
    return sent


def _type(item: Item) -> str | None:
    """A block's ``type``; None when it has none that is text (a list or a number names no kind)."""
    kind = item.block.get("type") if isinstance(item.block, Mapping) else None
    return kind if isinstance(kind, str) else None


def _call_ids(sent: Sent) -> list[str]:
    if sent.role != "assistant":
        return []
    return [i.block.get("id") for i in sent.items if _type(i) == "tool_use" and isinstance(i.block.get("id"), str)]


def _is_result(item: Item) -> bool:
    return _type(item) == "tool_result"


@dataclass(slots=True)
class TaskState:
    """What export needs from the import: which agent, and what it sends (records in order)."""

    agent: str
    sent: list[Sent]


class Reader:
    """Builds what one agent sends, noting what it leaves out."""

    def __init__(self, task: TaskFile) -> None:
        self.task = task
        self.records = task.records
        self.left_out: list[tuple[int, int | None, str]] = []      # (record, block or None, why)
        self.late: list[str] = []          # calls whose placeholder the resume puts after text

    def usable(self, k: int) -> bool:
        r = self.records[k]
        return isinstance(r, Mapping) and r.get("role") in ("user", "assistant")

    # Cline ---------------------------------------------------------------------------
    def cline(self) -> list[Sent]:
        n = len(self.records)
        deleted = self.task.deleted_range
        start = deleted[1] + 1 if deleted else 2
        order = [*range(min(2, n)), *range(max(start, 2), n)]
        if deleted:
            for k in range(2, min(start, n)):
                self.left_out.append((k, None, f"in Cline's truncation range {list(deleted)}"))
        sent = []
        for k in order:
            if self.usable(k):
                sent.append(_blocks(k, self.records[k]))
            else:
                self.left_out.append((k, None, "not a user or assistant message"))
        if start > 2 and len(sent) > 2 and sent[2].role == "user" and not sent[2].whole:
            for it in [i for i in sent[2].items if _is_result(i)]:
                self.left_out.append((it.record, it.index, "the first message after Cline's truncation loses its results"))
            sent[2].items = [i for i in sent[2].items if not _is_result(i)]
        if sent and sent[-1].role == "assistant":
            sent.append(Sent("user", None))        # the resumption message
        for k in range(len(sent) - 1):
            self._cline_pair(sent[k], sent[k + 1])
        return [s for s in sent if s.record is not None or s.items]

    def _cline_pair(self, turn: Sent, nxt: Sent) -> None:
        ids = _call_ids(turn)
        if not ids or nxt.role != "user":
            return
        found: dict[str, Item] = {}
        earlier: list[Item] = []
        other = []
        for it in nxt.items:
            cid = it.block.get("tool_use_id") if _is_result(it) else None
            if cid:
                if cid in found:
                    earlier.append(found[cid])
                found[cid] = it            # of two results for one id, the later is kept
            else:
                other.append(it)
        update = False
        if found:
            expected = 0
            for it in nxt.items:
                if expected >= len(ids):
                    break
                if _is_result(it) and it.block.get("tool_use_id") == ids[expected]:
                    expected += 1
                else:
                    update = True
                    break
            if not update and expected < len(found):
                update = True
        text, _ = PLACEHOLDER["cline"]
        for cid in ids:
            if cid not in found:
                found[cid] = Item({"type": "tool_result", "tool_use_id": cid, "content": text}, placeholder=text, call=cid)
                update = True
        if not update:
            return                             # sent as it is stored
        for it in earlier:
            self.left_out.append((it.record, it.index, "Cline sends the later of two results for one call"))
        for cid, it in found.items():
            if cid not in ids and it.record is not None:
                self.left_out.append((it.record, it.index, "Cline drops a result its turn does not ask for"))
        nxt.items = [found[cid] for cid in ids] + other

    # Roo and Kilo --------------------------------------------------------------------
    def roo(self, agent: str) -> list[Sent]:
        recs = self.records
        stored = [_blocks(k, recs[k]) if self.usable(k) else None for k in range(len(recs))]
        for k, s in enumerate(stored):
            if s is None and not (isinstance(recs[k], Mapping) and recs[k].get("type") == "reasoning"):
                self.left_out.append((k, None, "not a user or assistant message"))
        live = [s for s in stored if s is not None]
        live.append(self._resume(live, agent))
        sent = self._effective(live, agent)
        out = []
        for s in sent:
            if s.role == "assistant" and s.items and _type(s.items[0]) == "reasoning":
                self.left_out.append((s.record, s.items[0].index, "reasoning stored for history, not sent"))
                s.items = s.items[1:]
            kept = [i for i in s.items if _type(i) in ANTHROPIC_BLOCKS or i.placeholder]
            held = {id(i) for i in kept}
            for i in s.items:
                if id(i) not in held and i.record is not None:
                    self.left_out.append((i.record, i.index, f"a {_type(i)!s} block, which the Anthropic handler drops"))
            s.items = kept
            if s.items or s.whole:
                out.append(s)
        return out

    def _resume(self, live: list[Sent], agent: str) -> Sent:
        new = Sent("user", None, resumed=True)
        if not live:
            return new
        last = live[-1]
        rec = self.records[last.record]
        text, _ = PLACEHOLDER[agent]
        if agent == "roo" and rec.get("isSummary"):
            return new
        if last.role == "assistant":
            new.items = [Item({"type": "tool_result", "tool_use_id": c, "content": text}, placeholder=text, call=c)
                         for c in _call_ids(last)]
        else:
            live.pop()
            new = Sent("user", last.record, list(last.items), last.whole, resumed=True)
            if live and live[-1].role == "assistant":
                answered = {i.block.get("tool_use_id") for i in new.items if _is_result(i)}
                new.items += [Item({"type": "tool_result", "tool_use_id": c, "content": text}, placeholder=text, call=c)
                              for c in _call_ids(live[-1]) if c not in answered]
        history = self._effective(list(live), agent) if agent == "roo" else live
        if agent == "roo" and not (history and history[-1].role == "assistant"):
            # addToApiConversationHistory writes the results as text ("Tool result: ...").
            new.items = [Item({"type": "text", "text": "Tool result:\n" + result_text(i.block.get("content"))},
                              i.record, i.index) if _is_result(i) else i for i in new.items if i.placeholder is None]
            return new
        self._validate(new, [s for s in history if s.role == "assistant"][-1:])
        # A placeholder the resume appends after the user's own words is refused by Anthropic
        # (results must open the message): the agent does not repair that call, the import
        # leaves it unanswered so that the repair writes its result where it belongs.
        late = [i for k, i in enumerate(new.items) if i.placeholder is not None
                and any(not _is_result(j) for j in new.items[:k])]
        if late:
            self.late = [i.call for i in late]
            new.items = [i for i in new.items if i not in late]
        return new

    def _validate(self, new: Sent, prev: list[Sent]) -> None:
        """validateAndFixToolResultIds on the message a resume writes."""
        if not prev or new.whole:
            return
        uses = _call_ids(prev[0])
        if not uses:
            return
        seen: set[Any] = set()
        items = []
        for it in new.items:
            if _is_result(it):
                cid = it.block.get("tool_use_id")
                if cid in seen:
                    if it.record is not None:
                        self.left_out.append((it.record, it.index, "a second result for one call, dropped on resume"))
                    continue
                seen.add(cid)
            items.append(it)
        new.items = items
        results = [i for i in items if _is_result(i)]
        if all(r.block.get("tool_use_id") in uses for r in results) and set(uses) <= seen:
            return
        used: set[str] = set()
        fixed = []
        for it in items:
            if not _is_result(it):
                fixed.append(it)
                continue
            cid = it.block.get("tool_use_id")
            if cid in uses and cid not in used:
                used.add(cid)
                fixed.append(it)
                continue
            k = results.index(it)
            if k < len(uses) and uses[k] not in used:
                used.add(uses[k])
                fixed.append(Item({**it.block, "tool_use_id": uses[k]}, it.record, it.index))
            elif it.record is not None:
                self.left_out.append((it.record, it.index, "a result for no call of its turn, dropped on resume"))
        missing = [Item({"type": "tool_result", "tool_use_id": c, "content": VALIDATOR_TEXT},
                        placeholder=VALIDATOR_TEXT, call=c) for c in uses if c not in used]
        new.items = missing + fixed

    def _effective(self, live: list[Sent], agent: str) -> list[Sent]:
        recs = self.records

        def rec(s: Sent) -> Mapping:
            return recs[s.record] if s.record is not None and not s.resumed else {}

        summaries = [k for k, s in enumerate(live) if rec(s).get("isSummary") is True]
        if agent == "roo" and summaries:
            for s in live[:summaries[-1]]:
                self.left_out.append((s.record, None, "condensed: Roo Code sends from the last summary on"))
            part = live[summaries[-1]:]
            declared = {c for s in part for c in _call_ids(s)}
            out = []
            for s in part:
                if s.role == "user" and not s.whole:
                    gone = [i for i in s.items if _is_result(i) and i.block.get("tool_use_id") not in declared]
                    for i in gone:
                        if i.record is not None:
                            self.left_out.append((i.record, i.index, "its call was condensed away"))
                    s.items = [i for i in s.items if i not in gone]
                    if not s.items and s.record is not None and gone:
                        continue
                out.append(s)
            markers = {rec(s).get("truncationId") for s in out if rec(s).get("isTruncationMarker")}
            return [s for s in out if not self._hidden(s, rec(s), "truncationParent", markers, "truncated")]
        ids = {rec(s).get("condenseId") for s in live if rec(s).get("isSummary")} - {None}
        markers = {rec(s).get("truncationId") for s in live if rec(s).get("isTruncationMarker")} - {None}
        out = [s for s in live if not self._hidden(s, rec(s), "condenseParent", ids, "condensed")
               and not self._hidden(s, rec(s), "truncationParent", markers, "truncated")]
        summaries = [k for k, s in enumerate(out) if rec(s).get("isSummary")]
        if summaries:
            rest = out[summaries[-1]:]
            for s in out[1 if rest[0].role != "user" else 0:summaries[-1]]:
                self.left_out.append((s.record, None, "before the last summary"))
            if rest[0].role != "user" and out[0].role == "user":
                rest = [out[0], *rest]
            return rest
        return out

    def _hidden(self, s: Sent, rec: Mapping, key: str, live_ids: set, what: str) -> bool:
        value = rec.get(key)
        if value and value in live_ids:
            self.left_out.append((s.record, None, f"{what} ({key} {value})"))
            return True
        return False


# -- import --------------------------------------------------------------------------------

class RecordLoc(Loc):
    """``messages[4]``, ``messages[4].content[1]``; a placeholder the agent adds on resume is
    ``key="resume"`` after the record of its call's turn."""

    __slots__ = ()

    def describe(self, container: str | None = None) -> str:
        if self.key == "resume":
            return f"after messages[{self.message}] (added by the agent on resume)"
        base = f"messages[{self.message}]"
        if self.blocks is None:
            return base
        if len(self.blocks) == 1:
            return f"{base}.content[{self.blocks[0]}]"
        return f"{base}.content[{','.join(map(str, self.blocks))}]"


# The record keys and block keys that name something (a call, a summary, a truncation): the
# extension compares them as text, so anything else is refused here with the record named.
_RECORD_IDS = ("condenseId", "condenseParent", "truncationId", "truncationParent")
_BLOCK_IDS = {"tool_use": "id", "tool_result": "tool_use_id"}


def _check_ids(records: list[Any], name: str) -> None:
    for n, rec in enumerate(records):
        if not isinstance(rec, Mapping):
            continue
        for key in _RECORD_IDS:
            if key in rec and rec[key] is not None and not isinstance(rec[key], str):
                raise InputError(name, f"{NAME}: message {n}: {key} is {kind_of(rec[key])}, not text")
        content = rec.get("content")
        for k, block in enumerate(content if isinstance(content, list) else ()):
            kind = block.get("type") if isinstance(block, Mapping) else None
            key = _BLOCK_IDS.get(kind) if isinstance(kind, str) else None
            if key is not None and block.get(key) is not None and not isinstance(block[key], str):
                raise InputError(name, f"{NAME}: message {n} block {k}: the {block['type']} {key} is "
                                       f"{kind_of(block[key])}, not text")


def import_(document: Any, name: str = "<input>") -> Imported:
    if isinstance(document, (bytes, bytearray)):
        document = parse(bytes(document), name)
    if isinstance(document, list):
        document = read_task(stringify(document), name, False)
        document.plain = True
    if not isinstance(document, TaskFile):
        raise InputError(name, f"{NAME}: expected {HISTORY_FILE} (a JSON array of messages), got {kind_of(document)}")
    task = document
    _check_ids(task.records, name)
    reader = Reader(task)
    sent = reader.cline() if task.agent == "cline" else reader.roo(task.agent)
    im = Imported(NAME, [], task, container="messages", history=task.records)
    im.state = TaskState(task.agent, sent)
    declared_at: dict[str, int] = {}
    for s in sent:
        if s.role == "assistant":
            _add_assistant(im, s, declared_at)
        else:
            _add_user(im, s, declared_at, task.agent)
    agent = AGENTS[task.agent]
    im.notes.append(f"written by {agent}: {task.why_agent}; read as {agent} sends it on resume")
    if reader.late:
        im.notes.append(f"{agent} would answer {', '.join(reader.late)} on resume after the last user message's "
                        f"text, where Anthropic refuses a result; read as unanswered")
    if task.deleted_range:
        im.notes.append(f"Cline's truncation range {list(task.deleted_range)}: those messages are not sent")
    whole = sorted({k for k, b, _ in reader.left_out if b is None})
    if whole:
        im.notes.append(f"{len(whole)} stored message(s) not sent on resume (condensed, truncated or not "
                        f"messages), kept as they are: " + _ranges(whole))
    for k, b, why in reader.left_out:
        if b is not None:
            im.note(None, "block-not-sent", f"messages[{k}].content[{b}] is not sent on resume: {why}; "
                                            f"it stays in the file.")
    _record_reasoning(im, task, sent)
    return im


# -- reasoning -------------------------------------------------------------------------------

def _thought(block: Any) -> tuple[str, bool, bool, str] | None:
    """(kind, signed, encrypted, text) of a stored reasoning block: Anthropic's ``thinking`` /
    ``redacted_thinking`` (signed by their signature), or the ``reasoning`` block Roo Code
    stores first in a turn of an OpenAI model (signed by its ``encrypted_content``)."""
    found = ANTHROPIC.reasoning_of(block)
    if found is not None or not (isinstance(block, Mapping) and block.get("type") == "reasoning"):
        return found
    encrypted = isinstance(block.get("encrypted_content"), str) and bool(block["encrypted_content"])
    text = block.get("text") if isinstance(block.get("text"), str) else ""
    summary = block.get("summary")
    if not text and isinstance(summary, list):
        text = "\n".join(x.get("text") for x in summary if isinstance(x, Mapping) and isinstance(x.get("text"), str))
    return "reasoning", encrypted, encrypted, text


def _record_reasoning(im: Imported, task: TaskFile, sent: list[Sent]) -> None:
    """Every reasoning block and record of the task, in order. A block the extension sends has
    the row of its turn and the calls after it; one it keeps only for history (Roo's
    reasoning records and blocks, Cline's unsigned thinking) has none. The model is the
    record's ``modelInfo.modelId`` where Cline writes one."""
    row_of: dict[int, int] = {}
    for o, loc in enumerate(im.sources):
        if loc.key != "resume" and im.messages[o].get("role") == "assistant":
            row_of.setdefault(loc.message, o)
    sent_blocks = {(it.record, it.index) for s in sent for it in s.items if it.record is not None}
    for k, rec in enumerate(task.records):
        if not isinstance(rec, Mapping):
            continue
        info = rec.get("modelInfo")
        model = info.get("modelId") if isinstance(info, Mapping) and isinstance(info.get("modelId"), str) else None
        if rec.get("type") == "reasoning" and "role" not in rec:
            kind, signed, encrypted, text = _thought(rec)
            im.reasoning.append(Reasoning(None, RecordLoc(k), kind, signed, encrypted, model, (), text))
            continue
        content = rec.get("content")
        if rec.get("role") != "assistant" or not isinstance(content, list):
            continue
        row = row_of.get(k)
        for b, block in enumerate(content):
            found = _thought(block)
            if found is None:
                continue
            kind, signed, encrypted, text = found
            # Cline sends no thinking block without its signature (it keeps one for history).
            mine = row if (k, b) in sent_blocks and (signed or kind != "thinking" or task.agent != "cline") else None
            before = tuple(j for j, c in enumerate(im.calls[mine]) if c.blocks[0] > b) if mine is not None else ()
            im.reasoning.append(Reasoning(mine, RecordLoc(k, "content", (b,)), kind, signed, encrypted, model,
                                          before, text))
        if rec.get("reasoning_details"):
            im.reasoning.append(Reasoning(row, RecordLoc(k, "reasoning_details"), "reasoning_details", True, True,
                                          model, (), ""))


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: every reasoning block of every record goes (``thinking``,
    ``redacted_thinking``, Roo's ``reasoning`` blocks), and so do Roo's reasoning records and
    ``reasoning_details``; a record left with nothing goes too. Every other record keeps its bytes."""
    plain = isinstance(document, list)
    task = read_task(stringify(document), "<export>", False) if plain else document
    if not isinstance(task, TaskFile):
        return document
    raw = list(task.pieces) if task.pieces is not None else (
        [task.data[a:b] for a, b in task.spans] if task.spans else None)
    out: list[Any] = []
    pieces: list[bytes] = []
    changed = False
    for k, rec in enumerate(task.records):
        new = rec
        if isinstance(rec, Mapping) and rec.get("type") == "reasoning" and "role" not in rec:
            reasoning.removed(notes, f"messages[{k}]", "a reasoning record")
            changed = True
            continue
        if isinstance(rec, Mapping):
            content = rec.get("content")
            if isinstance(content, list) and any(_thought(b) is not None for b in content):
                for b, block in enumerate(content):
                    if _thought(block) is not None:
                        reasoning.removed(notes, f"messages[{k}].content[{b}]", _thought(block)[0])
                new = {**rec, "content": [b for b in content if _thought(b) is None]}
            if "reasoning_details" in rec:
                reasoning.removed(notes, f"messages[{k}].reasoning_details", "reasoning details")
                new = {key: v for key, v in new.items() if key != "reasoning_details"}
            if new is not rec and isinstance(new.get("content"), list) and not new["content"]:
                reasoning.removed(notes, f"messages[{k}]", "a message of reasoning alone", ", so the message goes too")
                changed = True
                continue
        changed = changed or new is not rec
        out.append(new)
        pieces.append(raw[k] if new is rec and raw else stringify(new))
    if not changed:
        return document
    if plain:
        return out
    if not task.spans:
        return TaskFile(out, stringify(out), [], task.agent, task.why_agent, task.deleted_range, task.path)
    return TaskFile(out, task.data, task.spans, task.agent, task.why_agent, task.deleted_range, task.path, pieces)


def _ranges(ks: list[int]) -> str:
    out, start, prev = [], ks[0], ks[0]
    for k in ks[1:] + [None]:
        if k is not None and k == prev + 1:
            prev = k
            continue
        out.append(f"messages[{start}]" if start == prev else f"messages[{start}..{prev}]")
        if k is not None:
            start = prev = k
    return ", ".join(out)


def _add_assistant(im: Imported, s: Sent, declared_at: dict[str, int]) -> None:
    texts, calls, locs = [], [], []
    for it in s.items:
        kind = _type(it)
        if kind == "text" and isinstance(it.block.get("text"), str):
            texts.append(it.block["text"])
        elif kind == "tool_use":
            calls.append({"tool_call_id": it.block.get("id"), "name": it.block.get("name"),
                          "arguments": it.block.get("input")})
            locs.append(RecordLoc(s.record, "content", (it.index,)))
            if isinstance(it.block.get("id"), str):
                declared_at.setdefault(it.block["id"], s.record)
    flat: dict[str, Any] = {"role": "assistant", "content": join_text(texts)}
    if calls:
        flat["tool_calls"] = calls
    im.add(flat, RecordLoc(s.record), locs)


def _add_user(im: Imported, s: Sent, declared_at: dict[str, int], agent: str) -> None:
    run: list[int] = []
    texts: list[str] = []
    for it in s.items:
        if it.record is not None and it.index is None:      # string content: the record is one row
            im.add({"role": "user", "content": it.block["text"]}, RecordLoc(s.record))
            continue
        if _is_result(it):
            if run:
                im.add({"role": "user", "content": join_text(texts)}, RecordLoc(s.record, "content", tuple(run)))
                run, texts = [], []
            cid = it.block.get("tool_use_id")
            if it.placeholder is not None:
                turn = declared_at.get(cid, s.record if s.record is not None else 0)
                o = im.add({"role": "tool", "content": it.placeholder, "tool_call_id": cid}, RecordLoc(turn, "resume"))
                source = PLACEHOLDER[agent][1] if it.placeholder != VALIDATOR_TEXT else VALIDATOR_SOURCE
                im.note(o, "result-placeholder",
                        f"{AGENTS[agent]} answers {cid} itself on resume with \"{it.placeholder}\" ({source}), "
                        f"instead of the real result; nothing is written for it.", tool_call_id=cid)
            else:
                im.add({"role": "tool", "content": result_text(it.block.get("content")), "tool_call_id": cid},
                       RecordLoc(s.record, "content", (it.index,)))
        else:
            run.append(it.index)
            if _type(it) == "text" and isinstance(it.block.get("text"), str):
                texts.append(it.block["text"])
    if run:
        im.add({"role": "user", "content": join_text(texts)}, RecordLoc(s.record, "content", tuple(run)))


def on_resume(im: Imported) -> OnResume:
    """What the extension that owns the task answers itself on resume (no version recorded)."""
    return OnResume.of(AGENTS.get(getattr(im.document, "agent", None), "Cline"), None, SELF_REPAIRS, im.events)


# -- export --------------------------------------------------------------------------------

def _use_lost(recs: list[Any], lose: dict[int, set[int]], cid: Any, first: int) -> bool:
    """Whether the export removes a ``tool_use`` of id ``cid`` from a record other than
    ``first`` (its first declaration), and keeps that first one."""
    def uses(k: int, blocks: Any) -> bool:
        content = recs[k].get("content") if isinstance(recs[k], Mapping) else None
        return isinstance(content, list) and any(
            i < len(content) and isinstance(content[i], Mapping) and content[i].get("type") == "tool_use"
            and content[i].get("id") == cid for i in blocks)
    return any(uses(k, gone) for k, gone in lose.items() if k != first) and not uses(first, lose.get(first, ()))


def export_same(im: Imported, result: Result, notes: Exported) -> TaskFile:
    task: TaskFile = im.document
    recs = task.records
    d = Decisions.of(result)
    kept = {o for o in result.origins if o is not None}
    lose: dict[int, set[int]] = {}
    for o, loc in enumerate(im.sources):
        if loc.key == "resume":
            continue
        if o not in kept and loc.blocks is not None:
            lose.setdefault(loc.message, set()).update(loc.blocks)
        elif o not in kept and im.messages[o]["role"] == "assistant":
            lose.setdefault(loc.message, set()).update(c.blocks[0] for c in im.calls[o])
        if o in kept:
            for j in d.dropped_calls.get(o, ()):
                c = im.calls[o][j]
                lose.setdefault(c.message, set()).add(c.blocks[0])
    # Synthesized results, grouped by the record of their call's turn, in the engine's order.
    where = {}
    for o, locs in enumerate(im.calls):
        for j, loc in enumerate(locs):
            where.setdefault(im.messages[o]["tool_calls"][j].get("tool_call_id"), loc.message)
    new_results: dict[int, list[dict[str, Any]]] = {}
    for msg, o in d.rows:
        if o is None and msg.get("role") == "tool" and msg.get("tool_call_id") in where:
            new_results.setdefault(where[msg["tool_call_id"]], []).append(
                {"type": "tool_result", "tool_use_id": msg["tool_call_id"], "content": msg["content"], "is_error": True})
    # A placeholder answers a call of the turn the agent resumes from. When the export takes
    # that call out (its id was declared before, and the engine paired the placeholder with
    # that declaration), the agent no longer writes it: the declaration gets a real result.
    for o, loc in enumerate(im.sources):
        cid = im.messages[o].get("tool_call_id")
        if loc.key == "resume" and o in kept and cid in where and _use_lost(recs, lose, cid, where[cid]):
            new_results.setdefault(where[cid], []).append(
                {"type": "tool_result", "tool_use_id": cid, "content": INTERRUPTED, "is_error": True})
    if not lose and not new_results:
        return task.records if task.plain else task
    order = [s.record for s in im.state.sent if s.record is not None]
    content: dict[int, list[Any]] = {}
    removed: set[int] = set()
    for k, gone in lose.items():
        blocks = recs[k]["content"] if isinstance(recs[k].get("content"), list) else []
        left = [b for i, b in enumerate(blocks) if i not in gone]
        # A record left with blank text or reasoning alone goes whole, as a Claude Code line of
        # thinking alone does: reasoning without the turn it was issued with is sent to no one.
        if not any(not (isinstance(b, Mapping) and b.get("type") == "text" and not str(b.get("text", "")).strip())
                   and _thought(b) is None for b in left):
            removed.add(k)
            notes.note("entry-removed", f"messages[{k}] is removed: nothing of it is left to send.")
        else:
            content[k] = left
            notes.note("entry-rewritten", f"messages[{k}] loses content block{'s' if len(gone) > 1 else ''} "
                                              f"{', '.join(map(str, sorted(gone)))}; the rest of it stays.")
    inserted: dict[int, list[dict[str, Any]]] = {}
    at = {r: n for n, r in reversed(list(enumerate(order)))}      # first place of each record, found once
    for k, blocks in new_results.items():
        pos = at.get(k, -1)
        nxt = next((order[j] for j in range(pos + 1, len(order)) if order[j] not in removed), None) \
            if pos >= 0 else None
        ids = ", ".join(b["tool_use_id"] for b in blocks)
        if nxt is not None and recs[nxt].get("role") == "user" and not recs[nxt].get("isSummary") \
                and not recs[nxt].get("isTruncationMarker"):
            base = content.get(nxt, recs[nxt]["content"])
            base = base if isinstance(base, list) else [{"type": "text", "text": base}]
            content[nxt] = [*blocks, *base]
            notes.note("entry-rewritten", f"messages[{nxt}] now opens with an interrupted result for {ids}.")
        else:
            turn = recs[k]
            record: dict[str, Any] = {"role": "user", "content": blocks}
            if "ts" in turn:
                record["ts"] = turn["ts"]
            for key in ("condenseParent", "truncationParent"):
                if key in turn:
                    record[key] = turn[key]
            inserted.setdefault(k, []).append(record)
            notes.note("entry-added", f"A new user message after messages[{k}] answers {ids} as interrupted.")
    pieces: list[bytes] = []
    out: list[Any] = []
    raw = [task.data[a:b] for a, b in task.spans] if task.spans else None
    for k, rec in enumerate(recs):
        if k not in removed:
            if k in content:
                rec = {**rec, "content": content[k]}
                pieces.append(stringify(rec))
            else:
                pieces.append(raw[k] if raw else stringify(rec))
            out.append(rec)
        for extra in inserted.get(k, ()):
            pieces.append(stringify(extra))
            out.append(extra)
    if task.plain:
        return out
    if not task.spans:
        data = stringify(out)
        return TaskFile(out, data, [], task.agent, task.why_agent, task.deleted_range, task.path)
    return TaskFile(out, task.data, task.spans, task.agent, task.why_agent, task.deleted_range, task.path, pieces)


def dump(document: Any, compact: bool = False) -> bytes:
    if isinstance(document, TaskFile):
        return document.to_bytes()
    return stringify(document)


def export_new(im: Imported, result: Result, notes: Exported) -> list[dict[str, Any]]:
    """A task history from another format's messages, as Roo Code writes one (``ts`` on each)."""
    out: list[dict[str, Any]] = []
    ts = 0
    for n, msg in enumerate(result.messages):
        ts += 1000
        role = msg["role"]
        if role == "assistant":
            blocks: list[Any] = [{"type": "text", "text": msg["content"]}] if msg["content"].strip() else []
            blocks += [{"type": "tool_use", "id": c["tool_call_id"], "name": call_name(c),
                        "input": args_object(call_args(c))} for c in msg.get("tool_calls") or ()]
            out.append({"role": "assistant", "content": blocks, "ts": ts})
            continue
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": msg["tool_call_id"], "content": msg["content"]}
            if result.origins[n] is None:
                block["is_error"] = True
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block], "ts": ts})
            continue
        text = msg["content"] if role == "user" else f"[{role}] {msg['content']}"
        out.append({"role": "user", "content": [{"type": "text", "text": text}], "ts": ts})
    return out


# The agent whose store this is (the doctor's table of agents reads it here).
AGENT = Agent("cline", "Cline / Roo Code / Kilo Code",
              "quit VS Code, keep a copy of the original task folder, put the repaired one in its place, "
              "reopen the task", folder=True,
              # No command line resumes a task: VS Code's history panel reopens it.
              reopen="reopen the task from the extension's history in VS Code")

FORMAT = Format(
    NAME, "a Cline / Roo Code / Kilo Code task", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=lambda block: _describe(block, ("id", "tool_use_id"), ("text", "content", "input", "thinking")),
    sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(HISTORY_FILE,), provider="anthropic",
    kinds=EMITS + session.EMITS + reasoning.EMITS, strip_reasoning=strip_reasoning,
    pairing=identity.ADJACENT,
    agent=AGENT,
    on_resume=on_resume, repairs=SELF_REPAIRS,
)

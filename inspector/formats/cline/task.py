"""The task file, ``api_conversation_history.json``: its records and each record's exact bytes,
which extension wrote it and Cline's truncation range (from the folder around it)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ...io import BOM, InputError, parse_json
from ..base import kind_of
from ..store.jsontext import element_spans
from ..store.side import read_regular

NAME = "cline"
LABEL = "Cline / Roo Code / Kilo Code task"
SUMMARY = "a Cline, Roo Code or Kilo Code task (tasks/<taskId>/api_conversation_history.json)"
HISTORY_FILE = "api_conversation_history.json"
AGENTS = {"cline": "Cline", "roo": "Roo Code", "kilo": "Kilo Code"}
EXTENSION_IDS = {"saoudrizwan.claude-dev": "cline", "rooveterinaryinc.roo-cline": "roo", "kilocode.kilo-code": "kilo"}


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


def dump(document: Any, compact: bool = False) -> bytes:
    if isinstance(document, TaskFile):
        return document.to_bytes()
    return stringify(document)

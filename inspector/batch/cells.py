"""A history held in one field of a row: a Parquet column, or a key of a JSONL record.

Datasets keep a conversation next to other fields (an id, the tools, a score), either as
the value itself (a list of messages) or as JSON text (a string column). The history goes
through :func:`inspector.pipeline.run` exactly as ``inspector normalize --compact`` runs a
file holding just that history, and is written back in the representation it came in:
JSON text stays JSON text (the very bytes ``normalize --compact`` prints, without the
newline), a value stays a value. The row's other fields are not touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from .. import pipeline
from ..engine import kind_of
from ..io import InputError, dumps, parse_json

DEFAULT_COLUMN = "messages"
CELL = "<row>"   # the name a history carries inside the pipeline; failures name the file and row


@dataclass(frozen=True, slots=True)
class Columns:
    """Where the history is and what the change log says of each row."""

    history: str = DEFAULT_COLUMN   # --column
    id: str | None = None           # --id-column
    target: str | None = None       # --target: provider problems left, in the change log

    @classmethod
    def of(cls, conversion: Any) -> Columns:
        """A batch's columns (``worker.Conversion``): a Parquet table's history is ``messages``
        unless ``--column`` says otherwise."""
        return cls(conversion.column or DEFAULT_COLUMN, conversion.id_column, conversion.target)


def repair(value: Any, text: bool, fmt: str = "auto", to: str = "same", strict: bool = False,
           column: str = DEFAULT_COLUMN, reasoning: str = "keep") -> tuple[Any, pipeline.Outcome]:
    """One cell's repaired value and the pipeline's outcome. ``text``: the cell holds JSON
    (``str`` or ``bytes``; the new value has the same type). Otherwise the cell is the
    document, handed over to the pipeline (the caller built it and keeps no reference)."""
    if value is None:
        raise InputError(CELL, f"no history: the {column!r} value is null")
    if text:
        data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else bytes(value)
        # One JSON document, as a batch record is: no session format sniffs it.
        outcome = pipeline.outcome(pipeline.load(data, CELL, fmt, sniff=False), CELL, to, strict,
                                   compact=True, owned=True, reasoning=reasoning)
        out = outcome.data.removesuffix(b"\n")
        return (out.decode("utf-8") if isinstance(value, str) else out), outcome
    outcome = pipeline.outcome(pipeline.read(value, CELL, fmt), CELL, to, strict, compact=True, owned=True,
                               reasoning=reasoning)
    return outcome.exported, outcome


def repair_record(record: Any, column: str, fmt: str = "auto", to: str = "same",
                  strict: bool = False, reasoning: str = "keep") -> tuple[dict[str, Any], pipeline.Outcome]:
    """A JSONL record that is an object holding its history under ``column``: the record
    with that field repaired in place (same key, same position, JSON text if it was text),
    every other field kept."""
    if not isinstance(record, Mapping):
        raise InputError(CELL, f"expected an object with a {column!r} field (--column), got {kind_of(record)}")
    if column not in record:
        raise InputError(CELL, f"the record has no {column!r} field (--column)")
    value = record[column]
    new, outcome = repair(value, isinstance(value, str), fmt, to, strict, column, reasoning)
    out = dict(record)
    out[column] = new
    return out, outcome


def excerpt(value: Any, limit: int = 120) -> str:
    """The start of a failed cell, to recognise it in the errors file."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value[:limit * 4])
    elif isinstance(value, str):
        return value[:limit].strip()
    else:
        try:
            data = orjson.dumps(value, default=str)[:limit * 4]
        except (orjson.JSONEncodeError, RecursionError):
            return ""
    return data.decode("utf-8", errors="replace").strip()[:limit]


def repair_line(data: bytes, column: str, id_column: str | None = None, fmt: str = "auto", to: str = "same",
                strict: bool = False, reasoning: str = "keep") -> tuple[bytes, pipeline.Outcome, dict[str, Any]]:
    """One JSONL line read with ``--column``: the line to write (compact, with its newline),
    the outcome, and what the change log adds (``{"id": …}`` with ``--id-column``)."""
    record = parse_json(data, CELL)
    out, outcome = repair_record(record, column, fmt, to, strict, reasoning)
    where = {"id": record.get(id_column)} if id_column is not None else {}
    return dumps(out, orjson.OPT_APPEND_NEWLINE), outcome, where

"""The MEM-5 normalization engine: pure Python, no UI imports, the only place a rule lives.

``normalize(messages)`` runs coerce, hoist, repair and strip in order and returns a
:class:`Result` with the final messages, the drop count the passes recorded, the ordered
events, and every stage's output with each message's origin (its input index).
"""

from __future__ import annotations

import gc
from typing import Any

from .coerce import coerce
from .hoist import hoist
from .model import Event, Recorder, Result, Stage
from .pairing import INTERRUPTED, repair
from .rule import CLAUSES, KINDS, RULE_ID, RULE_SOURCE
from .strip import strip

STAGES = ("coerce", "hoist", "repair", "strip")

__all__ = [
    "CLAUSES", "INTERRUPTED", "KINDS", "RULE_ID", "RULE_SOURCE", "STAGES",
    "Event", "Result", "Stage", "normalize",
]


def normalize(messages: list[Any]) -> Result:
    if not isinstance(messages, list):
        raise TypeError(
            f"normalize() expects a list of messages (a parsed JSON array), "
            f"got {type(messages).__name__}"
        )
    rec = Recorder()
    stages: list[Stage] = []
    # Millions of small dicts and no cycles: the cyclic collector only costs time here.
    collecting = gc.isenabled()
    gc.disable()
    try:
        msgs, origins = coerce(messages, rec)
        stages.append(_snapshot("coerce", msgs, origins, rec, 0))
        mark = len(rec.events)
        msgs, origins = hoist(msgs, origins, rec)
        stages.append(_snapshot("hoist", msgs, origins, rec, mark))
        mark = len(rec.events)
        msgs, origins = repair(msgs, origins, rec)
        stages.append(_snapshot("repair", msgs, origins, rec, mark))
        mark = len(rec.events)
        msgs, origins = strip(msgs, origins, rec)
        stages.append(_snapshot("strip", msgs, origins, rec, mark))
    finally:
        if collecting:
            gc.enable()
    return Result(messages=msgs, dropped=rec.dropped, events=rec.events, stages=stages)


def _snapshot(name: str, msgs: list, origins: list, rec: Recorder, mark: int) -> Stage:
    return Stage(name=name, messages=msgs, origins=origins, events=rec.events[mark:])

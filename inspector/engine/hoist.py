"""Stage 2 (MEM-5 clause 2): a stable partition, system messages first."""

from __future__ import annotations

from typing import Any

from .model import Recorder


def hoist(
    messages: list[dict[str, Any]], origins: list[int | None], rec: Recorder
) -> tuple[list[dict[str, Any]], list[int | None]]:
    system = [i for i, m in enumerate(messages) if m["role"] == "system"]
    if not system or system[-1] == len(system) - 1:
        return list(messages), list(origins)
    for rank, i in enumerate(system):
        if i != rank:
            rec.record("system-hoisted", origins[i],
                       f"Moved this system message to the front, from position {i} to {rank}; "
                       "system messages keep their order among themselves.")
    # The rest keeps its order: splice the runs between system rows rather than
    # indexing every message one by one.
    out = [messages[i] for i in system]
    orig = [origins[i] for i in system]
    prev = 0
    for i in system:
        out += messages[prev:i]
        orig += origins[prev:i]
        prev = i + 1
    out += messages[prev:]
    orig += origins[prev:]
    return out, orig

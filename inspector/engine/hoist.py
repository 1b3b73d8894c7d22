"""Stage 2 (MEM-5 clause 2): a stable partition, system messages first."""

from __future__ import annotations

from typing import Any

from .model import Recorder

STAGE = "hoist"
CLAUSE = "2"


def hoist(
    messages: list[dict[str, Any]], origins: list[int | None], rec: Recorder
) -> tuple[list[dict[str, Any]], list[int | None]]:
    system = [i for i, m in enumerate(messages) if m["role"] == "system"]
    if not system or system[-1] == len(system) - 1:
        return list(messages), list(origins)
    front = set(system)
    order = system + [i for i in range(len(messages)) if i not in front]
    for rank, i in enumerate(system):
        if i != rank:
            rec.record(STAGE, CLAUSE, "system-hoisted", False, origins[i],
                       f"Moved this system message to the front, from position {i} to {rank}; "
                       "system messages keep their order among themselves.")
    return [messages[i] for i in order], [origins[i] for i in order]

"""Stage 4 (MEM-5 clause 4): no tool message may open the conversation."""

from __future__ import annotations

from typing import Any

from .model import Recorder
from .pairing import repair


def strip(
    messages: list[dict[str, Any]], origins: list[int | None], rec: Recorder
) -> tuple[list[dict[str, Any]], list[int | None]]:
    start = 0
    while start < len(messages) and messages[start]["role"] == "system":
        start += 1
    end = start
    while end < len(messages) and messages[end]["role"] == "tool":
        msg = messages[end]
        rec.record("leading-tool", origins[end],
                   f"Removed the result for call {msg['tool_call_id']!r}: a tool message cannot open "
                   "the conversation, since no call comes before it.",
                   tool_call_id=msg["tool_call_id"])
        end += 1
    if end == start:
        # Nothing stripped: the list is the clause-3 procedure's own output, which that
        # procedure leaves as it is (tested), so running it again would find nothing.
        return list(messages), list(origins)
    messages = messages[:start] + messages[end:]
    origins = origins[:start] + origins[end:]
    # Stripping can un-answer a call, so the clause-3 procedure runs again.
    return repair(messages, origins, rec)

"""The request a resume sends, each block knowing the stored row (or message) and part it
came from: what the stores that build an Anthropic request from their own rows (Crush,
Goose, OpenCode) read with the Anthropic importer, and map the engine's decisions back
through, onto their rows and parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...engine import Result
from ..base import Decisions, Imported, Loc


@dataclass(slots=True)
class Block:
    """One block of the request, and the stored row (or message) and part it came from."""

    body: dict[str, Any]
    row: int
    part: int
    role: str                  # text, reasoning, call, result, file


@dataclass(slots=True)
class Request:
    """The Anthropic request a resume sends, with the row and part of each block; ``notes``
    are what the agent does on the way (kind, sentence, call id); ``history`` the stored
    messages the blocks index into, where the store keeps them apart from its rows;
    ``shadows`` maps a sent result's (row, part) to the stored results the agent leaves out
    only because that one answers the same call first: a repair that cuts the sent one cuts
    them too, or the agent would send the next in its place."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    blocks: dict[int, Block] = field(default_factory=dict)        # id(block body) -> Block
    notes: list[tuple[str, str, str | None]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    shadows: dict[tuple[int, int], list[tuple[int, int]]] = field(default_factory=dict)

    def add(self, role: str, blocks: list[Block]) -> None:
        """One message of the agent's own; the Anthropic API takes user and tool messages in a
        row as one user turn, and assistant messages in a row as one assistant turn."""
        if not blocks:
            return
        side = "assistant" if role == "assistant" else "user"
        if self.messages and self.messages[-1]["role"] == side:
            self.messages[-1]["content"].extend(b.body for b in blocks)
        else:
            self.messages.append({"role": side, "content": [b.body for b in blocks]})
        for b in blocks:
            self.blocks[id(b.body)] = b

    def blocks_of(self, loc: Loc) -> list[Block]:
        """The blocks a request location (message, content blocks) names."""
        content = self.messages[loc.message]["content"]
        return [self.blocks[id(content[k])] for k in (loc.blocks or ()) if id(content[k]) in self.blocks]

    def loc(self, src: Loc) -> Loc:
        """A request location as stored rows and parts (several rows: the rows alone)."""
        content = self.messages[src.message]["content"] if isinstance(src.message, int) else []
        picked = [self.blocks[id(content[k])] for k in (src.blocks or range(len(content))) if k < len(content)
                  and id(content[k]) in self.blocks]
        if not picked:
            return Loc(0)
        rows = sorted({b.row for b in picked})
        if len(rows) > 1:
            return Loc(rows[0], None, None, tuple(rows))
        return Loc(rows[0], "parts", tuple(dict.fromkeys(b.part for b in picked)))

    def calls(self) -> dict[Any, list[Block]]:
        """The call blocks by call id, in request order (found once, not once per result)."""
        out: dict[Any, list[Block]] = {}
        for b in self.blocks.values():
            if b.role == "call":
                cid = b.body.get("id")
                out.setdefault(cid if isinstance(cid, (str, int, float, type(None))) else repr(cid), []).append(b)
        return out


def lost(req: Request, inner: Imported, result: Result) -> list[Block]:
    """The blocks the engine's decisions take out of the request, read from provenance only:
    the results of rows it dropped, and the calls it dropped (every call of a dropped row)."""
    d = Decisions.of(result)
    kept_rows = {o for _, o in d.rows if o is not None}
    out: list[Block] = []
    for i, msg in enumerate(inner.messages):
        if msg.get("role") == "tool" and i not in kept_rows:
            out += req.blocks_of(inner.sources[i])
        calls = inner.calls[i]
        gone = set(range(len(calls))) if i not in kept_rows else d.dropped_calls.get(i, frozenset())
        for j in gone:
            out += req.blocks_of(calls[j])
    return out

"""Server-side compaction: what comes before it is not sent.

Anthropic's context management (``compact_20260112``) writes an assistant ``compaction``
block whose summary stands for everything before it: the API drops every block before the
last one when it reads the request. OpenAI Responses writes a ``compaction`` item
(``cmp_...``, encrypted) that does the same for the items before it, and must come back
unchanged (openai/codex #35334), like encrypted reasoning. Inspector carries both byte for
byte; the import says which rows the provider drops, so that every view shows them as not
sent, and the target checks do not judge them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import IMPORT_CLAUSE, Kind, declare

EMITS = declare(
    Kind("compacted-before", IMPORT_CLAUSE, False, "not sent: compacted",
         "Everything before the last compaction block or item is not sent: the provider drops it and reads the "
         "compaction's summary instead, so it is not judged either.", "note"),
)


def last_compaction(history: Any, key: str | None) -> tuple[int, int | None] | None:
    """(message, block) of the last compaction in a history: a block of a message's ``key``
    list (Anthropic), or an item of its own (Responses, ``key`` None)."""
    found = None
    for p, m in enumerate(history if isinstance(history, list) else ()):
        if not isinstance(m, Mapping):
            continue
        if key is None:
            if m.get("type") == "compaction":
                found = (p, None)
            continue
        blocks = m.get(key)
        for k, b in enumerate(blocks if isinstance(blocks, list) else ()):
            if isinstance(b, Mapping) and b.get("type") == "compaction":
                found = (p, k)
    return found


def note(im: Any, key: str | None) -> None:
    """One import note, on the first row the provider reads, naming what it drops."""
    found = last_compaction(im.history, key)
    if found is None:
        return
    p, k = found
    base = im.container or "history"
    row = next((o for o, loc in enumerate(im.sources) if loc.message == p), None)
    before = f"{base}[0..{p - 1}]" if p > 0 else ""
    inside = f"{base}[{p}].{key}[0..{k - 1}]" if k else ""
    dropped = " and ".join(x for x in (before, inside) if x) or "nothing"
    where = f"{base}[{p}]" + (f".{key}[{k}]" if k is not None else "")
    im.note(row, "compacted-before", f"{where} is a compaction: {dropped} is not sent (the provider drops what comes "
                                     "before it and reads its summary), so it is not judged; it is written back "
                                     "unchanged.")

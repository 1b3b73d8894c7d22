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


def _candidates(im: Any, key: str | None) -> tuple[int, int | None] | None:
    """The last compaction among what the import could not carry in the flat form
    (``Imported.unconverted``: a compaction block or item is always one of them), so a
    history without one costs a pass over those few entries, not over every block."""
    history = im.history if isinstance(im.history, list) else []
    found = None
    for i, k_key, k in getattr(im, "unconverted", ()):
        entry = history[i] if isinstance(i, int) and i < len(history) else None
        if not isinstance(entry, Mapping):
            continue
        if key is None and k is None and entry.get("type") == "compaction":
            found = max(found or (i, None), (i, None))
        elif key is not None and k_key == key and isinstance(k, int):
            blocks = entry.get(key)
            if isinstance(blocks, list) and k < len(blocks) and isinstance(blocks[k], Mapping) \
                    and blocks[k].get("type") == "compaction":
                found = max(found or (i, k), (i, k))
    return found


def note(im: Any, key: str | None) -> None:
    """One import note, on the first row the provider reads, naming what it drops."""
    found = _candidates(im, key)
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

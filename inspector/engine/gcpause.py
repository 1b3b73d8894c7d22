"""Pausing the cyclic garbage collector around work on many small acyclic objects.

Histories are millions of small dicts and lists without reference cycles: each collection
the allocator triggers walks all of them and finds nothing. The engine, the formats and
batch workers wrap their hot loops in :func:`gc_paused` instead of keeping copies of it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block; restore it as it was (nesting is safe)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()

"""Pausing the cyclic garbage collector around work on many small acyclic objects.

Histories are millions of small dicts and lists without reference cycles: each collection
the allocator triggers walks all of them and finds nothing. The engine, the formats and
batch workers wrap their hot loops in :func:`gc_paused` instead of keeping copies of it.
"""

from __future__ import annotations

import gc

__all__ = ["gc_paused"]


class gc_paused:  # noqa: N801 - used like the function it replaced: ``with gc_paused():``
    """Disable the cyclic collector for the block; restore it as it was (nesting is safe).
    A class, not a generator: it is entered a few times per batch record."""

    __slots__ = ("_was",)

    def __enter__(self) -> None:
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was:
            gc.enable()

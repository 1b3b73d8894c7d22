"""Keeping freed memory for the next task instead of handing it back to the kernel.

Every task parses about a megabyte of records into objects and frees them all again. With
glibc's defaults the heap shrinks whenever its free top passes 128 KiB and grows again for
the next record, and every page it grows into is a fresh page fault: on
``bench/batch.py``'s 20,000 flat histories that was about 108,000 faults and a fifth of a
second of system time in one process. A 16 MiB pad kept at the top of the heap (and a
higher threshold before it is trimmed) lets the tasks reuse the same pages: 5,000 faults.
The process then holds at most that much more memory between tasks.

Only glibc has ``mallopt``; elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes

M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
TOP_PAD = 16 << 20
TRIM_THRESHOLD = 32 << 20

_done = False


def keep_freed_memory() -> None:
    """Tune this process's allocator once (forked workers inherit it)."""
    global _done
    if _done:
        return
    _done = True
    try:
        mallopt = ctypes.CDLL(None).mallopt   # the C library the interpreter itself uses
    except (OSError, AttributeError):  # not glibc
        return
    mallopt(M_TOP_PAD, TOP_PAD)
    mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)

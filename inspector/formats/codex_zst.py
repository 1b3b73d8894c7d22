"""Codex's compressed rollouts (``rollout-*.jsonl.zst``) and which of two forms Codex reads.

Since Codex 0.137 (openai/codex PRs #25087/#25089) a background worker compresses a rollout
that has been idle for seven days into ``rollout-*.jsonl.zst`` (zstd, level 3) and deletes the
plain file. What Codex does with the two forms, from ``codex-rs/rollout/src/compression.rs``
at 3846901efe60c2dd33ff2038a66f6863882fe60d:

- ``existing_rollout_path``: a resume opens the plain ``.jsonl`` when it exists and the
  ``.jsonl.zst`` only when it does not; the listing (``RolloutFile::from_path``) hides a
  compressed file whose plain sibling exists, so a session is listed once;
- ``materialize_rollout_for_append``: before appending to a compressed session, Codex
  decompresses it to the plain name and deletes the ``.zst``;
- the worker skips a plain file whose ``.zst`` already exists.

So the form Codex reads beside a ``.zst`` is the plain file, and Inspector writes a repair of
a compressed rollout as plain JSON Lines. ``--in-place`` does what Codex's own materialize
does: the plain repair is put beside the ``.zst`` (never over an existing plain file), then
the ``.zst`` is moved to its backup name, so the two forms never disagree on disk.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable

from ..io import InputError, display_name, write_new

try:                                       # Python 3.14 has zstd in its standard library
    from compression import zstd as _std   # type: ignore[import-not-found]
except ImportError:                        # pragma: no cover - depends on the Python
    _std = None
    import zstandard as _zstandard
else:                                      # pragma: no cover
    _zstandard = None

MAGIC = b"\x28\xb5\x2f\xfd"     # a zstd frame (RFC 8878, 3.1.1)
SUFFIX = ".zst"
SOURCE = "openai/codex codex-rs/rollout/src/compression.rs (3846901)"
# A decompressed rollout larger than this is refused rather than read into memory whole.
MAX_PLAIN = 4 << 30
_TOO_LARGE = f"codex-rollout: larger than {MAX_PLAIN >> 30} GiB once decompressed; not read"
CHUNK = 1 << 16         # compressed bytes fed at a time, so the size limit is checked as it grows


def is_compressed(data: bytes) -> bool:
    return data.startswith(MAGIC)


def decompress(data: bytes, name: str) -> bytes:
    """The whole rollout a ``.jsonl.zst`` holds: every frame, as Codex's decoder reads them.
    A file cut short (its last frame unfinished) is refused: Codex's reader would fail on it
    too, and reading what the cut left would pass a shorter session off as the whole one."""
    try:
        if _std is not None:    # pragma: no cover - Python 3.14
            out = _std.decompress(data)
            if len(out) > MAX_PLAIN:
                raise InputError(name, _TOO_LARGE)
            return out
        dctx = _zstandard.ZstdDecompressor()
        out = bytearray()
        pos = 0
        while pos < len(data):
            frame = dctx.decompressobj()
            while not frame.eof:
                if pos >= len(data):
                    raise InputError(name, "codex-rollout: the compressed rollout is cut short (its last zstd "
                                           "frame does not end); Codex cannot read it either")
                chunk = data[pos:pos + CHUNK]
                pos += len(chunk)
                out += frame.decompress(chunk)
                if len(out) > MAX_PLAIN:
                    raise InputError(name, _TOO_LARGE)
            pos -= len(frame.unused_data)
        return bytes(out)
    except InputError:
        raise
    except Exception as exc:   # zstandard.ZstdError, compression.zstd.ZstdError
        raise InputError(name, f"codex-rollout: the zstd data cannot be decompressed ({exc}); "
                               f"a .jsonl.zst written whole by Codex decompresses") from None


def head(data: bytes) -> bytes:
    """The start of the rollout a compressed head holds (for sniffing: a cut frame gives what
    it has)."""
    try:
        if _std is not None:   # pragma: no cover
            return _std.ZstdDecompressor().decompress(data, max_length=1 << 20)
        return _zstandard.ZstdDecompressor().decompressobj().decompress(data)[:1 << 20]
    except Exception:
        return b""


def compress(data: bytes) -> bytes:
    """Compressed as Codex's worker writes (level 3); for the tests and the sample."""
    if _std is not None:   # pragma: no cover
        return _std.compress(data, 3)
    return _zstandard.ZstdCompressor(level=3).compress(data)


def plain_path(path: str) -> str:
    """The plain name of a compressed rollout (``x.jsonl.zst`` -> ``x.jsonl``)."""
    return path[:-len(SUFFIX)] if path.endswith(".jsonl" + SUFFIX) else path


def is_rollout_name(name: str) -> bool:
    """Codex's own test of a rollout file name (``parse_rollout_file_name``)."""
    name = name[:-len(SUFFIX)] if name.endswith(SUFFIX) else name
    return name.startswith("rollout-") and name.endswith(".jsonl")


def shadowed(path: str | os.PathLike) -> bool:
    """A compressed rollout whose plain sibling exists: Codex reads the plain one, so the
    compressed one is neither listed nor read (``should_skip_compressed_sibling``)."""
    text = os.fspath(path)
    return text.endswith(".jsonl" + SUFFIX) and os.path.lexists(plain_path(text))


def sibling_note(name: str, compressed: bool) -> str | None:
    """Which of the two forms Codex reads, when both are on disk, in one sentence."""
    if compressed:
        plain = plain_path(name)
        if plain != name and os.path.lexists(plain):
            return (f"{display_name(plain)} is beside this compressed rollout: Codex reads that plain file, "
                    f"not this one ({SOURCE}, existing_rollout_path)")
        return None
    if name.endswith(".jsonl") and os.path.lexists(name + SUFFIX):
        return (f"{display_name(name + SUFFIX)} is beside this rollout: Codex reads this plain file and leaves "
                f"the compressed one unread while this one exists ({SOURCE}, existing_rollout_path)")
    return None


def replace_compressed(path: str, original: bytes, repaired: bytes, keep: Callable[[bytes], str]) -> str:
    """``--in-place`` for a ``.jsonl.zst``: the repair goes to the plain name (which Codex reads
    first), written whole and synced under a temporary name, then linked into place (never
    over a plain file that appeared meanwhile); the ``.zst`` is then moved to the backup
    name. Returns the backup's name."""
    name = display_name(path)
    p = Path(path)
    plain = Path(plain_path(str(p)))
    if plain == p:
        raise InputError(name, "codex-rollout: --in-place on a compressed rollout needs the name rollout-*.jsonl.zst")
    if os.path.lexists(plain):
        raise InputError(name, f"Codex reads {display_name(plain)} beside this file, not this one; "
                               "repair that one (nothing was written)")
    before = p.stat()
    with open(p, "rb") as handle:
        if handle.read() != original:
            raise InputError(name, "the file changed while it was being repaired (is Codex compressing or "
                                   "resuming it?); nothing was written")
    mode = stat.S_IMODE(before.st_mode)
    for n in range(100):                      # a hidden name of our own beside it (never listed)
        temp = plain.with_name(f".{plain.name}.inspector-{os.getpid()}-{n}.tmp")
        try:
            write_new(temp, repaired, mode)
            break
        except FileExistsError:
            continue
    else:
        raise InputError(name, "codex-rollout: no free temporary name beside the rollout; nothing was written")
    try:
        with open(temp, "rb+") as handle:
            os.fsync(handle.fileno())
        try:
            os.link(temp, plain)              # fails if the plain name exists: never written over
        except FileExistsError:
            raise InputError(name, f"{display_name(plain)} appeared while the repair was written (Codex "
                                   "resumed the session?); nothing was replaced") from None
    finally:
        os.unlink(temp)
    now = p.stat()
    if (now.st_size, now.st_mtime_ns, now.st_ino) != (before.st_size, before.st_mtime_ns, before.st_ino):
        os.unlink(plain)
        raise InputError(name, "the file changed while it was being repaired; nothing was replaced")
    backup = keep(original)
    os.unlink(p)                              # the backup holds its bytes: one form stays on disk
    _sync_dir(plain.parent)
    return backup


def _sync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

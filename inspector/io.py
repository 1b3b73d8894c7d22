"""Bytes in and out: decoding, JSON errors with file:line:col, atomic writes.

Nothing here knows a MEM-5 rule; it only turns files into Python values and back.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from .engine import gc_paused

BOM = b"\xef\xbb\xbf"
SQLITE_HEADER = b"SQLite format 3\x00"
# orjson reads 1,024 levels of nesting but writes at most 255.
MAX_READ_DEPTH = 1024
MAX_WRITE_DEPTH = 255
TOO_DEEP = f"nested too deeply: JSON output can hold at most {MAX_WRITE_DEPTH} levels of lists and objects"
# What a command ends with when its input or output is at fault (bad JSON, too deep, full disk).
EXIT_ERROR = 2
_BLANK = re.compile(rb"\s*")


# An edited entry sits this deep in the file at most (body, list, entry, blocks, block...):
# what the editor accepts is at most MAX_WRITE_DEPTH less this, so a save can always write it.
ENTRY_DEPTH = 8
MAX_ENTRY_DEPTH = MAX_WRITE_DEPTH - ENTRY_DEPTH


def nesting(value: Any, stop: int | None = None) -> int:
    """How many levels of lists and objects ``value`` holds (0 for a scalar), counted without
    recursion, so a value nested 100,000 deep is measured too; ``stop``: return as soon as
    the count passes it. The one measure the readers, the editor and the saver share."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if level > deepest:
            deepest = level
            if stop is not None and deepest > stop:
                return deepest
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return deepest


class InputError(Exception):
    """A user-facing problem with an input or output path: one clear line, no traceback."""

    def __init__(self, where: str, reason: str, line: int | None = None, column: int | None = None):
        self.where = where
        self.reason = reason
        self.line = line
        self.column = column
        loc = f"{where}:{line}:{column}" if line is not None else where
        super().__init__(f"{loc}: {reason}")


class NotAHistory(InputError):
    """A document read whole that holds no conversation history (another tool's JSON, an
    index, one message): named alone, an error like any other; met while walking a folder,
    a file passed over and named as such, so a folder's answer is the same everywhere."""


def printable(text: str) -> str:
    """Text bound for a terminal line, with every control or escape character written as its
    escape (``\\x1b``, ``\\n``): file names, ids and provider texts are data, and a raw one
    could move the cursor, clear the screen or break the line apart."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def display_name(path: str | os.PathLike) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


# What an input may be. A regular file is read whole. A pipe is read once, on purpose (``<(…)``
# process substitution, a FIFO another program writes, standard input), up to PIPE_LIMIT bytes:
# it has no size to check first. A FIFO nobody has opened for writing yet is waited on for
# PIPE_WAIT seconds, never forever. A device (/dev/zero never ends, /dev/tty waits on a
# keyboard), a socket or anything else is refused before it is opened.
PIPE_LIMIT = 512 << 20
PIPE_WAIT = 30.0


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    return ("a FIFO (a named pipe)" if stat.S_ISFIFO(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a directory" if stat.S_ISDIR(mode) else "not a regular file")


def not_a_file(mode: int) -> str:
    return f"is {file_kind(mode)}, not a file: Inspector reads files, folders and pipes"


def stdin_refusal() -> str | None:
    """Why standard input is not read, or None: a device that is not a terminal (``<
    /dev/zero`` never ends) or a block device; a terminal, a pipe, a socket and a file are read."""
    try:
        fd = sys.stdin.fileno()
        st = os.fstat(fd)
    except (AttributeError, ValueError, OSError):   # replaced by an in-memory stream, or closed
        return None
    if (stat.S_ISCHR(st.st_mode) and not os.isatty(fd)) or stat.S_ISBLK(st.st_mode):
        return f"standard input is {file_kind(st.st_mode)}, not a file or a pipe; nothing was read"
    return None


def _read_stream(handle: BinaryIO, name: str) -> bytes:
    """A stream read to its end, at most :data:`PIPE_LIMIT` bytes."""
    parts = bytearray()
    while chunk := handle.read(1 << 20):
        parts += chunk
        if len(parts) > PIPE_LIMIT:
            raise InputError(name, _TOO_MUCH)
    return bytes(parts)


_TOO_MUCH = (f"more than {PIPE_LIMIT >> 20:,} MB came through the pipe (a pipe is read whole, with that cap); "
             "save it to a file and give the file")


def _read_pipe(fd: int, name: str, named: bool) -> bytes:
    """A pipe opened without blocking, read to its end (at most :data:`PIPE_LIMIT` bytes). An
    empty read before any writer was seen is a ``named`` FIFO nobody has opened for writing
    yet: one is waited for, :data:`PIPE_WAIT` seconds at most."""
    import select

    poll = select.poll()
    poll.register(fd, select.POLLIN)
    parts = bytearray()
    writer = not named            # an anonymous pipe (``<(…)``): its writer came with it
    waited = False
    while True:
        try:
            chunk = os.read(fd, 1 << 20)
        except BlockingIOError:   # a writer holds the pipe and has sent nothing yet
            writer = True
            poll.poll()
            continue
        if chunk:
            writer = True
            parts += chunk
            if len(parts) > PIPE_LIMIT:
                raise InputError(name, _TOO_MUCH)
            continue
        if writer or waited:
            return bytes(parts)
        waited = True
        if not poll.poll(int(PIPE_WAIT * 1000)):
            raise InputError(name, f"a FIFO that no program wrote to within {PIPE_WAIT:g} s; nothing was read")


def read_bytes(path: str | os.PathLike) -> bytes:
    name = display_name(path)
    if str(path) == "-":
        if sys.stdin is None:  # the shell closed it (<&-)
            raise InputError(name, "standard input is closed: nothing to read")
        refused = stdin_refusal()
        if refused:
            raise InputError(name, refused)
        try:
            return _read_stream(sys.stdin.buffer, name)
        except OSError as exc:  # a folder given as standard input, a device that fails
            raise InputError(name, describe_os_error(exc)) from None
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise InputError(name, not_a_file(st.st_mode))          # never opened
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
                     | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb") as handle:
            st = os.fstat(fd)
            if stat.S_ISFIFO(st.st_mode):
                named = not os.path.basename(os.path.realpath(path)).startswith("pipe:[")
                return _read_pipe(fd, name, named)
            if not stat.S_ISREG(st.st_mode):                         # swapped since the stat
                raise InputError(name, not_a_file(st.st_mode))
            return handle.read()
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except IsADirectoryError:
        raise InputError(name, "is a directory, not a file") from None
    except PermissionError:
        raise InputError(name, "permission denied") from None
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None


HEAD_LIMIT = 64 << 20  # a first line longer than this is sniffed by its start only


def read_head(path: str | os.PathLike, size: int = 1 << 16) -> bytes:
    """The file's first ``size`` bytes, extended to the end of the line they cut (up to
    :data:`HEAD_LIMIT`), so a sniffer sees whole lines: a session whose first prompt is long
    still starts with one whole record. Opened without blocking, so a FIFO cannot hang the
    caller (it reads as empty). Raises ``OSError`` when the file cannot be read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        head = handle.read(size)
        if len(head) < size or head.startswith(b"SQLite format 3\0"):
            return head
        parts = [head]
        total = len(head)
        while b"\n" not in parts[-1] and total < HEAD_LIMIT:
            block = handle.read(1 << 16)
            if not block:
                break
            parts.append(block)
            total += len(block)
        return b"".join(parts)


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


_NOT_READ = object()
# orjson's text for a ``\\uXXXX`` escape that is half a UTF-16 pair (an emoji cut in two):
# the same words Anthropic's API answers with ("no low surrogate in string").
_SURROGATE_ERRORS = ("surrogate",)


def loads_surrogates(data: bytes, exc: Exception) -> Any:
    """A document orjson refused only for a lone surrogate escape (``"\\ud83d"``, which
    JSON's grammar allows and UTF-8 cannot hold), read by the standard library, which keeps
    the half character as a lone surrogate in the string: the reader does not stop at it,
    and the target rules report it per entry (issue 31, item 6). Anything else orjson
    refused stays refused (returns ``_NOT_READ``); so do NaN and Infinity, which the
    standard library would otherwise accept."""
    if not any(word in str(exc) for word in _SURROGATE_ERRORS):
        return _NOT_READ
    import json

    def refuse(constant: str) -> Any:
        raise ValueError(constant)
    try:
        with gc_paused():
            return json.loads(data.decode("utf-8"), parse_constant=refuse)
    except (ValueError, RecursionError):
        return _NOT_READ


def parse_json(data: bytes, name: str) -> Any:
    """Parse UTF-8 JSON (a BOM is allowed); errors carry line and column."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    if _BLANK.fullmatch(data):  # scans in place; data.strip() would copy a large file
        raise InputError(name, "empty file: expected a JSON array of messages")
    if data.startswith(SQLITE_HEADER):   # no store format claimed it: its tables are no session's
        raise InputError(name, "an SQLite database, but not one of the session stores Inspector reads "
                               "(its tables match none of them)")
    try:
        # A large document is millions of new objects: with the collector running, each
        # collection the allocator triggers walks all of them again (it doubles the parse).
        with gc_paused():
            return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        lenient = loads_surrogates(data, exc)
        if lenient is not _NOT_READ:
            return lenient
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            line, column = _line_col(data, bad.start)
            raise InputError(name, f"not valid UTF-8 (byte 0x{data[bad.start]:02x})", line, column) from None
        reason = exc.msg or "invalid JSON"
        if reason.startswith("depth limit exceeded"):
            reason = (f"nested too deeply: Inspector reads at most {MAX_READ_DEPTH:,} levels of lists and objects "
                      "(and writes at most 255); nothing was read")
        if reason[:1].isupper() and reason[1:2].islower():
            reason = reason[0].lower() + reason[1:]
        if "after document" in reason and exc.doc[exc.pos:exc.pos + 1] in ("{", "["):
            reason += ("; this looks like JSON Lines, one history per line: "
                       "'inspector batch FILE -o OUT.jsonl' repairs each line")
        raise InputError(name, reason, exc.lineno, exc.colno) from None


class JSONWriteError(ValueError):
    """orjson could not write a value. orjson's own ``JSONEncodeError`` *is* ``TypeError``,
    so the write sites raise this instead: a TypeError from anywhere else stays a bug."""


def dumps(value: Any, option: int = 0) -> bytes:
    """``orjson.dumps``, whose failure is a :class:`JSONWriteError` (never a bare TypeError)."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError as exc:
        if "surrogates not allowed" in str(exc):
            written = _dumps_surrogates(value, option)
            if written is not None:
                return written
        raise JSONWriteError(str(exc)) from exc


_LONE = re.compile("[\ud800-\udfff]")


def _dumps_surrogates(value: Any, option: int) -> bytes | None:
    """A value holding a lone surrogate (read from a ``"\\ud83d"`` escape, kept for a
    provider that does not refuse it), written with the escape again: UTF-8 cannot hold the
    character itself. The standard library writes it (keys in order, orjson's two spaces
    of indent, or compact); None when it cannot either."""
    import json
    indent = 2 if option & orjson.OPT_INDENT_2 else None
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent,
                          separators=(",", ": ") if indent else (",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None
    text = _LONE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.encode("utf-8") + (b"\n" if option & orjson.OPT_APPEND_NEWLINE else b"")


def dump_messages(messages: list[Any], compact: bool = False) -> bytes:
    """The one serialization of a history: the CLI and every export write these bytes."""
    option = orjson.OPT_APPEND_NEWLINE if compact else orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    return dumps(messages, option)


def _identity(path: str | os.PathLike) -> tuple[int, int] | None:
    """Device and inode of a regular file (standard input's file for ``-``); None for a
    device or pipe, which holds nothing an output could destroy."""
    st = os.fstat(0) if str(path) == "-" else os.stat(path)
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one regular file; ``-`` is standard input's file (a redirected
    one has a device and inode like any other)."""
    try:
        first = _identity(a)
        return first is not None and first == _identity(b)
    except (OSError, ValueError):
        if "-" in (str(a), str(b)):
            return False
        return os.path.realpath(a) == os.path.realpath(b)


_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask, read without changing it (an export thread may be creating a
    file meanwhile). Linux shows it in /proc; elsewhere it is set and restored under a lock,
    to a private value, so a file created in that instant is never more open than meant."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        umask = os.umask(0o077)
        os.umask(umask)
    return umask


def new_file_mode(base: int = 0o666) -> int:
    """The mode a new file gets under the current umask (mkstemp makes files private)."""
    return base & ~current_umask()


class OutputError(InputError, OSError):
    """A write that failed (full disk, no permission, ...): one line naming the output.
    It is also an :class:`OSError`, so callers that catch those keep working."""

    def __init__(self, where: str, reason: str):
        super().__init__(where, reason)
        self.strerror = reason  # what a caller re-wrapping an OSError shows


_FD_PATH = re.compile(r"/(?:dev/fd|proc/self/fd|proc/(\d+)/fd)/(\d+)")


def own_descriptor(path: str | os.PathLike) -> int | None:
    """The descriptor number when ``path`` names one of this process's open files
    (``/dev/stdout``, ``/dev/fd/3``, ``/proc/self/fd/1``, or a link to one)."""
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links followed
        match = _FD_PATH.fullmatch(current)
        if match and (match.group(1) is None or int(match.group(1)) == os.getpid()):
            return int(match.group(2))
        if not os.path.islink(current):
            return None
        try:
            link = os.readlink(current)
        except OSError:
            return None
        current = os.path.normpath(os.path.join(os.path.dirname(current), link))
    return None


def _shape_error(name: str) -> InputError | None:
    if not name:
        return InputError("''", "an empty output path: give a file name")
    if name.endswith(("/", os.sep)) or os.path.basename(name) in (".", ".."):
        return InputError(name, "names a folder, not a file: give a file name")
    return None


def check_output(
    path: str | os.PathLike,
    inputs: tuple | list = (),
    refusal: str = "refusing to write over the input file; choose another output path",
) -> Path:
    """Refuse, before any work, an output that is an input (standard input's file too), a
    folder, a path ending in ``/``, or in a missing folder. Returns the folder a new file
    would be created in (after following symlinks)."""
    name = str(path)
    error = _shape_error(name)
    if error is not None:
        raise error
    for source in inputs:
        if same_file(source, path):
            raise InputError(name, refusal)
    target = Path(os.path.realpath(name))
    try:
        st = os.stat(name)
    except FileNotFoundError:
        st = None
    except OSError as exc:  # a symlink loop, a component that is not a folder, ...
        raise InputError(name, exc.strerror or str(exc)) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(name, "is a directory, not a file")
    folder = target.parent
    if st is None and not folder.is_dir():
        raise InputError(name, f"folder {str(folder)!r} does not exist")
    return folder


def atomic_write(path: str | os.PathLike, data: bytes, *, inputs: tuple = (), proposed: bool = False,
                 mode_of: str | os.PathLike | None = None) -> None:
    """Write ``data`` to ``path`` as :func:`atomic_stream` does. A failed write raises
    :class:`OutputError` naming ``path``; the old file, if any, is left as it was."""
    with atomic_stream(path, inputs=inputs, proposed=proposed, mode_of=mode_of) as handle, _failing_as(str(path)):
        handle.write(data)


LINK_REFUSAL = ("is a symbolic link: a name Inspector chose is never written through a link "
                "(remove it, or choose the output path yourself)")


def proposed_refusal(path: str | os.PathLike) -> str | None:
    """Why a name Inspector proposed (``NAME.repaired.EXT``, ``NAME.edited.json``...) may not
    be written: anything there but a regular file (a link, dangling or not, a FIFO, a
    device), which someone who can write in the folder may have planted; None when free or
    a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return describe_os_error(exc)
    if stat.S_ISLNK(st.st_mode):
        return LINK_REFUSAL
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file: a name Inspector chose is only ever a new or regular file"
    return None


def kept_mode(source: str | os.PathLike | None) -> int:
    """The permission bits of a new file made from ``source``: the source's own, never more
    open than the umask allows (a private session's copy stays private); the umask's alone
    when there is no source to read."""
    base = new_file_mode()
    if source is None or str(source) == "-":
        return base
    try:
        st = os.stat(source)
    except (OSError, ValueError):
        return base
    return stat.S_IMODE(st.st_mode) & base if stat.S_ISREG(st.st_mode) else base


def write_new(path: str | os.PathLike, data: bytes, mode: int | None = None) -> None:
    """Create ``path`` holding ``data``, whole or not at all, only if nothing is there: not
    even a symlink, dangling or not, which is never followed (a backup beside a file in a
    shared folder must not land where a planted link points). Raises ``FileExistsError``
    when the name is taken, :class:`OutputError` on any other failure. ``mode``: the new
    file's permission bits (a private file's backup stays private); default as ``umask`` says.
    The data is written into a file with no name (see :func:`_temporary`) that gets one only
    when whole, so a process killed meanwhile leaves nothing behind."""
    mode = new_file_mode() if mode is None else mode
    name = str(path)
    folder = os.path.dirname(os.path.abspath(name))
    with _failing_as(name, "cannot write here"):
        fd, tmp = _temporary(folder, os.path.basename(name))
    try:
        with _closing(os.fdopen(fd, "wb")) as handle:
            with _failing_as(name):
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                os.fchmod(handle.fileno(), mode)
            try:           # fails on any existing name, links included
                if tmp is None:
                    _link_anonymous(handle.fileno(), name)
                else:
                    os.link(tmp, name, follow_symlinks=False)
            except FileExistsError:
                raise
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV):
                    raise OutputError(name, f"cannot write: {describe_os_error(exc)}") from None
                _write_exclusive(name, data, mode)  # a file system without hard links
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _temporary(folder: str, base: str) -> tuple[int, str | None]:
    """A new file in ``folder`` to write a new file's data into: where the system can (Linux's
    ``O_TMPFILE``, and a way to name such a file later: see :func:`_link_anonymous`), a
    file with no name at all, which disappears with the process if it is killed before it is
    whole; elsewhere a hidden ``.BASE.XXXX.tmp`` (returned as the second value; None for a
    file with no name)."""
    fd = _anonymous(folder)
    if fd is not None:
        return fd, None
    return tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)


_NAMEABLE: dict[int, bool] = {}      # per file system: can a file opened with O_TMPFILE get a name?


def _anonymous(folder: str) -> int | None:
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag:
        return None
    try:
        fd = os.open(folder, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:
        return None
    device = os.fstat(fd).st_dev
    if device not in _NAMEABLE:      # asked once: name a probe, then remove it
        probe = os.path.join(folder, f".inspector-probe.{os.urandom(6).hex()}")
        try:
            _link_anonymous(fd, probe)
            os.unlink(probe)
            _NAMEABLE[device] = True
        except OSError:
            _NAMEABLE[device] = False
        os.close(fd)
        return _anonymous(folder) if _NAMEABLE[device] else None
    if not _NAMEABLE[device]:
        os.close(fd)
        return None
    return fd


def _link_anonymous(fd: int, path: str) -> None:
    """Give the file open as ``fd`` (made with ``O_TMPFILE``) the name ``path``, which must be
    free: through ``/proc/self/fd`` where the kernel follows it, else ``linkat`` with an
    empty path (which needs the right to search any folder, as root has)."""
    try:
        os.link(f"/proc/self/fd/{fd}", path, follow_symlinks=True)
        return
    except FileExistsError:
        raise
    except OSError as exc:
        first = exc
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.linkat(fd, b"", -100, os.fsencode(path), 0x1000) != 0:   # AT_FDCWD, AT_EMPTY_PATH
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            raise FileExistsError(code, os.strerror(code), path)
        raise first


def _write_exclusive(name: str, data: bytes, mode: int) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(name, flags, mode)
    try:
        with _closing(os.fdopen(fd, "wb")) as handle, _failing_as(name):
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        os.unlink(name)
        raise


@contextmanager
def atomic_stream(path: str | os.PathLike, *, inputs: tuple = (), proposed: bool = False,
                  mode_of: str | os.PathLike | None = None) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content to, in as many pieces as needed; it
    never leaves a half-written file and never replaces what is not a regular file.

    A regular (or new) file gets a temporary file in its folder, renamed over it when the
    block ends without an exception (any exception, Ctrl-C included, removes it instead);
    through symlinks, at the path they resolve to, so a link stays a link. A device, a FIFO
    or a socket (``/dev/null``, a named pipe) is written straight into; ``/dev/stdout`` and
    other names of this process's own descriptors write to that descriptor. Refuses to write
    over any of ``inputs``. Opening, flushing and renaming raise :class:`OutputError`.

    ``proposed``: the name is one Inspector chose, not the user (``NAME.repaired.EXT`` beside
    an input): anything there but a regular file is refused (:func:`proposed_refusal`), and
    the rename is made at the name itself, so a link planted after that look is replaced,
    never followed. ``mode_of``: the source a new file is made from; it gets the source's
    permission bits (:func:`kept_mode`), as a file written over keeps its own.
    """
    name = str(path)
    if proposed:
        reason = proposed_refusal(name)
        if reason is not None:
            raise InputError(name, reason)
    folder = check_output(path, inputs)
    with _failing_as(name):
        fd = None if proposed else own_descriptor(name)
        if fd is not None:
            _flush_streams(fd)
            fd = os.dup(fd)
        else:
            try:
                st: os.stat_result | None = os.stat(name)
            except FileNotFoundError:
                st = None
            if st is not None and not stat.S_ISREG(st.st_mode):
                # Devices and pipes: no temporary file, no rename, never created or truncated.
                fd = os.open(name, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    if fd is not None:
        with _closing(os.fdopen(fd, "wb")) as handle:
            yield handle
            with _failing_as(name):
                handle.flush()
        return
    target = Path(os.path.abspath(name)) if proposed else Path(os.path.realpath(name))
    if proposed:
        folder = target.parent
    with _failing_as(name, "cannot write here"):
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with _closing(os.fdopen(fd, "wb")) as handle:
            yield handle
            with _failing_as(name):
                handle.flush()
                os.fsync(handle.fileno())
        with _failing_as(name):
            os.chmod(tmp, st.st_mode & 0o7777 if st is not None else kept_mode(mode_of))
            os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def text(path: str | os.PathLike) -> str:
    """A path as text any JSON writer takes: a file name that is not UTF-8 (its bytes kept by
    Python as lone surrogates) shows each such byte as ``\\xNN``, as the text report does."""
    name = os.fspath(path)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def json_safe(value: Any) -> Any:
    """``value`` with every string :func:`text` makes writable (file names that are not UTF-8
    would make orjson refuse the whole report)."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


@contextmanager
def failing_as(name: str, what: str = "cannot write") -> Iterator[None]:
    """An OSError in the block becomes an :class:`OutputError` naming the output ``name``."""
    with _failing_as(name, what):
        yield


@contextmanager
def _failing_as(name: str, what: str = "cannot write") -> Iterator[None]:
    """An OSError in the block becomes an :class:`OutputError` naming the output."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(name, f"{what}: {describe_os_error(exc)}") from None


@contextmanager
def _closing(handle: BinaryIO) -> Iterator[BinaryIO]:
    """Close ``handle`` at the end; a failure to close (a full disk makes ``close`` try the
    failed flush again) is not raised a second time: the block has reported it."""
    try:
        yield handle
    finally:
        try:
            handle.close()
        except OSError:
            pass


def _flush_streams(fd: int) -> None:
    """Before writing to a standard stream's descriptor, flush what was printed to it."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and stream.fileno() == fd:
                stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


_OS_REASONS = {
    errno.ENOSPC: "no space left on the device (the disk is full)",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EBADF: "it is closed, so nothing can be written to it",
    errno.EPIPE: "the reader went away (broken pipe)",
    errno.EIO: "an input/output error on the device",
}


def describe_os_error(exc: OSError) -> str:
    return _OS_REASONS.get(exc.errno) or exc.strerror or str(exc) or type(exc).__name__


def write_failure(exc: BaseException) -> str | None:
    """Why a value could not be written as JSON (nested deeper than orjson writes, or not
    JSON at all), or None for any other exception."""
    # orjson's own error is a TypeError ("Recursion limit reached") where a writer calls it directly
    if isinstance(exc, RecursionError) or (
            isinstance(exc, (JSONWriteError, TypeError)) and "recursion limit" in str(exc).lower()):
        return TOO_DEEP
    if isinstance(exc, JSONWriteError):
        return f"cannot write the result as JSON: {exc}"
    return None


def describe_error(exc: BaseException, where: str) -> str:
    """One line the user can act on, for any exception a view catches while working on
    ``where``: the reason for what they can fix, a plain note for what is a bug."""
    if isinstance(exc, InputError):
        return str(exc)
    reason = write_failure(exc)
    if reason is not None:
        return f"{where}: {reason}"
    if isinstance(exc, MemoryError):
        return f"{where}: not enough memory to process it"
    if isinstance(exc, OSError):
        return f"{where}: {describe_os_error(exc)}"
    return (f"{where}: Inspector failed on this file; this is a bug, please report it "
            f"with the file ({type(exc).__name__})")

"""What an input given on the command line may be (issue 32: "every reader refuses non-regular
files"). A regular file is read; a pipe is read once, on purpose (``<(…)`` process substitution,
a FIFO another program writes, standard input), up to a cap, and a FIFO nobody writes to is
waited on for a bounded time; a device (``/dev/zero`` never ends) or a socket is refused with
one line naming it, exit 2, for ``check``, ``normalize``, ``batch`` and the TUI.

Every run that could hang on the old code runs in a subprocess with a timeout, or in a daemon
thread joined with one."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from inspector import io as inspector_io

from .harness import RUNS, cli_run

SUITE = "round 3: inputs"
HISTORY = [{"role": "user", "content": "hi"}, {"role": "tool", "content": "stale", "tool_call_id": "c9"},
           {"role": "assistant", "content": "hello"}]
LIMIT = 60      # seconds a subprocess may take (start-up on a loaded machine included)


def inspector(*argv: str, stdin=None) -> subprocess.CompletedProcess:
    """``inspector ARGV`` in a process of its own, killed after LIMIT seconds (a hang fails the
    test instead of stopping the suite), its memory bounded (a device read into memory fails
    fast instead of taking the machine)."""
    RUNS[SUITE] += 1

    def bound() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    return subprocess.run([sys.executable, "-m", "inspector", *argv], stdin=stdin if stdin is not None else
                          subprocess.DEVNULL, capture_output=True, text=True, timeout=LIMIT, preexec_fn=bound)


def within(seconds: float, call):
    """``call()`` in a daemon thread: its result, or a failure if it has not returned in time
    (the thread, blocked for good, dies with the test process)."""
    box: list = []
    worker = threading.Thread(target=lambda: box.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, f"still running after {seconds} s"
    return box[0]


def one_line(err: str, name: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(name), err
    return lines[0]


@pytest.fixture
def zero(tmp_path: Path) -> Path:
    """A private twin of /dev/zero where this user may make device nodes, else the system's
    (it is only ever read)."""
    node = tmp_path / "zero"
    try:
        os.mknod(node, stat.S_IFCHR | 0o444, os.makedev(1, 5))
        os.close(os.open(node, os.O_RDONLY))
        return node
    except OSError:
        node.unlink(missing_ok=True)
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    return Path("/dev/zero")


# -- devices and sockets: refused, one line, exit 2 ----------------------------------------------

@pytest.mark.parametrize("command", [["check"], ["normalize"], ["explain"], ["check", "--strict"]])
def test_a_device_is_refused_not_read_forever(zero, tmp_path, command):
    argv = [*command, str(zero)] + (["-o", str(tmp_path / "out.json")] if command == ["normalize"] else [])
    p = inspector(*argv)
    assert p.returncode == 2, p.stderr
    assert "character device" in one_line(p.stderr, str(zero))
    assert not (tmp_path / "out.json").exists()


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.json"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        code, _, err = within(LIMIT, lambda: cli_run("check", str(path)))
    finally:
        server.close()
    RUNS[SUITE] += 1
    assert code == 2 and "socket" in one_line(err, str(path)), err


@pytest.mark.parametrize("command", [["check", "-"], ["normalize", "-"], ["batch", "-", "-o", "OUT", "-q"]])
def test_a_device_as_standard_input_is_refused(zero, tmp_path, command):
    argv = [str(tmp_path / "out.jsonl") if a == "OUT" else a for a in command]
    with open(zero, "rb") as device:
        p = inspector(*argv, stdin=device)
    assert p.returncode == 2, p.stderr
    assert "character device" in one_line(p.stderr, "<stdin>")


def test_batch_names_a_device_and_a_fifo(zero, tmp_path):
    fifo = tmp_path / "records.jsonl"
    os.mkfifo(fifo)
    for path, said in ((zero, "character device"), (fifo, "standard input")):
        p = inspector("batch", str(path), "-o", str(tmp_path / "out.jsonl"), "-q")
        assert p.returncode == 2 and said in one_line(p.stderr, str(path)), p.stderr


# -- pipes: read once, on purpose, bounded -------------------------------------------------------

def test_process_substitution_is_read(tmp_path):
    """``inspector check <(…)``: the shell hands over ``/dev/fd/N``, an anonymous pipe."""
    read, write = os.pipe()
    try:
        os.set_inheritable(read, True)
        writer = threading.Thread(target=lambda: (os.write(write, json.dumps(HISTORY).encode()), os.close(write)))
        writer.start()
        p = subprocess.run([sys.executable, "-m", "inspector", "normalize", f"/dev/fd/{read}", "-o",
                            str(tmp_path / "out.json")], capture_output=True, text=True, timeout=LIMIT,
                           pass_fds=(read,))
        writer.join(LIMIT)
    finally:
        os.close(read)
    RUNS[SUITE] += 1
    assert p.returncode == 0, p.stderr
    assert [m["role"] for m in json.loads((tmp_path / "out.json").read_text())] == ["user", "assistant"]


def test_a_fifo_nobody_writes_to_is_not_waited_on_forever(tmp_path, monkeypatch):
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    monkeypatch.setattr(inspector_io, "PIPE_WAIT", 0.5, raising=False)
    code, _, err = within(LIMIT, lambda: cli_run("check", str(fifo)))
    RUNS[SUITE] += 1
    assert code == 2 and "no program wrote" in one_line(err, str(fifo)), err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_fifo_whose_writer_comes_later_is_read(tmp_path, monkeypatch):
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    monkeypatch.setattr(inspector_io, "PIPE_WAIT", 20.0, raising=False)
    timer = threading.Timer(0.5, lambda: fifo.write_text(json.dumps(HISTORY)))
    timer.start()
    code, out, err = within(LIMIT, lambda: cli_run("normalize", str(fifo), "-q"))
    timer.join()
    RUNS[SUITE] += 1
    assert code == 0, err
    assert [m["role"] for m in json.loads(out)] == ["user", "assistant"]


def test_a_pipe_past_the_cap_is_refused(tmp_path, monkeypatch):
    """A pipe has no size to check first: it is read up to the cap, and past it refused (a
    ``yes``-like writer would otherwise take all memory)."""
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    monkeypatch.setattr(inspector_io, "PIPE_LIMIT", 1 << 20, raising=False)

    def flood() -> None:
        try:
            with open(fifo, "wb") as w:
                for _ in range(8):
                    w.write(b" " * (1 << 20))
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    code, _, err = within(LIMIT, lambda: cli_run("check", str(fifo)))
    RUNS[SUITE] += 1
    assert code == 2 and "came through the pipe" in one_line(err, str(fifo)), err


# -- the TUI -----------------------------------------------------------------------------------

def test_the_tui_refuses_a_device_on_standard_input(zero):
    with open(zero, "rb") as device:
        p = inspector("-", stdin=device)
    assert p.returncode == 2, p.stderr
    assert "character device" in one_line(p.stderr, "<stdin>")


TUI_ON = """
import asyncio, sys
from inspector.tui.app import make_app
from inspector.tui.screens.error import ErrorDialog

async def main():
    app = make_app(sys.argv[1])
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(500):
            await pilot.pause(0.02)
            if isinstance(app.screen, ErrorDialog):
                print(app.screen.message)
                return
        print("no error dialog")

asyncio.run(main())
"""


def test_the_tui_names_a_device_it_was_given(zero):
    """``inspector /dev/zero``: the app shows one error naming the device (headless, in a
    process of its own with bounded memory: the old code read the device until memory ran out)."""
    def bound() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    p = subprocess.run([sys.executable, "-c", TUI_ON, str(zero)], capture_output=True, text=True, timeout=LIMIT,
                       preexec_fn=bound)
    RUNS[SUITE] += 1
    assert "character device" in p.stdout, (p.stdout, p.stderr[-2000:])

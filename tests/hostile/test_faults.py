"""Faults around the files and the process (issue 12): devices, FIFOs, symlinks, read-only
and full file systems, and signals to normalize. Each case: exit 0/1/2 (or the signal),
one line naming the file, no traceback, nothing left half-written, the input untouched."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest

from inspector.pipeline import run_file

from .harness import RUNS, assert_clean_failure, cli_run

CLI = [sys.executable, "-m", "inspector"]
HISTORY = [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
                                                         "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "system", "content": "be brief"},
]


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "h.json"
    path.write_bytes(orjson.dumps(HISTORY))
    return path


def fails_cleanly(*argv, name: str) -> None:
    code, _, err = cli_run(*argv)
    RUNS["faults: files"] += 1
    assert_clean_failure(code, err, name, argv)


# --- inputs that are not regular files ----------------------------------------------------

def test_odd_inputs_fail_with_one_line(tmp_path):
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "missing.json")
    for command in (["normalize"], ["explain"], ["check"]):
        for path in (loop, dangling, tmp_path):
            if command == ["check"] and path == tmp_path:
                continue
            fails_cleanly(*command, str(path), name=str(path))
    # check FOLDER names each file it cannot read, one line each (R2-11)
    code, _, err = cli_run("check", str(tmp_path))
    RUNS["faults: files"] += 1
    assert code == 2 and "Traceback" not in err, err
    assert sorted(line.split(": ", 1)[0] for line in err.splitlines()) == [str(dangling), str(loop)], err


def test_a_fifo_input_is_read_like_a_file(tmp_path):
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(orjson.dumps(HISTORY)))
    writer.start()
    code, out, err = cli_run("normalize", str(fifo), "-q")
    writer.join(5)
    RUNS["faults: files"] += 1
    assert code == 0 and orjson.loads(out)[0]["role"] == "system", err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# --- outputs --------------------------------------------------------------------------------

def test_odd_outputs_fail_with_one_line_and_leave_nothing(tmp_path, src):
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    (tmp_path / "folder").mkdir()
    for target in (str(loop), str(tmp_path / "folder"), str(tmp_path / "missing" / "x.json"),
                   f"{tmp_path / 'folder' / 'x.json'}/", ""):
        fails_cleanly("normalize", str(src), "-o", target, name=target or "''")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "h.json", "loop.json"]
    assert list((tmp_path / "folder").iterdir()) == []


def test_devices_and_links_keep_their_kind(tmp_path, src, null_device):
    link = tmp_path / "link.json"
    link.symlink_to(null_device)
    for target in (null_device, link):
        code, _, err = cli_run("normalize", str(src), "-o", str(target), "-q")
        RUNS["faults: files"] += 1
        assert code == 0, err
    assert link.is_symlink() and stat.S_ISCHR(os.lstat(null_device).st_mode)


@pytest.fixture
def small_mount(tmp_path: Path):
    """A 64 KiB tmpfs, where the system lets this test mount one (root in a container)."""
    point = tmp_path / "mnt"
    point.mkdir()
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root on Linux")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(point)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def test_a_full_file_system_keeps_the_old_output(small_mount, tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(orjson.dumps([{"role": "user", "content": "x" * 1000}] * 200))
    out = small_mount / "out.json"
    out.write_text("previous export")
    fails_cleanly("normalize", str(big), "-o", str(out), name=str(out))
    assert out.read_text() == "previous export"
    assert sorted(p.name for p in small_mount.iterdir()) == ["out.json"]


def test_a_read_only_file_system_is_one_line(small_mount, src):
    subprocess.run(["mount", "-o", "remount,ro", str(small_mount)], check=True)
    out = small_mount / "out.json"
    fails_cleanly("normalize", str(src), "-o", str(out), name=str(out))
    assert not out.exists()


def test_a_read_only_folder_is_one_line(tmp_path, src):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("this user writes into read-only folders (root); the tmpfs test covers it")
        fails_cleanly("normalize", str(src), "-o", str(folder / "out.json"), name=str(folder / "out.json"))
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)


# --- signals --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def large(tmp_path_factory) -> tuple[Path, bytes]:
    """A history that takes normalize about a second: long enough to be interrupted."""
    rows = []
    for i in range(30_000):
        rows += [{"role": "user", "content": f"question {i}"},
                 {"role": "assistant", "content": "", "tool_calls": [
                     {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]}]
        if i % 3:
            rows.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok " * 20})
    path = tmp_path_factory.mktemp("signals") / "large.json"
    path.write_bytes(orjson.dumps(rows))
    return path, run_file(path).data


@pytest.mark.parametrize("sig, group", [(signal.SIGINT, False), (signal.SIGTERM, False),
                                        (signal.SIGINT, True), (signal.SIGTERM, True)])
def test_a_signal_leaves_no_half_output(large, tmp_path, sig, group):
    path, expected = large
    before = path.read_bytes()
    out = tmp_path / "out.json"
    proc = subprocess.Popen([*CLI, "normalize", str(path), "-o", str(out), "-q"], stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    # Wait until the CLI is working (imports done, reading or normalizing), then signal.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _cpu_ticks(proc.pid) < 30:
        time.sleep(0.01)
    (os.killpg if group else os.kill)(proc.pid, sig)
    _, err = proc.communicate(timeout=30)
    RUNS["faults: signals"] += 1
    code = proc.returncode
    assert code in (0, -sig, 128 + sig), (code, err)
    assert b"Traceback" not in err, err.decode()
    assert path.read_bytes() == before
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert leftovers in ([], ["out.json"]), leftovers
    if out.exists():
        assert out.read_bytes() == expected


def _cpu_ticks(pid: int) -> int:
    """User plus system clock ticks the process has used (0 when unknown)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        time.sleep(0.3)
        return 1 << 30


# --- the real command line on a few hostile files ---------------------------------------

HOSTILE_FILES = {
    "deep-arguments.json": '[{"role":"assistant","content":"","tool_calls":[{"id":"c1","arguments":'
                           + "[" * 1000 + "]" * 1000 + '}]},{"role":"tool","tool_call_id":"c1","content":"x"}]',
    "deep-id.json": '[{"role":"tool","tool_call_id":' + '{"a":' * 1000 + "1" + "}" * 1000 + ',"content":"x"}]',
    "huge-numbers.json": '{"input":[{"role":"system","content":123456789012345678901234567890},'
                         '{"role":"user","content":-1.7976931348623157e308}]}',
    "bad-utf8.json": b'[{"role":"user","content":"\xff"}]',
}


@pytest.mark.parametrize("command", [["normalize"], ["explain"], ["check", "--strict"]])
def test_the_real_command_line_on_hostile_files(tmp_path, command):
    for name, text in HOSTILE_FILES.items():
        path = tmp_path / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        done = subprocess.run([*CLI, *command, str(path)], capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=60)
        RUNS["faults: subprocess"] += 1
        err = done.stderr.decode()
        assert done.returncode in (0, 1, 2) and "Traceback" not in err, (name, err)
        if done.returncode == 2:
            assert_clean_failure(2, err, str(path), (command, name))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_writing_leaves_the_old_output(tmp_path, src, sig):
    """The signal arrives exactly while the temporary file is written (at its fsync)."""
    out = tmp_path / "out.json"
    out.write_text("previous export")
    # Python's own SIGINT handler first: a child of a background job inherits SIGINT ignored.
    script = ("import os, signal, sys\n"
              "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
              "from inspector import cli, io\n"
              "real = os.fsync\n"
              f"def fsync(fd):\n    os.kill(os.getpid(), {int(sig)})\n    real(fd)\n"
              "io.os.fsync = fsync\n"
              "sys.exit(cli.main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", script, "normalize", str(src), "-o", str(out), "-q"],
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    RUNS["faults: signals"] += 1
    assert done.returncode in (-sig, 128 + sig), (done.returncode, done.stderr)
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    assert out.read_text() == "previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.json", "out.json"]

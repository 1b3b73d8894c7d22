"""Outputs that never destroy what is at their path, one-line errors for every failed write,
and the engine's output owning its objects (issue 12, items 1, 2, 6, 9, 10, 16, 17)."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

from inspector import cli, io as iio
from inspector.engine import normalize
from inspector.pipeline import run_file

from hostile.harness import private_device

BROKEN = [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"city": ["Oslo"]}}}]},
    {"role": "system", "content": "be brief"},
]
CLI = [sys.executable, "-m", "inspector"]


def write(path: Path, value) -> Path:
    path.write_bytes(orjson.dumps(value))
    return path


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def expected_output(src: Path) -> bytes:
    return run_file(src).data


# --- 1: never replace what is at the target --------------------------------------------

def test_a_symlink_is_written_through_and_stays_a_link(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    real = tmp_path / "sub" / "real.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(Path("sub") / "real.json")  # relative, as links often are
    code, _, _ = run(capsys, "normalize", src, "-o", link, "-q")
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == str(Path("sub") / "real.json")
    assert real.read_bytes() == expected_output(src)
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.json"]  # no temporary left


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    iio.atomic_write(link, b"[]\n")
    assert link.is_symlink() and (tmp_path / "new.json").read_bytes() == b"[]\n"


def test_a_link_to_the_input_is_refused(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    before = src.read_bytes()
    (tmp_path / "alias.json").symlink_to(src)
    code, _, err = run(capsys, "normalize", src, "-o", tmp_path / "alias.json")
    assert code == 2 and "refusing to write over the input" in one_line(err)
    assert src.read_bytes() == before and (tmp_path / "alias.json").is_symlink()


def test_a_device_stays_a_device(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    device = private_device(tmp_path, "null")
    code, _, _ = run(capsys, "normalize", src, "-o", device, "-q")
    assert code == 0 and stat.S_ISCHR(os.lstat(device).st_mode)


def test_a_fifo_is_written_into_not_replaced(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    iio.atomic_write(fifo, b'{"ok": 1}\n')
    reader.join(5)
    assert got == [b'{"ok": 1}\n']
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.json"]


def test_a_descriptor_path_writes_to_that_descriptor(tmp_path):
    read_end, write_end = os.pipe()
    try:
        assert iio.own_descriptor(f"/dev/fd/{write_end}") == write_end
        assert iio.own_descriptor(f"/proc/self/fd/{write_end}") == write_end
        iio.atomic_write(f"/dev/fd/{write_end}", b"[1]\n")
        assert os.read(read_end, 100) == b"[1]\n"
    finally:
        os.close(read_end)
        os.close(write_end)
    assert iio.own_descriptor(tmp_path / "plain.json") is None


def test_dev_stdout_names_standard_output():
    assert iio.own_descriptor("/dev/stdout") == 1 and iio.own_descriptor("/dev/stderr") == 2


def test_a_link_to_standard_output_prints(tmp_path):
    """``-o /dev/stdout`` through a private link of the same kind, so that a regression can
    never replace the system's /dev/stdout."""
    src = write(tmp_path / "h.json", BROKEN)
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    done = subprocess.run([*CLI, "normalize", str(src), "-o", str(link), "-q"],
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected_output(src)
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["h.json", "stdout"]


# --- 2: standard input's file is an input ----------------------------------------------

def test_stdin_redirected_from_the_output_is_refused(tmp_path):
    src = write(tmp_path / "s.json", BROKEN)
    before = src.read_bytes()
    with open(src, "rb") as stdin:
        done = subprocess.run([*CLI, "normalize", "-", "-o", str(src)], stdin=stdin,
                              capture_output=True, timeout=60)
    assert done.returncode == 2
    assert "refusing to write over the input" in one_line(done.stderr.decode())
    assert src.read_bytes() == before


def test_stdin_from_a_pipe_may_go_to_any_file(tmp_path):
    out = tmp_path / "out.json"
    done = subprocess.run([*CLI, "normalize", "-", "-o", str(out), "-q"],
                          input=orjson.dumps(BROKEN), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())[0]["role"] == "system"


# --- 9: full disks and closed output ----------------------------------------------------

@pytest.mark.parametrize("command", [["normalize"], ["explain"], ["explain", "--json"], ["check"]])
def test_a_full_stdout_is_one_line_and_exit_2(tmp_path, command):
    src = write(tmp_path / "h.json", BROKEN)
    with open(private_device(tmp_path, "full"), "wb") as full:
        done = subprocess.run([*CLI, *command, str(src)], stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert done.returncode == 2
    line = one_line(done.stderr.decode().replace("dropped 1, synthesized 0, moved 1\n", ""))
    assert line.startswith("<stdout>: ") and "full" in line


@pytest.mark.parametrize("command", [["normalize"], ["explain"], ["check"]])
def test_a_closed_stdout_is_one_line_and_exit_2(tmp_path, command):
    src = write(tmp_path / "h.json", BROKEN)
    done = subprocess.run([*CLI, *command, str(src)], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          preexec_fn=lambda: os.close(1), timeout=60)
    assert done.returncode == 2
    line = one_line(done.stderr.decode().replace("dropped 1, synthesized 0, moved 1\n", ""))
    assert line.startswith("<stdout>: ") and "closed" in line


@pytest.mark.parametrize("command", [["normalize", "-"], ["check", "-"]])
def test_a_closed_stdin_is_one_line_and_exit_2(command):
    done = subprocess.run([*CLI, *command], capture_output=True, preexec_fn=lambda: os.close(0), timeout=60)
    assert done.returncode == 2
    assert one_line(done.stderr.decode()) == "<stdin>: standard input is closed: nothing to read"


def test_output_to_a_full_device_is_one_line(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    full = private_device(tmp_path, "full")
    code, _, err = run(capsys, "normalize", src, "-o", full)
    assert code == 2 and one_line(err).startswith(f"{full}: cannot write: no space left")
    assert stat.S_ISCHR(os.lstat(full).st_mode)


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_file_system_that_fills_up_keeps_the_old_output(tmp_path, capsys, monkeypatch, where):
    src = write(tmp_path / "h.json", BROKEN)
    out = tmp_path / "out.json"
    out.write_text("previous export")
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def refuse(*args, **kwargs):
        raise full

    if where == "write":
        real_fdopen = os.fdopen

        class Full:
            def __init__(self, handle):
                self.handle = handle

            def close(self):
                self.handle.close()

            def fileno(self):
                return self.handle.fileno()

            def flush(self):
                pass

            def write(self, data):
                raise full

        monkeypatch.setattr(iio.os, "fdopen", lambda fd, mode: Full(real_fdopen(fd, mode)))
    else:
        monkeypatch.setattr(iio.os, where, refuse)
    code, _, err = run(capsys, "normalize", src, "-o", out)
    assert code == 2
    assert one_line(err) == f"{out}: cannot write: no space left on the device (the disk is full)"
    assert out.read_text() == "previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.json", "out.json"]


def test_output_errors_are_one_line_errors_and_os_errors(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):  # root writes anywhere
            pytest.skip("the test runs as a user who may write into read-only folders")
        with pytest.raises(iio.OutputError) as caught:
            iio.atomic_write(folder / "x.json", b"[]")
        assert isinstance(caught.value, OSError)
        assert str(caught.value) == f"{folder / 'x.json'}: cannot write here: permission denied"
    finally:
        folder.chmod(0o700)


# --- 17: paths that are not file names --------------------------------------------------

@pytest.mark.parametrize("target", ["x.json/", ""])
def test_odd_output_paths_are_usage_errors(tmp_path, capsys, monkeypatch, target):
    monkeypatch.chdir(tmp_path)
    src = write(tmp_path / "h.json", BROKEN)
    code, out, err = run(capsys, "normalize", src, "-o", target)
    assert code == 2 and out == ""
    assert "give a file name" in one_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.json"]


# --- umask: read, never changed -----------------------------------------------------------

def test_the_umask_is_read_without_changing_it(monkeypatch):
    mask = os.umask(0o022)
    os.umask(mask)
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc")

    def forbidden(value):
        raise AssertionError("os.umask called while /proc says it")

    monkeypatch.setattr(iio.os, "umask", forbidden)
    assert iio.current_umask() == mask
    assert iio.new_file_mode() == 0o666 & ~mask


def test_the_umask_fallback_restores_it(monkeypatch):
    mask = os.umask(0o027)
    try:
        monkeypatch.setattr(iio, "open", lambda *a, **k: (_ for _ in ()).throw(OSError("no /proc")),
                            raising=False)
        assert iio.current_umask() == 0o027
        assert os.umask(0o027) == 0o027
    finally:
        os.umask(mask)


# --- 10: messages the user can act on -----------------------------------------------------

def test_errors_are_described_for_the_user():
    assert iio.describe_error(OSError(errno.ENOSPC, "No space left on device"), "o.json") == \
        "o.json: no space left on the device (the disk is full)"
    deep = iio.describe_error(RecursionError("maximum recursion depth exceeded"), "h.json")
    assert deep.startswith("h.json: nested too deeply") and "recursion" not in deep
    bug = iio.describe_error(AttributeError("'NoneType' object has no attribute 'get'"), "h.json")
    assert bug.startswith("h.json: ") and "bug" in bug and "NoneType" not in bug
    assert iio.describe_error(iio.InputError("h.json", "bad", 1, 2), "x") == "h.json:1:2: bad"


# --- 6: any depth the parser reads ------------------------------------------------------

def nested(depth: int, leaf=1, obj: bool = False):
    value = leaf
    for _ in range(depth):
        value = {"a": value} if obj else [value]
    return value


@pytest.mark.parametrize("obj", [False, True])
def test_the_engine_takes_any_parsable_depth(obj):
    deep = orjson.loads(orjson.dumps(nested(250, obj=obj)))
    deeper = orjson.loads("[" * 1020 + "]" * 1020) if not obj else orjson.loads('{"a":' * 1020 + "1" + "}" * 1020)
    history = [
        {"role": "user", "content": deeper},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "arguments": deeper}]},
        {"role": "tool", "tool_call_id": deeper, "content": deep},
        {"role": "tool", "tool_call_id": "c1", "content": "ok", "extra": deeper},
    ]
    result = normalize(history)
    kinds = [e.kind for e in result.events]
    assert result.messages[0]["content"] == "" and "content-unserializable" in kinds
    assert "id-cast" in kinds and "result-unusable-id" in kinds
    assert result.messages[2]["content"] == "ok"


def test_a_call_too_deep_to_write_is_one_line(tmp_path, capsys):
    src = tmp_path / "deep.json"
    src.write_text('[{"role":"assistant","content":"","tool_calls":[{"id":"c1","arguments":'
                   + "[" * 1000 + "]" * 1000 + '}]},{"role":"tool","tool_call_id":"c1","content":"x"}]')
    for command in (["normalize"], ["explain", "--json"]):
        code, _, err = run(capsys, *command, src)
        assert code == 2 and one_line(err).startswith(f"{src}: nested too deeply")
    code, out, err = run(capsys, "check", src)
    assert code in (0, 1, 2) and "Traceback" not in err


# --- 16: the output owns its objects ------------------------------------------------------

def test_editing_the_output_never_edits_the_input():
    history = json.loads(json.dumps(BROKEN))
    snapshot = json.loads(json.dumps(history))
    result = normalize(history)
    turn = next(m for m in result.messages if m.get("tool_calls"))
    turn["tool_calls"].append({"id": "new"})
    turn["tool_calls"][0]["function"]["arguments"]["city"].append("Lima")
    turn["tool_calls"][0]["id"] = "changed"
    for stage in result.stages:
        for message in stage.messages:
            message["content"] = "edited"
    assert history == snapshot


def test_fresh_copies_keep_order_types_and_depth():
    value = orjson.loads(orjson.dumps({"z": [1, {"y": [True, None, 1.5, "s"]}], "a": {}}))
    copy = iio_fresh(value)
    assert copy == value and list(copy) == ["z", "a"]
    assert copy is not value and copy["z"] is not value["z"] and copy["z"][1] is not value["z"][1]
    deep = orjson.loads("[" * 1024 + "]" * 1024)
    copied = iio_fresh(deep)
    for _ in range(1023):
        assert copied is not deep and len(copied) == 1
        copied, deep = copied[0], deep[0]
    assert copied == [] and copied is not deep


def iio_fresh(value):
    from inspector.engine.cast import fresh

    return fresh(value)


# --- atomic_stream: the same rules for output written in pieces ---------------------------

def test_a_stream_replaces_only_when_complete(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        with iio.atomic_stream(out) as handle:
            handle.write(b"half\n")
            raise KeyboardInterrupt
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]
    link = tmp_path / "link.jsonl"
    link.symlink_to(out.name)
    with iio.atomic_stream(link) as handle:
        handle.write(b"a\n")
        handle.write(b"b\n")
    assert out.read_text() == "a\nb\n" and link.is_symlink()


def test_a_stream_into_a_device_or_full_device(tmp_path):
    null = private_device(tmp_path, "null")
    with iio.atomic_stream(null) as handle:
        handle.write(b"x" * 100_000)
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    full = private_device(tmp_path, "full")
    with pytest.raises(iio.OutputError) as caught:
        with iio.atomic_stream(full) as handle:
            handle.write(b"x\n")
    assert str(caught.value).startswith(f"{full}: cannot write: no space left")

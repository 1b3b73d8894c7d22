"""``batch FOLDER`` and ``check FOLDER`` on hostile folders: outputs that would share a name
(R2-06), sessions whose first line is long (R2-10), files that cannot be read (R2-11 and
issue 25: named one by one), links, FIFOs and sockets; a run that read nothing fails.
Every case runs the real command line in this process and leaves nothing behind."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import socket
from pathlib import Path

import pytest

from inspector.bundled import samples_dir

from .harness import RUNS, cli_run

SUITE = "batch and check on hostile folders"
CLAUDE = samples_dir() / "21-claude-code-session.jsonl"
HISTORY = json.dumps([{"role": "user", "content": "q"},
                      {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "f"}]}])


def run(*argv: str) -> tuple[int, str]:
    code, out, err = cli_run(*argv)
    RUNS[SUITE] += 1
    assert "Traceback" not in err, err
    return code, out.decode() + err


def long_first_line(path: Path, size: int) -> None:
    """The Claude sample with its first prompt made ``size`` characters long."""
    lines = CLAUDE.read_bytes().split(b"\n")
    first = json.loads(lines[1])
    first["message"]["content"] = "x" * size
    path.write_bytes(b"\n".join([json.dumps(first).encode(), *lines[2:]]))


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob(".*") if p.name.startswith((".inspector", ".out")))


def test_json_and_json_gz_of_one_name_are_refused_before_any_work(tmp_path):
    src = tmp_path / "col"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "x.json").write_text('[{"role": "user", "content": "plain one"}]')
    (src / "sub" / "x.json.gz").write_bytes(gzip.compress(b'[{"role": "user", "content": "gzipped one"}]'))
    code, text = run("batch", str(src), "-o", str(tmp_path / "out") + "/")
    assert code == 2, text
    assert "x.json.gz" in text and "x.json" in text and "same name" in text, text
    assert not (tmp_path / "out").exists() and leftovers(tmp_path) == []
    # Into JSONL the two are two records, nothing clashes.
    code, text = run("batch", str(src), "-o", str(tmp_path / "all.jsonl"), "-q")
    assert code == 0, text
    assert len((tmp_path / "all.jsonl").read_bytes().splitlines()) == 2


@pytest.mark.parametrize("size", [70_000, 300_000])
def test_a_session_with_a_long_first_line_is_found(tmp_path, size):
    src = tmp_path / "in" / "proj"
    src.mkdir(parents=True)
    long_first_line(src / "long.jsonl", size)
    shutil.copyfile(CLAUDE, src / "normal.jsonl")
    code, text = run("check", str(tmp_path / "in"))
    assert code == 1 and "long.jsonl" in text and "normal.jsonl" in text, text
    code, text = run("batch", str(tmp_path / "in"), "-o", str(tmp_path / "out") + "/", "-q")
    assert code == 0, text
    assert sorted(p.name for p in (tmp_path / "out" / "proj").iterdir()) == ["long.jsonl", "normal.jsonl"]


def test_check_names_a_session_file_it_cannot_read(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copyfile(CLAUDE, src / "a.jsonl")
    (src / "b.jsonl").symlink_to(tmp_path / "gone.jsonl")
    code, text = run("check", str(src))
    assert code == 2, text
    assert any(line.startswith(str(src / "b.jsonl")) for line in text.splitlines()), text
    assert str(src / "a.jsonl") in text


def non_root() -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their permissions (CI runs as root)")


def test_check_names_a_session_file_without_permission(tmp_path):
    non_root()
    src = tmp_path / "in"
    src.mkdir()
    shutil.copyfile(CLAUDE, src / "a.jsonl")
    shutil.copyfile(CLAUDE, src / "locked.jsonl")
    os.chmod(src / "locked.jsonl", 0)
    try:
        code, text = run("check", str(src))
    finally:
        os.chmod(src / "locked.jsonl", 0o600)
    assert code == 2 and "locked.jsonl" in text, text


def test_batch_names_unreadable_files_without_permission(tmp_path):
    non_root()
    src = tmp_path / "in"
    (src / "closed").mkdir(parents=True)
    (src / "ok.json").write_text(HISTORY)
    (src / "locked.json").write_text(HISTORY)
    os.chmod(src / "locked.json", 0)
    os.chmod(src / "closed", 0)
    try:
        code, text = run("batch", str(src), "-o", str(tmp_path / "out.jsonl"), "-q")
    finally:
        os.chmod(src / "locked.json", 0o600)
        os.chmod(src / "closed", 0o700)
    assert code == 0, text
    assert "locked.json" in text and "closed" in text, text


def hostile_folder(src: Path, tmp_path: Path) -> list[str]:
    """A folder of entries that are not files to read; returns their names."""
    src.mkdir()
    os.mkfifo(src / "fifo.json")
    (src / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    (src / "loop.json").symlink_to(src / "loop.json")
    (src / "other.jsonl").write_text('{"messages": []}\n')  # a dataset, not a session: skipped
    os.mkfifo(src / "fifo.jsonl")
    names = ["fifo.json", "dangling.json", "loop.json", "other.jsonl", "fifo.jsonl"]
    sock = socket.socket(socket.AF_UNIX)
    path = src / "sock.json"
    if len(os.fsencode(path)) < 100:  # the limit of a socket's path
        sock.bind(os.fspath(path))
        names.append("sock.json")
    sock.close()
    return names


def test_batch_names_every_entry_it_cannot_read(tmp_path):
    src = tmp_path / "in"
    names = hostile_folder(src, tmp_path)
    (src / "ok.json").write_text(HISTORY)
    code, text = run("batch", str(src), "-o", str(tmp_path / "out") + "/", "-q")
    assert code == 0, text
    for name in names:
        assert any(str(src / name) in line for line in text.splitlines()), (name, text)
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["ok.json"]
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_that_read_nothing_is_not_a_success(tmp_path, workers):
    src = tmp_path / "in"
    hostile_folder(src, tmp_path)
    code, text = run("batch", str(src), "-o", str(tmp_path / "out.jsonl"), "--workers", workers)
    assert code == 2, text
    assert "nothing was read" in text, text
    empty = tmp_path / "empty"
    empty.mkdir()
    code, text = run("batch", str(empty), "-o", str(tmp_path / "e.jsonl"), "-q")
    assert code == 2 and "nothing was read" in text, text
    assert leftovers(tmp_path) == []


def test_a_link_inside_the_folder_is_read_and_a_folder_link_loop_is_named(tmp_path):
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    (src / "real.json").write_text(HISTORY)
    (src / "sub" / "alias.json").symlink_to(src / "real.json")
    (src / "sub" / "up").symlink_to(src, target_is_directory=True)  # os.walk does not follow it
    code, text = run("batch", str(src), "-o", str(tmp_path / "out") + "/", "-q")
    assert code == 0, text
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.json")) \
        == ["real.json", "sub/alias.json"]


def test_a_dask_run_names_the_entries_it_cannot_read_too(tmp_path):
    pytest.importorskip("distributed")
    src = tmp_path / "in"
    names = hostile_folder(src, tmp_path)
    (src / "ok.json").write_text(HISTORY)
    code, text = run("batch", str(src), "-o", str(tmp_path / "out") + "/", "--dask", "local", "--workers", "1", "-q")
    assert code == 0, text
    for name in names:
        assert any(str(src / name) in line for line in text.splitlines()), (name, text)
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["ok.json"]

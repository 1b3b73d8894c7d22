"""Round 3: the names Inspector chooses for its outputs (R3-03), the modes of what it copies
(R3-05) and a full disk during ``--in-place`` (R3-33). Reproducers:
``shared/hostile-round3/repro.sh`` R3-03, R3-05, R3-33."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.bundled import samples_dir

from .harness import RUNS, cli_run

SESSION = samples_dir() / "21-claude-code-session.jsonl"
CRUSH = samples_dir() / "28-crush-session.db"
SUITE = "round 3: output names, modes, full disk"


@pytest.fixture
def shared(tmp_path: Path) -> dict[str, Path]:
    proj, victim = tmp_path / "proj", tmp_path / "victim"
    proj.mkdir()
    victim.mkdir()
    shutil.copyfile(SESSION, proj / "s.jsonl")
    shutil.copyfile(CRUSH, proj / "c.db")
    (victim / "bashrc").write_bytes(b"precious\n")
    return {"proj": proj, "victim": victim}


def normalize(*argv: str) -> tuple[int, str]:
    code, _, err = cli_run("normalize", *argv)
    RUNS[SUITE] += 1
    return code, err


def test_the_repaired_name_is_not_written_through_a_link_to_a_file(shared):
    (shared["proj"] / "s.repaired.jsonl").symlink_to("../victim/bashrc")
    code, err = normalize(str(shared["proj"] / "s.jsonl"), "-q")
    assert (shared["victim"] / "bashrc").read_bytes() == b"precious\n"
    assert code == 2 and err.count("\n") == 1 and "s.repaired.jsonl" in err and "link" in err, err


def test_a_dangling_link_at_the_repaired_name_creates_nothing_at_its_target(shared):
    (shared["proj"] / "c.repaired.db").symlink_to("../victim/planted.db")
    code, err = normalize(str(shared["proj"] / "c.db"), "-q")
    assert code == 2, err
    assert sorted(p.name for p in shared["victim"].iterdir()) == ["bashrc"]


def test_a_fifo_at_the_repaired_name_is_refused_without_blocking(shared):
    os.mkfifo(shared["proj"] / "s.repaired.jsonl")
    try:      # in a child process: a regression would block on the FIFO's open
        done = subprocess.run([sys.executable, "-m", "inspector", "normalize", str(shared["proj"] / "s.jsonl"), "-q"],
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("normalize blocked on a FIFO planted at NAME.repaired.jsonl")
    RUNS[SUITE] += 1
    assert done.returncode == 2 and "s.repaired.jsonl" in done.stderr, done.stderr


def test_an_output_the_user_names_still_follows_its_link(shared):
    """``-o`` is the user's own choice: a link there is theirs, and is written through."""
    target = shared["victim"] / "mine.jsonl"
    (shared["proj"] / "out.jsonl").symlink_to(target)
    code, err = normalize(str(shared["proj"] / "s.jsonl"), "-q", "-o", str(shared["proj"] / "out.jsonl"))
    assert code == 0, err
    assert target.stat().st_size > 0 and (shared["proj"] / "out.jsonl").is_symlink()


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_the_repaired_copy_keeps_the_sessions_mode(shared, mode):
    session = shared["proj"] / "s.jsonl"
    os.chmod(session, mode)
    old = os.umask(0o022)
    try:
        code, err = normalize(str(session), "-q")
    finally:
        os.umask(old)
    assert code == 0, err
    assert (shared["proj"] / "s.repaired.jsonl").stat().st_mode & 0o777 == mode


def test_a_full_disk_during_in_place_names_the_session(shared, monkeypatch):
    session = shared["proj"] / "s.jsonl"
    original = session.read_bytes()
    real = os.fsync
    calls = []

    def fsync(fd):                   # the backup is written whole; the repair finds the disk full
        calls.append(fd)
        if len(calls) >= 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    code, err = normalize(str(session), "--in-place", "-q")
    monkeypatch.undo()
    assert code == 2, err
    assert err.startswith(str(session)) and "<stdout>" not in err and "no space" in err, err
    assert session.read_bytes() == original
    assert not [p for p in shared["proj"].iterdir() if p.name.endswith(".tmp")]


def test_the_tui_dialogs_refuse_a_link_at_their_name(shared):
    """ctrl+s's ``NAME.edited.json`` and the export's ``NAME.normalized.json``: the dialogs'
    one rule (``tui/destination.py``) refuses a link, and the write itself never follows one."""
    from inspector.io import InputError, atomic_write
    from inspector.tui import destination

    link = shared["proj"] / "h.edited.json"
    link.symlink_to("../victim/bashrc")
    assert destination.refusal(str(link), [str(shared["proj"] / "s.jsonl")])
    with pytest.raises(InputError):
        atomic_write(link, b"[]", proposed=True)
    assert (shared["victim"] / "bashrc").read_bytes() == b"precious\n"

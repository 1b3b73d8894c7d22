"""``--in-place`` keeps the original as ``NAME.bak``; a name planted there beforehand (a
dangling symlink, a link to another file, a FIFO) is never written through (R2-09)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from inspector.bundled import samples_dir

from .harness import RUNS, cli_run

SESSION = samples_dir() / "21-claude-code-session.jsonl"
SUITE = "in-place backups beside planted names"


@pytest.fixture
def shared(tmp_path: Path) -> dict[str, Path]:
    proj, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    proj.mkdir()
    elsewhere.mkdir()
    session = proj / "s.jsonl"
    shutil.copyfile(SESSION, session)
    return {"proj": proj, "elsewhere": elsewhere, "session": session}


def in_place(session: Path) -> tuple[int, str]:
    code, _, err = cli_run("normalize", str(session), "--in-place", "-q")
    RUNS[SUITE] += 1
    return code, err


def test_a_dangling_bak_link_is_not_followed(shared):
    planted = shared["elsewhere"] / "planted.jsonl"
    link = shared["proj"] / "s.jsonl.bak"
    link.symlink_to(os.path.relpath(planted, shared["proj"]))
    original = shared["session"].read_bytes()
    code, err = in_place(shared["session"])
    assert code == 0, err
    assert not os.path.lexists(planted), "the backup was written where the planted link points"
    assert link.is_symlink() and os.readlink(link).endswith("planted.jsonl")  # left as it was
    assert (shared["proj"] / "s.jsonl.bak.1").read_bytes() == original
    assert list(shared["elsewhere"].iterdir()) == []


def test_a_link_to_another_file_is_left_alone(shared):
    other = shared["elsewhere"] / "other.txt"
    other.write_bytes(b"someone else's file\n")
    (shared["proj"] / "s.jsonl.bak").symlink_to(other)
    (shared["proj"] / "s.jsonl.bak.1").symlink_to(shared["elsewhere"] / "nothing-here")
    original = shared["session"].read_bytes()
    code, err = in_place(shared["session"])
    assert code == 0, err
    assert other.read_bytes() == b"someone else's file\n"
    assert not (shared["elsewhere"] / "nothing-here").exists()
    assert (shared["proj"] / "s.jsonl.bak.2").read_bytes() == original


def test_a_fifo_named_like_the_backup_does_not_block(shared):
    os.mkfifo(shared["proj"] / "s.jsonl.bak")
    original = shared["session"].read_bytes()
    code, err = in_place(shared["session"])
    assert code == 0, err
    assert (shared["proj"] / "s.jsonl.bak.1").read_bytes() == original


def test_a_private_session_keeps_a_private_backup(shared):
    os.chmod(shared["session"], 0o600)
    code, err = in_place(shared["session"])
    assert code == 0, err
    assert (shared["proj"] / "s.jsonl.bak").stat().st_mode & 0o777 == 0o600


def test_no_temporary_file_is_left_beside_the_session(shared):
    (shared["proj"] / "s.jsonl.bak").symlink_to(shared["elsewhere"] / "planted.jsonl")
    code, err = in_place(shared["session"])
    assert code == 0, err
    names = sorted(p.name for p in shared["proj"].iterdir())
    assert names == ["s.jsonl", "s.jsonl.bak", "s.jsonl.bak.1"], names

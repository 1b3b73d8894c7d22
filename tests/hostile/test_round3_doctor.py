"""Round 3: ``doctor --fix DIR`` writes in ``DIR`` only, never through a link, keeping each
session's mode (R3-04, R3-05, R3-06, R3-07), and copes with file names that are not UTF-8
(R3-19). Reproducers: ``shared/hostile-round3/repro.sh`` R3-04 to R3-07, R3-19."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from sessions import cline_builder as CL
from sessions import crush_builder as C

from inspector.bundled import samples_dir

from .harness import RUNS, cli_run

SESSION = samples_dir() / "21-claude-code-session.jsonl"
SUITE = "round 3: doctor --fix DIR"


def doctor(home: Path, *argv: str, monkeypatch) -> tuple[int, bytes, str]:
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_DIR"):
        monkeypatch.delenv(var, raising=False)
    RUNS[SUITE] += 1
    return cli_run("doctor", *argv)


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def claude_home(tmp_path: Path, name: str = "s.jsonl", mode: int = 0o644) -> Path:
    home = tmp_path / "home"
    (home / ".claude/projects/p").mkdir(parents=True)
    session = home / ".claude/projects/p" / name
    shutil.copyfile(SESSION, session)
    os.chmod(session, mode)
    return home


def test_a_registry_path_climbing_with_dots_is_copied_inside_dir(tmp_path, monkeypatch):
    """R3-04: a Crush registry's ``data_dir`` with ``..`` (lexically under the home)."""
    home = tmp_path / "h/home"
    (home / ".local/share/crush").mkdir(parents=True)
    (tmp_path / "h/a/b").mkdir(parents=True)
    (tmp_path / "src/p/.crush").mkdir(parents=True)
    C.write_db(tmp_path / "src/p/.crush/crush.db", {"ses-k": C.crash()})
    (home / ".local/share/crush/projects.json").write_text(json.dumps(
        {"projects": [{"path": "p", "data_dir": f"{home}/../../src/p/.crush"}]}))
    before = files_under(tmp_path)
    out = tmp_path / "h/a/b/fix"
    code, _, err = doctor(home, "--fix", str(out), monkeypatch=monkeypatch)
    assert "Traceback" not in err
    new = files_under(tmp_path) - before
    assert new, (code, err)
    outside = [p for p in new if out not in p.parents]
    assert outside == [], outside


def test_a_private_session_is_copied_private_into_a_private_dir(tmp_path, monkeypatch):
    """R3-05: a 0600 session; DIR made 0700 and the copy 0600 whatever the umask says."""
    home = claude_home(tmp_path, mode=0o600)
    old = os.umask(0o022)
    try:
        code, _, err = doctor(home, "--fix", str(tmp_path / "fix"), monkeypatch=monkeypatch)
    finally:
        os.umask(old)
    assert code in (0, 1), err
    [copy] = (tmp_path / "fix").rglob("s.jsonl")
    assert copy.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "fix").stat().st_mode & 0o077 == 0


def test_a_linked_file_in_a_task_folder_is_not_copied(tmp_path, monkeypatch):
    """R3-06: a Roo task's ``ui_messages.json`` linked to a private file outside the home."""
    (tmp_path / "elsewhere").mkdir()
    private = tmp_path / "elsewhere/private.txt"
    private.write_text("PRIVATE\n")
    os.chmod(private, 0o600)
    folder = CL.SCENARIOS["duplicate-result"]("roo").write(
        tmp_path / "home/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline")
    (folder / "ui_messages.json").unlink()
    os.symlink(private, folder / "ui_messages.json")
    code, _, err = doctor(tmp_path / "home", "--fix", str(tmp_path / "fix"), monkeypatch=monkeypatch)
    assert "Traceback" not in err
    copies = files_under(tmp_path / "fix")
    assert copies, (code, err)
    assert not [p for p in copies if b"PRIVATE" in p.read_bytes()]
    assert not [p for p in copies if p.name == "ui_messages.json"]


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o775])
def test_an_existing_dir_others_may_write_is_refused(tmp_path, monkeypatch, mode):
    """R3-07: an empty ``DIR`` another user can write in (where links may be planted after
    any check) is refused before anything is written."""
    home = claude_home(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, mode)
    code, _, err = doctor(home, "--fix", str(shared), monkeypatch=monkeypatch)
    assert code == 2 and "Traceback" not in err and str(shared) in err, err
    assert list(shared.iterdir()) == []


def test_a_link_in_place_of_dir_is_refused(tmp_path, monkeypatch):
    home = claude_home(tmp_path)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chmod(theirs, 0o777)
    (tmp_path / "fix").symlink_to(theirs)
    code, _, err = doctor(home, "--fix", str(tmp_path / "fix"), monkeypatch=monkeypatch)
    assert code == 2 and "Traceback" not in err, err
    assert list(theirs.iterdir()) == []


def test_an_empty_private_dir_of_ones_own_is_used(tmp_path, monkeypatch):
    home = claude_home(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    code, _, err = doctor(home, "--fix", str(mine), monkeypatch=monkeypatch)
    assert code in (0, 1), err
    assert (mine / "manifest.json").is_file()


def test_a_file_name_that_is_not_utf8(tmp_path, monkeypatch):
    """R3-19: ``--json`` and ``--fix`` answer, the manifest is written, a rerun elsewhere works."""
    home = claude_home(tmp_path, name=os.fsdecode(b"x\xff.jsonl"))
    code, out, err = doctor(home, "--json", monkeypatch=monkeypatch)
    assert code in (0, 1) and "Traceback" not in err, err
    report = json.loads(out)
    assert any("x\\xff.jsonl" in s["path"] for s in report["sessions"]), report["sessions"]
    code, out, err = doctor(home, "--fix", str(tmp_path / "fix"), "--json", monkeypatch=monkeypatch)
    assert code in (0, 1) and "Traceback" not in err, err
    manifest = json.loads((tmp_path / "fix/manifest.json").read_bytes())
    [source] = manifest["sources"]
    assert source["path"].endswith("x\\xff.jsonl") and source["untouched"]
    assert os.path.exists(os.fsencode(tmp_path / "fix/claude-code/.claude/projects/p") + b"/x\xff.jsonl")

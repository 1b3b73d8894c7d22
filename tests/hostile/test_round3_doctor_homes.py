"""Round 3, generated: ``doctor --fix DIR`` over hostile fake homes (links out of the home to
a private file, dangling links, FIFOs, file names that are not UTF-8, private sessions, Roo
task folders with linked side files, a DIR that exists). Whatever the home holds: no
traceback, an exit status of 0, 1 or 2, nothing written outside ``DIR``, nothing in ``DIR``
that is a link or holds the private file's bytes, no copy more open than its source, and a
manifest that is JSON. Default 8 homes; ``HOSTILE_SCALE=N`` makes 8N."""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
from pathlib import Path

import pytest
from sessions import cline_builder as CL

from inspector.bundled import samples_dir

from .harness import RUNS, TALLIES, cli_run

SCALE = max(1, int(os.environ.get("HOSTILE_SCALE", "1")))
SUITE = "round 3: doctor --fix on generated hostile homes"
SECRET = b"PRIVATE-BYTES-OF-ANOTHER-FILE"
CLAUDE = samples_dir() / "21-claude-code-session.jsonl"


def snapshot(root: Path, skip: Path) -> dict[bytes, tuple]:
    seen = {}
    for folder, dirs, files in os.walk(os.fsencode(root)):
        if os.fsencode(skip) == folder or folder.startswith(os.fsencode(skip) + b"/"):
            dirs[:] = []
            continue
        for name in files + dirs:
            path = os.path.join(folder, name)
            if path == os.fsencode(skip):
                continue
            st = os.lstat(path)
            seen[path] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino)
    return seen


def build_home(tmp: Path, rng: random.Random) -> Path:
    home = tmp / "home"
    projects = home / ".claude/projects"
    secret = tmp / "elsewhere/private.txt"
    secret.parent.mkdir(parents=True)
    secret.write_bytes(SECRET)
    os.chmod(secret, 0o600)
    for p in range(rng.randint(1, 3)):
        folder = projects / f"p{p}"
        folder.mkdir(parents=True)
        for s in range(rng.randint(1, 3)):
            name = rng.choice(["s", "x\udcff", "a b", "-dash", "\u202eevil"]) + f"{s}.jsonl"
            path = folder / name
            shutil.copyfile(CLAUDE, path)
            os.chmod(path, rng.choice([0o600, 0o640, 0o644]))
        for hostile in rng.sample(["link-out", "dangling", "fifo", "link-dir", "loop"], rng.randint(0, 3)):
            target = folder / f"{hostile}.jsonl"
            if hostile == "link-out":
                target.symlink_to(secret)
            elif hostile == "dangling":
                target.symlink_to(tmp / "elsewhere/nothing.jsonl")
            elif hostile == "fifo":
                os.mkfifo(target)
            elif hostile == "link-dir":
                (folder / "linked").symlink_to(secret.parent, target_is_directory=True)
            else:
                target.symlink_to(target.name)
    if rng.random() < 0.6:
        task = CL.SCENARIOS["duplicate-result"]("roo").write(
            home / ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline")
        side = rng.choice(["ui_messages.json", "task_metadata.json", "extra.txt"])
        (task / side).unlink(missing_ok=True)
        if rng.random() < 0.5:
            (task / side).symlink_to(secret)
        else:
            os.mkfifo(task / side)
    return home


@pytest.mark.parametrize("seed", range(8 * SCALE))
def test_fix_on_a_hostile_home(tmp_path, monkeypatch, seed):
    rng = random.Random(32_000 + seed)
    home = build_home(tmp_path, rng)
    out = tmp_path / "fix"
    if rng.random() < 0.3:
        out.mkdir(mode=0o700)                       # an empty private folder of ours: taken
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(var, raising=False)
    old = os.umask(0o022)
    before = snapshot(tmp_path, out)
    try:
        code, stdout, err = cli_run("doctor", "--fix", str(out), "--json")
    finally:
        os.umask(old)
    RUNS[SUITE] += 1
    assert code in (0, 1, 2) and "Traceback" not in err, (code, err[-2000:])
    assert snapshot(tmp_path, out) == before, "something outside DIR changed"
    json.loads(stdout)
    manifest = json.loads((out / "manifest.json").read_bytes())
    TALLIES["doctor homes: copies written"] += len(manifest["sources"])
    assert not os.lstat(out).st_mode & 0o077
    for folder, dirs, files in os.walk(os.fsencode(out)):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            assert stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode), path
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as handle:
                    assert SECRET not in handle.read(), path
    for source in manifest["sources"]:
        copy = source["output"]["path"]
        if "\\x" in copy or "\\x" in source["path"]:
            continue                                 # written as text: not a path to stat
        assert os.stat(copy).st_mode & 0o777 & ~os.stat(source["path"]).st_mode == 0, copy

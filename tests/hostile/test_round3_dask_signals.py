"""Round 3, R3-21 (and round 2's partial R2-14): Ctrl-C sends SIGINT to the whole process
group, Dask's local workers included. ``batch --dask local`` then ends with "batch:
interrupted; no output written", exit 130, and no traceback, wherever the signal lands
(while the cluster starts, while it computes); a signal after the last record was written
says so instead, and then every output is there. Reproducer: ``repro.sh`` R3-21. Each run is a
child in its own session, signalled through its group; the default is three delays,
``HOSTILE_SCALE=N`` adds more."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from extras import need

need("distributed", "dask")

from .harness import RUNS, TALLIES  # noqa: E402

SCALE = max(1, int(os.environ.get("HOSTILE_SCALE", "1")))
SUITE = "round 3: Ctrl-C to the group during --dask local"
# From 1 s on: a signal in the first half second lands while Python imports inspector.cli
# itself, before any command runs (a start-up matter of every command, not of Dask's).
DELAYS = [1.0, 2.5, 4.0] + [1.25 + 0.75 * k for k in range(3 * (SCALE - 1))]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dask-group") / "in"
    for i in range(3000):
        folder = root / f"d{i % 30:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:05d}.json").write_text(
            '[{"role":"user","content":"q"},{"role":"assistant","content":"",'
            f'"tool_calls":[{{"id":"c{i}","name":"f"}}]}}]')
    return root


@pytest.mark.parametrize("delay", DELAYS)
def test_ctrl_c_to_the_group_ends_cleanly(inputs, tmp_path, delay):
    out = tmp_path / "out"
    child = subprocess.Popen([sys.executable, "-m", "inspector", "batch", str(inputs), "-o", f"{out}/",
                              "--dask", "local", "--workers", "2", "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(delay)
    try:
        os.killpg(child.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    try:
        _, err = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        pytest.fail(f"still running 120 s after SIGINT at {delay} s")
    RUNS[SUITE] += 1
    assert "Traceback" not in err and "Nanny" not in err, err[-2000:]
    if child.returncode == 0:            # the run ended before the signal: every output is there
        TALLIES["dask group signals after the run ended"] += 1
        return
    if child.returncode == -signal.SIGINT:  # came while Python started: ended by the signal itself, silently
        assert err.strip() == "", err
        TALLIES["dask group signals during start-up"] += 1
        return
    assert child.returncode == 130, (child.returncode, err[-2000:])
    last = err.strip().splitlines()[-1] if err.strip() else ""
    if last.startswith("batch: interrupted after the run finished"):
        # the signal came after the last record: the outputs were committed, so all must be there
        assert last == ("batch: interrupted after the run finished: every output was written; "
                        "the health table was not printed"), err
        assert len(list(out.rglob("*.json"))) == 3000
        TALLIES["dask group signals after the outputs were committed"] += 1
        return
    # nothing said when the signal came while the command's modules were still loading
    assert last in ("", "batch: interrupted; no output written"), err
    assert not out.exists()

"""Report how many command runs the hostile and fault suites made (issue 12 asks for it)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from .harness import RUNS


@pytest.fixture
def null_device(tmp_path: Path) -> Path:
    """A character device that discards writes: a private one where this user may create
    device nodes (so a test never depends on, or damages, the system's /dev/null, which
    other programs on a shared machine can have replaced), else /dev/null itself."""
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        with open(node, "wb") as handle:
            handle.write(b"probe")
        return node
    except OSError:
        pass
    if not stat.S_ISCHR(os.stat(os.devnull).st_mode):
        pytest.skip("/dev/null is not a device on this machine")
    return Path(os.devnull)


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if RUNS:
        terminalreporter.write_sep("-", "hostile and fault suites")
        for suite, count in sorted(RUNS.items()):
            terminalreporter.write_line(f"{suite}: {count:,} runs")
        terminalreporter.write_line(f"total: {sum(RUNS.values()):,} runs")

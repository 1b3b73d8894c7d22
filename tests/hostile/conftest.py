"""Report how many command runs the hostile and fault suites made (issue 12 asks for it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import RUNS, TALLIES, private_device


@pytest.fixture
def null_device(tmp_path: Path) -> Path:
    return private_device(tmp_path, "null")


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if RUNS:
        terminalreporter.write_sep("-", "hostile and fault suites")
        for suite, count in sorted(RUNS.items()):
            terminalreporter.write_line(f"{suite}: {count:,} runs")
        terminalreporter.write_line(f"total: {sum(RUNS.values()):,} runs")
        for what, count in sorted(TALLIES.items()):
            terminalreporter.write_line(f"{what}: {count:,}")

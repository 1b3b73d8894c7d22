"""Report how many command runs the hostile and fault suites made (issue 12 asks for it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import RUNS, TALLIES, private_device


@pytest.fixture
def null_device(tmp_path: Path) -> Path:
    return private_device(tmp_path, "null")


def pytest_sessionfinish(session, exitstatus):  # noqa: ARG001
    """An xdist worker hands its counts to the controller, which prints the summary."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["hostile_runs"], output["hostile_tallies"] = dict(RUNS), dict(TALLIES)


class _AddUpWorkers:
    """On the xdist controller: add up what each worker counted (registered only where xdist
    is, whose hook this is)."""

    @staticmethod
    def pytest_testnodedown(node, error):  # noqa: ARG004
        output = getattr(node, "workeroutput", {})
        for mine, theirs in ((RUNS, output.get("hostile_runs", {})), (TALLIES, output.get("hostile_tallies", {}))):
            for key, count in theirs.items():
                mine[key] += count


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_AddUpWorkers(), "hostile-add-up-workers")


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if RUNS:
        terminalreporter.write_sep("-", "hostile and fault suites")
        for suite, count in sorted(RUNS.items()):
            terminalreporter.write_line(f"{suite}: {count:,} runs")
        terminalreporter.write_line(f"total: {sum(RUNS.values()):,} runs")
        for what, count in sorted(TALLIES.items()):
            terminalreporter.write_line(f"{what}: {count:,}")

"""The suite itself: its children see Ctrl-C as from a terminal even when pytest was started
in the background, and the README's test command runs it in parallel with a pinned xdist."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_child_sees_pythons_interrupt_handler():
    probe = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "True", done


def test_a_background_pytest_still_lets_its_children_be_interrupted():
    """`pytest … &` from a shell starts with SIGINT ignored, and children inherit that."""
    def ignore_interrupts():
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         f"{Path(__file__).name}::test_a_child_sees_pythons_interrupt_handler"],
        cwd=Path(__file__).parent, capture_output=True, text=True, timeout=120, preexec_fn=ignore_interrupts)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-2000:]


def test_the_readme_runs_the_tests_in_parallel_with_a_pinned_xdist():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert any(re.fullmatch(r"pytest-xdist==[\d.]+", dep) for dep in project["optional-dependencies"]["test"])
    readme = (ROOT / "README.md").read_text("utf-8")
    [command] = [line for line in readme.splitlines() if "pip install '.[test" in line]
    assert re.search(r"&& pytest -n (auto|\d+)\b", command), command


def test_ci_runs_the_readmes_command_and_the_large_scales():
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert re.search(r"^pytest -n (auto|\d+)", ci, flags=re.M), ci
    assert "INSPECTOR_LARGE=1" in ci


def test_the_distribution_has_a_name_of_its_own_and_installs_the_inspector_command():
    """`inspector` on PyPI is someone else's package (2012): ours must never install it by mistake."""
    import importlib.metadata

    import inspector

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] != "inspector"
    assert project["scripts"] == {"inspector": "inspector.cli:entry"}
    assert importlib.metadata.version(project["name"]) == inspector.__version__ == project["version"]

"""The architecture contracts in pyproject.toml hold (import-linter, run as CI would)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"


def _lint(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports is missing: pip install -e '.[test]'")
    return subprocess.run([exe, "--no-cache", *args], cwd=ROOT, capture_output=True, text=True)


def test_the_contracts_are_kept():
    out = _lint()
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def test_a_broken_contract_is_caught(tmp_path):
    """The check can fail: the CLI does import the pipeline, so forbidding it breaks."""
    config = tmp_path / "contracts.toml"
    config.write_text('[tool.importlinter]\nroot_package = "inspector"\n\n'
                      '[[tool.importlinter.contracts]]\nname = "no pipeline in the CLI"\ntype = "forbidden"\n'
                      'source_modules = ["inspector.cli"]\nforbidden_modules = ["inspector.pipeline"]\n')
    out = _lint("--config", str(config))
    assert out.returncode != 0 and "inspector.cli -> inspector.pipeline" in out.stdout

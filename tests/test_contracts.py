"""The architecture contracts in pyproject.toml hold, and each of them can fail.

A contract that nothing can break proves nothing, so each probe copies the package, plants the
kind of import the contract forbids, and checks that lint-imports names that very import. The
probes list modules from the files on disk, so a module added tomorrow is probed too.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "inspector"


def _lint(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports is missing: pip install -e '.[test]'")
    env = {"PATH": str(Path(sys.executable).parent), "PYTHONPATH": str(cwd), "HOME": str(cwd)}
    return subprocess.run([exe, "--no-cache", *args], cwd=cwd, capture_output=True, text=True, env=env)


def _modules(package: str) -> list[str]:
    """Dotted names of the modules inside one subpackage (not the package's own face)."""
    base = PACKAGE / package
    names = []
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        if rel.name == "__init__":
            rel = rel.parent
        if rel != Path(package):
            names.append("inspector." + ".".join(rel.parts))
    return names


def _views() -> list[Path]:
    """Every module that is a view of the core: the CLI, the pipeline, the TUI, batch, serve."""
    views = [PACKAGE / "cli.py", PACKAGE / "pipeline.py", PACKAGE / "serve.py", PACKAGE / "sessions.py"]
    for sub in ("tui", "batch"):
        views += sorted((PACKAGE / sub).rglob("*.py"))
    return [v for v in views if v.exists()]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(PACKAGE, tmp_path / "inspector", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _plant(copy: Path, module: Path, lines: list[str]) -> None:
    target = copy / module.relative_to(ROOT)
    target.write_text(target.read_text("utf-8") + "\n" + "\n".join(lines) + "\n", "utf-8")


def _dotted(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(("inspector", *parts))


def test_the_contracts_are_kept():
    out = _lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def test_no_view_may_reach_an_internal_module_of_the_engine_or_the_formats(copy):
    internals = _modules("engine") + _modules("formats")
    assert any(".claude_code" in m for m in internals) and any(".pairing" in m for m in internals)
    views = _views()
    for view in views:
        _plant(copy, view, [f"import {m}" for m in internals])
    out = _lint(copy)
    assert out.returncode != 0
    missing = [(v, m) for v in views for m in internals if f"{_dotted(v)} -> {m} " not in out.stdout]
    assert not missing, f"{len(missing)} planted imports not reported, e.g. {missing[:3]}"


def test_the_engine_may_not_import_textual_rich_or_the_rest_of_the_project(copy):
    _plant(copy, PACKAGE / "engine" / "cast.py", ["import textual", "import rich", "import inspector.io"])
    out = _lint(copy)
    assert out.returncode != 0
    for imported in ("textual", "rich", "inspector.io"):
        assert f"inspector.engine.cast -> {imported} " in out.stdout, imported


def test_a_lower_layer_may_not_import_a_higher_one(copy):
    _plant(copy, PACKAGE / "formats" / "__init__.py", ["import inspector.pipeline"])
    _plant(copy, PACKAGE / "targets" / "__init__.py", ["import inspector.formats"])
    out = _lint(copy)
    assert out.returncode != 0
    assert "inspector.formats -> inspector.pipeline " in out.stdout
    assert "inspector.targets -> inspector.formats " in out.stdout


def test_an_import_cycle_between_modules_is_caught(copy):
    formats = PACKAGE / "formats"
    first, second = sorted(p for p in formats.glob("*.py") if p.name != "__init__.py")[:2]
    _plant(copy, first, [f"import {_dotted(second)}"])
    _plant(copy, second, [f"import {_dotted(first)}"])
    out = _lint(copy)
    assert out.returncode != 0
    assert "No cycles are allowed in inspector.formats" in out.stdout

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


def _outside_the_tui() -> list[Path]:
    """One module of each package and every top-level module but the TUI's: where a UI import
    would be planted by mistake (the list comes from the disk, so tomorrow's modules are in it)."""
    found = []
    for path in sorted(PACKAGE.iterdir()):
        if path.name in ("tui", "__pycache__"):
            continue
        if path.suffix == ".py":
            found.append(path)
        elif path.is_dir() and (path / "__init__.py").exists():
            inner = sorted(p for p in path.glob("*.py") if p.name != "__init__.py")
            found.append(inner[0] if inner else path / "__init__.py")
    return found


def test_no_module_outside_the_tui_may_import_textual_or_rich(copy):
    """The review's gap (design.md §3.6): `import textual` in batch/job.py or doctor/verdict.py
    passed every contract. Now any module but the TUI's is refused it, serve's included."""
    modules = _outside_the_tui()
    names = {_dotted(m) for m in modules}
    assert {"inspector.serve", "inspector.cli", "inspector.pipeline", "inspector.sessions"} <= names
    assert any(n.startswith("inspector.batch.") for n in names) and any(n.startswith("inspector.doctor.") for n in names)
    for module in modules:
        _plant(copy, module, ["import textual", "import rich"])
    out = _lint(copy)
    assert out.returncode != 0
    missing = [(_dotted(m), ui) for m in modules for ui in ("textual", "rich")
               if f"{_dotted(m)} -> {ui} " not in out.stdout]
    assert not missing, f"{len(missing)} planted UI imports not reported, e.g. {missing[:3]}"


def test_the_review_probe_batch_job_and_doctor_verdict_importing_textual_is_refused(copy):
    _plant(copy, PACKAGE / "batch" / "job.py", ["import textual"])
    _plant(copy, PACKAGE / "doctor" / "verdict.py", ["import textual"])
    out = _lint(copy)
    assert out.returncode != 0
    assert "inspector.batch.job -> textual " in out.stdout
    assert "inspector.doctor.verdict -> textual " in out.stdout


def test_batch_the_tui_and_serve_are_independent(copy):
    """The review's second probe: `from .tui import rows` in batch/job.py kept every contract."""
    _plant(copy, PACKAGE / "batch" / "job.py", ["from inspector.tui import rows"])
    _plant(copy, PACKAGE / "tui" / "facts.py", ["import inspector.batch.report", "import inspector.serve"])
    out = _lint(copy)
    assert out.returncode != 0
    for edge in ("inspector.batch.job -> inspector.tui.rows", "inspector.tui.facts -> inspector.batch.report",
                 "inspector.tui.facts -> inspector.serve"):
        assert edge in out.stdout, edge


def test_a_module_below_the_views_may_not_import_the_tui(copy):
    lower = [PACKAGE / "doctor" / "verdict.py", PACKAGE / "sessions.py", PACKAGE / "pipeline.py",
             PACKAGE / "formats" / "jsonl.py"]
    for module in lower:
        _plant(copy, module, ["import inspector.tui.rows"])
    out = _lint(copy)
    assert out.returncode != 0
    for module in lower:
        assert f"{_dotted(module)} -> inspector.tui.rows" in out.stdout, module


def test_serve_may_import_only_the_tui_modules_it_defers(copy):
    """serve's two deferred imports of the TUI are listed exceptions; a third is refused."""
    _plant(copy, PACKAGE / "serve.py", ["import inspector.tui.rows"])
    out = _lint(copy)
    assert out.returncode != 0
    assert "inspector.serve -> inspector.tui.rows" in out.stdout
    assert "inspector.serve -> inspector.tui.app" not in out.stdout


def test_the_verdict_sits_between_the_sessions_and_the_pipeline(copy):
    """inspector/verdict.py (issue 29) may use the pipeline, never the views; the pipeline may not
    use it. Planted whether or not the module exists yet (the layer is optional until it does)."""
    verdict = copy / "inspector" / "verdict.py"
    before = verdict.read_text("utf-8") if verdict.exists() else ""
    verdict.write_text(before + "\nimport inspector.sessions\nimport inspector.pipeline\n", "utf-8")
    _plant(copy, PACKAGE / "pipeline.py", ["import inspector.verdict"])
    out = _lint(copy)
    assert out.returncode != 0
    assert "inspector.verdict -> inspector.sessions" in out.stdout
    assert "inspector.pipeline -> inspector.verdict" in out.stdout
    assert "inspector.verdict -> inspector.pipeline" not in out.stdout

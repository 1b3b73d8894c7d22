"""The seam between the views and the core, checked on the source: the TUI imports the core
by its public faces only, and neither the TUI nor batch calls the formats' import and export
or the engine's normalize themselves; they take the pipeline's steps
(``inspector.pipeline.load``/``repair``/``export``), so a view cannot grow a pipeline of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "inspector"
# The core's faces a TUI module may import (package names, nothing below them).
FACES = {"inspector.engine", "inspector.formats", "inspector.pipeline", "inspector.targets",
         "inspector.io", "inspector.sessions", "inspector.bundled", "inspector.doctor", "inspector.verdict",
         "inspector.why"}   # why: the error-text reader the TUI's paste uses (issue 34)
# What only the pipeline calls.
STEPS_INSIDE = {"import_history", "export_history", "normalize"}
VIEWS = sorted([*ROOT.joinpath("tui").rglob("*.py"),
                *(ROOT / "batch" / f for f in ("worker.py", "pool.py", "dask_runner.py"))])


def _imports(path: Path, source: str | None = None) -> list[tuple[str, list[str]]]:
    """(absolute module, names) for every import in ``path`` (or in ``source``, as if it were
    that file), relative ones resolved."""
    package = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names = [a.name for a in node.names]
            if node.module is None:  # from .. import x: x is a module
                out += [(f"{module}.{n}", []) for n in names]
            else:
                out.append((module, names))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
    return out


def _core(module: str) -> bool:
    return module.startswith("inspector.") and not module.startswith("inspector.tui")


@pytest.mark.parametrize("path", sorted(ROOT.joinpath("tui").rglob("*.py")), ids=lambda p: p.name)
def test_the_tui_imports_the_core_by_its_faces(path):
    below = [m for m, _ in _imports(path) if _core(m) and m not in FACES]
    assert not below, f"{path.name} imports {below}: import the package face instead"


@pytest.mark.parametrize("path", VIEWS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_views_leave_import_export_and_normalize_to_the_pipeline(path):
    called = set()
    for module, names in _imports(path):
        if _core(module):
            called |= STEPS_INSIDE & set(names)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in STEPS_INSIDE and isinstance(node.value, ast.Name) \
                and node.value.id in ("formats", "engine"):
            called.add(f"{node.value.id}.{node.attr}")
    assert not called, f"{path.name} uses {sorted(called)}: take the pipeline's steps"


def test_the_check_finds_what_it_forbids():
    """The import check can fail: a module that imports below a face is named."""
    source = "from ...formats.base import Imported\nfrom ... import formats, pipeline\nfrom ...engine import normalize\n"
    found = _imports(ROOT / "tui" / "widgets" / "probe.py", source)
    assert [m for m, _ in found if _core(m) and m not in FACES] == ["inspector.formats.base"]
    assert STEPS_INSIDE & {n for m, names in found if _core(m) for n in names} == {"normalize"}

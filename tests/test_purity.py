"""The engine is pure: the CLI, the batch runner and any script can use it without the
TUI's dependencies being imported, and no engine module may reach for textual."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import inspector.engine

ENGINE = Path(inspector.engine.__file__).parent


def test_importing_the_engine_does_not_load_textual():
    code = (
        "import sys\n"
        "import inspector.engine as e\n"
        "e.normalize([{'role': 'user', 'content': 'hi'}])\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.') or m == 'rich')\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_batch_paths_do_not_load_textual():
    code = (
        "import sys\n"
        "import inspector.cli\n"
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__"):
            names.update(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return names


def test_no_engine_module_imports_textual():
    modules = sorted(ENGINE.rglob("*.py"))
    assert len(modules) >= 5
    for path in modules:
        for name in _imported_modules(path):
            assert name.split(".")[0] not in ("textual", "rich"), f"{path.name} imports {name}"

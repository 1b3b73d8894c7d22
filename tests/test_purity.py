"""Only the TUI loads textual and rich: the CLI's commands, batch, the doctor and any script
can use the rest of Inspector without the TUI's dependencies being imported.

The contracts in pyproject.toml (tests/test_contracts.py) see module-level imports only; they
cannot tell an import at module scope from one deferred into the function that needs it. So
each package here is imported whole, every module of it, in a fresh interpreter, and the UI
modules that got loaded are listed (harlequin's tests/unit_tests/test_import_hygiene.py does
the same for its headless modules)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "inspector"

# Everything but the TUI (and serve, whose app process imports it on purpose): one name per
# package or top-level module, read from the disk so that a module added tomorrow is covered.
HEADLESS = sorted(p.stem if p.suffix == ".py" else p.name for p in PACKAGE.iterdir()
                  if p.name not in ("tui", "serve.py", "__main__.py", "__init__.py", "__pycache__")
                  and (p.suffix == ".py" or (p / "__init__.py").exists()))

LOADED = """
import importlib, pkgutil, sys
name = sys.argv[1]
module = importlib.import_module(name)
for info in pkgutil.walk_packages(getattr(module, "__path__", []), name + "."):
    if info.name.endswith(".__main__"):
        continue
    try:
        importlib.import_module(info.name)
    except ModuleNotFoundError as exc:   # an optional extra (dask, pyarrow) not installed here
        if (exc.name or "").startswith("inspector"):
            raise
ui = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
print(",".join(ui))
"""


def test_the_packages_listed_are_the_ones_on_disk():
    assert {"engine", "batch", "doctor", "formats", "targets", "pipeline", "sessions", "io", "cli"} <= set(HEADLESS)


@pytest.mark.parametrize("name", HEADLESS)
def test_importing_a_headless_package_loads_no_ui(name):
    out = subprocess.run([sys.executable, "-c", LOADED, f"inspector.{name}"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"inspector.{name} loaded {out.stdout.strip()[:200]}"


def test_the_engine_runs_without_loading_the_ui():
    code = (
        "import sys\n"
        "import inspector.engine as e\n"
        "e.normalize([{'role': 'user', 'content': 'hi'}])\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""

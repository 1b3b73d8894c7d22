"""The engine is pure: the CLI, the batch runner and any script can use it without the
TUI's dependencies being imported. (That no engine module imports textual is an import-linter
contract: tests/test_contracts.py.)"""

from __future__ import annotations

import subprocess
import sys


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

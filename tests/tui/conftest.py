"""Fixtures for the TUI tests (helpers live in helpers.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_asyncio

from .helpers import BROKEN, Running


@pytest.fixture
def broken_file(tmp_path: Path) -> Path:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(BROKEN, indent=1), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def module_broken_file(tmp_path_factory) -> Path:
    """BROKEN written once for a module, for the apps its read-only tests share."""
    path = tmp_path_factory.mktemp("broken") / "broken.json"
    path.write_text(json.dumps(BROKEN, indent=1), encoding="utf-8")
    return path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def running():
    """Apps that stay up for a module's read-only tests (see helpers.Running)."""
    pool = Running()
    yield pool
    await pool.close()

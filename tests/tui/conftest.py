"""Fixtures for the TUI tests (helpers live in helpers.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import BROKEN


@pytest.fixture
def broken_file(tmp_path: Path) -> Path:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(BROKEN, indent=1), encoding="utf-8")
    return path

"""Tests of an optional extra skip cleanly when the extra is absent, and fail under CI.

CI (``CI=true``) installs every extra, so there a missing one is a broken install, not a reason
to skip: the test fails and says what is missing.
"""

from __future__ import annotations

import importlib.util
import os

import pytest


# The large generated scales (more hypothesis examples in the hostile suite) run when
# INSPECTOR_LARGE=1, as .ci/run sets it; the README's command runs the smaller default ones.
LARGE = os.environ.get("INSPECTOR_LARGE", "") not in ("", "0")


# The two chain-damage properties whose residual failure classes are known (the closing note
# of issues 29-36 lists them) draw the same examples on every run, so a CI run never turns
# on a rare draw of a known class; INSPECTOR_EXPLORE=1 draws new ones, to look for more.
EXPLORE = os.environ.get("INSPECTOR_EXPLORE", "") not in ("", "0")


def repeatable() -> dict:
    """Hypothesis settings for those properties: the same examples each run, unless exploring."""
    return {} if EXPLORE else {"derandomize": True}


def scaled(default: int, large: int) -> int:
    """``large`` under INSPECTOR_LARGE=1 (CI), ``default`` otherwise."""
    return large if LARGE else default


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _present(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):   # a module blocked in sys.modules, or half-installed
        return False


def need(module: str, extra: str) -> None:
    """Call first in a test, a fixture or a module that needs ``module`` from the ``extra`` extra."""
    if _present(module):
        return
    reason = f"{module} is not installed (pip install '.[{extra}]')"
    if in_ci():
        pytest.fail(f"CI installs every extra, but {reason}")
    pytest.skip(reason, allow_module_level=True)

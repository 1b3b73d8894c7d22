"""Each session format's clean document is detected as that format and comes back unchanged."""

from __future__ import annotations

import copy

import pytest

from inspector.pipeline import run

from .clean import clean_sessions

CLEAN = clean_sessions()


@pytest.mark.parametrize("fmt", sorted(CLEAN))
def test_clean_session_is_its_format_and_unchanged(fmt):
    out = run(copy.deepcopy(CLEAN[fmt]), f"{fmt}.x")
    assert out.imported.format == fmt
    assert not out.changed and out.exported == CLEAN[fmt]
    calls = [c["tool_call_id"] for m in out.result.messages for c in m.get("tool_calls") or ()]
    assert len(calls) == 2 and "Paris" in " ".join(m["content"] for m in out.result.messages)

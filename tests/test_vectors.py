"""Conformance: every vector of the shared spec (copied into tests/vectors.json) must match.

Output messages are compared as serialized JSON so that key order counts too: the flat
shape fixes the order of keys, and a provider-bound export is bytes, not a dict.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from inspector.engine import normalize

VECTORS = json.loads((Path(__file__).with_name("vectors.json")).read_text("utf-8"))
EVENT_KEYS = ("stage", "clause", "kind", "drop", "origin", "call", "tool_call_id")


def _listed(event) -> bool:
    """The vectors list drop events and synthesized results, not the notes."""
    return event.drop or event.kind == "result-synthesized"


def test_vector_file_is_complete():
    assert len(VECTORS) == 26
    assert len({v["name"] for v in VECTORS}) == len(VECTORS)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"].split()[0] for v in VECTORS])
def test_vector(vector):
    result = normalize(json.loads(json.dumps(vector["input"])))
    # Key order matters: compare the exact bytes a writer would emit.
    assert orjson.dumps(result.messages) == orjson.dumps(vector["output"])
    assert result.messages == vector["output"]
    assert result.dropped == vector["dropped"]
    assert result.origins == vector["origins"]
    got = [{k: getattr(e, k) for k in EVENT_KEYS} for e in result.events if _listed(e)]
    want = [{k: e[k] for k in EVENT_KEYS} for e in vector["events"]]
    assert got == want
    assert result.dropped == sum(1 for e in result.events if e.drop)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"].split()[0] for v in VECTORS])
def test_vector_output_is_a_fixed_point(vector):
    """Normalizing the expected output again changes nothing and drops nothing."""
    again = normalize(json.loads(json.dumps(vector["output"])))
    assert orjson.dumps(again.messages) == orjson.dumps(vector["output"])
    assert again.dropped == 0
    assert not [e for e in again.events if _listed(e)]

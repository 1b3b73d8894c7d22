"""Peers' own repair suites, ported as data (``peers/*.json``: the histories and what each
peer sends, never their code), run against Inspector: the errors ``check --target`` reports
on the history, and what ``normalize --strict`` sends, which must check clean. Each case
names its repository, path, commit and test, and a verdict: ``agree``, or ``differs`` by a
stated policy (``why``); ``docs/conformance.md`` tabulates them. A case tagged ``identity``
(a reused or empty call id) waits for issue 30's identity rules."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from inspector.pipeline import run
from inspector.targets import ERROR, check

PEERS = Path(__file__).with_name("peers")
CASES = [(f.stem, c) for f in sorted(PEERS.glob("*.json")) for c in json.loads(f.read_text())]
VERDICTS = {"agree", "differs", "peer-wrong"}


def _id(item) -> str:
    return f"{item[0]}:{item[1]['source']['test']}"


def shape(messages) -> list:
    return [[m["role"], [b.get("type") for b in m["content"]] if isinstance(m["content"], list) else ["text"]]
            for m in messages]


def _skip_identity(case) -> None:
    if "identity" in case.get("tags", ()):
        pytest.skip("a reused or empty call id: the identity rules of issue 30 decide it")


@pytest.mark.parametrize("suite,case", CASES, ids=[_id(c) for c in CASES])
def test_inspector_reports_the_refusals_the_peer_repairs(suite, case):
    _skip_identity(case)
    out = run(copy.deepcopy(case["body"]), "case.json", case.get("format", case["target"]))
    errors = sorted({p.rule for p in check(out, case["target"]) if p.severity == ERROR})
    assert errors == sorted(case["errors"])


@pytest.mark.parametrize("suite,case", CASES, ids=[_id(c) for c in CASES])
def test_strict_sends_what_the_peer_sends_or_differs_by_its_stated_policy(suite, case):
    _skip_identity(case)
    assert case["verdict"] in VERDICTS and (case["verdict"] == "agree" or case["why"])
    out = run(copy.deepcopy(case["body"]), "case.json", case.get("format", case["target"]), strict=True)
    sent = out.exported["messages"]
    peer = case["peer_sent"] if case["peer_sent"] is not None else case["peer_shape"]
    mine = sent if case["peer_sent"] is not None else shape(sent)
    if case["verdict"] == "agree":
        assert mine == peer
    else:
        assert mine == case["inspector"] and mine != peer
    assert not [p for p in check(out, case["target"]) if p.severity == ERROR]

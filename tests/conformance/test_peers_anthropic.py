"""Peers' own repair suites, ported as data (``peers/*.json``: the histories and what each
peer sends, never their code), run against Inspector: the errors ``check --target`` reports
on the history (where the case lists them), and what ``normalize --strict`` sends, which
must check clean and be a fixed point. Each case names its repository, path, commit and
test, and a verdict: ``agree``; ``differs`` by a stated policy (``why``); ``peer-wrong``,
where the target rules refuse what the peer sends. ``docs/conformance.md`` tabulates them.
A case tagged ``identity`` (a reused or empty call id) waits for issue 30's identity rules."""

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


def _blocks(m) -> list:
    return [b.get("type") for b in m["content"]] if isinstance(m["content"], list) else ["text"]


def shape(messages, style: str) -> list:
    """``messages``: role and block types of each message; ``turns``: the same per provider
    turn (Anthropic reads consecutive messages of one role as one); ``chat``: role and the
    call ids an assistant makes or a tool message answers."""
    if style == "chat":
        return [[m["role"], [c["id"] for c in m.get("tool_calls") or ()] if m["role"] == "assistant"
                 else [m["tool_call_id"]] if m["role"] == "tool" else []] for m in messages]
    out: list = []
    for m in messages:
        if style == "turns" and out and out[-1][0] == m["role"]:
            out[-1][1] += _blocks(m)
        else:
            out.append([m["role"], _blocks(m)])
    return out


def _run(case, strict=False):
    """The case's body read in its own format (``format``, else the target's) and written for
    the target (a conversion when they differ, as the peer converts)."""
    source = case.get("format", case["target"])
    to = "same" if source == case["target"] else case["target"]
    return run(copy.deepcopy(case["body"]), "case.json", source, to, strict=strict)


WITH_ERRORS = [c for c in CASES if "errors" in c[1]]       # the peer's test pins a refusal, not only what it sends


@pytest.mark.parametrize("suite,case", WITH_ERRORS, ids=[_id(c) for c in WITH_ERRORS])
def test_inspector_reports_the_refusals_the_peer_repairs(suite, case):
    errors = sorted({p.rule for p in check(_run(case), case["target"]) if p.severity == ERROR})
    assert errors == sorted(case["errors"])


@pytest.mark.parametrize("suite,case", CASES, ids=[_id(c) for c in CASES])
def test_strict_sends_what_the_peer_sends_or_differs_by_its_stated_policy(suite, case):
    assert case["verdict"] in VERDICTS and (case["verdict"] == "agree" or case["why"])
    out = _run(case, strict=True)
    sent = out.exported["messages"]
    peer = case["peer_sent"] if case["peer_sent"] is not None else case["peer_shape"]
    mine = sent if case["peer_sent"] is not None else shape(sent, case.get("shape", "messages"))
    if case["verdict"] == "agree":
        assert mine == peer
    else:
        assert mine == case["inspector"] and mine != peer
    assert not [p for p in check(out, case["target"]) if p.severity == ERROR]
    assert not run(out.data, "again.json", case["target"], strict=True).changed     # a fixed point


@pytest.mark.parametrize("suite,case", [c for c in CASES if c[1]["verdict"] == "peer-wrong"],
                         ids=[_id(c) for c in CASES if c[1]["verdict"] == "peer-wrong"])
def test_what_a_wrong_peer_sends_is_refused_by_the_target_rules(suite, case):
    """The peer sends the history as it came: the target's rules, run on it unrepaired, refuse it."""
    flat = _run(case).imported.messages
    assert [p for p in check(flat, case["target"]) if p.severity == ERROR]


def test_docs_conformance_lists_every_case_with_its_verdict():
    page = (Path(__file__).resolve().parents[2] / "docs" / "conformance.md").read_text()
    for _, case in CASES:
        line = next((ln for ln in page.splitlines() if f"`{case['source']['test']}`" in ln
                     and case["source"]["repository"] in ln), None)
        assert line is not None and f"| {case['verdict']}" in line, case["source"]["test"]
    assert "Inspector wrong" not in page.split("<!-- peers -->")[1]

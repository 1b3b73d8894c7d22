"""Do no harm on real traffic: every body in ``tests/corpus`` is a request a provider accepted
(HTTP 200, recorded in a public project's test suite; ``SOURCES.json`` names the repository,
path and commit, ``tests/corpus/build.py`` is how they were extracted).

For each body: detection picks its format (or refuses with the exit-2 error that names
``--from``); ``normalize`` in the same format gives it back JSON-equal, except where a MEM-5
clause changes it, and every such change is an event of a kind listed below; and the
provider's own check finds no error in the result.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from inspector.io import InputError
from inspector.pipeline import run
from inspector.targets import check

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SOURCES: dict[str, dict] = json.loads((CORPUS / "SOURCES.json").read_text())
FILES = sorted(SOURCES)

# The only changes a valid body may get: the MEM-5 clauses that act on accepted input.
MEM5_CHANGES = {
    "system-hoisted",        # clause 2: a mid-conversation system message goes to the top-level system field
    "call-redeclared",       # clause 3: an id declared twice (a provider accepts it; the literal rule cannot)
    "result-duplicate",      # clause 3: ... and the second result for it
    "turn-emptied",          # clause 3: ... and the turn left with nothing
    "call-unusable-id",      # clause 3: an id the literal rule cannot pair ('' or '0')
    "result-unusable-id",
}
# Import notes say how a body was read; they change nothing.
IMPORT_NOTES = {"id-derived", "id-reused", "item-carried", "result-server-call", "result-builtin-call",
                "compacted-before"}     # issue 31: what comes before a compaction is not sent
# Bodies a provider accepted that MEM-5 still repairs, each with why (checked exactly).
KNOWN_REPAIRS = {
    "anthropic/24bf3e51038a7732.json": (
        {"result-orphan", "result-synthesized"},
        "recorded in 2024 with a tool_result whose id the assistant turn never used: clause 3 drops the "
        "orphan and answers the call; today's API rejects that request"),
}


def _load(file: str):
    return json.loads((CORPUS / file).read_bytes())


def _outcome(file: str):
    fmt = SOURCES[file]["format"]
    doc = _load(file)
    try:
        outcome = run(doc, file, "auto")
    except InputError as err:                         # refused: the message must name the way out
        assert "--from" in str(err), str(err)
        outcome = run(doc, file, fmt)
    return doc, outcome


def _target_errors(outcome, target: str) -> list:
    """Errors ``check --target`` reports on the normalized result (warnings are not rejections)."""
    return [p for p in check(outcome, target) if p.severity == "error"]


def test_the_corpus_is_real_varied_and_sourced():
    formats = Counter(s["format"] for s in SOURCES.values())
    assert len(FILES) >= 300
    assert set(formats) >= {"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"}
    assert min(formats.values()) >= 40
    for file, src in SOURCES.items():
        assert (CORPUS / file).is_file(), file
        assert src["repository"].count("/") == 1 and len(src["commit"]) == 40 and src["path"], file
    with_results = sum(1 for f in FILES if any(
        mark in (CORPUS / f).read_text() for mark in
        ("tool_call_id", "function_call_output", "tool_result", "functionResponse", "toolResult")))
    assert with_results > len(FILES) / 2          # most bodies carry calls and their results


@pytest.mark.parametrize("file", FILES)
def test_body_is_detected_and_comes_back_unchanged_but_for_mem5(file):
    doc, outcome = _outcome(file)
    assert outcome.imported.format == SOURCES[file]["format"]
    engine = {e.kind for e in outcome.result.events}
    export = {e.kind for e in outcome.export_events}
    notes = {e.kind for e in outcome.imported.events}
    if file in KNOWN_REPAIRS:
        assert engine == KNOWN_REPAIRS[file][0] and outcome.exported != doc
        return
    assert engine <= MEM5_CHANGES, f"{file}: {engine - MEM5_CHANGES}"
    assert not export, f"{file}: the export changed it: {export}"
    assert notes <= IMPORT_NOTES, f"{file}: {notes - IMPORT_NOTES}"
    if outcome.exported != doc:
        assert engine, f"{file} changed with no event saying why"
    else:
        assert not engine, f"{file}: events {engine} but nothing changed"


# Bodies recorded against another server that speaks the format, whose own rules are laxer than
# the format's provider's (checked exactly): what OpenAI would refuse, and why that server did not.
OTHER_SERVER = {
    f"openai-responses/{body}.json": (
        {"reasoning-content", "item-id-prefix"},
        "sent to DeepSeek's Responses endpoint (api.deepseek.com), which takes back its own raw reasoning_text "
        "and UUID item ids; OpenAI refuses both (openai/codex #36551, #39125)")
    for body in ("b2318bced3ef0c0a", "f340130b0611cce5")}


@pytest.mark.parametrize("file", FILES)
def test_body_passes_its_providers_check(file):
    _, outcome = _outcome(file)
    errors = _target_errors(outcome, SOURCES[file]["format"])
    known = OTHER_SERVER.get(file, (set(), ""))[0]
    assert {p.rule for p in errors if p.rule in known} == known
    assert not [p for p in errors if p.rule not in known], [getattr(p, "rule", p) for p in errors]

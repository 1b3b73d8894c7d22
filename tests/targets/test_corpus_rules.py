"""Issue 20's rules on real traffic: every body in ``tests/corpus`` got an answer from the
provider that recorded it (``SOURCES.json`` names the endpoint), so no rule of that
provider's target may fire on it, warnings included; and run by every other target, they
find exactly the cross-provider refusals listed below, each with why."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse

import pytest

from inspector.io import InputError
from inspector.pipeline import run
from inspector.targets import RULES, TARGETS, check

from .cases import CASES

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SOURCES: dict[str, dict] = json.loads((CORPUS / "SOURCES.json").read_text())
FILES = sorted(SOURCES)

# The rules issue 20 added, by identity: a target built on openai-chat inherits its new ones.
ADDED = {id(r) for t, name in {(c[0], c[1]) for c in CASES} for r in RULES[t] if r.name == name}


def provider(file: str) -> str:
    """The target of the server that answered: the endpoint's host, read with the format."""
    src = SOURCES[file]
    host = urlparse(src["uri"]).hostname or ""
    fmt = src["format"]
    if fmt == "openai-chat":
        for name, domain in (("groq", "api.groq.com"), ("mistral", "api.mistral.ai"), ("deepseek", "api.deepseek.com")):
            if host == domain:
                return name
    return fmt


# Own-provider findings, checked exactly: (file, rule) -> why the body still got an answer.
KNOWN = {
    ("gemini/0076a51e1a8f5b79.json", "thought-signature-unknown-model"):
        "the body names no model (gemini-2.5-flash is in the URL); 2.5 signs its first call but does not require "
        "signatures, so the rule can only warn",
    **{(f"openai-responses/{body}.json", rule):
       "sent to DeepSeek's Responses endpoint (api.deepseek.com), which takes back its own raw reasoning_text and "
       "UUID item ids; OpenAI refuses both (openai/codex #36551, #39125)"
       for body in ("b2318bced3ef0c0a", "f340130b0611cce5") for rule in ("reasoning-content", "item-id-prefix")},
}
# Cross-provider findings, checked exactly: (target, rule, corpus folder) -> why that provider would refuse.
CROSS = {
    ("openai-chat", "tool-call-id-length", "openai-responses"): "Responses call ids run to 64 characters",
    ("openai-chat", "tool-call-id-length", "anthropic"): "a server tool_use id of 54 characters",
    ("groq", "assistant-content-not-string", "openai-chat"): "OpenAI accepts a list of text parts, Groq a string",
    ("groq", "thinking-fields", "openai-chat"): "OpenRouter-style reasoning_details that Groq refuses",
    ("mistral", "empty-assistant", "anthropic"): "a turn of server tools only has no text and no client call",
}
CHAT_FAMILY = ("xai", "groq", "deepseek", "vllm")       # they inherit openai-chat's tool-call-id-length


def _outcome(file: str):
    doc = json.loads((CORPUS / file).read_bytes())
    try:
        return run(doc, file, "auto")
    except InputError:
        return run(doc, file, SOURCES[file]["format"])


@pytest.fixture(scope="module")
def findings() -> dict[tuple[str, str, str], set[str]]:
    """(target, rule, file's folder) -> files, for every added rule that fires anywhere."""
    found: dict[tuple[str, str, str], set[str]] = {}
    for file in FILES:
        outcome = _outcome(file)
        for target in TARGETS:
            for p in check(outcome, target):
                rule = next(r for r in RULES[target] if r.name == p.rule)
                if id(rule) in ADDED:
                    found.setdefault((target, p.rule, file.split("/")[0]), set()).add(file)
    return found


def test_every_target_has_added_rules_and_each_is_one_rule():
    assert len(ADDED) == len({(c[0], c[1]) for c in CASES})      # no case names one rule twice
    assert all(any(id(r) in ADDED for r in RULES[t]) for t in TARGETS)


def test_no_added_rule_fires_on_a_body_its_own_provider_answered(findings):
    own = {(file, rule) for (target, rule, _), files in findings.items() for file in files
           if provider(file) == target}
    assert own == set(KNOWN), own ^ set(KNOWN)


def test_across_providers_they_find_exactly_the_known_refusals(findings):
    cross = {(t, r, folder) for (t, r, folder), files in findings.items()
             if any(provider(f) != t for f in files)}
    expected = set(CROSS) | {(t, "tool-call-id-length", folder) for t in CHAT_FAMILY
                             for (_, rule, folder) in CROSS if rule == "tool-call-id-length"}
    assert cross == expected, cross ^ expected

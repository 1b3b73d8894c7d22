"""Issue 31 item 7: signed-block hygiene. A thinking block sent twice is refused as modified;
an empty thinking text with its signature is a valid block; Gemini 4 needs thought
signatures as Gemini 3 does; the model that signed a turn is the one its message names."""

from __future__ import annotations

import copy

from inspector.pipeline import run
from inspector.targets import ERROR, check

from .cases import ENABLED, GRESULT, RESULT, THINK, USE, anthropic, gcall, gemini


def errors(doc, fmt, target=None):
    return {p.rule for p in check(run(copy.deepcopy(doc), "s.json", fmt), target or fmt) if p.severity == ERROR}


def test_a_duplicated_thinking_block_is_an_error_one_copy_is_not():
    twice = anthropic({"role": "assistant", "content": [THINK, THINK, USE]}, RESULT, thinking=ENABLED)
    once = anthropic({"role": "assistant", "content": [THINK, USE]}, RESULT, thinking=ENABLED)
    assert "thinking-duplicated" in errors(twice, "anthropic")
    assert errors(once, "anthropic") == set()


def test_an_empty_thinking_text_with_its_signature_is_valid():
    empty = {"type": "thinking", "thinking": "", "signature": "EqQBCkYIBxgCKkD"}
    doc = anthropic({"role": "assistant", "content": [empty, USE]}, RESULT, thinking=ENABLED)
    assert errors(doc, "anthropic") == set()


def test_gemini_4_needs_thought_signatures_as_gemini_3():
    assert "thought-signature" in errors(gemini(gcall(), GRESULT, model="gemini-4-pro"), "gemini")
    assert "thought-signature" not in errors(gemini(gcall(), GRESULT, model="gemini-2.5-pro"), "gemini")


def test_the_model_that_signed_is_the_one_its_message_names_not_the_requests():
    """Server-side fallback: the request asked for one model, another answered and signed;
    the message's own ``model`` is what the signature belongs to."""
    signed_by_fallback = {"role": "assistant", "model": "claude-sonnet-4-5", "content": [THINK, USE]}
    doc = anthropic(signed_by_fallback, RESULT, thinking=ENABLED)
    assert "signature-other-model" not in errors(doc, "anthropic")
    doc["model"] = "claude-opus-4-1"
    assert "signature-other-model" in errors(doc, "anthropic")

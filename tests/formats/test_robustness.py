"""Odd input never crashes an importer or exporter: anything that is not an InputError
would be a traceback in front of the user."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.engine import normalize
from inspector.formats import FORMATS, export_history, import_history
from inspector.io import InputError

KEYS = st.sampled_from(["role", "content", "type", "text", "id", "tool_use_id", "tool_calls", "function", "name",
                        "arguments", "input", "call_id", "output", "parts", "functionCall", "functionResponse",
                        "toolUse", "toolResult", "toolUseId", "tool_call_id", "response", "args", "thought"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2),
                    st.sampled_from(["user", "assistant", "model", "tool", "system", "function_call", "tool_use",
                                     "tool_result", "function_call_output", "reasoning", "message", "text", "a", "0", ""]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(KEYS, inner, max_size=5)), max_leaves=25)
DOCS = st.one_of(st.lists(VALUES, max_size=6),
                 st.dictionaries(st.sampled_from(["messages", "input", "contents", "system", "systemInstruction"]),
                                  VALUES, max_size=3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS, st.sampled_from(["auto", *FORMATS]), st.sampled_from(["same", *FORMATS]))
def test_any_document_imports_and_exports_or_fails_cleanly(doc, fmt, to):
    try:
        im = import_history(doc, "x.json", fmt)
    except InputError:
        return
    result = normalize(im.messages, extensions=("strict",))
    export_history(im, result, to)
    assert len(im.sources) == len(im.messages) == len(im.calls)
    for i in range(len(im.messages)):
        im.where(i)
        im.original(i)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS, st.sampled_from(FORMATS), st.sampled_from(["same", *FORMATS]))
def test_an_exported_history_is_a_fixed_point(doc, fmt, to):
    """Read back in its own format, the export needs no repair and exports to itself."""
    from inspector.engine import normalize

    try:
        im = import_history(doc, "x.json", fmt)
    except InputError:
        return
    out = export_history(im, normalize(im.messages), to).document
    back = import_history(out, "back.json", fmt if to == "same" else to)
    again = normalize(back.messages)
    assert not [e for e in again.events if e.drop]
    assert export_history(back, again, "same").document == out

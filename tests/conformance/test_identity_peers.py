"""Issue 30: peers' own test cases on call identity, each run through Inspector in the provider
format the peer's history maps to. Each test names the peer's test (repository, path, name,
commit) and says where Inspector agrees or, by this project's reading
(``../shared/spec/semantics.md``, "Identity in provider formats and stores"), differs.
Each case where Inspector now agrees failed before issue 30 (the old code dropped a real result
or pair, or moved a result onto another call); the two where this project's reading keeps
clause 3 (a dangling reuse, a second declaration while the first is open) pass on both and
guard that reading.
"""

from __future__ import annotations

import orjson

from inspector.engine import INTERRUPTED
from inspector.pipeline import run


def _call(cid, city):
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": "get_weather", "arguments": orjson.dumps({"city": city}).decode()}}]}


def _result(cid, text):
    return {"role": "tool", "tool_call_id": cid, "content": text}


def _chat(*messages, strict=False):
    return run(orjson.dumps({"messages": list(messages)}), "peer.json", fmt="openai-chat", strict=strict)


def _tools(out):
    return [(m["tool_call_id"], m["content"]) for m in out.exported["messages"] if m.get("role") == "tool"]


def test_pydantic_reused_id_dangling_later_call_keeps_the_earlier_pair():
    """pydantic/pydantic-ai @ 4fda38988f2939fa6ea9cdefcf120693e10ef491, tests/test_transcript_repair.py
    ::test_reused_tool_call_id_dangling_call_repaired: the answered Mexico City call is untouched;
    the later Amsterdam call reusing ``call_1`` gets an interrupted result. Inspector agrees on the
    earlier pair; it differs on the later call, which has no result of its own, so it is no pair
    and clause 3 drops it as a redeclaration (this project's reading: a later *pair* gets an
    identity of its own). No real result is lost, and the output is a fixed point."""
    out = _chat({"role": "user", "content": "What is the weather?"}, _call("call_1", "Mexico City"),
                _result("call_1", "Sunny"), _call("call_1", "Amsterdam"),
                {"role": "user", "content": "Never mind."}, {"role": "assistant", "content": "OK."})
    msgs = out.exported["messages"]
    assert [m["tool_calls"][0]["function"]["arguments"] for m in msgs if m.get("tool_calls")] == [
        '{"city":"Mexico City"}']
    assert _tools(out) == [("call_1", "Sunny")]
    assert [e.kind for e in out.result.events] == ["call-redeclared", "turn-emptied"]
    assert not run(out.data, "again.json", fmt="openai-chat").changed


def test_pydantic_reused_id_with_its_own_result_is_a_pair_of_its_own():
    """The same history as pydantic-ai's test above, with the Amsterdam call answered ("Rainy"):
    both pairs are kept and the body comes back as it was (before: clause 3 dropped the Amsterdam
    call and "Rainy" as a redeclaration and a duplicate)."""
    body = {"messages": [{"role": "user", "content": "What is the weather?"}, _call("call_1", "Mexico City"),
                         _result("call_1", "Sunny"), _call("call_1", "Amsterdam"), _result("call_1", "Rainy")]}
    data = orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"
    out = run(data, "peer.json", fmt="openai-chat")
    assert out.result.events == [] and out.data == data


def test_pydantic_shadowed_open_call_never_gets_the_later_calls_result():
    """pydantic/pydantic-ai @ 4fda38988f2939fa6ea9cdefcf120693e10ef491, tests/test_transcript_repair.py
    ::test_reused_tool_call_id_shadowed_open_call_repaired: Mexico City's call is still
    open when Amsterdam's reuses ``call_1``; "Rainy" answers Amsterdam, and Mexico City gets an
    interrupted result. Inspector agrees that "Rainy" never answers Mexico City and that Mexico
    City is answered as interrupted (--strict); it differs on the Amsterdam call, which this
    project's reading drops with its result as a redeclaration of an open id (clause 3).
    (Before: --strict moved "Rainy" next to the Mexico City call.)"""
    out = _chat({"role": "user", "content": "What is the weather?"}, _call("call_1", "Mexico City"),
                {"role": "user", "content": "In Amsterdam, I mean."}, _call("call_1", "Amsterdam"),
                _result("call_1", "Rainy"), {"role": "assistant", "content": "Rainy!"}, strict=True)
    assert _tools(out) == [("call_1", INTERRUPTED)]
    assert out.exported["messages"][2] == {"role": "tool", "tool_call_id": "call_1", "content": INTERRUPTED}
    assert "strict-other-call" in [e.kind for e in out.result.events]


def test_pydantic_deferred_call_late_result_beats_the_placeholder():
    """pydantic/pydantic-ai @ 4fda38988f2939fa6ea9cdefcf120693e10ef491, tests/test_transcript_repair.py
    ::test_deferred_run_history_not_silently_repaired: a deferred call stays open in the
    stored history and only the copy sent gets a placeholder, so its real result can still come.
    Here the placeholder was written (an earlier repair) and the real result came later: the real
    one answers the call (before: it was dropped as a duplicate of the placeholder)."""
    out = _chat({"role": "user", "content": "Create the file."}, _call("call_file", "x"),
                _result("call_file", INTERRUPTED), {"role": "user", "content": "Approved."},
                _result("call_file", "created"), strict=True)
    assert _tools(out) == [("call_file", "created")]
    assert "result-superseded" in [e.kind for e in out.imported.events]


def test_deerflow_reused_ids_across_ai_turns_keep_their_own_results():
    """bytedance/deer-flow @ f1f4af99bbf1cffb83a80744bf6e4a44ee8f24be, backend/tests/test_dangling_tool_call_middleware.py
    ::test_reused_tool_call_ids_across_ai_turns_keep_their_own_tool_results: a later
    turn reuses ``web_search:11`` after its pair is complete; nothing is patched. Inspector agrees:
    the body comes back byte for byte (before: the later call and its result were dropped)."""
    def calls(*ids):
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "web_search", "arguments": "{}"}} for i in ids]}
    body = {"messages": [
        {"role": "user", "content": "summary"}, calls("web_search:11", "web_search:12", "web_search:13"),
        _result("web_search:11", "a"), _result("web_search:12", "b"), _result("web_search:13", "c"),
        calls("web_search:9", "web_search:10", "web_search:11"),
        _result("web_search:9", "d"), _result("web_search:10", "e"), _result("web_search:11", "f")]}
    data = orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"
    out = run(data, "peer.json", fmt="openai-chat")
    assert out.result.events == [] and not out.changed and out.data == data


def test_deerflow_empty_ids_pair_in_order_with_the_results_after_them():
    """bytedance/deer-flow @ f1f4af99bbf1cffb83a80744bf6e4a44ee8f24be, backend/tests/test_dangling_tool_call_middleware.py
    ::test_empty_tool_call_id_keeps_its_paired_tool_result and
    ::test_multiple_empty_ids_get_distinct_ids_and_pair_in_order: calls with empty ids keep the
    results right after them, in order, under distinct ids. Inspector agrees, and writes the
    empty ids back as they were (before: both calls and both results were dropped)."""
    body = {"messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "", "type": "function", "function": {"name": "bash", "arguments": "{}"}},
            {"id": "", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        _result("", "first"), _result("", "second")]}
    out = run(orjson.dumps(body), "peer.json", fmt="openai-chat")
    assert out.result.events == [] and not out.changed
    derived = [e.tool_call_id for e in out.imported.events if e.kind == "id-derived"]
    assert len(derived) == 2 and len(set(derived)) == 2
    calls = out.imported.messages[1]["tool_calls"]
    assert [c["tool_call_id"] for c in calls] == derived
    assert [(m["tool_call_id"], m["content"]) for m in out.imported.messages[2:]] == list(zip(derived, ["first", "second"]))


def test_deerflow_reused_id_consumes_the_later_result_for_the_first_open_call():
    """bytedance/deer-flow @ f1f4af99bbf1cffb83a80744bf6e4a44ee8f24be, backend/tests/test_dangling_tool_call_middleware.py
    ::test_reused_tool_call_id_consumes_later_result_for_first_dangling_occurrence: two calls
    with one id, the first still open, then one result: the result answers the first call.
    Inspector agrees (clause 3: the first declaration owns the pairing; the second is dropped,
    where deer-flow answers it with an error) and, with --strict, keeps the result where it is."""
    out = _chat(_call("web_search:11", "a"), _call("web_search:11", "b"), _result("web_search:11", "ok"))
    assert _tools(out) == [("web_search:11", "ok")]
    assert [e.kind for e in out.result.events] == ["call-redeclared", "turn-emptied"]


def test_adk_final_response_of_a_long_running_call_replaces_the_placeholder():
    """zhangp365/adk-python (a fork of google/adk-python) @ a30851ee, tests/unittests/flows/llm_flows/test_contents_function.py
    ::test_rearrangement_with_intermediate_function_response: the final response of a
    long-running call replaces the earlier one. Inspector does this where the earlier response is
    a placeholder it recognizes (here its own, as it writes one in Gemini), keeping the real
    final response (before: the real one was dropped as a duplicate)."""
    body = {"contents": [
        {"role": "user", "parts": [{"text": "Run long process"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "long_call_123", "name": "long_running_tool",
                                                      "args": {"task": "process"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "long_call_123", "name": "long_running_tool",
                                                         "response": {"error": INTERRUPTED}}}]},
        {"role": "model", "parts": [{"text": "Still processing..."}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "long_call_123", "name": "long_running_tool",
                                                         "response": {"status": "completed", "result": "done"}}}]}]}
    out = run(orjson.dumps(body), "peer.json", fmt="gemini", strict=True)
    responses = [p["functionResponse"]["response"] for c in out.exported["contents"] for p in c["parts"]
                 if "functionResponse" in p]
    assert responses == [{"status": "completed", "result": "done"}]
    assert out.exported["contents"][2]["parts"][0]["functionResponse"]["response"]["result"] == "done"

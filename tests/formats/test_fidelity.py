"""Do no harm (issue #9) and hostile Gemini input (issue #12): what the provider holds or runs
itself is carried through untouched, hoisting keeps blocks, every export change is an event,
and ``--strict`` repairs Anthropic's text-after-tool_use shape."""

from __future__ import annotations

import copy
import json

from inspector.pipeline import run
from inspector.targets import check

from .fixtures import CLEAN, clone


def kinds(events):
    return [e.kind for e in events]


def target_errors(outcome, target):
    """Errors the provider check reports (warnings are not rejections)."""
    return [p for p in check(outcome, target) if p.severity == "error"]


# -- 1. server-side state (Responses) --------------------------------------------------------

def test_results_for_server_held_calls_are_kept_with_a_note():
    doc = {"conversation": "conv_01", "model": "gpt-4.1",
           "input": [{"type": "function_call_output", "call_id": "call_01", "output": "x"}]}
    out = run(copy.deepcopy(doc), "t.json", "openai-responses")
    assert out.exported == doc and not out.result.events
    note, = out.imported.events
    assert note.kind == "result-server-call" and note.tool_call_id == "call_01" and "conversation" in note.message
    assert out.imported.messages == []          # not an orphan for the engine: it never sees it


def test_item_references_stand_for_server_held_calls_too():
    doc = {"input": [{"type": "item_reference", "id": "fc_stored"},
                     {"type": "function_call_output", "call_id": "call_stored", "output": "x"}]}
    out = run(copy.deepcopy(doc), "t.json", "openai-responses")
    assert out.exported == doc and not out.result.events
    assert kinds(out.imported.events) == ["result-server-call"]


def test_a_function_output_answering_a_client_run_tool_search_is_kept():
    doc = {"input": [{"role": "user", "content": "find the tool"},
                     {"type": "tool_search_call", "call_id": "search_1", "execution": "client",
                      "arguments": {"queries": ["rates"]}, "status": "completed"},
                     {"type": "function_call_output", "call_id": "search_1", "output": "found"}]}
    out = run(copy.deepcopy(doc), "t.json", "openai-responses")
    assert out.exported == doc and not out.result.events
    note, = out.imported.events
    assert note.kind == "result-builtin-call" and "tool_search_call at input[1]" in note.message


def test_without_server_state_the_same_result_is_an_orphan():
    doc = {"model": "gpt-4.1", "input": [{"role": "user", "content": "hi"},
                                         {"type": "function_call_output", "call_id": "call_01", "output": "x"}]}
    out = run(doc, "t.json", "openai-responses")
    assert kinds(out.result.events) == ["result-orphan"]
    assert out.exported["input"] == [{"role": "user", "content": "hi"}]


def test_server_held_results_keep_their_place_around_repairs():
    held = {"type": "function_call_output", "call_id": "call_srv", "output": "from before"}
    call = {"type": "function_call", "call_id": "call_A", "name": "f", "arguments": "{}"}
    user = {"role": "user", "content": "next"}
    doc = {"previous_response_id": "resp_1", "input": [held, call, user]}
    out = run(copy.deepcopy(doc), "t.json", "openai-responses")
    assert kinds(out.result.events) == ["result-synthesized"]
    items = out.exported["input"]
    assert items[:2] == [held, call] and items[3] == user
    assert items[2]["type"] == "function_call_output" and items[2]["call_id"] == "call_A"


# -- 2. hoisting carries blocks as they are ----------------------------------------------------

def test_hoisted_system_message_keeps_its_non_text_blocks():
    block = {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "lookup"}}
    doc = {"system": [{"type": "text", "text": "Be brief."}], "messages": [
        {"role": "user", "content": "hi"}, {"role": "system", "content": [block]},
        {"role": "assistant", "content": "hello"}]}
    out = run(copy.deepcopy(doc), "t.json", "anthropic")
    assert kinds(out.result.events) == ["system-hoisted"]
    assert out.exported["system"] == [{"type": "text", "text": "Be brief."}, block]
    assert [m["role"] for m in out.exported["messages"]] == ["user", "assistant"]


# -- 4. tools the provider runs itself ----------------------------------------------------------

ANTHROPIC_SERVER_TOOLS = {"model": "claude-sonnet-4-5", "max_tokens": 512, "messages": [
    {"role": "user", "content": "news?"},
    {"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "news"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
        {"type": "server_tool_use", "id": "srvtoolu_02", "name": "code_execution", "input": {"code": "1+1"}},
        {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_02", "content": {"stdout": "2"}},
        {"type": "text", "text": "Nothing new."}]},
    {"role": "user", "content": "thanks"}]}

BEDROCK_SERVER_TOOLS = {"messages": [
    {"role": "user", "content": [{"text": "1234 * 5678?"}]},
    {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "tooluse_srv", "name": "nova_code_interpreter", "input": {"snippet": "1234*5678"},
                     "type": "server_tool_use"}},
        {"toolResult": {"toolUseId": "tooluse_srv", "content": [{"json": {"stdOut": "7006652"}}],
                        "type": "nova_code_interpreter_result", "status": "success"}},
        {"text": "7006652"}]},
    {"role": "user", "content": [{"text": "times 2?"}]}]}

RESPONSES_BUILTINS = {"model": "gpt-5", "input": [
    {"role": "user", "content": "find it"},
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}},
    {"type": "tool_search_call", "id": "ts_1", "call_id": "call_ts", "arguments": {"q": "x"}, "status": "completed"},
    {"type": "tool_search_output", "id": "tso_1", "call_id": "call_ts", "tools": []},
    {"type": "code_interpreter_call", "id": "ci_1", "code": "1+1", "container_id": "c", "outputs": []},
    {"type": "function_call", "call_id": "call_fn", "name": "lookup", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_fn", "output": "ok"},
    {"role": "assistant", "content": [{"type": "output_text", "text": "done"}]}]}


def test_provider_side_tools_are_carried_untouched():
    for fmt, doc in (("anthropic", ANTHROPIC_SERVER_TOOLS), ("bedrock", BEDROCK_SERVER_TOOLS),
                     ("openai-responses", RESPONSES_BUILTINS)):
        out = run(copy.deepcopy(doc), "t.json", fmt)
        assert out.exported == doc, fmt
        assert not out.result.events and not out.export_events, fmt
        assert not target_errors(out, fmt), fmt
        calls = [c["tool_call_id"] for m in out.imported.messages for c in m.get("tool_calls") or ()]
        assert calls == (["call_fn"] if fmt == "openai-responses" else []), fmt


# -- 5. unknown Responses items -------------------------------------------------------------------

def test_unknown_responses_items_stay_in_their_turn_and_never_become_a_role():
    doc = {"model": "gpt-5", "input": [
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "abc"},
        {"role": "user", "content": "go on"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "future_item", "id": "fi_1", "payload": {"x": 1}},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"}]}
    out = run(copy.deepcopy(doc), "t.json", "openai-responses")
    assert out.exported == doc and not out.result.events
    assert {m["role"] for m in out.imported.messages} == {"user", "assistant", "tool"}
    assert not target_errors(out, "openai-responses")
    # compaction is known (issue 31): carried as it is, with what comes before it not sent
    assert kinds(out.imported.events) == ["item-carried", "compacted-before"]
    assert out.imported.sources[1].items == (2, 3)          # the unknown item is part of the call's turn


# -- 9. every change an export makes is an event -------------------------------------------------

def test_gemini_one_response_contents_are_not_merged():
    doc = {"contents": [
        {"role": "user", "parts": [{"text": "two lookups"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}, {"functionCall": {"name": "b", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {"r": 1}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "b", "response": {"r": 2}}}]}]}
    out = run(copy.deepcopy(doc), "t.json", "gemini")
    assert out.exported == doc and not out.export_events


def test_bedrock_merging_consecutive_user_messages_is_an_export_event():
    doc = {"messages": [{"role": "user", "content": [{"text": "a"}]}, {"role": "user", "content": [{"text": "b"}]},
                        {"role": "assistant", "content": [{"text": "c"}]}]}
    out = run(copy.deepcopy(doc), "t.json", "bedrock")
    assert out.exported["messages"][0] == {"role": "user", "content": [{"text": "a"}, {"text": "b"}]}
    event, = out.export_events
    assert (event.stage, event.clause, event.kind) == ("export", "export", "export-merged")
    assert "messages[0], messages[1]" in event.message and "alternate" in event.message
    assert (event.origin, event.cause) == (1, 0)


def test_export_to_a_block_format_says_which_rows_it_merged():
    out = run(clone(CLEAN["openai-chat"]), "t.json", "openai-chat", to="anthropic")
    event, = out.export_events
    assert event.kind == "export-merged" and "row 3, row 4" in event.message
    assert len(out.exported["messages"][2]["content"]) == 2


def test_converting_names_what_the_target_cannot_hold():
    out = run(clone(CLEAN["anthropic"]), "t.json", "anthropic", to="openai-chat")
    event, = out.export_events
    assert event.kind == "export-omitted" and "messages[1].content[0]" in event.message   # the thinking block
    builtins = run(copy.deepcopy(RESPONSES_BUILTINS), "t.json", "openai-responses", to="anthropic")
    lost = [e for e in builtins.export_events if e.kind == "export-omitted"]
    # The built-in items in one event; the reasoning item in one of its own (issue 20).
    blocks, = [e for e in lost if e.message.startswith("4 block(s) or item(s)")]
    thought, = [e for e in lost if "reasoning" in e.message and e is not blocks]
    assert len(lost) == 2 and "input[1]" in thought.message
    assert all(f"input[{k}]" in blocks.message for k in range(2, 6))


# -- 10. text after tool_use (Anthropic) ----------------------------------------------------------

TEXT_AFTER = {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "w", "input": {}},
        {"type": "text", "text": "One moment."},
        {"type": "tool_use", "id": "toolu_2", "name": "w", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"},
                                 {"type": "tool_result", "tool_use_id": "toolu_2", "content": "20C"}]}]}


def test_strict_moves_text_after_the_first_tool_use_ahead_of_it():
    plain = run(copy.deepcopy(TEXT_AFTER), "t.json", "anthropic")
    assert plain.exported == TEXT_AFTER                      # without --strict: as it was (check reports it)
    out = run(copy.deepcopy(TEXT_AFTER), "t.json", "anthropic", strict=True)
    blocks = out.exported["messages"][1]["content"]
    assert [b.get("text") or b["id"] for b in blocks] == ["Checking.", "One moment.", "toolu_1", "toolu_2"]
    event, = out.export_events
    assert (event.clause, event.kind, event.origin) == ("strict:text-after-tool-use", "text-after-tool-use", 1)
    assert "messages[1].content[2]" in event.message
    again = run(out.exported, "t.json", "anthropic", strict=True)
    assert again.exported == out.exported and not again.export_events


def test_export_to_anthropic_never_writes_text_after_tool_use():
    out = run(clone(CLEAN["openai-chat"]), "t.json", "openai-chat", to="anthropic")
    for m in out.exported["messages"]:
        types = [b["type"] for b in m["content"]] if isinstance(m["content"], list) else []
        if "tool_use" in types:
            assert all(t == "tool_use" for t in types[types.index("tool_use"):])


# -- issue #12: hostile Gemini input ---------------------------------------------------------------

def test_gemini_tool_role_and_null_parts_do_not_crash():
    for doc in ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "tool", "parts": [{"text": "x"}]}]},
                {"contents": [{"role": "tool", "parts": [None]}]},
                {"contents": [{"role": "model", "parts": [None, {"functionCall": {"name": "f", "args": {}}}]}]}):
        out = run(copy.deepcopy(doc), "t.json", "gemini")
        json.dumps(out.exported)
        assert run(out.exported, "t.json", "gemini").exported == out.exported


def test_gemini_name_nested_a_thousand_deep_does_not_recurse():
    name = "x"
    for _ in range(1000):
        name = [name]
    doc = {"contents": [{"role": "model", "parts": [{"functionCall": {"name": name, "args": {}}}]}]}
    out = run(doc, "t.json", "gemini")
    assert kinds(out.result.events) == ["result-synthesized"]
    assert out.imported.messages[0]["tool_calls"][0]["tool_call_id"] == "call-0-0"


def test_gemini_call_named_with_a_non_string_converges():
    doc = {"contents": [{"role": "user", "parts": [{"text": "hi"}]},
                        {"role": "model", "parts": [{"functionCall": {"name": {"a": 1}, "args": {}}}]}]}
    first = run(doc, "t.json", "gemini")
    assert first.exported["contents"][2]["parts"][0]["functionResponse"]["name"] == {"a": 1}
    second = run(first.exported, "t.json", "gemini")
    assert not second.result.events and second.exported == first.exported


def test_carried_items_stay_put_when_a_system_message_is_hoisted():
    doc = {"previous_response_id": "resp_1", "input": [
        {"role": "user", "content": "a"},
        {"type": "function_call_output", "call_id": "call_srv", "output": "held"},
        {"type": "compaction", "id": "cmp", "encrypted_content": "x"},
        {"role": "user", "content": "b"},
        {"role": "system", "content": "late"},
        {"type": "function_call_output", "call_id": "call_srv2", "output": "held too"}]}
    out = run(copy.deepcopy(doc), "t.json", "openai-responses")
    items = doc["input"]
    assert kinds(out.result.events) == ["system-hoisted"]
    assert out.exported["input"] == [items[4], items[0], items[1], items[2], items[3], items[5]]


def test_converting_consecutive_assistant_rows_writes_one_turn_with_text_first():
    """Converted to Anthropic, an assistant row with a call and the assistant row after it
    form one message, text ahead of the call: the API combines them, and text after a
    tool_use is rejected. The merge is an export event."""
    from inspector.pipeline import run
    from inspector.targets import check

    history = [{"role": "user", "content": "q"},
               {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "call_1", "name": "f"}]},
               {"role": "assistant", "content": "t"},
               {"role": "tool", "content": "r", "tool_call_id": "call_1"}]
    outcome = run(history, "h", "flat", to="anthropic")
    turn = outcome.exported["messages"][1]
    assert [b["type"] for b in turn["content"]] == ["text", "tool_use"]
    assert [e.kind for e in outcome.export_events if e.kind == "export-merged"] == ["export-merged"]
    written = run(outcome.exported, "w", "anthropic")
    assert not [p for p in check(written, "anthropic") if p.rule == "text-after-tool-use"]

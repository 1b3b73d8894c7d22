"""Issue 31 item 3: Responses calls the client runs are answered like function calls: the
API refuses one without its output ("No tool output found for local shell call call_...",
openai/openai-agents-python #1855), so ``check`` names it and ``normalize`` writes an
interrupted output of the call's own item type after its turn, one event each."""

from __future__ import annotations

import copy

import pytest

from inspector.pipeline import run
from inspector.targets import check, failed

CALLS = {
    "local_shell_call": ({"type": "local_shell_call", "id": "lsh_1", "call_id": "call_1",
                          "action": {"type": "exec", "command": ["ls"]}, "status": "completed"},
                         "local_shell_call_output", "call_id"),
    "shell_call": ({"type": "shell_call", "id": "sh_1", "call_id": "call_1",
                    "action": {"commands": ["ls"]}, "status": "completed"}, "shell_call_output", "call_id"),
    "apply_patch_call": ({"type": "apply_patch_call", "id": "apc_1", "call_id": "call_1", "status": "completed",
                          "operation": {"type": "update_file", "path": "a.py", "diff": "@@"}},
                         "apply_patch_call_output", "call_id"),
    "tool_search_call": ({"type": "tool_search_call", "id": "ts_1", "call_id": "call_1", "execution": "client",
                          "arguments": {"query": "pay"}, "status": "completed"}, "tool_search_output", "call_id"),
    "mcp_approval_request": ({"type": "mcp_approval_request", "id": "call_1", "server_label": "docs",
                              "name": "ask", "arguments": "{}"}, "mcp_approval_response", "approval_request_id"),
}


def body(*items):
    return {"model": "gpt-5", "input": [{"role": "user", "content": "Tidy the repo."}, *items,
                                        {"role": "user", "content": "And now?"}]}


@pytest.mark.parametrize("kind", CALLS)
def test_an_unanswered_client_call_is_named_and_answered_with_its_own_output_type(kind):
    call, output, key = CALLS[kind]
    doc = body(call)
    out = run(copy.deepcopy(doc), "r.json", "openai-responses")
    problems = [p for p in check(out, "openai-responses") if "client-call" in p.rule]
    (p,) = problems
    assert p.where == "input[1]" and p.error.startswith("No tool output found for ") and p.error.endswith(" call_1.")
    (event,) = [e for e in out.export_events if e.kind == "client-call-answered"]
    assert "No tool output found" in event.message and "Side effects unknown" in event.message
    sent = out.exported["input"]
    assert sent[1] is not None and sent[2]["type"] == output and sent[2][key] == "call_1"
    again = run(out.data, "r2.json", "openai-responses")
    assert not failed(check(again, "openai-responses")) and not again.changed
    assert doc == body(call)                          # the input is not edited


def test_an_answered_call_and_a_server_run_tool_search_are_left_alone():
    call, _, _ = CALLS["local_shell_call"]
    answered = body(call, {"type": "local_shell_call_output", "call_id": "call_1", "output": "a.py"})
    server = body({**CALLS["tool_search_call"][0], "execution": "server"})
    for doc in (answered, server):
        out = run(copy.deepcopy(doc), "r.json", "openai-responses")
        assert out.export_events == [] and not out.changed
        assert not [p for p in check(out, "openai-responses") if "client-call" in p.rule]


def test_a_computer_call_is_reported_not_answered():
    """Its output is a screenshot only the client can take: reported (a warning), left as it is."""
    call = {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "action": {"type": "screenshot"},
            "status": "completed"}
    out = run(copy.deepcopy(body(call)), "r.json", "openai-responses")
    assert [p.severity for p in check(out, "openai-responses") if "client-call" in p.rule] == ["warning"]
    assert out.export_events == []


def test_the_output_follows_the_whole_model_turn():
    call, _, _ = CALLS["local_shell_call"]
    fcall = {"type": "function_call", "id": "fc_1", "call_id": "call_2", "name": "f", "arguments": "{}"}
    fout = {"type": "function_call_output", "call_id": "call_2", "output": "ok"}
    out = run(copy.deepcopy(body(call, fcall, fout)), "r.json", "openai-responses")
    assert [i.get("type") for i in out.exported["input"]] == [
        None, "local_shell_call", "function_call", "local_shell_call_output", "function_call_output", None]

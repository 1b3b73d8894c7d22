"""``check --target``: every provider rule fires on the case it describes, with the
provider's own error text, and stays quiet on a history the provider accepts."""

from __future__ import annotations

import pytest

from inspector.engine import normalize
from inspector.engine.targets import NOT_CHECKED, RULES, TARGETS, check_target


def A(*ids, text=""):
    return {"role": "assistant", "content": text, "tool_calls": [{"tool_call_id": i, "name": "f"} for i in ids]}


def T(cid, text="r"):
    return {"role": "tool", "content": text, "tool_call_id": cid}


def U(text="u"):
    return {"role": "user", "content": text}


SYS = {"role": "system", "content": "s"}
GOOD = [SYS, U(), A("abcDEF123", "xyz987654"), T("abcDEF123"), T("xyz987654"),
        {"role": "assistant", "content": "done"}, U()]

# (target, rule, history, the provider's error text for it)
CASES = [
    ("openai-chat", "empty-tool-calls", [U(), {"role": "assistant", "content": "x", "tool_calls": []}],
     "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, but got an empty "
     "array instead."),
    ("openai-chat", "duplicate-tool-call-id", [U(), A("c1"), T("c1"), T("c1")],
     "Invalid parameter: Duplicate value for 'tool_call_id' of 'c1', in messages[2] and messages[3]."),
    ("openai-chat", "tool-calls-unanswered", [U(), A("c1", "c2"), T("c1"), U("go on"), T("c2")],
     "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
     "'tool_call_id'. The following tool_call_ids did not have response messages: c2"),
    ("openai-chat", "tool-without-calls", [U(), A("c1"), T("c1"), U(), T("c1")],
     "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."),
    ("openai-chat", "tool-call-id-not-found", [U(), A("c1"), A("c2"), T("c1"), T("c2")],
     "Invalid parameter: 'tool_call_id' of 'c1' not found in 'tool_calls' of previous message."),
    ("openai-chat", "unknown-role", [U(), {"role": "critic", "content": "x"}],
     "Invalid value: 'critic'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and "
     "'developer'."),
    ("openai-responses", "output-without-call", [U(), T("c1"), A("c1"), T("c1", "late")],
     "No tool call found for function call output with call_id c1."),
    ("openai-responses", "call-without-output", [U(), A("c1")], "No tool output found for function call c1."),
    ("openai-responses", "unknown-role", [{"role": "tool_user", "content": ""}, {"role": "critic", "content": ""}],
     "Invalid value: 'critic'. Supported values are: 'assistant', 'system', 'developer', and 'user'."),
    ("anthropic", "tool-use-without-result", [U(), A("toolu_1"), U("wait"), T("toolu_1")],
     "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each "
     "`tool_use` block must have a corresponding `tool_result` block in the next message."),
    ("anthropic", "result-without-tool-use", [U(), A("toolu_1"), T("toolu_1"), {"role": "assistant", "content": "k"},
                                              U(), T("toolu_1")],
     "messages.4.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` "
     "block must have a corresponding `tool_use` block in the previous message."),
    ("anthropic", "tool-use-id-pattern", [U(), A("call:1"), T("call:1")],
     "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    ("anthropic", "unknown-role", [U(), {"role": "developer", "content": "x"}],
     "messages.0.role: Input should be 'user' or 'assistant'"),
    ("bedrock", "first-not-user", [SYS, {"role": "assistant", "content": "hello"}, U()],
     "A conversation must start with a user message. Try again with a conversation that starts with a user message."),
    ("bedrock", "not-alternating", [U(), {"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}],
     "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
     "between user and assistant roles and try again."),
    ("bedrock", "tool-use-without-result", [U(), A("t1", "t2"), T("t1")],
     "Expected toolResult blocks at messages.2.content for the following Ids: t2"),
    ("bedrock", "too-many-results", [U(), A("t1"), T("t1"), {"role": "assistant", "content": "k"}, T("t1")],
     "The number of toolResult blocks at messages.4.content exceeds the number of toolUse blocks of previous turn."),
    ("bedrock", "tool-use-id", [U(), A("t" * 65), T("t" * 65)],
     f"1 validation error detected: Value '{'t' * 65}' at 'messages.2.member.content.1.member.toolUse.toolUseId' "
     "failed to satisfy constraint: Member must have length less than or equal to 64"),
    ("bedrock", "unknown-role", [U(), {"role": "developer", "content": "x"}],
     "1 validation error detected: Value 'developer' at 'messages.1.member.role' failed to satisfy constraint: "
     "Member must satisfy enum value set: [user, assistant]"),
    ("gemini", "call-turn-position", [SYS, A("f1"), T("f1")],
     "Please ensure that function call turn comes immediately after a user turn or after a function response turn."),
    ("gemini", "response-turn-position", [U(), {"role": "assistant", "content": "x"}, T("f1")],
     "Please ensure that function response turn comes immediately after a function call turn."),
    ("gemini", "response-count", [U(), A("f1", "f2"), T("f1")],
     "Please ensure that the number of function response parts is equal to the number of function call parts of "
     "the function call turn."),
    ("gemini", "unknown-role", [U(), {"role": "function_caller", "content": ""}], "Please use a valid role: user, model."),
    ("mistral", "calls-responses-mismatch", [U(), A("abcDEF123", "xyz987654"), T("abcDEF123")],
     "Not the same number of function calls and responses"),
    ("mistral", "tool-call-id-format", [U(), A("call_abc"), T("call_abc")],
     "Tool call id was call_abc but must be a-z, A-Z, 0-9, with a length of 9."),
    ("mistral", "user-after-tool", [U(), A("abcDEF123"), T("abcDEF123"), U()],
     "Unexpected role 'user' after role 'tool'"),
    ("mistral", "tool-after-user", [U(), A("abcDEF123"), U(), T("abcDEF123")],
     "Unexpected role 'tool' after role 'user'"),
]


@pytest.mark.parametrize("target,rule,history,error", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_rule_reports_the_provider_error_text(target, rule, history, error):
    problems = [p for p in check_target(history, target) if p.rule == rule]
    assert problems, check_target(history, target)
    assert error in [p.error for p in problems]
    assert all(p.fix for p in problems)


def test_every_listed_rule_has_a_case():
    covered = {(c[0], c[1]) for c in CASES}
    assert covered == {(t, r) for t, rules in RULES.items() for r in rules}
    assert NOT_CHECKED


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "mistral"])
def test_an_accepted_history_has_no_problem(target):
    assert check_target(GOOD, target) == []


def test_mistral_accepts_a_turn_after_tool_results_and_9_char_ids():
    history = [U(), A("abcDEF123"), T("abcDEF123"), {"role": "assistant", "content": "ok"}, U()]
    assert check_target(history, "mistral") == []


def test_known_limits_of_mem5_are_reported_after_normalization():
    separated = normalize([U(), A("c1"), U("hm"), T("c1")])
    assert separated.events == []                        # MEM-5 leaves it as it is...
    rules = {p.rule for p in check_target(separated.messages, "openai-chat")}
    assert rules == {"tool-calls-unanswered", "tool-without-calls"}   # ...and OpenAI rejects it
    before = normalize([U(), T("c1"), A("c1")])
    assert [p.rule for p in check_target(before.messages, "anthropic")] == ["result-without-tool-use",
                                                                           "tool-use-without-result"]


def test_problem_flags_what_strict_repairs():
    (problem,) = check_target([U(), A("toolu_1"), U("wait"), T("toolu_1")], "anthropic")
    assert problem.strict and problem.index == 1 and problem.tool_call_id == "toolu_1"
    assert problem.to_dict()["error"].startswith("messages.1:")
    (id_problem,) = check_target([U(), A("a.b"), T("a.b")], "anthropic")
    assert not id_problem.strict


def test_unknown_target_is_refused():
    with pytest.raises(ValueError):
        check_target([], "cohere")

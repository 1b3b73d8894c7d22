"""``check --target``: every provider rule fires on the case it describes, with the
provider's own error text, its severity and its source, and stays quiet on a history the
provider accepts. Native rules read the blocks through the pipeline Outcome."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import cli
from inspector.engine import normalize
from inspector.pipeline import run
from inspector.targets import ERROR, NOT_CHECKED, RULES, TARGETS, WARNING, check, failed, rule_table
from inspector.targets.base import Rule, create

from .fixtures import CLEAN, clone


def A(*ids, text=""):
    return {"role": "assistant", "content": text, "tool_calls": [{"tool_call_id": i, "name": "f"} for i in ids]}


def T(cid, text="r"):
    return {"role": "tool", "content": text, "tool_call_id": cid}


def U(text="u"):
    return {"role": "user", "content": text}


SYS = {"role": "system", "content": "s"}
GOOD = [SYS, U(), A("abcDEF123", "xyz987654"), T("abcDEF123"), T("xyz987654"),
        {"role": "assistant", "content": "done"}, U()]


def anthropic_doc(*assistant_blocks):
    return {"model": "claude", "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": list(assistant_blocks)},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"}]}]}


TEXT = {"type": "text", "text": "Let me look."}
USE = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}

CHAT_FOREIGN = {"messages": [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": [{"type": "text", "text": "Looking."},
                                      {"type": "tool_use", "id": "call_1", "name": "weather", "input": {}}],
     "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18C"}]}

# (target, rule, subject, the provider's error text, native location or None). A subject is
# flat messages, or (format, document) read through the pipeline.
CASES = [
    ("openai-chat", "empty-tool-calls", [U(), {"role": "assistant", "content": "x", "tool_calls": []}],
     "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, but got an empty "
     "array instead.", None),
    ("openai-chat", "duplicate-tool-call-id", [U(), A("c1"), T("c1"), T("c1")],
     "Invalid parameter: Duplicate value for 'tool_call_id' of 'c1', in messages[2] and messages[3].", None),
    ("openai-chat", "tool-calls-unanswered", [U(), A("c1", "c2"), T("c1"), U("go on"), T("c2")],
     "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
     "'tool_call_id'. The following tool_call_ids did not have response messages: c2", None),
    ("openai-chat", "tool-without-calls", [U(), A("c1"), T("c1"), U(), T("c1")],
     "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
     None),
    ("openai-chat", "tool-call-id-not-found", [U(), A("c1"), A("c2"), T("c1"), T("c2")],
     "Invalid parameter: 'tool_call_id' of 'c1' not found in 'tool_calls' of previous message.", None),
    ("openai-chat", "unknown-role", [U(), {"role": "critic", "content": "x"}],
     "Invalid value: 'critic'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and "
     "'developer'.", None),
    ("openai-chat", "assistant-content-part", ("openai-chat", CHAT_FOREIGN),
     "Invalid value: 'tool_use'. Supported values are: 'text' and 'refusal'.", "messages[1].content[1]"),
    ("openai-responses", "output-without-call", [U(), T("c1"), A("c1"), T("c1", "late")],
     "No tool call found for function call output with call_id c1.", None),
    ("openai-responses", "call-without-output", [U(), A("c1")], "No tool output found for function call c1.", None),
    ("openai-responses", "unknown-role", [U(), {"role": "critic", "content": ""}],
     "Invalid value: 'critic'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", None),
    ("anthropic", "tool-use-without-result", [U(), A("toolu_1"), U("wait"), T("toolu_1")],
     "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each "
     "`tool_use` block must have a corresponding `tool_result` block in the next message.", None),
    ("anthropic", "result-without-tool-use", [U(), A("toolu_1"), T("toolu_1"), {"role": "assistant", "content": "k"},
                                              U(), T("toolu_1")],
     "messages.4.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` "
     "block must have a corresponding `tool_use` block in the previous message.", None),
    ("anthropic", "tool-use-id-pattern", [U(), A("call:1"), T("call:1")],
     "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", None),
    # issue 30: a later turn reusing a completed pair's id (read under a derived identity on import)
    ("anthropic", "tool-use-id-reused", ("openai-chat", [U(), A("c1"), T("c1"), U(), A("c1"), T("c1")]),
     "messages.3.content.0: `tool_use` ids must be unique", None),
    ("anthropic", "unknown-role", [U(), {"role": "developer", "content": "x"}],
     "messages.0.role: Input should be 'user' or 'assistant'", None),
    ("anthropic", "text-after-tool-use", ("anthropic", anthropic_doc(TEXT, USE, TEXT)),
     "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each "
     "`tool_use` block must have a corresponding `tool_result` block in the next message.", "messages[1].content[2]"),
    ("bedrock", "first-not-user", [SYS, {"role": "assistant", "content": "hello"}, U()],
     "A conversation must start with a user message. Try again with a conversation that starts with a user message.",
     None),
    ("bedrock", "not-alternating", [U(), {"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}],
     "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
     "between user and assistant roles and try again.", None),
    ("bedrock", "tool-use-without-result", [U(), A("t1", "t2"), T("t1")],
     "Expected toolResult blocks at messages.2.content for the following Ids: t2", None),
    ("bedrock", "too-many-results", [U(), A("t1"), T("t1"), {"role": "assistant", "content": "k"}, T("t1")],
     "The number of toolResult blocks at messages.4.content exceeds the number of toolUse blocks of previous turn.",
     None),
    ("bedrock", "tool-use-id", [U(), A("t" * 65), T("t" * 65)],
     f"1 validation error detected: Value '{'t' * 65}' at 'messages.2.member.content.1.member.toolUse.toolUseId' "
     "failed to satisfy constraint: Member must have length less than or equal to 64", None),
    ("bedrock", "unknown-role", [U(), {"role": "developer", "content": "x"}],
     "1 validation error detected: Value 'developer' at 'messages.1.member.role' failed to satisfy constraint: "
     "Member must satisfy enum value set: [user, assistant]", None),
    ("gemini", "call-turn-position", [SYS, A("f1"), T("f1")],
     "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
     None),
    ("gemini", "response-turn-position", [U(), {"role": "assistant", "content": "x"}, T("f1")],
     "Please ensure that function response turn comes immediately after a function call turn.", None),
    ("gemini", "response-count", [U(), A("f1", "f2"), T("f1")],
     "Please ensure that the number of function response parts is equal to the number of function call parts of "
     "the function call turn.", None),
    ("gemini", "unknown-role", [U(), {"role": "function_caller", "content": ""}],
     "Please use a valid role: user, model.", None),
    ("mistral", "calls-responses-mismatch", [U(), A("abcDEF123", "xyz987654"), T("abcDEF123")],
     "Not the same number of function calls and responses", None),
    ("mistral", "tool-call-id-format", [U(), A("call_abc"), T("call_abc")],
     "Tool call id was call_abc but must be a-z, A-Z, 0-9, with a length of 9.", None),
    ("mistral", "user-after-tool", [U(), A("abcDEF123"), T("abcDEF123"), U()],
     "Unexpected role 'user' after role 'tool'", None),
    ("mistral", "tool-after-user", [U(), A("abcDEF123"), U(), T("abcDEF123")],
     "Unexpected role 'tool' after role 'user'", None),
]


def subject(value):
    if isinstance(value, tuple):
        fmt, document = value
        return run(clone(document), "case", fmt)
    return value


def rule_of(target, name) -> Rule:
    (rule,) = [r for r in RULES[target] if r.name == name]
    return rule


@pytest.mark.parametrize("target,rule,history,error,where", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_rule_reports_the_provider_error_text_severity_and_source(target, rule, history, error, where):
    problems = [p for p in check(subject(history), target) if p.rule == rule]
    assert problems, check(subject(history), target)
    assert error in [p.error for p in problems]
    expected = rule_of(target, rule)
    assert all(p.fix and p.severity == expected.severity and p.source == expected.source for p in problems)
    if where is not None:
        assert where in [p.where for p in problems]


def test_every_listed_rule_has_a_case_a_severity_and_a_source():
    """Each rule object has a case on some target whose table holds it: a target built on
    another by ``extend`` shares its parent's rules, and tests/targets/cases.py holds issue 20's."""
    from targets.cases import CASES as ISSUE_20

    covered = {id(r) for t, name in {(c[0], c[1]) for c in CASES + ISSUE_20} for r in RULES[t] if r.name == name}
    assert covered == {id(r) for rules in RULES.values() for r in rules}
    for row in rule_table():
        assert row["severity"] in (ERROR, WARNING) and re.match(r"https://\S+$", row["source"]), row
    assert NOT_CHECKED


def test_documented_but_not_always_enforced_rules_are_warnings():
    assert rule_of("bedrock", "first-not-user").severity == WARNING      # Claude on Converse accepts it
    assert rule_of("bedrock", "tool-use-id").severity == WARNING         # ids a model issued itself
    assert rule_of("anthropic", "text-after-tool-use").severity == ERROR  # measured: 400
    assert rule_of("openai-chat", "assistant-content-part").severity == ERROR


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "mistral"])
def test_an_accepted_history_has_no_problem(target):
    assert check(GOOD, target) == []


def test_mistral_accepts_a_turn_after_tool_results_and_9_char_ids():
    history = [U(), A("abcDEF123"), T("abcDEF123"), {"role": "assistant", "content": "ok"}, U()]
    assert check(history, "mistral") == []


@pytest.mark.parametrize("target", ["anthropic", "gemini"])
def test_calls_of_consecutive_assistant_messages_answered_together_are_one_turn(target):
    """Anthropic and Gemini combine consecutive same-role messages (issue #9, item 6)."""
    history = [U(), A("toolu_1"), A("toolu_2"), T("toolu_1"), T("toolu_2"), {"role": "assistant", "content": "ok"}]
    assert check(history, target) == []
    unanswered = [U(), A("toolu_1"), A("toolu_2"), T("toolu_1"), {"role": "assistant", "content": "ok"}]
    assert [p.severity for p in check(unanswered, target)] == [ERROR]


def test_bedrock_still_requires_alternation_for_consecutive_assistant_turns():
    history = [U(), A("t1"), A("t2"), T("t1"), T("t2")]
    assert "not-alternating" in {p.rule for p in check(history, "bedrock")}


@pytest.mark.parametrize("blocks", [(TEXT, USE), (USE, dict(USE, id="toolu_2")),
                                    ({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
                                     {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                                     TEXT, USE)])
def test_anthropic_accepts_tool_use_blocks_last(blocks):
    doc = anthropic_doc(*blocks)
    if blocks[-1]["id"] == "toolu_2":
        doc["messages"][2]["content"].append({"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"})
    assert [p for p in check(run(doc, "a", "anthropic"), "anthropic") if p.rule == "text-after-tool-use"] == []


@pytest.mark.parametrize("blocks,where", [((USE, TEXT), "messages[1].content[1]"),
                                          ((USE, TEXT, dict(USE, id="toolu_2")), "messages[1].content[1]")])
def test_anthropic_text_after_tool_use_points_at_the_native_block(blocks, where):
    doc = anthropic_doc(*blocks)
    (problem,) = [p for p in check(run(doc, "a", "anthropic"), "anthropic") if p.rule == "text-after-tool-use"]
    assert problem.where == where and problem.severity == ERROR and problem.index == 1


def _two_assistant_messages(first, second):
    doc = anthropic_doc(*first)
    doc["messages"].insert(2, {"role": "assistant", "content": second})
    return doc


@pytest.mark.parametrize("first,second,where", [
    ([USE], [TEXT], "messages[2].content[0]"),            # one turn: [tool_use, text]
    ([USE], "Done, anything else?", "messages[2]"),       # a string after the turn's tool_use
    ([TEXT], [USE], None),                                 # one turn: [text, tool_use] is accepted
])
def test_text_after_tool_use_runs_across_consecutive_assistant_messages(first, second, where):
    problems = check(run(_two_assistant_messages(first, second), "a", "anthropic"), "anthropic")
    assert [p.where for p in problems if p.rule == "text-after-tool-use"] == ([where] if where else [])
    assert [p for p in problems if p.rule == "tool-use-without-result"] == []


def test_strict_output_has_no_text_after_tool_use():
    outcome = run(anthropic_doc(TEXT, USE, TEXT), "a", "anthropic", strict=True)
    assert [p for p in check(outcome, "anthropic") if p.rule == "text-after-tool-use"] == []


def test_a_dropped_call_block_is_not_written_back_so_it_does_not_count():
    doc = anthropic_doc(TEXT, {"type": "tool_use", "id": "", "name": "weather", "input": {}}, TEXT, USE)
    outcome = run(doc, "a", "anthropic")
    assert any(e.drop and e.call is not None for e in outcome.result.events)     # the unusable id goes
    assert [p for p in check(outcome, "anthropic") if p.rule == "text-after-tool-use"] == []


def test_native_rules_need_the_native_format():
    flat = run(clone(CHAT_FOREIGN), "o", "openai-chat", to="anthropic")       # written as Anthropic
    assert [p for p in check(flat, "openai-chat") if p.rule == "assistant-content-part"] == []
    ok = clone(CHAT_FOREIGN)
    ok["messages"][1]["content"][1] = {"type": "refusal", "refusal": "no"}
    assert check(run(ok, "o", "openai-chat"), "openai-chat") == []


def test_problems_name_the_native_block_of_a_call():
    doc = anthropic_doc(TEXT, dict(USE, id="call:1"))
    doc["messages"][2]["content"][0]["tool_use_id"] = "call:1"
    (problem,) = check(run(doc, "a", "anthropic"), "anthropic")
    assert problem.rule == "tool-use-id-pattern" and problem.where == "messages[1].content[1]"


def test_an_unknown_responses_item_type_is_never_an_error():
    doc = {"model": "gpt-5", "input": [{"role": "user", "content": "hi"},
                                       {"type": "compaction", "id": "cmp_1", "encrypted_content": "x"},
                                       {"role": "user", "content": "go on"}]}
    assert check(run(doc, "r", "openai-responses"), "openai-responses") == []
    odd_role = [U(), {"role": "critic", "content": "x"}]
    assert not failed(check(odd_role, "openai-responses"))


def _as_kept(outcome):
    """The Outcome as a normalize that keeps every imported row would give it."""
    rows = outcome.imported.messages
    return SimpleNamespace(imported=outcome.imported, to="same",
                           result=SimpleNamespace(messages=rows, origins=list(range(len(rows))), events=[]))


@pytest.mark.parametrize("state", [{"conversation": "conv_01"}, {"previous_response_id": "resp_01"},
                                   {"input": [{"type": "item_reference", "id": "msg_01"}]}])
def test_outputs_for_calls_the_server_holds_are_not_orphans(state):
    """With server-side state the server holds the calls those outputs answer."""
    output = {"type": "function_call_output", "call_id": "call_01", "output": "x"}
    doc = {"model": "gpt-4.1", "input": [output]}
    stateful = dict(doc, **state)
    stateful["input"] = [*state.get("input", ()), output]
    assert check(_as_kept(run(stateful, "r", "openai-responses")), "openai-responses") == []
    bare = check(_as_kept(run(doc, "r", "openai-responses")), "openai-responses")
    assert [p.rule for p in bare] == ["output-without-call"]


def test_known_limits_of_mem5_are_reported_after_normalization():
    separated = normalize([U(), A("c1"), U("hm"), T("c1")])
    assert separated.events == []                        # MEM-5 leaves it as it is...
    rules = {p.rule for p in check(separated.messages, "openai-chat")}
    assert rules == {"tool-calls-unanswered", "tool-without-calls"}   # ...and OpenAI rejects it
    before = normalize([U(), T("c1"), A("c1")])
    assert [p.rule for p in check(before.messages, "anthropic")] == ["result-without-tool-use",
                                                                    "tool-use-without-result"]


def test_problem_flags_what_strict_repairs():
    (problem,) = check([U(), A("toolu_1"), U("wait"), T("toolu_1")], "anthropic")
    assert problem.strict and problem.index == 1 and problem.tool_call_id == "toolu_1"
    assert problem.to_dict()["error"].startswith("messages.1:") and problem.to_dict()["severity"] == ERROR
    (id_problem,) = check([U(), A("a.b"), T("a.b")], "anthropic")
    assert not id_problem.strict


def test_unknown_target_and_subject_are_refused():
    with pytest.raises(ValueError):
        check([], "cohere")
    with pytest.raises(TypeError):
        check({"messages": []}, "anthropic")


def test_a_target_table_refuses_a_rule_without_a_source_or_with_a_bad_severity():
    def nothing(view):
        return iter(())
    with pytest.raises(ValueError):
        create("x", [Rule("r", nothing, ERROR, "", "s")])
    with pytest.raises(ValueError):
        create("x", [Rule("r", nothing, "fatal", "https://example.org", "s")])


HUGE = 40_000


@pytest.fixture(scope="module")
def huge_turn():
    ids = [f"c{k:08d}" for k in range(HUGE)]       # 9 characters: valid for every target
    history = [U(), A(*ids)] + [T(i) for i in ids] + [{"role": "assistant", "content": "ok"}, U()]
    return ids, history


@pytest.mark.parametrize("target", TARGETS)
def test_one_turn_of_40000_calls_is_checked_whole(target, huge_turn):
    """Issue #12: such a turn took 9-12 s in two targets (quadratic); bench/targets.py
    prints the times against normalize. Here: every call is still seen."""
    ids, history = huge_turn
    assert check(history, target) == []
    missing = history[:2 + HUGE // 2] + history[3 + HUGE // 2:]             # one result lost mid-turn
    problems = [p for p in check(missing, target) if p.severity == ERROR]
    assert len(problems) == 1 and problems[0].tool_call_id in (None, ids[HUGE // 2]), problems


def test_readme_lists_every_rule_with_its_severity_and_source():
    readme = Path(__file__).resolve().parents[2].joinpath("docs", "formats.md").read_text()   # moved from the README
    section = readme.split("<!-- section:formats -->")[1].split("<!-- /section:formats -->")[0]
    for row in rule_table():
        line = next((ln for ln in section.splitlines()
                     if ln.startswith(f"| `{row['target']}` | `{row['rule']}` |")), None)
        assert line is not None, row
        assert row["severity"] in line and row["source"] in line, line


def _cli(capsys, tmp_path, document, target):
    path = tmp_path / "h.json"
    path.write_text(json.dumps(document))
    code = cli.main(["check", "--target", target, str(path)])
    return code, capsys.readouterr().out


def test_cli_fails_on_an_error_and_names_the_native_block(tmp_path, capsys):
    code, out = _cli(capsys, tmp_path, anthropic_doc(TEXT, USE, TEXT), "anthropic")
    assert code == 1 and "anthropic would still reject 1 thing:" in out
    assert "#1 (from messages[1].content[2]) error [text-after-tool-use] (--strict repairs)" in out
    assert "source: https://github.com/stacklok/mecatl/issues/1465" in out


def test_cli_prints_warnings_but_does_not_fail_on_them(tmp_path, capsys):
    doc = {"messages": [{"role": "assistant", "content": [{"text": "hello"}]},
                        {"role": "user", "content": [{"text": "hi"}]}]}
    code, out = _cli(capsys, tmp_path, doc, "bedrock")
    assert code == 0 and "bedrock would accept it after normalizing (1 warning; warnings do not fail" in out
    assert "warning [first-not-user]" in out


ROLES = st.sampled_from(["user", "assistant", "tool", "system", "developer", "critic"])
IDS = st.sampled_from(["a", "b", "call_1", "toolu_1", "x.y", ""])
ROW = st.fixed_dictionaries({"role": ROLES, "content": st.sampled_from(["", "t"])},
                            optional={"tool_calls": st.lists(st.fixed_dictionaries({"tool_call_id": IDS,
                                                                                    "name": st.just("f")}),
                                                             max_size=3),
                                      "tool_call_id": IDS})
NATIVE = {"anthropic": "text-after-tool-use", "openai-chat": "assistant-content-part"}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ROW, max_size=10), st.sampled_from(sorted(NATIVE)), st.booleans())
def test_any_history_checks_cleanly_and_inspector_never_writes_a_native_rejection(history, fmt, strict):
    """Every target checks any history without failing, each problem is a rule of its
    table; and what Inspector exports in a format never breaks that format's block rules."""
    outcome = run(history, "h", "flat", strict=strict)
    for target in TARGETS:
        names = {r.name for r in RULES[target]}
        assert all(p.rule in names and p.target == target for p in check(outcome, target))
    written = run(run(history, "h", "flat", to=fmt, strict=strict).exported, "w", fmt)
    assert [p for p in check(written, fmt) if p.rule == NATIVE[fmt]] == []

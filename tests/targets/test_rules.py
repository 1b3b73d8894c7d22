"""Issue 20's rules: each reports its case with the provider's own text, severity and
source, and keeps quiet on the neighbouring shape the provider accepts."""

from __future__ import annotations

import json

import pytest

from inspector import cli
from inspector.io import InputError
from inspector.pipeline import run, run_file
from inspector.targets import ERROR, REGISTRY, RULES, WARNING, check, failed
from inspector.targets.base import Rule, extend

from .cases import (CASES, ENABLED, GRESULT, RESULT, THINK, USE, A, T, U, anthropic, chat, chat_call, chat_result,
                    fcall, fout, gcall, gemini, reasoning, responses)


def subject(value):
    if isinstance(value, tuple):
        fmt, document = value[:2]
        return run(document if isinstance(document, bytes) else json.loads(json.dumps(document)), "case", fmt)
    return value


def model_of(value):
    """The ``--model`` a case is resumed with (a session store's), else None."""
    return value[2] if isinstance(value, tuple) and len(value) > 2 else None


def rule_of(target, name) -> Rule:
    (rule,) = [r for r in RULES[target] if r.name == name]
    return rule


def rules_hit(target, value) -> set[str]:
    return {p.rule for p in check(subject(value), target)}


@pytest.mark.parametrize("target,rule,history,error,where", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_rule_reports_the_provider_error_text_severity_and_source(target, rule, history, error, where):
    problems = [p for p in check(subject(history), target, model_of(history)) if p.rule == rule]
    assert problems, check(subject(history), target, model_of(history))
    assert error in [p.error for p in problems]
    expected = rule_of(target, rule)
    assert all(p.fix and p.severity == expected.severity and p.source == expected.source for p in problems)
    if where is not None:
        assert where in [p.where for p in problems]


# -- targets by extension ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["xai", "groq", "deepseek", "vllm"])
def test_a_target_built_on_openai_chat_is_its_table_then_its_own_rules(name):
    parent, child = REGISTRY["openai-chat"].rules, REGISTRY[name].rules
    assert child[:len(parent)] == parent and all(a is b for a, b in zip(child, parent))   # the same rules, not copies
    assert len(child) > len(parent)


def test_extend_replaces_a_rule_of_the_same_name_in_its_place():
    def nothing(view):
        return iter(())
    parent = REGISTRY["openai-chat"]
    stricter = Rule("unknown-role", nothing, ERROR, "https://example.org/roles", "a role this server refuses")
    child = extend(parent, "strict-chat", [stricter])
    assert [r.name for r in child.rules] == [r.name for r in parent.rules]
    assert child.rules[[r.name for r in parent.rules].index("unknown-role")] is stricter
    assert rule_of("openai-chat", "unknown-role").severity == WARNING        # the parent is untouched


def test_a_rule_fixed_in_openai_chat_is_fixed_in_every_target_built_on_it():
    history = [U(), A("call_" + "x" * 36), T("call_" + "x" * 36)]
    for name in ("openai-chat", "xai", "groq", "deepseek", "vllm"):
        assert [p.rule for p in check(history, name)] == ["tool-call-id-length"], name


# -- Anthropic thinking --------------------------------------------------------------------

def _anthropic(*messages, **settings):
    return ("anthropic", anthropic(*messages, **settings))


@pytest.mark.parametrize("first", [THINK, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}])
def test_thinking_enabled_accepts_a_final_tool_turn_that_starts_with_thinking(first):
    doc = _anthropic({"role": "assistant", "content": [first, USE]}, RESULT, thinking=ENABLED)
    assert not rules_hit("anthropic", doc) & {"thinking-not-first", "thinking-when-disabled"}


def test_thinking_not_first_reads_only_the_last_assistant_turn_and_only_when_enabled():
    earlier = [{"role": "assistant", "content": [USE]}, RESULT,
               {"role": "assistant", "content": [THINK, dict(USE, id="toolu_2")]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"}]}]
    assert "thinking-not-first" not in rules_hit("anthropic", _anthropic(*earlier, thinking=ENABLED))
    bare = [{"role": "assistant", "content": [USE]}, RESULT]
    assert "thinking-not-first" not in rules_hit("anthropic", _anthropic(*bare))
    assert "thinking-not-first" not in rules_hit("anthropic", _anthropic(*bare, thinking={"type": "adaptive"}))
    text_turn = [{"role": "assistant", "content": "It is 18C."}]
    assert "thinking-not-first" not in rules_hit("anthropic", _anthropic(*text_turn, thinking=ENABLED))


def test_thinking_when_disabled_is_only_about_the_message_in_the_final_position():
    earlier = [{"role": "assistant", "content": [THINK, USE]}, RESULT]      # replayed in an earlier turn: accepted
    assert "thinking-when-disabled" not in rules_hit("anthropic", _anthropic(*earlier))
    final = {"role": "assistant", "content": [THINK, {"type": "text", "text": "It is"}]}
    assert "thinking-when-disabled" in rules_hit("anthropic", _anthropic(final, thinking={"type": "disabled"}))
    assert "thinking-when-disabled" not in rules_hit("anthropic", _anthropic(final, thinking=ENABLED))


def test_signature_from_another_model_needs_both_models_known():
    def doc(writer, **settings):
        message = {"role": "assistant", "content": [THINK, USE]}
        if writer:
            message["model"] = writer
        return _anthropic(message, RESULT, thinking=ENABLED, **settings)
    assert "signature-other-model" in rules_hit("anthropic", doc("claude-opus-4-1"))
    assert "signature-other-model" not in rules_hit("anthropic", doc("claude-sonnet-4-5"))
    assert "signature-other-model" not in rules_hit("anthropic", doc(None))


def test_blank_text_empty_and_whitespace():
    empty = _anthropic({"role": "assistant", "content": [{"type": "text", "text": ""}, USE]}, RESULT)
    problems = [p for p in check(subject(empty), "anthropic") if p.rule == "blank-text"]
    assert [p.error for p in problems] == ["messages: text content blocks must be non-empty"]
    spaces = _anthropic({"role": "assistant", "content": "  "}, {"role": "user", "content": "go on"})
    assert [p.where for p in check(subject(spaces), "anthropic") if p.rule == "blank-text"] == ["messages[1]"]
    bedrock_space = ("bedrock", {"messages": [{"role": "user", "content": [{"text": "hi"}, {"text": "\n"}]}]})
    assert "blank-text" not in rules_hit("bedrock", bedrock_space)     # measured: accepted


# -- lone surrogates -----------------------------------------------------------------------

def test_a_file_with_a_lone_surrogate_escape_is_read_and_the_half_character_reported(tmp_path, capsys):
    """Issue 31 item 6: the escape is legal JSON (the reader does not stop at it); the
    provider that refuses it is named per entry with its own words. Bytes that are not
    UTF-8 are still refused with their line and column."""
    path = tmp_path / "split.json"
    path.write_bytes(b'[{"role": "user",\n  "content": "cut \\ud83d here"}]')
    problems = [p for p in check(run_file(path), "anthropic") if p.rule == "lone-surrogate"]
    assert [p.index for p in problems] == [0] and "no low surrogate in string" in problems[0].error
    # As given, Anthropic refuses it; what normalize --to anthropic writes (the half character
    # replaced, an event) it accepts, and --target judges that document.
    assert cli.main(["check", "--target", "anthropic", str(path)]) == 0
    out = capsys.readouterr().out
    assert "anthropic refuses it (lone-surrogate at history[0])" in out
    assert "anthropic would accept it after normalizing" in out
    path.write_bytes('[{"role": "user", "content": "cut '.encode() + b"\xed\xa0\xbd" + b'"}]')   # the half as bytes
    with pytest.raises(InputError) as err:
        run_file(path)
    assert (err.value.line, err.value.column) == (1, 35) and "UTF-8" in err.value.reason


def test_a_document_that_kept_a_lone_surrogate_is_named_by_entry_and_offset(tmp_path):
    """stdlib json (used by many stores and proxies) keeps the half character."""
    raw = b'{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok \\ud83d"}]}'
    doc = json.loads(raw)
    for target in REGISTRY:
        (problem,) = [p for p in check(run(doc, "d", "anthropic"), target) if p.rule == "lone-surrogate"]
        assert problem.index == 1 and problem.where == "messages[1]"
        assert "U+D83D at character 3 of content" in problem.error
    assert failed(check(run(doc, "d", "anthropic"), "anthropic"))
    whole = json.loads(b'[{"role": "user", "content": "\\ud83d\\ude00"}]')      # a pair is one emoji
    assert all("lone-surrogate" not in {p.rule for p in check(whole, t)} for t in REGISTRY)


# -- OpenAI Chat ids, Responses reasoning --------------------------------------------------

def test_a_40_character_id_is_accepted_41_is_not():
    ok = "call_" + "x" * 35
    assert check([U(), A(ok), T(ok)], "openai-chat") == []


def test_responses_reasoning_with_its_items_is_accepted():
    loop = responses(reasoning(encrypted_content="gAAA"), fcall("fc_1", "call_1"), fout("call_1"),
                     fcall("fc_2", "call_2"), fout("call_2"), store=False)
    assert check(subject(("openai-responses", loop)), "openai-responses") == []


# -- Gemini --------------------------------------------------------------------------------

@pytest.mark.parametrize("doc", [
    gemini(gcall("c2ln"), GRESULT, model="gemini-3-pro-preview"),                         # signed
    gemini(gcall(), GRESULT, model="gemini-2.5-flash"),                                   # 2.5 does not require it
    gemini(gcall(), GRESULT),                                                             # unknown, never signs
    gemini(gcall(), GRESULT, {"role": "model", "parts": [{"text": "18C"}]},
           {"role": "user", "parts": [{"text": "thanks"}]}, model="gemini-3-flash"),       # an earlier turn
])
def test_gemini_signatures_are_required_on_gemini_3_in_the_current_turn_only(doc):
    hit = rules_hit("gemini", ("gemini", doc))
    assert not hit & {"thought-signature", "thought-signature-unknown-model"}


def test_only_the_first_call_of_a_parallel_turn_needs_the_signature():
    parallel = {"role": "model", "parts": [
        {"functionCall": {"name": "weather", "args": {}}, "thoughtSignature": "c2ln"},
        {"functionCall": {"name": "weather", "args": {}}}]}
    doc = gemini(parallel, {"role": "user", "parts": [GRESULT["parts"][0], GRESULT["parts"][0]]},
                 model="gemini-3-pro-preview")
    assert "thought-signature" not in rules_hit("gemini", ("gemini", doc))


# -- the servers built on openai-chat ------------------------------------------------------

def test_strict_and_python_json_readers_differ_on_an_escaped_lone_surrogate():
    """xAI reads arguments strictly; vLLM with Python's json.loads, which keeps the half."""
    doc = ("openai-chat", chat(chat_call(args='{"q": "\\ud83d"}'), chat_result()))
    assert "call-arguments-json" in rules_hit("xai", doc)
    assert "call-arguments-json" not in rules_hit("vllm", doc)


@pytest.mark.parametrize("args", ['{"city": "Paris"}', {"city": "Paris"}])
def test_valid_arguments_are_accepted(args):
    history = [U(), A("call_1", args=args), T("call_1")]
    assert check(history, "xai") == [] and check(history, "vllm") == []


def test_groq_accepts_string_content_without_reasoning_fields():
    doc = ("openai-chat", chat(chat_call(), chat_result(), {"role": "assistant", "content": "18C."}))
    assert check(subject(doc), "groq") == []


@pytest.mark.parametrize("settings,message,hit", [
    ({"model": "deepseek-reasoner"}, {"reasoning_content": ""}, False),        # measured: "" is accepted
    ({"model": "deepseek-chat", "thinking": {"type": "disabled"}}, {}, False),
    ({"model": "deepseek-chat"}, {}, False),                                   # not thinking: nothing to pass back
    ({"model": "deepseek-chat", "thinking": {"type": "enabled"}}, {}, True),
])
def test_deepseek_wants_reasoning_content_back_in_thinking_mode_only(settings, message, hit):
    doc = ("openai-chat", chat(chat_call(**message), chat_result(), **settings))
    assert ("reasoning-not-passed-back" in rules_hit("deepseek", doc)) is hit


def test_mistral_accepts_an_assistant_turn_with_only_calls():
    history = [U(), A("abcDEF123"), T("abcDEF123"), {"role": "assistant", "content": "ok"}]
    assert "empty-assistant" not in {p.rule for p in check(history, "mistral")}


def test_new_targets_are_cli_choices(tmp_path, capsys):
    path = tmp_path / "h.json"
    path.write_text(json.dumps(chat(chat_call(args='{"a": '), chat_result())))
    assert cli.main(["check", "--target", "xai", str(path)]) == 1
    out = capsys.readouterr().out
    assert "xai would still reject 1 thing:" in out and "[call-arguments-json]" in out

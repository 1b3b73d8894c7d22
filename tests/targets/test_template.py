"""``check --template``: the model's own chat template is run on the normalized history,
and what it raises is an error with the template's own message, on the row it concerns.
The templates under ``templates/`` are the project's own, written to reproduce the guards
of the Qwen, Devstral and Gemma 3 templates."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from extras import need

need("jinja2", "template")

from inspector import cli  # noqa: E402
from inspector.io import InputError  # noqa: E402
from inspector.pipeline import run  # noqa: E402
from inspector.targets import ERROR, check_template, failed, load_template  # noqa: E402
from inspector.targets.template import chat_messages  # noqa: E402

HERE = Path(__file__).parent / "templates"
QWEN, DEVSTRAL, GEMMA = HERE / "qwen_guard.jinja", HERE / "devstral_guard.jinja", HERE / "gemma_guard.json"

SYS = {"role": "system", "content": "You are a weather bot."}


def U(text="Weather in Paris?"):
    return {"role": "user", "content": text}


CALL = {"role": "assistant", "content": "", "tool_calls": [
    {"tool_call_id": "call_1", "name": "weather", "arguments": "{\"city\": \"Paris\"}"}]}
RESULT = {"role": "tool", "content": "18C", "tool_call_id": "call_1"}
ANSWER = {"role": "assistant", "content": "It is 18C."}
GOOD = [SYS, U(), CALL, RESULT, ANSWER, U("And Rome?")]


def problems(history, path):
    return check_template(run(history, "h", "flat"), load_template(path))


@pytest.mark.parametrize("path", [QWEN, DEVSTRAL])
def test_a_history_the_template_accepts_has_no_problem(path):
    assert problems(GOOD, path) == []


@pytest.mark.parametrize("path,history,index,message", [
    (QWEN, [SYS, U("<tool_response>18C</tool_response>")], 0, "No user query found in messages."),
    (DEVSTRAL, [SYS, U(), U("Hello?"), ANSWER], 2,
     "After the optional system message, conversation roles must alternate user and assistant roles except for "
     "tool calls and results."),
    (DEVSTRAL, [SYS, ANSWER, U()], 1,
     "After the optional system message, conversation roles must alternate user and assistant roles except for "
     "tool calls and results."),
    (GEMMA, [U(), CALL, RESULT, ANSWER], 2, "Conversation roles must be user or assistant; got 'tool'"),
])
def test_each_guard_is_an_error_with_the_templates_message_on_its_row(path, history, index, message):
    (problem,) = problems(history, path)
    assert (problem.index, problem.error, problem.severity) == (index, message, ERROR)
    assert problem.rule == "template-raises" and problem.target == "template" and failed([problem])
    assert problem.where == f"history[{index}]"


def test_the_row_is_named_natively_when_the_input_is_a_provider_body():
    body = {"model": "gemma-3", "messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"}]}
    (problem,) = check_template(run(body, "b", "openai-chat"), load_template(GEMMA))
    assert problem.where == "messages[2]"


def test_the_tokenizer_configs_special_tokens_and_named_templates(tmp_path):
    config = {"bos_token": {"content": "<s>"}, "eos_token": "</s>", "chat_template": [
        {"name": "default", "template": "{{ raise_exception('default: ' + bos_token + eos_token) }}"},
        {"name": "tool_use", "template": "{{ raise_exception('tools: ' + tools[0].function.name) }}"}]}
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps(config))
    template = load_template(path)
    (plain,) = check_template(run([U()], "h", "flat"), template)
    assert plain.error == "default: <s></s>"
    body = {"model": "m", "messages": [U()], "tools": [
        {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}]}
    (tooled,) = check_template(run(body, "b", "openai-chat"), template)
    assert tooled.error == "tools: weather"


def test_generation_prompt_follows_the_last_row_and_arguments_are_objects():
    """A request that ends on a user or tool row asks for a completion (vLLM's default)."""
    path = Path(__file__).parent / "templates" / "generation_prompt.jinja"
    assert problems([U(), CALL, RESULT], path)[0].error == "prompt Paris"
    assert problems([U(), CALL, RESULT, ANSWER], path) == []


def test_messages_are_written_in_the_shape_templates_read():
    messages = chat_messages([U(), CALL, RESULT])
    assert messages[1]["tool_calls"] == [{"id": "call_1", "type": "function",
                                          "function": {"name": "weather", "arguments": {"city": "Paris"}}}]
    assert messages[2] == {"role": "tool", "content": "18C", "tool_call_id": "call_1", "name": "weather"}


def test_a_templates_python_error_is_reported_too(tmp_path):
    path = tmp_path / "t.jinja"
    path.write_text("{{ messages[0].content + 1 }}")
    (problem,) = problems([U()], path)
    assert problem.error.startswith("TypeError:")


def test_the_sandbox_refuses_what_a_template_must_not_do(tmp_path):
    path = tmp_path / "t.jinja"
    path.write_text("{{ messages.__class__.__mro__ }}{% set _ = messages.append(1) %}")
    (problem,) = problems([U()], path)
    assert problem.error.startswith("SecurityError:")


@pytest.mark.parametrize("text,reason", [("{% for m in messages %}", "chat template:"),
                                         ('{"eos_token": "x"}', "no chat_template here")])
def test_a_broken_template_is_an_input_error_naming_the_file(tmp_path, text, reason, capsys):
    path = tmp_path / ("t.json" if text.startswith('{"') else "t.jinja")
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_template(path)
    assert reason in str(err.value) and str(path) in str(err.value)
    history = tmp_path / "h.json"
    history.write_text(json.dumps([U()]))
    assert cli.main(["check", "--template", str(path), str(history)]) == 2


def test_cli_fails_on_a_raised_guard_and_prints_the_templates_message(tmp_path, capsys):
    path = tmp_path / "h.json"
    path.write_text(json.dumps([SYS, U(), U("Hello?")]))
    assert cli.main(["check", "--template", str(DEVSTRAL), str(path)]) == 1
    out = capsys.readouterr().out
    assert f"the chat template {DEVSTRAL} would still reject 1 thing:" in out
    assert "#2 (from history[2]) error [template-raises]" in out and "roles must alternate" in out
    path.write_text(json.dumps(GOOD))
    assert cli.main(["check", "--template", str(DEVSTRAL), str(path)]) == 0


def test_without_jinja2_the_option_is_a_clear_input_error(monkeypatch, tmp_path):
    """The extra may be absent: --template then says how to get it (exit 2), never a traceback."""
    for name in [m for m in sys.modules if m == "jinja2" or m.startswith("jinja2.")]:
        monkeypatch.setitem(sys.modules, name, None)
    history = tmp_path / "h.json"
    history.write_text(json.dumps([U()]))
    with pytest.raises(InputError) as err:
        load_template(DEVSTRAL)
    assert "pip install 'inspector[template]'" in str(err.value)
    assert cli.main(["check", "--template", str(DEVSTRAL), str(history)]) == 2

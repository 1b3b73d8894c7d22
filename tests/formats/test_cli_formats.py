"""The command line with provider formats: ``--from``, ``--to``, ``--strict`` and
``check --target``, with their exit codes."""

from __future__ import annotations

import json

import orjson
import pytest

from inspector import cli

from .fixtures import CLEAN, INTERRUPTED, clone


def write(tmp_path, name, value):
    path = tmp_path / name
    path.write_bytes(orjson.dumps(value))
    return str(path)


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_normalize_writes_the_input_format_by_default(tmp_path, capsys):
    doc = clone(CLEAN["anthropic"])
    del doc["messages"][2]["content"][0]
    path = write(tmp_path, "a.json", doc)
    code, out, err = run(capsys, "normalize", path)
    assert code == 0 and err.strip() == "dropped 0, synthesized 1, moved 0"
    written = json.loads(out)
    assert written["model"] == doc["model"]
    assert written["messages"][2]["content"][0]["is_error"] is True


def test_normalize_clean_provider_history_is_byte_stable_json(tmp_path, capsys):
    path = write(tmp_path, "g.json", CLEAN["gemini"])
    code, out, _ = run(capsys, "normalize", "--quiet", path)
    assert code == 0 and json.loads(out) == CLEAN["gemini"]


def test_normalize_to_another_format_and_to_flat(tmp_path, capsys):
    path = write(tmp_path, "o.json", CLEAN["openai-chat"])
    code, out, _ = run(capsys, "normalize", "-q", "--to", "bedrock", path)
    doc = json.loads(out)
    assert code == 0 and doc["system"] == [{"text": "You are a weather bot."}]
    assert doc["messages"][1]["content"][0]["toolUse"]["toolUseId"] == "call_abc"
    code, out, _ = run(capsys, "normalize", "-q", "--to", "flat", path)
    flat = json.loads(out)          # a request body stays a body: only its messages are flat
    assert flat["messages"][2]["tool_calls"][0]["tool_call_id"] == "call_abc"
    assert {k: v for k, v in flat.items() if k != "messages"} == \
        {k: v for k, v in CLEAN["openai-chat"].items() if k != "messages"}


def test_normalize_strict_moves_a_separated_result(tmp_path, capsys):
    doc = clone(CLEAN["openai-chat"])
    doc["messages"].append(doc["messages"].pop(4))       # call_def's result arrives at the very end
    path = write(tmp_path, "o.json", doc)
    code, out, err = run(capsys, "normalize", "--strict", path)
    assert code == 0 and json.loads(out) == CLEAN["openai-chat"]
    assert "moved 1" in err


def test_normalize_refuses_an_unknown_to(tmp_path, capsys):
    path = write(tmp_path, "o.json", CLEAN["flat"])
    with pytest.raises(SystemExit) as exit_:
        cli.main(["normalize", "--to", "cohere", path])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_from_overrides_detection_and_a_wrong_from_is_exit_2(tmp_path, capsys):
    path = write(tmp_path, "a.json", CLEAN["anthropic"])
    code, _, err = run(capsys, "check", "--from", "gemini", path)
    assert code == 2 and "gemini" in err


def test_check_target_lists_what_the_provider_would_reject(tmp_path, capsys):
    doc = clone(CLEAN["openai-chat"])
    doc["messages"].append(doc["messages"].pop(4))
    path = write(tmp_path, "o.json", doc)
    code, out, _ = run(capsys, "check", "--target", "openai-chat", path)
    assert code == 1
    assert "fails, nothing to change" in out               # MEM-5 itself changes nothing...
    assert "openai-chat would still reject 2 things" in out  # ...but OpenAI would say no
    assert ("The following tool_call_ids did not have response messages: call_def") in out
    assert "from messages[2]" in out and "(--strict repairs)" in out
    code, out, _ = run(capsys, "check", "--target", "openai-chat", "--strict", path)
    assert code == 1 and "would accept it after normalizing" in out and "moved 1" in out


def test_check_target_on_a_clean_history_is_exit_0(tmp_path, capsys):
    path = write(tmp_path, "b.json", CLEAN["bedrock"])
    code, out, _ = run(capsys, "check", "--target", "bedrock", path)
    assert code == 0 and "bedrock would accept it after normalizing" in out


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses", "anthropic", "bedrock", "gemini", "mistral"])
def test_every_target_is_a_choice(tmp_path, capsys, target):
    path = write(tmp_path, "f.json", CLEAN["flat"])
    code, out, _ = run(capsys, "check", "--target", target, path)
    assert code in (0, 1) and target in out


def test_explain_shows_the_import_step_and_the_strict_stage(tmp_path, capsys):
    doc = clone(CLEAN["gemini"])
    path = write(tmp_path, "g.json", doc)
    code, out, _ = run(capsys, "explain", "--strict", path)
    assert code == 0
    assert out.startswith("import (gemini): 7 flat messages")
    assert "#3     <- contents[2].parts[0]" in out and "id-derived" in out
    assert "strict (Inspector's extension beyond MEM-5" in out
    code, out, _ = run(capsys, "explain", "--json", path)
    report = json.loads(out)
    assert report["format"] == "gemini" and report["import"]["sources"][0] == "systemInstruction"
    assert report["import"]["events"][0]["stage"] == "import"


def test_interrupted_call_text_is_the_engine_text(tmp_path, capsys):
    doc = clone(CLEAN["openai-responses"])
    del doc["input"][5]
    path = write(tmp_path, "r.json", doc)
    _, out, _ = run(capsys, "normalize", "-q", path)
    assert {"type": "function_call_output", "call_id": "call_A", "output": INTERRUPTED} in json.loads(out)["input"]


def test_ids_in_provider_error_texts_cannot_reach_the_terminal_raw(tmp_path, capsys):
    history = [{"role": "user", "content": "u"},
               {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "\x1b[2Jx", "name": "f"}]},
               {"role": "tool", "content": "r", "tool_call_id": "\x1b[2Jx"}]
    path = write(tmp_path, "h.json", history)
    code, out, _ = run(capsys, "check", "--target", "mistral", path)
    assert code == 1 and "\x1b" not in out and "Tool call id was \\x1b[2Jx but must be" in out

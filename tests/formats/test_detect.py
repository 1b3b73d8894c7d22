"""Strict auto-detection: one format on evidence of its own, and a clear error naming what
was tried when the input is ambiguous or unrecognized (exit 2 from the CLI)."""

from __future__ import annotations

import orjson
import pytest

from inspector import cli
from inspector.formats import import_history
from inspector.io import InputError

from .fixtures import CLEAN, clone


@pytest.mark.parametrize("fmt", sorted(CLEAN))
def test_each_documented_shape_is_recognized(fmt):
    assert import_history(clone(CLEAN[fmt]), "x").format == fmt


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic", "bedrock"])
def test_bare_message_lists_are_recognized_too(fmt):
    assert import_history(clone(CLEAN[fmt]["messages"]), "x").format == fmt


def test_gemini_bare_contents_and_snake_case_are_recognized():
    contents = clone(CLEAN["gemini"]["contents"])
    assert import_history(contents, "x").format == "gemini"
    snake = [{"role": "model", "parts": [{"function_call": {"name": "f", "args": {}}}]}]
    im = import_history(snake, "x")
    assert im.format == "gemini" and im.state.snake


def test_plain_messages_are_flat():
    assert import_history([{"role": "user", "content": "hi"}], "x").format == "flat"


def test_shared_text_parts_are_read_by_a_format_that_keeps_them():
    """Plain text parts belong to no provider alone: the first format whose parts they fit
    (OpenAI Chat) reads them and writes each part list back as it was."""
    doc = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert import_history(doc, "h.json").format == "openai-chat"
    assert import_history(doc, "h.json", "anthropic").format == "anthropic"


def test_parts_no_format_knows_are_read_by_mem5_itself():
    doc = [{"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "sticker", "id": 3}]}]
    assert import_history(doc, "h.json").format == "flat"


def test_mistral_thinking_part_is_not_anthropic():
    """Mistral's thinking part holds a list of chunks; Anthropic's holds text and a signature."""
    mistral = [{"role": "user", "content": "hi"},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]},
                                                 {"type": "text", "text": "hello"}]}]
    assert import_history(mistral, "m.json").format != "anthropic"
    anthropic = [{"role": "user", "content": "hi"},
                 {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s1"},
                                                   {"type": "text", "text": "hello"}]}]
    assert import_history(anthropic, "a.json").format == "anthropic"


def test_mixed_call_spellings_are_flat():
    doc = [{"role": "assistant", "content": "", "tool_calls": [
        {"tool_call_id": "a", "name": "f"},
        {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}]
    assert import_history(doc, "h.json").format == "flat"


def test_markers_of_two_formats_are_an_error_naming_both():
    doc = [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
           {"role": "user", "content": [{"toolResult": {"toolUseId": "t", "content": []}}]}]
    with pytest.raises(InputError) as err:
        import_history(doc, "h.json")
    assert "anthropic" in str(err.value) and "bedrock" in str(err.value) and "--from" in str(err.value)


def test_unrecognized_object_lists_what_was_tried():
    with pytest.raises(InputError) as err:
        import_history({"conversation": []}, "h.json")
    text = str(err.value)
    assert text.startswith("h.json: ") and "tried flat, openai-chat, openai-responses, anthropic, gemini, bedrock" in text


def test_cli_exits_2_on_ambiguous_input_and_accepts_from(tmp_path, capsys):
    path = tmp_path / "h.json"
    path.write_bytes(orjson.dumps([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t", "content": []}}]}]))
    assert cli.main(["check", str(path)]) == 2
    assert "ambiguous format" in capsys.readouterr().err
    assert cli.main(["check", "--from", "anthropic", str(path)]) in (0, 1)


"""xAI (Grok) chat completions: OpenAI Chat's rules, and each call's ``arguments`` must be
a JSON string the server can parse (a truncated or hand-edited call poisons the history)."""

from __future__ import annotations

from . import openai_chat
from .base import ERROR, Rule, extend
from .compatible import arguments_not_json, strict_json

NAME = "xai"

TARGET = extend(openai_chat.TARGET, NAME, [
    Rule("call-arguments-json",
         arguments_not_json(strict_json, lambda cid: f"The arguments to a tool_call with ID '{cid}' are not a valid "
                                                     "JSON string"),
         ERROR, "https://github.com/spiceai/spiceai/issues/4734",
         "a call whose arguments string is not valid JSON",
         "Repair or remove the call's arguments (the model's output was cut or malformed); Inspector does not "
         "rewrite arguments."),
])

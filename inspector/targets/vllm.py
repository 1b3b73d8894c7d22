"""vLLM's OpenAI-compatible server: OpenAI Chat's rules, and the server parses each call's
``arguments`` with Python's ``json.loads`` before rendering the model's chat template, so a
malformed string fails the whole request. (What the template itself refuses is
``check --template``.)"""

from __future__ import annotations

from . import openai_chat
from .base import ERROR, Rule, extend
from .compatible import arguments_not_json, python_json

NAME = "vllm"

TARGET = extend(openai_chat.TARGET, NAME, [
    Rule("call-arguments-json",
         arguments_not_json(python_json, lambda cid: f"tool_call '{cid}': arguments are not valid JSON "
                                                     "(json.loads failed)"),
         ERROR, "https://github.com/MoonshotAI/kimi-cli/issues/2165",
         "a call whose arguments string is not valid JSON",
         "Repair or remove the call's arguments (the model's output was cut or malformed); Inspector does not "
         "rewrite arguments."),
])

"""DeepSeek chat completions: OpenAI Chat's rules, and in thinking mode each earlier
assistant turn that made tool calls is sent back with the ``reasoning_content`` the model
returned for it (the model needs its own thinking to continue the tool loop). An empty
string is accepted (measured: a recorded deepseek-reasoner body with ``""`` got an answer),
a missing field is not."""

from __future__ import annotations

from collections.abc import Iterator

from . import openai_chat
from .base import ERROR, Hit, Rule, View, extend, is_map
from .compatible import CHAT, assistant_messages

NAME = "deepseek"


def thinking_mode(view: View) -> bool:
    """The request asks for thinking (``thinking: {type: enabled}``, a reasoner model), or
    its history already carries thinking (some assistant turn has ``reasoning_content``)."""
    setting = view.setting(CHAT, "thinking")
    if is_map(setting) and setting.get("type") == "disabled":
        return False
    model = view.setting(CHAT, "model")
    if is_map(setting) and setting.get("type") == "enabled" or isinstance(model, str) and "reasoner" in model:
        return True
    return any(message.get("reasoning_content") for _, message, _ in assistant_messages(view))


def reasoning_not_passed_back(view: View) -> Iterator[Hit]:
    if not thinking_mode(view):
        return
    for _, message, (row, where) in assistant_messages(view):
        if message.get("tool_calls") and message.get("reasoning_content") is None:
            yield Hit(row, "The `reasoning_content` in the thinking mode must be passed back to the API.",
                      where=where)


TARGET = extend(openai_chat.TARGET, NAME, [
    Rule("reasoning-not-passed-back", reasoning_not_passed_back, ERROR,
         "https://github.com/earendil-works/pi/issues/3636",
         "thinking mode: an assistant turn with tool_calls sent without a reasoning_content field (native)",
         "Send each tool-calling turn back with the reasoning_content DeepSeek returned for it, or disable "
         "thinking for this request."),
])

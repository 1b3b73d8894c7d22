"""Strict format detection: a format is chosen only on evidence that belongs to it alone.

Each format has decisive markers (a ``tool_use`` block, a ``functionCall`` part, a
``function_call`` item, ``toolUse``, OpenAI's ``function`` call spelling, stored buffer rows'
``metadata``...). Exactly one format with evidence wins. Evidence for two formats, or for
none while the content still is not plain flat messages, is an :class:`InputError` that
lists what was tried: a guess is never presented as fact.

Plain messages (no provider-specific keys or part types) are read as ``flat``: on such
input every chat format reads the same rows, and MEM-5's own reading is the one to show.
Content parts that several providers share (plain ``text``) do not decide a provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..io import InputError
from .base import kind_of

ORDER = ("flat", "openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")

ANTHROPIC_BLOCKS = {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
                    "web_search_tool_result", "document", "search_result", "container_upload"}
BEDROCK_KEYS = {"toolUse", "toolResult", "reasoningContent", "cachePoint", "guardContent"}
RESPONSES_ITEMS = {"function_call", "function_call_output", "reasoning", "message", "custom_tool_call",
                   "custom_tool_call_output", "item_reference", "web_search_call", "file_search_call",
                   "computer_call", "computer_call_output"}
RESPONSES_PARTS = {"input_text", "output_text", "input_image", "input_file", "input_audio"}
OPENAI_PARTS = {"image_url", "input_audio", "file", "refusal"}
GEMINI_PARTS = {"functionCall", "functionResponse", "function_call", "function_response", "inlineData",
                "inline_data", "fileData", "file_data", "executableCode", "codeExecutionResult", "thoughtSignature"}
# Keys that every chat format shares; a message with only these (and text content) is plain.
PLAIN_KEYS = frozenset(("role", "content", "tool_call_id", "name"))
CALL_KEYS = frozenset(("role", "content", "tool_calls"))
# Part vocabularies, to see which formats a list of content parts could belong to.
PART_TYPES = {"openai-chat": {"text", *OPENAI_PARTS}, "anthropic": {"text", "image", *ANTHROPIC_BLOCKS},
              "openai-responses": RESPONSES_PARTS | {"refusal", "summary_text"}}


def _scan(document: Any) -> tuple[dict[str, str], set[str], bool]:
    """Evidence per format, part types seen in list contents, and whether any content is a list."""
    found: dict[str, str] = {}

    def mark(fmt: str, why: str) -> None:
        found.setdefault(fmt, why)

    history: Any = document
    if isinstance(document, Mapping):
        if isinstance(document.get("contents"), list) or "systemInstruction" in document \
                or "system_instruction" in document:
            mark("gemini", 'a "contents" array or "systemInstruction"')
            history = document.get("contents")
        elif "input" in document and isinstance(document.get("input"), (list, str)) and "messages" not in document:
            mark("openai-responses", 'an "input" array')
            history = document["input"]
        else:
            history = document.get("messages")
            system = document.get("system")
            if isinstance(system, str):
                mark("anthropic", 'a top-level "system" string')
            elif isinstance(system, list) and system and all(isinstance(b, Mapping) for b in system):
                if all("type" in b for b in system):
                    mark("anthropic", 'a top-level "system" list of typed text blocks')
                elif any("text" in b and "type" not in b for b in system):
                    mark("bedrock", 'a top-level "system" list of {"text"} blocks')
            if "modelId" in document or "inferenceConfig" in document or "toolConfig" in document:
                mark("bedrock", '"modelId", "inferenceConfig" or "toolConfig"')
    parts_seen: set[str] = set()
    has_list = False
    if not isinstance(history, list):
        return found, parts_seen, has_list
    for m in history:
        if type(m) is dict and type(m.get("content")) is not list:
            if m.keys() <= PLAIN_KEYS:
                continue  # a plain message carries no marker of any format: skip it fast
            if m.keys() <= CALL_KEYS and type(calls := m.get("tool_calls")) is list:
                _scan_calls(calls, mark)
                continue
        if not isinstance(m, Mapping):
            continue
        kind = m.get("type")
        if isinstance(kind, str) and kind in RESPONSES_ITEMS and (kind != "message" or "role" in m):
            mark("openai-responses", f'an input item of type "{kind}"')
        if isinstance(m.get("parts"), list) and "content" not in m:
            mark("gemini", 'a content with "parts"')
            for p in m["parts"]:
                if isinstance(p, Mapping) and GEMINI_PARTS & p.keys():
                    mark("gemini", f'a "{sorted(GEMINI_PARTS & p.keys())[0]}" part')
        meta = m.get("metadata")
        if isinstance(meta, Mapping) and ("tool_calls" in meta or "tool_call_id" in meta):
            mark("flat", "stored buffer rows with tool pairing in metadata")
        calls = m.get("tool_calls")
        if isinstance(calls, list):
            _scan_calls(calls, mark)
        content = m.get("content")
        if isinstance(content, list):
            has_list = True
            for b in content:
                if not isinstance(b, Mapping):
                    continue
                t = b.get("type")
                if isinstance(t, str):
                    parts_seen.add(t)
                    if t in ANTHROPIC_BLOCKS or (t == "image" and "source" in b):
                        mark("anthropic", f'a "{t}" block')
                    elif t in OPENAI_PARTS:
                        mark("openai-chat", f'a "{t}" content part')
                    elif t in RESPONSES_PARTS:
                        mark("openai-responses", f'a "{t}" content part')
                elif BEDROCK_KEYS & b.keys():
                    mark("bedrock", f'a "{sorted(BEDROCK_KEYS & b.keys())[0]}" block')
                elif "text" in b or "image" in b or "document" in b:
                    mark("bedrock", "content blocks without a type key")
    return found, parts_seen, has_list


def _scan_calls(calls: list[Any], mark: Any) -> None:
    for c in calls:
        if not isinstance(c, Mapping):
            continue
        if "tool_call_id" in c or ("name" in c and "function" not in c):
            mark("flat", "calls in the flat spelling (tool_call_id / name)")
        elif isinstance(c.get("function"), Mapping):
            mark("openai-chat", 'calls with "function": {name, arguments}')


def detect(document: Any, name: str) -> str:
    """The one format ``document`` belongs to, or an InputError saying what was tried."""
    found, parts, has_list = _scan(document)
    if found.keys() == {"flat", "openai-chat"}:
        # The flat shape reads both call spellings (MEM-11), so a mix of them is flat.
        return "flat"
    if len(found) == 1:
        return next(iter(found))
    if len(found) > 1:
        listed = "; ".join(f"{f} ({why})" for f, why in sorted(found.items(), key=lambda kv: ORDER.index(kv[0])))
        raise InputError(name, f"ambiguous format: it has markers of {listed}; pass --from NAME to choose")
    plain = isinstance(document, list) or (isinstance(document, Mapping) and isinstance(document.get("messages"), list))
    if plain and not has_list:
        return "flat"
    if plain:
        fits = [f for f, vocab in PART_TYPES.items() if parts <= vocab]
        if len(fits) == 1:
            return fits[0]
        # Nothing belongs to one provider alone: MEM-5's own reading applies, and clause 1
        # writes list content out as JSON text. --from NAME reads it as a provider would.
        return "flat"
    tried = ", ".join(ORDER)
    if isinstance(document, Mapping):
        keys = ", ".join(sorted(map(str, document))[:8]) or "no keys"
        raise InputError(name, f'unrecognized format: expected a JSON array of messages or an object with a '
                               f'"messages" array (flat, openai-chat, anthropic, bedrock), "input" '
                               f'(openai-responses) or "contents" (gemini); the top-level object has {keys}; '
                               f"tried {tried}")
    raise InputError(name, f'expected a JSON array of messages or an object with a "messages" array, '
                           f"got {kind_of(document)}; tried {tried}")

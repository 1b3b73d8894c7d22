"""A request body's envelope (everything around its history: ``model``, ``tools``, the
sampling settings...) carried across a conversion.

Converting a body to another provider's format used to write the history alone, dropping the
envelope without a word. Now what the target's request body has a field for is written there
in the target's spelling (tools converted between the providers' declarations; ``model``
kept where the target's body names the model, not where the model is part of the URL, as in
Gemini and Bedrock), and every field left behind is named in one export event, so the CLI's
``explain`` and the TUI's export dialog list it.

The field names follow each provider's request reference:
- Anthropic Messages: https://docs.anthropic.com/en/api/messages (model, max_tokens,
  temperature, top_p, stop_sequences, tools[].input_schema)
- OpenAI Chat Completions: https://platform.openai.com/docs/api-reference/chat/create (model,
  max_completion_tokens, temperature, top_p, stop, tools[].function.parameters)
- OpenAI Responses: https://platform.openai.com/docs/api-reference/responses/create (model,
  max_output_tokens, temperature, top_p, tools[] with name/parameters at the top)
- Gemini generateContent: https://ai.google.dev/api/generate-content (generationConfig's
  maxOutputTokens, temperature, topP, stopSequences; tools[].functionDeclarations)
- Bedrock Converse: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
  (inferenceConfig's maxTokens, temperature, topP, stopSequences; toolConfig.tools[].toolSpec
  with inputSchema.json)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import EXPORT_CLAUSE, Kind, declare
from .base import Exported, Imported

EMITS = declare(
    Kind("envelope-left", EXPORT_CLAUSE, False, "envelope left behind",
         "A field around the history (a setting of the request) has no place in the target format's body, "
         "so the converted document does not carry it.", "change"),
)

# Where each format keeps one setting: a path of keys in its body. None: the body has no such
# field (the model of a Gemini or Bedrock call is part of the URL).
SETTINGS: dict[str, dict[str, tuple[str, ...] | None]] = {
    "anthropic": {"model": ("model",), "max_tokens": ("max_tokens",), "temperature": ("temperature",),
                  "top_p": ("top_p",), "stop": ("stop_sequences",)},
    "openai-chat": {"model": ("model",), "max_tokens": ("max_completion_tokens",), "temperature": ("temperature",),
                    "top_p": ("top_p",), "stop": ("stop",)},
    "openai-responses": {"model": ("model",), "max_tokens": ("max_output_tokens",),
                         "temperature": ("temperature",), "top_p": ("top_p",), "stop": None},
    "gemini": {"model": None, "max_tokens": ("generationConfig", "maxOutputTokens"),
               "temperature": ("generationConfig", "temperature"), "top_p": ("generationConfig", "topP"),
               "stop": ("generationConfig", "stopSequences")},
    "bedrock": {"model": None, "max_tokens": ("inferenceConfig", "maxTokens"),
                "temperature": ("inferenceConfig", "temperature"), "top_p": ("inferenceConfig", "topP"),
                "stop": ("inferenceConfig", "stopSequences")},
}
# Older spellings a body may still use for the same setting.
ALSO: dict[str, dict[str, tuple[str, ...]]] = {"openai-chat": {"max_tokens": ("max_tokens",)}}
# Where the history sits in each format's body.
CONTAINER = {"anthropic": "messages", "openai-chat": "messages", "openai-responses": "input",
             "gemini": "contents", "bedrock": "messages"}
TOOLS = {"anthropic": ("tools",), "openai-chat": ("tools",), "openai-responses": ("tools",), "gemini": ("tools",),
         "bedrock": ("toolConfig", "tools")}


def _get(body: Mapping, path: tuple[str, ...]) -> Any:
    value: Any = body
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def _put(body: dict, path: tuple[str, ...], value: Any) -> bool:
    """Set ``path`` unless the body already has it (the target's own export wins)."""
    for key in path[:-1]:
        inner = body.get(key)
        if inner is None:
            inner = body[key] = {}
        elif not isinstance(inner, dict):
            return False
        else:
            inner = body[key] = dict(inner)
        body = inner
    if path[-1] in body:
        return False
    body[path[-1]] = value
    return True


# -- tools: (name, description, JSON schema) between the providers' declarations -----------
def _read_tool(fmt: str, tool: Any) -> tuple[str, str | None, Any] | None:
    """One function tool as (name, description, schema); None for anything else (a built-in
    or server tool, which has no counterpart elsewhere)."""
    if not isinstance(tool, Mapping):
        return None
    if fmt == "anthropic" and isinstance(tool.get("name"), str) and "input_schema" in tool:
        return tool["name"], tool.get("description"), tool["input_schema"]
    if fmt == "openai-chat" and tool.get("type") == "function" and isinstance(tool.get("function"), Mapping):
        f = tool["function"]
        return (f["name"], f.get("description"), f.get("parameters")) if isinstance(f.get("name"), str) else None
    if fmt == "openai-responses" and tool.get("type") == "function" and isinstance(tool.get("name"), str):
        return tool["name"], tool.get("description"), tool.get("parameters")
    if fmt == "bedrock" and isinstance(tool.get("toolSpec"), Mapping):
        spec = tool["toolSpec"]
        schema = spec.get("inputSchema")
        schema = schema.get("json") if isinstance(schema, Mapping) else None
        return (spec["name"], spec.get("description"), schema) if isinstance(spec.get("name"), str) else None
    return None


def _tools_of(fmt: str, tools: Any) -> tuple[list[tuple[str, str | None, Any]], list[int]]:
    """The function tools of a body (Gemini: every declaration of every tools entry) and the
    positions of the tools that are not functions."""
    found, other = [], []
    for k, tool in enumerate(tools if isinstance(tools, list) else []):
        if fmt == "gemini":
            declarations = tool.get("functionDeclarations") if isinstance(tool, Mapping) else None
            if isinstance(declarations, list) and len(tool) == 1:
                found += [(d["name"], d.get("description"), d.get("parameters")) for d in declarations
                          if isinstance(d, Mapping) and isinstance(d.get("name"), str)]
                continue
            other.append(k)
            continue
        read = _read_tool(fmt, tool)
        if read is None:
            other.append(k)
        else:
            found.append(read)
    return found, other


def _write_tools(fmt: str, tools: list[tuple[str, str | None, Any]]) -> Any:
    def described(d: dict, description: str | None) -> dict:
        return {**d, "description": description} if description is not None else d

    schema = lambda s: s if s is not None else {"type": "object", "properties": {}}  # noqa: E731
    if fmt == "anthropic":
        return [{**described({"name": n}, d), "input_schema": schema(s)} for n, d, s in tools]
    if fmt == "openai-chat":
        return [{"type": "function", "function": {**described({"name": n}, d), "parameters": schema(s)}}
                for n, d, s in tools]
    if fmt == "openai-responses":
        return [{"type": "function", **described({"name": n}, d), "parameters": schema(s)} for n, d, s in tools]
    if fmt == "gemini":
        return [{"functionDeclarations": [{**described({"name": n}, d), **({"parameters": s} if s is not None else {})}
                                          for n, d, s in tools]}]
    return [{"toolSpec": {**described({"name": n}, d), "inputSchema": {"json": schema(s)}}} for n, d, s in tools]


# -- the conversion ------------------------------------------------------------------------
def fields(im: Imported) -> dict[str, Any]:
    """The envelope of an imported body: its top-level fields that were not read into
    messages (the history, and fields such as ``system`` that became messages)."""
    document = im.document
    if im.container is None or not isinstance(document, Mapping):
        return {}
    read = {im.container}
    read.update(loc.message for loc in im.sources if isinstance(loc.message, str))
    return {k: v for k, v in document.items() if k not in read}


def carry(im: Imported, target: str, document: Any, notes: Exported) -> Any:
    """``document`` (the target's export of the history) with the envelope of ``im``'s body
    carried into it where the target has a place for it; one event names the rest."""
    envelope = fields(im)
    if not envelope or target == "flat":     # flat keeps a body's other fields as they are
        return document
    source = im.format if im.format in SETTINGS else None
    if target not in SETTINGS or source is None or not isinstance(document, (list, Mapping)):
        _name(notes, im.format, target, sorted(envelope), kept=[])
        return document
    body: dict[str, Any] = dict(document) if isinstance(document, Mapping) else {CONTAINER[target]: document}
    kept: list[str] = []
    carried: set[tuple[str, ...]] = set()
    for setting, path in SETTINGS[source].items():
        for spelling in (path, *ALSO.get(source, {}).get(setting, ())) if path else ():
            spelling = spelling if isinstance(spelling, tuple) else (spelling,)
            value = _get(envelope, spelling)
            where = SETTINGS[target][setting]
            if value is not None and where is not None and _put(body, where, value):
                kept.append(".".join(spelling))
                carried.add(spelling)
    tools_path = TOOLS[source]
    tools, other = _tools_of(source, _get(envelope, tools_path))
    if tools and _put(body, TOOLS[target], _write_tools(target, tools)):
        kept.append(f"{'.'.join(tools_path)} ({len(tools)} converted)")
        carried.add(tools_path)
    left = _left(envelope, carried)
    if other:
        left = [k for k in left if k != ".".join(tools_path)] + [f"{'.'.join(tools_path)}[{k}]" for k in other]
    if "model" in left and SETTINGS[target]["model"] is None:
        left[left.index("model")] = f"model ({target} names the model in the URL, not the body)"
    _name(notes, im.format, target, left, kept)
    if isinstance(document, list) and not kept:
        return document         # nothing carried: the history alone, as before
    if isinstance(document, list):   # the model, the history, then the other settings
        container = CONTAINER[target]
        body = {k: body[k] for k in ("model",) if k in body} | {container: document} | {
            k: v for k, v in body.items() if k not in ("model", container)}
    return body


def _left(envelope: Mapping, carried: set[tuple[str, ...]]) -> list[str]:
    """The envelope's fields not carried: a top-level key, or ``key.sub`` inside an object
    some of whose fields were carried."""
    left = []
    for key, value in envelope.items():
        if (key,) in carried:
            continue
        inner = {p[1] for p in carried if len(p) == 2 and p[0] == key}
        if inner and isinstance(value, Mapping):
            left += [f"{key}.{sub}" for sub in value if sub not in inner]
        else:
            left.append(key)
    return left


def _name(notes: Exported, source: str, target: str, left: list[str], kept: list[str]) -> None:
    if not left:
        return
    carried = f"; carried: {', '.join(kept)}" if kept else ""
    notes.note("envelope-left", f"The {source} body's {', '.join(left)} "
                                f"{'has' if len(left) == 1 else 'have'} no place in the {target} body and "
                                f"{'is' if len(left) == 1 else 'are'} not written{carried}.")

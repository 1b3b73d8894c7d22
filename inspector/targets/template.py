"""A model's own chat template as a target: ``inspector check FILE --template PATH``.

A local model served by vLLM, TGI or llama.cpp refuses a history when its chat template
raises: Qwen's "No user query found in messages.", Devstral's alternation guard, Gemma's
refusal of the ``tool`` role. The template is the rule, so it is run, not re-read: the
normalized history is rendered the way ``transformers.apply_chat_template`` renders it
(jinja2's immutable sandbox with ``trim_blocks`` and ``lstrip_blocks``, the
``raise_exception`` and ``strftime_now`` globals, a ``tojson`` that keeps non-ASCII text,
``tools``, ``add_generation_prompt``, and the ``bos_token``/``eos_token`` of a
``tokenizer_config.json``), and what it raises is reported with the template's own words.

jinja2 (the ``template`` extra) is imported on first use, so the rest of ``check`` works
without it, and ``--template`` without it is a clear input error.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..io import InputError, display_name, parse_json, read_bytes
from .base import ERROR, Problem, View, calls_of, cid_of, is_map

NAME = "template"
RULE = "template-raises"
SOURCE = "https://huggingface.co/docs/transformers/chat_templating"
FIX = ("The model's own chat template refuses this history: change the history the way the message asks "
       "(or serve the model with a template that accepts it).")


@dataclass(frozen=True)
class ChatTemplate:
    """A template file, or the templates of a ``tokenizer_config.json`` (one string, or a
    list of named ones: ``tool_use`` is picked when the request has tools, as transformers
    does, else ``default``)."""

    name: str
    templates: Mapping[str, str]
    bos_token: str = ""
    eos_token: str = ""
    _compiled: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def source(self, tools: bool) -> str:
        if tools and "tool_use" in self.templates:
            return self.templates["tool_use"]
        if "default" in self.templates:
            return self.templates["default"]
        return next(iter(self.templates.values()))

    def compiled(self, tools: bool) -> Any:
        text = self.source(tools)
        if text not in self._compiled:
            self._compiled[text] = _compile(text, self.name)
        return self._compiled[text]


def _token(value: Any) -> str:
    """A special token as a config holds it: a string, or an AddedToken's ``content``."""
    if isinstance(value, str):
        return value
    if is_map(value) and isinstance(value.get("content"), str):
        return value["content"]
    return ""


def load_template(path: str | Path) -> ChatTemplate:
    """Read and compile a template file or a tokenizer config; an unreadable file, a config
    without ``chat_template`` or a template syntax error is an :class:`InputError`."""
    name = display_name(path)
    data = read_bytes(path)
    config: Any = None
    if str(path).endswith(".json") or re.match(rb'\s*\{\s*"', data):   # a Jinja file starts "{%", "{{" or "{#"
        config = parse_json(data, name)
    if config is None:
        try:
            templates: dict[str, str] = {"default": data.decode("utf-8-sig")}
        except UnicodeDecodeError as bad:
            raise InputError(name, f"not valid UTF-8 (byte 0x{data[bad.start]:02x})") from None
        template = ChatTemplate(name, templates)
    else:
        raw = config.get("chat_template") if is_map(config) else None
        if isinstance(raw, str):
            templates = {"default": raw}
        elif isinstance(raw, list) and raw and all(
                is_map(t) and isinstance(t.get("name"), str) and isinstance(t.get("template"), str) for t in raw):
            templates = {t["name"]: t["template"] for t in raw}
        else:
            raise InputError(name, "no chat_template here: expected a string or a list of "
                                   "{\"name\", \"template\"} objects")
        template = ChatTemplate(name, templates, _token(config.get("bos_token")), _token(config.get("eos_token")))
    for text in set(template.templates.values()):
        _compile(text, name, parse_only=True)       # a syntax error now, with its line
    return template


def _jinja() -> Any:
    try:
        import jinja2
        import jinja2.ext
        import jinja2.sandbox
    except ImportError:                                   # the optional extra is not installed
        raise InputError("--template", "checking a chat template needs jinja2 "
                                       "(pip install 'inspector[template]')") from None
    return jinja2


def _compile(text: str, name: str, parse_only: bool = False) -> Any:
    """The template compiled (in the bounded child only: jinja2 folds constants while it
    compiles, so ``{{ 'x' * 10**10 }}`` or a filter on a huge literal would be computed then),
    or with ``parse_only`` just parsed, which computes nothing."""
    jinja2 = _jinja()

    class Generation(jinja2.ext.Extension):
        """``{% generation %}…{% endgeneration %}`` marks the assistant's tokens for
        training masks; rendering keeps its body as it is."""

        tags = {"generation"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller: Callable[[], str]) -> str:
            return caller()

    def raise_exception(message: Any) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
               sort_keys: bool = False) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols])
    # Intercepted operators are never folded while compiling; at render time they run under
    # the child's memory bound (jinja2.sandbox.SandboxedEnvironment.intercepted_binops).
    env.intercepted_binops = frozenset({"*", "**", "+"})
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    try:
        if parse_only:
            return env.parse(text)
        return env.from_string(text)
    except jinja2.TemplateSyntaxError as exc:
        raise InputError(name, f"chat template: {exc.message}", exc.lineno, 1) from None


# -- the history as transformers' callers write it ----------------------------------------

def _arguments(args: Any) -> Any:
    """Arguments as an object, as chat templates expect them (``tool_call.arguments|tojson``)."""
    if isinstance(args, str):
        try:
            return json.loads(args) if args.strip() else {}
        except ValueError:
            return args
    return {} if args is None else args


def chat_messages(rows: list[Mapping]) -> list[dict[str, Any]]:
    """Flat rows as OpenAI-shaped chat messages, the shape templates are written for."""
    names: dict[str, str] = {}
    out = []
    for m in rows:
        message: dict[str, Any] = {"role": m["role"], "content": m.get("content", "")}
        if m["role"] == "assistant" and calls_of(m):
            calls = []
            for call in calls_of(m):
                if not is_map(call):
                    continue
                cid = cid_of(call)
                name = call.get("name")
                if cid is not None and isinstance(name, str):
                    names[cid] = name
                calls.append({"id": cid, "type": "function",
                              "function": {"name": name, "arguments": _arguments(call.get("arguments"))}})
            message["tool_calls"] = calls
        if m["role"] == "tool":
            cid = m.get("tool_call_id")
            message["tool_call_id"] = cid
            if cid in names:
                message["name"] = names[cid]
        out.append(message)
    return out


def _tools(view: View) -> list[Any] | None:
    """The request's tools, as function schemas (Anthropic's ``input_schema`` and Gemini's
    declarations are written as OpenAI ``function`` entries)."""
    out = getattr(view.outcome, "exported", None)
    doc = out if is_map(out) else None
    tools = doc.get("tools") if doc is not None else None
    if not isinstance(tools, list) or not tools:
        return None
    schemas: list[Any] = []
    for tool in tools:
        if not is_map(tool):
            continue
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        if isinstance(declarations, list):
            schemas += [{"type": "function", "function": dict(d)} for d in declarations if is_map(d)]
        elif "function" in tool or "toolSpec" not in tool and tool.get("type") == "function":
            schemas.append(dict(tool))
        else:
            spec = tool.get("toolSpec") if is_map(tool.get("toolSpec")) else tool
            schema = spec.get("input_schema") or spec.get("inputSchema") or spec.get("parameters")
            if is_map(schema) and is_map(schema.get("json")):
                schema = schema["json"]
            schemas.append({"type": "function", "function": {
                "name": spec.get("name"), "description": spec.get("description", ""), "parameters": schema or {}}})
    return schemas or None


# Bounds on one check's rendering (R3-13): the sandbox stops attribute escapes, not a template
# that loops for hours, asks lipsum for a million paragraphs or builds a string of 10 GB. The
# whole check (render, then bisection) runs in a child process with these limits: wall time
# (the child is killed), address space (the child's MemoryError) and the rendered text's size.
RENDER_SECONDS = 20.0
_SECONDS_VARIABLE = "INSPECTOR_TEMPLATE_SECONDS"   # a larger or smaller wall-time bound, in seconds


def render_seconds() -> float:
    """The wall-time bound of one check's rendering: ``RENDER_SECONDS``, or the positive number
    of seconds ``$INSPECTOR_TEMPLATE_SECONDS`` gives (a slow machine, a template known to be
    heavy; the tests use a short one)."""
    try:
        seconds = float(os.environ.get(_SECONDS_VARIABLE, ""))
    except ValueError:
        return RENDER_SECONDS
    return seconds if 0 < seconds < float("inf") else RENDER_SECONDS
RENDER_BYTES = 64 << 20
RENDER_MEMORY = 1 << 30          # plus four times the history's size


class _Bounded(Exception):
    """Rendering passed one of its bounds: no bisection re-renders it."""


def _failure(template: ChatTemplate, messages: list[dict[str, Any]], tools: list[Any] | None,
             limit: int = RENDER_BYTES) -> str | None:
    """What rendering ``messages`` raises, in the template's words (None: it renders).
    Raises :class:`_Bounded` when the rendered text passes ``limit`` characters or memory
    runs out: a bound of this check, not the template's refusal of one row."""
    jinja2 = _jinja()
    compiled = template.compiled(tools is not None)
    try:
        size = 0
        for piece in compiled.generate(messages=messages, tools=tools, documents=None,
                                       add_generation_prompt=bool(messages) and messages[-1]["role"] != "assistant",
                                       bos_token=template.bos_token, eos_token=template.eos_token):
            size += len(piece)
            if size > limit:
                raise _Bounded(f"the rendered prompt passed {limit // (1 << 20)} MB: rendering stopped there")
    except _Bounded:
        raise
    except MemoryError:
        raise _Bounded("rendering ran out of memory (the check allows "
                       f"{RENDER_MEMORY // (1 << 20)} MB more than the history's size)") from None
    except jinja2.exceptions.TemplateError as exc:
        if type(exc) is jinja2.exceptions.TemplateError and exc.message:
            return str(exc.message)                        # raise_exception: the template's own words
        return f"{type(exc).__name__}: {exc}"
    except Exception as exc:     # a template's own TypeError or KeyError fails the server's request too
        return f"{type(exc).__name__}: {exc}"
    return None


def _first_failing(template: ChatTemplate, messages: list[dict[str, Any]], tools: list[Any] | None,
                   error: str) -> int:
    """The shortest prefix of the history that the template refuses with ``error``: its
    last row is the one the refusal concerns (bisected; the whole history when no shorter
    prefix fails the same way)."""
    lo, hi = 1, len(messages)
    while lo < hi:
        mid = (lo + hi) // 2
        if _failure(template, messages[:mid], tools) == error:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _verdict(template: ChatTemplate, messages: list[dict[str, Any]], tools: list[Any] | None,
             limit: int = RENDER_BYTES) -> tuple[str | None, int]:
    """The template's refusal and the length of the shortest prefix refused the same way
    (bisected), or a bound's words and the whole history (never re-rendered per step)."""
    try:
        error = _failure(template, messages, tools, limit)
        if error is None:
            return None, 0
        return error, _first_failing(template, messages, tools, error) if messages else 0
    except _Bounded as bound:
        return str(bound), len(messages)


def _bounded_verdict(template: ChatTemplate, messages: list[dict[str, Any]],
                     tools: list[Any] | None) -> tuple[str | None, int]:
    """:func:`_verdict` in a child process with a wall-clock, memory and output bound."""
    import subprocess
    import sys

    payload = json.dumps({"name": template.name, "templates": dict(template.templates),
                          "bos": template.bos_token, "eos": template.eos_token, "messages": messages,
                          "tools": tools, "limit": RENDER_BYTES}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    memory = RENDER_MEMORY + 4 * len(payload)
    code = ("import sys; from inspector.targets.template import _child; "
            f"sys.exit(_child({memory}))")
    try:
        done = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True,
                              timeout=render_seconds())
    except subprocess.TimeoutExpired:
        return (f"the template did not finish rendering within {render_seconds():g} s (stopped: a loop this "
                "long would hold the server's request too)"), len(messages)
    try:
        answer = json.loads(done.stdout)
        return answer["error"], int(answer["prefix"])
    except (ValueError, KeyError, TypeError):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return f"rendering stopped: {tail[0][:200]}", len(messages)


def _child(memory: int) -> int:
    """The child's side of :func:`_bounded_verdict`: limits, then one verdict as JSON."""
    import sys

    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass                               # no such limit here: the wall-clock bound still holds
    job = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogatepass"))
    template = ChatTemplate(job["name"], job["templates"], job["bos"], job["eos"])
    error, prefix = _verdict(template, job["messages"], job["tools"], job["limit"])
    sys.stdout.write(json.dumps({"error": error, "prefix": prefix}))
    return 0


def check_template(subject: Any, template: ChatTemplate) -> list[Problem]:
    """What rendering ``subject`` (a pipeline Outcome, or flat messages) with ``template``
    raises, as one error on the row it concerns. Rendered in a bounded child process."""
    view = View(subject) if isinstance(subject, list) else View(subject.result.messages, subject)
    rows = [(i, m) for i, m in view.rows]
    messages = chat_messages([m for _, m in rows])
    tools = _tools(view)
    error, prefix = _bounded_verdict(template, messages, tools)
    if error is None:
        return []
    if not rows:
        return [Problem(0, RULE, ERROR, error, FIX, SOURCE, False, None, None, NAME)]
    index = rows[max(prefix, 1) - 1][0]
    return [Problem(index, RULE, ERROR, error, FIX, SOURCE, False, view.where(index), None, NAME)]

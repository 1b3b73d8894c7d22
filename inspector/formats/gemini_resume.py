"""What Gemini CLI sends when it resumes a session: its message records turned into Gemini
contents, each part with the record field it came from.

The conversion is Gemini CLI's own ``convertSessionToClientHistory``
(google-gemini/gemini-cli ``packages/core/src/utils/sessionUtils.ts`` at 5411f113):

- ``info``, ``error`` and ``warning`` records are not sent, nor a ``user`` record whose text
  (``partListUnionToString``, which names non-text parts: ``[Function Response: NAME]``) is
  empty or starts with ``/``, ``?``, ``<session_context>`` or ``<hook_context>``;
- a ``user`` record is one user content of its parts;
- a ``gemini`` record whose ``content`` holds a ``functionCall`` or a thought part is sent as
  that content; otherwise its ``thoughts`` become thought text parts, then its text, then
  one ``functionCall`` per tool call; the results of its tool calls follow in one user
  content. A tool response is also recorded as a ``user`` record of ``functionResponse``
  parts (``geminiChat.ts``), so a resume sends each result twice (google-gemini/gemini-cli
  #29365): the import says so, and the engine keeps the first copy.
- A ``compression_marker`` record (google-gemini/gemini-cli PR #21334, commit e62caf67:
  not in the mainline at 5411f113, where compression writes a ``$set.messages`` batch
  instead) stands for everything before it: its ``compressedHistory`` is sent first, then
  the records after it.

Each part's :class:`Src` says which record and which field holds it, so that export edits
exactly that field. The ids Gemini CLI derives for id-less calls (``ensureStableToolIds``)
are left to the Gemini importer, which pairs them by name and position the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SKIPPED_TYPES = ("info", "error", "warning")
IGNORED_PREFIXES = ("/", "?", "<session_context>", "<hook_context>")
MARKER = "compression_marker"
# partToString(verbose): a non-text part is named, in this order of keys.
NAMED = (("videoMetadata", "[Video Metadata]"), ("thought", None), ("codeExecutionResult", "[Code Execution Result]"),
         ("executableCode", "[Executable Code]"), ("fileData", "[File Data]"), ("functionCall", None),
         ("functionResponse", None), ("inlineData", "[Media]"))


@dataclass(frozen=True, slots=True)
class Src:
    """Where one sent part came from: record ``record`` (its index in the records read) and
    its ``field``: ``content`` (part ``a``; None: the whole content), ``thoughts`` (thought
    ``a``), ``toolCalls`` (the call built from tool call ``a``), ``result`` (tool call
    ``a``'s result, part ``b``; None: the whole result), ``compressedHistory`` (content ``a``,
    part ``b``)."""

    record: int
    field: str
    a: int | None = None
    b: int | None = None

    def path(self) -> str:
        if self.field == "content":
            return "" if self.a is None else f"content[{self.a}]"
        if self.field in ("thoughts", "toolCalls"):
            return f"{self.field}[{self.a}]"
        if self.field == "result":
            return f"toolCalls[{self.a}].result" + ("" if self.b is None else f"[{self.b}]")
        return f"compressedHistory[{self.a}].parts[{self.b}]"


def _truthy(value: Any) -> bool:
    """JavaScript's truth, for the checks the CLI writes as ``if (value)``."""
    return value is not None and value is not False and value != "" and not (
        isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0)


def text_of(value: Any) -> str:
    """``partListUnionToString``: text parts as they are, other parts named."""
    if not _truthy(value):
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(text_of(p) for p in value)
    if not isinstance(value, Mapping):
        return ""
    for key, label in NAMED:
        if key in value:
            if label is not None:
                return label
            inner = value[key]
            if key == "thought":
                return f"[Thought: {inner}]"
            name = inner.get("name") if isinstance(inner, Mapping) else None
            return f"[Function {'Call' if key == 'functionCall' else 'Response'}: {name}]"
    text = value.get("text")
    return text if isinstance(text, str) else ""


def _parts(content: Any, record: int, field: str = "content") -> list[tuple[Any, Src]]:
    """``ensurePartArray``: a list's items (a string item as a text part), a string as one
    text part, anything else as one part."""
    if isinstance(content, list):
        return [({"text": p} if isinstance(p, str) else p, Src(record, field, k)) for k, p in enumerate(content)]
    if isinstance(content, str):
        return [({"text": content}, Src(record, field))]
    return [(content, Src(record, field))]


def _is(part: Any, key: str) -> bool:
    return isinstance(part, Mapping) and _truthy(part.get(key))


def is_sent(record: Any) -> bool:
    """Whether a resume sends anything of the record (its type and text alone decide)."""
    if not isinstance(record, Mapping):
        return False
    kind = record.get("type")
    if kind == "user":
        text = text_of(record.get("content")).strip()
        return bool(text) and not text.startswith(IGNORED_PREFIXES)
    return kind == "gemini"


def convert(records: list[Any]) -> tuple[list[dict[str, Any]], list[list[Src]]]:
    """The contents a resume sends, and for each content the source of each of its parts."""
    contents: list[dict[str, Any]] = []
    sources: list[list[Src]] = []

    def push(role: str, parts: list[tuple[Any, Src]]) -> None:
        contents.append({"role": role, "parts": [p for p, _ in parts]})
        sources.append([s for _, s in parts])

    start = 0
    for r in range(len(records) - 1, -1, -1):
        marker = records[r]
        if isinstance(marker, Mapping) and marker.get("type") == MARKER:
            start = r + 1
            history = marker.get("compressedHistory")
            for c, entry in enumerate(history if isinstance(history, list) else ()):
                entry = entry if isinstance(entry, Mapping) else {}
                parts = entry.get("parts")
                pairs = [(p, Src(r, "compressedHistory", c, k)) for k, (p, _) in enumerate(_parts(parts, r))] \
                    if _truthy(parts) else []
                push("model" if entry.get("role") == "model" else "user", pairs)
            break
    for r in range(start, len(records)):
        msg = records[r]
        if not isinstance(msg, Mapping) or msg.get("type") in SKIPPED_TYPES:
            continue
        if msg.get("type") == "user":
            if is_sent(msg):
                push("user", _parts(msg.get("content"), r))
            continue
        if msg.get("type") != "gemini":
            continue
        content = _parts(msg["content"], r) if _truthy(msg.get("content")) else []
        calls = msg.get("toolCalls") if isinstance(msg.get("toolCalls"), list) else []
        if any(_is(p, "functionCall") or _is(p, "thought") for p, _ in content):
            model = content                       # the content is the whole model turn
        else:
            model = []
            thoughts = msg.get("thoughts")
            for k, thought in enumerate(thoughts if isinstance(thoughts, list) else ()):
                thought = thought if isinstance(thought, Mapping) else {}
                described = thought.get("description")
                described = described if isinstance(described, str) else ""
                subject = thought.get("subject")
                text = f"**{subject}** {described}" if _truthy(subject) else described
                model.append(({"text": text, "thought": True}, Src(r, "thoughts", k)))
            model += content
            for j, tc in enumerate(calls):
                if isinstance(tc, Mapping):
                    call = {key: tc[key] for key in ("id", "name", "args") if key in tc}
                    model.append(({"functionCall": call}, Src(r, "toolCalls", j)))
        if not model:
            continue
        push("model", model)
        responses: list[tuple[Any, Src]] = []
        for j, tc in enumerate(calls):
            result = tc.get("result") if isinstance(tc, Mapping) else None
            if not _truthy(result):
                continue
            if isinstance(result, str):
                fr = {key: tc[key] for key in ("id", "name") if key in tc}
                fr["response"] = {"output": result}
                responses.append(({"functionResponse": fr}, Src(r, "result", j)))
            elif isinstance(result, list):
                responses += [(p, Src(r, "result", j, k)) for k, (p, _) in enumerate(_parts(result, r))]
            else:
                responses.append((result, Src(r, "result", j)))
        if responses:
            push("user", responses)
    return contents, sources

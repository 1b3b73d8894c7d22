"""GitHub Copilot CLI sessions: ``~/.copilot/session-state/<session id>/events.jsonl``.

One typed event per line; ``events.py`` reads the conversation Copilot CLI sends when it
resumes one (the main agent's messages, a compaction's summary in place of what it replaced,
the sub-agents' events kept apart), ``export.py`` writes a repair the way Copilot CLI writes
its events, every other line byte for byte. Sources: github/copilot-sdk
``nodejs/src/generated/session-events.ts`` at cc0438d66e3e (the event schema), the real
sessions in microsoft/vscode-copilot-chat ``src/extension/agents/copilotcli/node/test/fixtures/``
at 417210375b57, and the reports github/copilot-cli #2323, #2543, #3366 (sessions refused
forever after an interrupted or interleaved call) and #3183.

What Copilot CLI repairs itself: since 1.0.78 it answers a call left without a result with a
placeholder before every request, and puts a late or out-of-order result back next to its
call (github/copilot-cli #3183, closed 2026-07-31: "interrupted tool calls are recovered ...
late or out-of-order tool results are normalized"; github/app #2236: fixed in the app build
that bundles Copilot CLI 1.0.78-2, "substituting a placeholder result for any tool that was
interrupted"). Before that version such a session is refused on every request. The version
is the ``copilotVersion`` of the session's ``session.start``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from ...engine import IMPORT_CLAUSE, Kind, declare
from .. import identity, reasoning, session
from ..base import Exported, Imported
from ..format import Agent, Format, OnResume, SESSION, SelfRepair, Source
from ..jsonl import LineFormat, Lines
from . import events, export
from .events import data_of

NAME = export.NAME
SUMMARY = "a GitHub Copilot CLI session (events.jsonl under ~/.copilot/session-state/<id>/)"

EMITS = declare(
    session.MOVED,
    Kind("call-interrupted-on-resume", IMPORT_CLAUSE, False, "Copilot CLI answers it on resume",
         "A call has no result in the session; Copilot CLI 1.0.78 and later sends an interrupted result for it "
         "itself before each request.", "note", "call"),
    Kind("result-late-on-resume", IMPORT_CLAUSE, False, "Copilot CLI moves it on resume",
         "A call's result comes after other messages; Copilot CLI 1.0.78 and later puts it next to its call itself "
         "before each request.", "note", "call"),
)

SOURCE = ("github/copilot-cli #3183 (closed 2026-07-31: interrupted calls recovered, late or out-of-order results "
          "normalized, history validated before each request); github/app #2236 (Copilot CLI 1.0.78-2)")
SELF_REPAIRS = (
    SelfRepair("call-interrupted-on-resume", "1.0.78",
               "answers a call left without a result with an interrupted placeholder",
               "sends the call without a result, and every request is refused (github/copilot-cli #3366)",
               SOURCE, rule="tool-use-without-result", lossless=False),
    SelfRepair("result-late-on-resume", "1.0.78", "moves a late result next to its call",
               "sends it where it stands, and every request is refused (github/copilot-cli #2323)",
               SOURCE, rule="tool-use-without-result"),
    # A line Inspector leaves out of the copy (entry-removed): said where the doctor names such a file.
    SelfRepair(None, "1.0.57", "skips the NUL-only lines a crash leaves at the end of events.jsonl", "",
               "github/copilot-cli #3593 (the session log loader skips them since 1.0.57); #2217",
               case="NUL padding left by a crash"),
)

PREFIXES = frozenset({"session", "user", "assistant", "tool", "subagent", "hook", "skill", "system", "permission",
                      "abort", "pending_messages", "model", "tool_search"})


def claims(entry: Mapping) -> bool:
    kind = entry.get("type")
    return (isinstance(kind, str) and kind.split(".", 1)[0] in PREFIXES and isinstance(entry.get("data"), Mapping)
            and "id" in entry and "parentId" in entry and "timestamp" in entry)


HOOKS = LineFormat(NAME, claims, "JSON Lines of {type, data, id, timestamp, parentId} events (a Copilot CLI session)",
                   separators=True)   # its reader breaks lines at U+2028/U+2029 too (github/copilot-cli #2012)
sniff, parse, dump, evidence = HOOKS.sniff, HOOKS.parse, HOOKS.dump, HOOKS.evidence


def import_(document: Any, name: str = "<input>") -> Imported:
    doc = session.open_store(document, name, NAME, parse, Lines, "an events.jsonl file (JSON Lines)")
    im = Imported(NAME, [], doc, container=None, history=doc.entries)
    session.skipped_lines(im, dataclasses.replace(doc, bad=[]))      # the notes of mended lines
    for i in events.unread(doc):
        im.note(None, "entry-skipped", f"Line {i + 1} is not JSON; Copilot CLI refuses the whole file for it on "
                                       f"resume (github/copilot-cli #2649), so the repair leaves it out.")
    im.state = events.read(im, doc)
    other = sum(1 for e in doc.entries if isinstance(e, Mapping)) - sum(
        1 for o, line in enumerate(im.state.lines) if o not in im.state.summaries)
    im.notes.append(f"{len(im.messages)} messages sent on resume; {other} events not sent (session, tool start, "
                    f"sub-agent, usage, compacted ones) carried unchanged")
    return im


def _start(history: list[Any]) -> Mapping:
    return next((data_of(e) for e in history if isinstance(e, Mapping) and e.get("type") == "session.start"), {})


def _models(history: list[Any]) -> list[str]:
    """Every model the main conversation was on, in order: the session's start and resumes,
    ``session.model_change``, and the ``model`` an assistant message records."""
    out: list[str] = []
    for e in history:
        if not isinstance(e, Mapping) or events.owner(e) is not None:
            continue
        data = data_of(e)
        kind = e.get("type")
        model = (data.get("selectedModel") if kind in ("session.start", "session.resume") else
                 data.get("newModel") if kind == "session.model_change" else
                 data.get("model") if kind == events.ASSISTANT else None)
        if isinstance(model, str) and model and (not out or out[-1] != model):
            out.append(model)
    return out


# Copilot CLI's model names (claude-sonnet-4.5, gpt-5, gemini-3-pro, grok-code-fast-1) -> the provider.
FAMILIES = (("claude", "anthropic"), ("gpt", "openai"), ("o1", "openai"), ("o3", "openai"), ("o4", "openai"),
            ("gemini", "google"), ("grok", "xai"))


def ran_on(im: Imported) -> list[tuple[str | None, str | None]]:
    out: list[tuple[str | None, str | None]] = []
    for model in _models(im.history):
        provider = next((p for prefix, p in FAMILIES if model.lower().startswith(prefix)), None)
        if provider is not None:
            out.append((provider, model))
    return out


def on_resume(im: Imported) -> OnResume:
    version = _start(im.history).get("copilotVersion")
    return OnResume.of("Copilot CLI", version if isinstance(version, str) and version else None, SELF_REPAIRS,
                       im.events)


REASONING_KEYS = ("reasoningOpaque", "encryptedContent", "reasoningText")


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip``: the reasoning fields of every assistant message go."""
    if not isinstance(document, Lines):
        return document
    rewrite = {}
    for i, e in enumerate(document.entries):
        data = data_of(e)
        found = [k for k in REASONING_KEYS if k in data] if isinstance(e, Mapping) and \
            e.get("type") == events.ASSISTANT else []
        if found:
            rewrite[i] = {**e, "data": {k: v for k, v in data.items() if k not in found}}
            for k in found:
                reasoning.removed(notes, f"line {i + 1}, data.{k}", "reasoning")
    return session.rewrite_lines(document, NAME, set(), rewrite, {}) if rewrite else document


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def session_id(imported: Any, name: str) -> str | None:
    """The id ``copilot --resume`` takes: the session's folder, else its ``session.start``."""
    folder = PurePath(name).parent.name
    if _UUID.match(folder):
        return folder
    state = getattr(imported, "state", None)
    return state.session if isinstance(state, events.CopilotState) else None


AGENT = Agent("copilot-cli", "Copilot CLI",
              "keep a copy of events.jsonl, put the repaired file in its place in the session's folder, then "
              "`copilot --resume <id>`",
              # `copilot --resume [sessionId]` (docs.github.com, "Copilot CLI command reference").
              command="copilot --resume {session}", session_id=session_id,
              versions="0.0.354 to 1.0.x",
              built_from=(
                  Source("github/copilot-sdk", "cc0438d66e3e", ("nodejs/src/generated/session-events.ts",),
                         "the event schema"),
                  Source("microsoft/vscode-copilot-chat", "417210375b57",
                         ("src/extension/agents/copilotcli/node/test/fixtures/",),
                         "real sessions written by Copilot CLI 0.0.354"),
                  Source("github/copilot-cli", "", (),
                         "no source read: its issues #2323, #2543, #3366, #3183 and its docs"),
              ))

FORMAT = Format(
    NAME, "a Copilot CLI session", SUMMARY, evidence, import_, export.export_same, export.export_new,
    sniff=sniff, parse=parse, dump=dump, kind=SESSION, suffixes=(".jsonl",), provider="anthropic",
    whole_file=True, kinds=EMITS + session.EMITS, on_resume=on_resume, repairs=SELF_REPAIRS,
    strip_reasoning=strip_reasoning, pairing=identity.ADJACENT, agent=AGENT, ran_on=ran_on,
)

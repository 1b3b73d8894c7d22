"""pi v3 sessions: pi's ``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``, oh-my-pi's
``~/.omp/agent/sessions/``, OpenClaw's ``~/.openclaw/agents/<agent>/sessions/<id>.jsonl``
(``~/.clawdbot/agents`` before the rename) and, since OpenClaw 2026.9.2, the same records as
rows of ``transcript_events`` in ``~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite``
(:mod:`.sqlite`).

Read from badlogic/pi-mono at 83378aad7e74a0e2bb8f37c007a9685fb4609d8a (pi 0.58.3): the tree and
the walk (:mod:`.tree`), what a resume sends and what pi repairs on the way (:mod:`.importer`),
a repair as a new branch appended (:mod:`.branch`). OpenClaw runs pi's agent and session code
and writes the same file. oh-my-pi (can1357/oh-my-pi, a fork of pi) writes the same tree with
ids of ``nanoid`` (8 characters, ``-`` and ``_`` among them; the session id 21), ``model_change`` as
``{model: "provider/id", role}``, entries pi has not (``ttsr_injection``, ``mode_change``,
``model_usage``, ``session_init``, …: none of them sent) and ``fileMention`` messages
(``packages/coding-agent/src/core/session-manager.ts``, ``messages.ts`` @
adad196fd3bad10d06e57eda4c01ad7ae787c7ec, 5.7.67); later builds add a first-line title slot and
``/clear``'s ``reset_boundary`` (:mod:`.tree`). Its own repairs on resume are not pi's
(``packages/ai/src/providers/transform-messages.ts`` @ 0ab2fcbd0f3f73dc2b03688a31d3dbada41a2aa7 renames
a call id declared twice, drops malformed calls; ``session-context.ts`` @ 081fb4699e4a strips calls
left without a result and drops failed turns with their results): not modelled, pi's claims stand.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ...engine import EXPORT_CLAUSE, Kind, Result, declare
from .. import anthropic, identity, message_rows, session
from ..base import Exported, Imported, args_object, as_text
from ..format import Agent, Format, OnResume, SESSION, SelfRepair, Source
from ..jsonl import LineFormat, LineLoc, Lines
from . import branch, importer, tree

NAME = "pi-session"
EMITS = declare(
    Kind("entry-branched", EXPORT_CLAUSE, False, "branched",
         "The repaired history is a new branch of the session tree, as pi writes one: the path up to the first "
         "change is kept, the rest appended again under new ids; the old branch stays in the file, unsent.",
         "note"),
    Kind("entry-copied", EXPORT_CLAUSE, False, "entry copied",
         "An entry of the path is appended again on the repaired branch with a new id and parent; its message "
         "is the same text.", "change"),
)

SOURCE = "badlogic/pi-mono packages/ai/src/providers/transform-messages.ts (83378aad), transformMessages"
SELF_REPAIRS = (
    SelfRepair("call-answered-on-resume", "0.25.0", "answers a call left without a result with the error "
               "result \"No result provided\"", "sent the call without a result (the provider refuses it)",
               SOURCE + "; since fb1fdb60 (0.25.0)", lossless=False),
    SelfRepair("entry-not-sent", "0.49.2", "leaves out an assistant message that ended in an error or abort",
               "sent it (and its calls) again", SOURCE + "; since 2d27a2c7 (0.49.2)"),
)


def claims(entry: Mapping) -> bool:
    kind = entry.get("type")
    if kind == "session":
        return isinstance(entry.get("id"), str) and "cwd" in entry and "timestamp" in entry
    return kind in ("message", "compaction", "model_change") and "parentId" in entry and "id" in entry \
        and (kind != "message" or isinstance(entry.get("message"), Mapping))


HOOKS = LineFormat(NAME, claims, "JSON Lines of pi session entries (a session header, then id/parentId entries)")
sniff, parse, dump, evidence = HOOKS.sniff, HOOKS.parse, HOOKS.dump, HOOKS.evidence


def _line(i: int, key: str | None, parts: tuple[int, ...] | None, lines: tuple[int, ...] | None) -> LineLoc:
    if lines:
        return LineLoc(lines[0], None, None, lines)
    return LineLoc(i, key, parts if parts is not None else ()) if key else LineLoc(i)


def import_(document: Any, name: str = "<input>") -> Imported:
    document = session.open_store(document, name, NAME, parse, Lines, "a pi session file (JSON Lines)")
    im = importer.read(NAME, document, document.raw, document.entries, name, _line)
    session.skipped_lines(im, document, "pi skips it too")
    return im


def export_same(im: Imported, result: Result, notes: Exported) -> Lines:
    doc: Lines = im.document
    texts = [r.decode("utf-8", "surrogatepass") if isinstance(r, bytes) else str(r) for r in doc.raw]
    added = branch.plan(im, result, notes, texts, "line")
    if not added.texts:
        return doc
    doc = session.end_last_line(doc, notes)
    raw = [*doc.raw, *(t.encode("utf-8", "surrogatepass") for t in added.texts)]
    return Lines(NAME, raw, [*doc.entries, *added.entries], True, doc.bom, list(doc.bad))


def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip`` on a written session: a new branch without thinking blocks."""
    if not isinstance(document, Lines):
        return document
    texts = [r.decode("utf-8", "surrogatepass") for r in document.raw]
    added = branch.strip(document.entries, texts, notes, "line")
    if not added.texts:
        return document
    doc = session.end_last_line(document, notes)
    raw = [*doc.raw, *(t.encode("utf-8", "surrogatepass") for t in added.texts)]
    return Lines(NAME, raw, [*doc.entries, *added.entries], True, doc.bom, list(doc.bad))


def export_new(im: Imported, result: Result, notes: Exported) -> Lines:
    """Another format's repaired history as a new pi session: a header, then one entry per flat
    row (an assistant turn with its calls as ``toolCall`` blocks, each result a ``toolResult``),
    each the child of the one before. pi keeps no system message in a session."""
    if any(m.get("role") == "system" and m.get("content") for m in result.messages if isinstance(m, Mapping)):
        notes.note("export-omitted", "pi keeps no system message in a session; the system text is not written.")
    out: list[Any] = [{"type": "session", "version": 3, "id": "inspector-export", "timestamp": None, "cwd": ""}]
    parent = None
    for m in result.messages:
        message = _from_flat(m) if isinstance(m, Mapping) else None
        if message is None:
            continue
        eid = f"{len(out):08x}"
        out.append({"type": "message", "id": eid, "parentId": parent, "timestamp": None, "message": message})
        parent = eid
    return Lines(NAME, [branch._dump(e).encode() for e in out], out)


def _from_flat(m: Mapping) -> dict[str, Any] | None:
    role = m.get("role")
    if role == "assistant":
        blocks: list[dict[str, Any]] = [{"type": "text", "text": as_text(m["content"])}] if m.get("content") else []
        calls = [c for c in m.get("tool_calls") or () if isinstance(c, Mapping)]
        blocks += [{"type": "toolCall", "id": c.get("tool_call_id"), "name": c.get("name") or "",
                    "arguments": args_object(c.get("arguments"))} for c in calls]
        return {"role": "assistant", "content": blocks, "stopReason": "toolUse" if calls else "stop"}
    if role == "tool":
        return {"role": "toolResult", "toolCallId": m.get("tool_call_id"), "toolName": "",
                "content": [{"type": "text", "text": message_rows.result_text(m)}], "isError": False}
    if role == "user":
        return {"role": "user", "content": [{"type": "text", "text": message_rows.result_text(m)}]}
    return None


def ran_on(im: Imported) -> list[tuple[str | None, str | None]]:
    state = im.state
    return importer.ran_on(state.entries, state.walk) if state is not None else []


def on_resume(im: Imported) -> OnResume:
    """pi records no version of its own in a session, so each claim says since which version."""
    return OnResume.of("pi", None, SELF_REPAIRS, im.events)


def describe(block: Any) -> str:
    if isinstance(block, Mapping):
        kind = block.get("type") or block.get("role")
        return str(kind) if kind else "entry"
    return type(block).__name__


def _session_id(im: Imported) -> str | None:
    """The id of the session's header, as ``pi --session`` takes it."""
    state = im.state
    if state is None or state.walk.header is None:
        return None
    return tree.entry_id(state.entries[state.walk.header])


AGENT = Agent("pi", "pi",
              "keep a copy of the original, put the repaired session file in its place under the same name, then "
              "`pi --session <id>` (oh-my-pi: `omp --session <file>`; an OpenClaw session file resumes when its "
              "channel's next message comes)",
              # `--session <path|id>`: a path, or the prefix of a session's header id, looked up in
              # the sessions folders (packages/coding-agent/src/main.ts @ 83378aad, resolveSessionPath).
              command="pi --session {session}", command_on_copy="pi --session {path}",
              session_id=lambda imported, name: _session_id(imported),
              versions="pi 0.58.3 (format 3; 1 and 2 as pi migrates them); oh-my-pi 5.7.67 and its later title "
                       "slot and /clear; OpenClaw before 2026.9.2",
              built_from=(
                  Source("badlogic/pi-mono", "83378aad7e74",
                         ("packages/coding-agent/src/core/session-manager.ts",
                          "packages/coding-agent/src/core/messages.ts", "packages/coding-agent/src/config.ts",
                          "packages/coding-agent/src/main.ts", "packages/ai/src/providers/transform-messages.ts",
                          "packages/ai/src/providers/openai-responses-shared.ts"), "pi 0.58.3"),
                  Source("can1357/oh-my-pi", "adad196fd3ba",
                         ("packages/coding-agent/src/core/session-manager.ts",
                          "packages/coding-agent/src/core/messages.ts", "packages/coding-agent/src/config.ts",
                          "packages/coding-agent/src/main.ts", "packages/coding-agent/src/cli/args.ts"),
                         "oh-my-pi 5.7.67: the file, its ids and entries, ~/.omp/agent/sessions, --session"),
                  Source("can1357/oh-my-pi", "01d016cac40f", ("packages/coding-agent/src/session/session-entries.ts",),
                         "oh-my-pi later: the title slot line, reset_boundary and the other entries"),
                  Source("can1357/oh-my-pi", "081fb4699e4a", ("packages/coding-agent/src/session/session-context.ts",),
                         "oh-my-pi later: what a resume sends after /clear"),
              ))

FORMAT = Format(
    NAME, "a pi session", "a pi v3 session (JSON Lines under ~/.pi/agent/sessions/; also oh-my-pi and OpenClaw)",
    evidence, import_, export_same, export_new, describe_block=describe, sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".jsonl",), provider="anthropic", whole_file=True,
    kinds=EMITS + message_rows.shared_kinds() + session.EMITS + anthropic.FORMAT.kinds, on_resume=on_resume,
    repairs=SELF_REPAIRS, pairing=identity.ADJACENT, agent=AGENT, ran_on=ran_on, strip_reasoning=strip_reasoning,
)


# -- OpenClaw's agent database (the same records as rows) ----------------------------------------
from . import sqlite as agent_db  # noqa: E402  (after export_new, which it writes through)

OPENCLAW = Agent("openclaw", "OpenClaw",
                 "stop the gateway, keep a copy of the database, put the repaired one in its place (moving its -wal "
                 "and -shm aside), start the gateway; the session resumes on its next message",
                 reopen="OpenClaw resumes a session when its channel's next message comes", database=True,
                 versions="2026.9.2 on (the agent database, schema 19); its earlier files: see pi",
                 built_from=(
                     Source("openclaw/openclaw", "040e1a765488", ("src/state/openclaw-agent-db-contract.ts",),
                            "the agent database, schema 19"),
                     Source("openclaw/openclaw", "0122dec6839e", ("src/agents/session-transcript-repair.ts",),
                            "its own repair"),
                     Source("badlogic/pi-mono", "83378aad7e74", ("packages/ai/src/providers/transform-messages.ts",),
                            "pi's code it runs"),
                 ))

OPENCLAW_SOURCE = ("openclaw/openclaw src/agents/session-transcript-repair.ts (0122dec6), "
                   "repairToolUseResultPairing")
# Every OpenClaw that writes the agent database (2026.9.2 on) runs a pi later than 0.49.2, so
# pi's claims hold for each version of it read.
OPENCLAW_REPAIRS = (
    *(dataclasses.replace(r, since=None, before="", source=r.source + "; run by OpenClaw 2026.9.2 and later")
      for r in SELF_REPAIRS),
    SelfRepair("result-dropped-on-resume", None, "leaves out a toolResult that is not right after its call's turn "
               "or answers a call already answered", "", OPENCLAW_SOURCE),
)

DB_FORMAT = Format(
    agent_db.NAME, "an OpenClaw agent database",
    "OpenClaw's per-agent database (agents/<agent>/agent/openclaw-agent.sqlite; --session ID picks a session)",
    agent_db.evidence, agent_db.import_, agent_db.export_same, agent_db.export_new, describe_block=describe,
    sniff=agent_db.sniff, parse=agent_db.parse, dump=agent_db.dump, kind=SESSION, suffixes=(".sqlite", ".db"),
    provider="anthropic", whole_file=True, sessions=agent_db.listing, select=agent_db.select,
    chosen=agent_db.chosen, kinds=FORMAT.kinds,
    on_resume=lambda im: OnResume.of("OpenClaw", None, OPENCLAW_REPAIRS, im.events),
    repairs=OPENCLAW_REPAIRS, replace=agent_db.replace, pairing=identity.ADJACENT, agent=OPENCLAW,
    ran_on=agent_db.ran_on,
)

"""Reading a Copilot CLI ``events.jsonl`` as the conversation Copilot CLI sends on resume.

Every line is one event ``{type, data, id, timestamp, parentId}`` (``agentId`` on a
sub-agent's); the event types and fields are those of ``nodejs/src/generated/session-events.ts``
in github/copilot-sdk at cc0438d66e3e, and the real files published as fixtures in
microsoft/vscode-copilot-chat ``src/extension/agents/copilotcli/node/test/fixtures/`` at
417210375b57 (Copilot CLI 0.0.354) have that shape. The conversation is rebuilt line by line:

- ``user.message``: a user message (``data.content``);
- ``assistant.message``: an assistant message, its ``toolRequests[{toolCallId, name,
  arguments}]`` its calls; ``reasoningOpaque``/``encryptedContent`` are "session-bound and
  stripped on resume" (the schema's words), so no reasoning is sent;
- ``tool.execution_complete``: the result of ``toolCallId``: ``result.content`` when
  ``success``, else ``error.message``;
- ``session.compaction_complete`` with ``success``: the first ``preCompactionMessagesLength``
  messages built so far are replaced by one user message holding ``summaryContent``
  (what a maintainer's recovery recipe in github/copilot-cli #1005 relies on: lowering that
  count by one keeps one more message after the summary);
- an event with ``agentId``, or with ``data.parentToolCallId`` (the older spelling), is a
  sub-agent's: kept apart from the main conversation, never mixed into it (github/copilot-cli
  #2323 and #2543 are what mixing them does);
- every other event (``session.*``, ``tool.execution_start``, ``assistant.turn_*``...) is not
  sent: ``session.truncation`` is a statistic of one request's trimming, not a change to the
  history, and ``session.snapshot_rewind`` is never written (the rewind removes the events);
- a line that is not JSON is read as nothing; Copilot CLI refuses the whole file for it
  (github/copilot-cli #2649), which the export mends by leaving it out.

Each flat message's provenance is its line (``LineLoc``); a call's is its index in the line's
``toolRequests``. Nothing here writes: ``export.py`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..base import Imported, as_text
from ..jsonl import LineLoc, Lines

USER, ASSISTANT, RESULT, COMPACTED = "user.message", "assistant.message", "tool.execution_complete", \
    "session.compaction_complete"


@dataclass(slots=True)
class CopilotState:
    """What the export needs: per flat row, its line; the rows a compaction's summary stands
    for (their line is the compaction's, never removed); and the session's id."""

    lines: list[int]
    summaries: set[int] = field(default_factory=set)
    session: str | None = None


def unread(doc: Lines) -> list[int]:
    """The lines no reading makes JSON of (a record cut short, NUL padding left by a crash):
    Copilot CLI refuses a file holding one. Blank lines, and a damaged line's place kept by a
    mended reading, are not."""
    return [i for i, (line, entry) in enumerate(zip(doc.raw, doc.entries))
            if entry is None and line.strip(b" \t\r\n")]


def data_of(entry: Any) -> Mapping:
    data = entry.get("data") if isinstance(entry, Mapping) else None
    return data if isinstance(data, Mapping) else {}


def owner(entry: Mapping) -> str | None:
    """The sub-agent an event belongs to (None: the main agent's, or the session's)."""
    agent = entry.get("agentId")
    if isinstance(agent, str) and agent:
        return agent
    parent = data_of(entry).get("parentToolCallId")
    return parent if isinstance(parent, str) and parent else None


def result_text(data: Mapping) -> Any:
    """What a ``tool.execution_complete`` sends as the tool's result."""
    if data.get("success") is True:
        result = data.get("result")
        if isinstance(result, Mapping) and "content" in result:
            return result["content"] if isinstance(result["content"], str) else as_text(result["content"])
        return as_text(result)
    error = data.get("error")
    if isinstance(error, Mapping) and isinstance(error.get("message"), str):
        return error["message"]
    result = data.get("result")
    if isinstance(result, Mapping) and isinstance(result.get("content"), str):
        return result["content"]
    return as_text(error if error is not None else result)


def flat_of(kind: str, data: Mapping) -> dict[str, Any]:
    if kind == USER:
        content = data.get("content")
        return {"role": "user", "content": content if isinstance(content, str) else as_text(content)}
    if kind == ASSISTANT:
        content = data.get("content")
        flat: dict[str, Any] = {"role": "assistant",
                                "content": content if isinstance(content, str) else as_text(content)}
        requests = data.get("toolRequests")
        if isinstance(requests, list) and requests:
            flat["tool_calls"] = [
                {"tool_call_id": r.get("toolCallId"), "name": r.get("name") if isinstance(r.get("name"), str) else "",
                 "arguments": r.get("arguments")} if isinstance(r, Mapping) else r
                for r in requests]
        return flat
    return {"role": "tool", "tool_call_id": data.get("toolCallId"), "content": result_text(data)}


def read(im: Imported, doc: Lines) -> CopilotState:
    """Fill ``im`` with the main conversation Copilot CLI sends on resume; notes (not events:
    nothing here is a change) say what is left out and why."""
    rows: list[tuple[int, dict[str, Any], bool]] = []      # (line, flat message, is a summary)
    helpers: dict[str, list[int]] = {}
    reasoning = 0
    session = None
    for i, entry in enumerate(doc.entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("type"), str):
            continue
        kind, data = entry["type"], data_of(entry)
        if kind == "session.start" and isinstance(data.get("sessionId"), str):
            session = session or data["sessionId"]
        if kind not in (USER, ASSISTANT, RESULT, COMPACTED):
            continue
        who = owner(entry)
        if who is not None:
            helpers.setdefault(who, []).append(i)
            continue
        if kind == COMPACTED:
            if data.get("success") is not True:
                continue
            n = data.get("preCompactionMessagesLength")
            n = len(rows) if not isinstance(n, int) or isinstance(n, bool) else max(0, min(n, len(rows)))
            summary = data.get("summaryContent")
            gone = rows[:n]
            rows = [(i, {"role": "user", "content": summary if isinstance(summary, str) else ""}, True), *rows[n:]]
            if gone:
                first, last = gone[0][0] + 1, gone[-1][0] + 1
                im.notes.append(f"line {i + 1}: a compaction's summary stands for the {len(gone)} message(s) before "
                                f"it (lines {first} to {last}); they are not sent")
            continue
        if kind == ASSISTANT and any(data.get(k) for k in ("reasoningOpaque", "encryptedContent", "reasoningText")):
            reasoning += 1
        rows.append((i, flat_of(kind, data), False))
    state = CopilotState([], set(), session)
    for line, flat, summary in rows:
        calls = flat.get("tool_calls") or ()
        row = im.add(flat, LineLoc(line, "summaryContent", ()) if summary else LineLoc(line),
                     [LineLoc(line, "toolRequests", (j,)) for j in range(len(calls))])
        state.lines.append(line)
        if summary:
            state.summaries.add(row)
    for who, lines in helpers.items():
        im.notes.append(f"{len(lines)} line(s) from line {lines[0] + 1} on belong to the sub-agent {who}; Copilot "
                        f"CLI keeps them out of the main conversation")
    if reasoning:
        im.notes.append(f"{reasoning} assistant message(s) carry reasoning, which Copilot CLI leaves out on resume "
                        f"(it is bound to the session that wrote it)")
    _pairing(im)
    return state


def _pairing(im: Imported) -> None:
    """One note per call Copilot CLI 1.0.78 and later answers itself before a request: a call
    with no result in the main conversation, and a result that comes late (not in the results
    right after its call's message)."""
    msgs = im.messages
    later: dict[Any, int] = {}
    for k, m in enumerate(msgs):
        if m.get("role") == "tool":
            later.setdefault(m.get("tool_call_id"), k)
    for o, m in enumerate(msgs):
        if m.get("role") != "assistant":
            continue
        block = set()
        k = o + 1
        while k < len(msgs) and msgs[k].get("role") == "tool":
            block.add(msgs[k].get("tool_call_id"))
            k += 1
        for j, call in enumerate(m.get("tool_calls") or ()):
            cid = call.get("tool_call_id") if isinstance(call, Mapping) else None
            if not isinstance(cid, str) or cid in block:
                continue
            line = im.sources[o].message + 1
            at = later.get(cid)
            if at is None or at < o:
                im.note(o, "call-interrupted-on-resume", f"Line {line}: the call {cid} has no result; since 1.0.78 "
                                                         f"Copilot CLI sends an interrupted result for it itself.",
                        call=j, tool_call_id=cid)
            else:
                im.note(o, "result-late-on-resume", f"Line {line}: the result of {cid} comes late (line "
                                                    f"{im.sources[at].message + 1}); since 1.0.78 Copilot CLI "
                                                    f"moves it next to its call itself.", call=j, tool_call_id=cid)

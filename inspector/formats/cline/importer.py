"""Import: a task read as its extension sends it on resume, one flat row per sent message or
run of blocks, each with its record and block; every reasoning block and record recorded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...io import InputError
from ..anthropic import SPEC as ANTHROPIC
from ..anthropic import result_text
from ..base import Imported, Loc, Reasoning, join_text, kind_of
from .resume import PLACEHOLDER, VALIDATOR_SOURCE, VALIDATOR_TEXT, Reader, Sent, TaskState, _is_result, _type
from .task import AGENTS, HISTORY_FILE, NAME, TaskFile, parse, read_task, stringify

# -- import --------------------------------------------------------------------------------

class RecordLoc(Loc):
    """``messages[4]``, ``messages[4].content[1]``; a placeholder the agent adds on resume is
    ``key="resume"`` after the record of its call's turn."""

    __slots__ = ()

    def describe(self, container: str | None = None) -> str:
        if self.key == "resume":
            return f"after messages[{self.message}] (added by the agent on resume)"
        base = f"messages[{self.message}]"
        if self.blocks is None:
            return base
        if len(self.blocks) == 1:
            return f"{base}.content[{self.blocks[0]}]"
        return f"{base}.content[{','.join(map(str, self.blocks))}]"


# The record keys and block keys that name something (a call, a summary, a truncation): the
# extension compares them as text, so anything else is refused here with the record named.
_RECORD_IDS = ("condenseId", "condenseParent", "truncationId", "truncationParent")
_BLOCK_IDS = {"tool_use": "id", "tool_result": "tool_use_id"}


def _check_ids(records: list[Any], name: str) -> None:
    for n, rec in enumerate(records):
        if not isinstance(rec, Mapping):
            continue
        for key in _RECORD_IDS:
            if key in rec and rec[key] is not None and not isinstance(rec[key], str):
                raise InputError(name, f"{NAME}: message {n}: {key} is {kind_of(rec[key])}, not text")
        content = rec.get("content")
        for k, block in enumerate(content if isinstance(content, list) else ()):
            kind = block.get("type") if isinstance(block, Mapping) else None
            key = _BLOCK_IDS.get(kind) if isinstance(kind, str) else None
            if key is not None and block.get(key) is not None and not isinstance(block[key], str):
                raise InputError(name, f"{NAME}: message {n} block {k}: the {block['type']} {key} is "
                                       f"{kind_of(block[key])}, not text")


def import_(document: Any, name: str = "<input>") -> Imported:
    if isinstance(document, (bytes, bytearray)):
        document = parse(bytes(document), name)
    if isinstance(document, list):
        document = read_task(stringify(document), name, False)
        document.plain = True
    if not isinstance(document, TaskFile):
        raise InputError(name, f"{NAME}: expected {HISTORY_FILE} (a JSON array of messages), got {kind_of(document)}")
    task = document
    _check_ids(task.records, name)
    reader = Reader(task)
    sent = reader.cline() if task.agent == "cline" else reader.roo(task.agent)
    im = Imported(NAME, [], task, container="messages", history=task.records)
    im.state = TaskState(task.agent, sent)
    declared_at: dict[str, int] = {}
    for s in sent:
        if s.role == "assistant":
            _add_assistant(im, s, declared_at)
        else:
            _add_user(im, s, declared_at, task.agent)
    agent = AGENTS[task.agent]
    im.notes.append(f"written by {agent}: {task.why_agent}; read as {agent} sends it on resume")
    if reader.late:
        im.notes.append(f"{agent} would answer {', '.join(reader.late)} on resume after the last user message's "
                        f"text, where Anthropic refuses a result; read as unanswered")
    if task.deleted_range:
        im.notes.append(f"Cline's truncation range {list(task.deleted_range)}: those messages are not sent")
    whole = sorted({k for k, b, _ in reader.left_out if b is None})
    if whole:
        im.notes.append(f"{len(whole)} stored message(s) not sent on resume (condensed, truncated or not "
                        f"messages), kept as they are: " + _ranges(whole))
    for k, b, why in reader.left_out:
        if b is not None:
            im.note(None, "block-not-sent", f"messages[{k}].content[{b}] is not sent on resume: {why}; "
                                            f"it stays in the file.")
    _record_reasoning(im, task, sent)
    return im


# -- reasoning -------------------------------------------------------------------------------

def _thought(block: Any) -> tuple[str, bool, bool, str] | None:
    """(kind, signed, encrypted, text) of a stored reasoning block: Anthropic's ``thinking`` /
    ``redacted_thinking`` (signed by their signature), or the ``reasoning`` block Roo Code
    stores first in a turn of an OpenAI model (signed by its ``encrypted_content``)."""
    found = ANTHROPIC.reasoning_of(block)
    if found is not None or not (isinstance(block, Mapping) and block.get("type") == "reasoning"):
        return found
    encrypted = isinstance(block.get("encrypted_content"), str) and bool(block["encrypted_content"])
    text = block.get("text") if isinstance(block.get("text"), str) else ""
    summary = block.get("summary")
    if not text and isinstance(summary, list):
        text = "\n".join(x.get("text") for x in summary if isinstance(x, Mapping) and isinstance(x.get("text"), str))
    return "reasoning", encrypted, encrypted, text


def _record_reasoning(im: Imported, task: TaskFile, sent: list[Sent]) -> None:
    """Every reasoning block and record of the task, in order. A block the extension sends has
    the row of its turn and the calls after it; one it keeps only for history (Roo's
    reasoning records and blocks, Cline's unsigned thinking) has none. The model is the
    record's ``modelInfo.modelId`` where Cline writes one."""
    row_of: dict[int, int] = {}
    for o, loc in enumerate(im.sources):
        if loc.key != "resume" and im.messages[o].get("role") == "assistant":
            row_of.setdefault(loc.message, o)
    sent_blocks = {(it.record, it.index) for s in sent for it in s.items if it.record is not None}
    for k, rec in enumerate(task.records):
        if not isinstance(rec, Mapping):
            continue
        info = rec.get("modelInfo")
        model = info.get("modelId") if isinstance(info, Mapping) and isinstance(info.get("modelId"), str) else None
        if rec.get("type") == "reasoning" and "role" not in rec:
            kind, signed, encrypted, text = _thought(rec)
            im.reasoning.append(Reasoning(None, RecordLoc(k), kind, signed, encrypted, model, (), text))
            continue
        content = rec.get("content")
        if rec.get("role") != "assistant" or not isinstance(content, list):
            continue
        row = row_of.get(k)
        for b, block in enumerate(content):
            found = _thought(block)
            if found is None:
                continue
            kind, signed, encrypted, text = found
            # Cline sends no thinking block without its signature (it keeps one for history).
            mine = row if (k, b) in sent_blocks and (signed or kind != "thinking" or task.agent != "cline") else None
            before = tuple(j for j, c in enumerate(im.calls[mine]) if c.blocks[0] > b) if mine is not None else ()
            im.reasoning.append(Reasoning(mine, RecordLoc(k, "content", (b,)), kind, signed, encrypted, model,
                                          before, text))
        if rec.get("reasoning_details"):
            im.reasoning.append(Reasoning(row, RecordLoc(k, "reasoning_details"), "reasoning_details", True, True,
                                          model, (), ""))


def _ranges(ks: list[int]) -> str:
    out, start, prev = [], ks[0], ks[0]
    for k in ks[1:] + [None]:
        if k is not None and k == prev + 1:
            prev = k
            continue
        out.append(f"messages[{start}]" if start == prev else f"messages[{start}..{prev}]")
        if k is not None:
            start = prev = k
    return ", ".join(out)


def _add_assistant(im: Imported, s: Sent, declared_at: dict[str, int]) -> None:
    texts, calls, locs = [], [], []
    for it in s.items:
        kind = _type(it)
        if kind == "text" and isinstance(it.block.get("text"), str):
            texts.append(it.block["text"])
        elif kind == "tool_use":
            calls.append({"tool_call_id": it.block.get("id"), "name": it.block.get("name"),
                          "arguments": it.block.get("input")})
            locs.append(RecordLoc(s.record, "content", (it.index,)))
            if isinstance(it.block.get("id"), str):
                declared_at.setdefault(it.block["id"], s.record)
    flat: dict[str, Any] = {"role": "assistant", "content": join_text(texts)}
    if calls:
        flat["tool_calls"] = calls
    im.add(flat, RecordLoc(s.record), locs)


def _add_user(im: Imported, s: Sent, declared_at: dict[str, int], agent: str) -> None:
    run: list[int] = []
    texts: list[str] = []
    for it in s.items:
        if it.record is not None and it.index is None:      # string content: the record is one row
            im.add({"role": "user", "content": it.block["text"]}, RecordLoc(s.record))
            continue
        if _is_result(it):
            if run:
                im.add({"role": "user", "content": join_text(texts)}, RecordLoc(s.record, "content", tuple(run)))
                run, texts = [], []
            cid = it.block.get("tool_use_id")
            if it.placeholder is not None:
                turn = declared_at.get(cid, s.record if s.record is not None else 0)
                o = im.add({"role": "tool", "content": it.placeholder, "tool_call_id": cid}, RecordLoc(turn, "resume"))
                source = PLACEHOLDER[agent][1] if it.placeholder != VALIDATOR_TEXT else VALIDATOR_SOURCE
                im.note(o, "result-placeholder",
                        f"{AGENTS[agent]} answers {cid} itself on resume with \"{it.placeholder}\" ({source}), "
                        f"instead of the real result; nothing is written for it.", tool_call_id=cid)
            else:
                im.add({"role": "tool", "content": result_text(it.block.get("content")), "tool_call_id": cid},
                       RecordLoc(s.record, "content", (it.index,)))
        else:
            run.append(it.index)
            if _type(it) == "text" and isinstance(it.block.get("text"), str):
                texts.append(it.block["text"])
    if run:
        im.add({"role": "user", "content": join_text(texts)}, RecordLoc(s.record, "content", tuple(run)))

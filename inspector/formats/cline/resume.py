"""What each extension sends when a task is resumed (see the package docstring): the records
its filter lets through, block by block, with the placeholders it answers calls with itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..anthropic import result_text
from .task import TaskFile

# What each agent answers a call with on resume, and where it does (cited in the import event).
PLACEHOLDER = {
    "cline": ("result missing", "since Cline 3.35.0: ContextManager.ts ensureToolResultsFollowToolUse"),
    "roo": ("Task was interrupted before this tool call could be completed.", "Task.ts resumeTaskFromHistory"),
    "kilo": ("Task was interrupted before this tool call could be completed.", "Task.ts resumeTaskFromHistory"),
}
VALIDATOR_TEXT = "Tool execution was interrupted before completion."
VALIDATOR_SOURCE = "since Roo Code 3.36.3: validateToolResultIds.ts validateAndFixToolResultIds"
# Block types the Anthropic handlers of Roo and Kilo let through (anthropic-filter.ts).
ANTHROPIC_BLOCKS = frozenset({"text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking", "document"})


# -- what a resume sends -------------------------------------------------------------------

@dataclass(slots=True)
class Item:
    """One block of a sent message: stored (``record``, ``index``) or the agent's own
    placeholder (``placeholder`` text, for call ``call``)."""

    block: Any
    record: int | None = None
    index: int | None = None
    placeholder: str | None = None
    call: str | None = None


@dataclass(slots=True)
class Sent:
    role: str
    record: int | None                 # the stored record; None for the message the resume adds
    items: list[Item] = field(default_factory=list)
    whole: bool = False                # content is a string: the record maps to one row
    resumed: bool = False              # the message the resume writes (no tags of its own)


def _blocks(record: int, msg: Mapping) -> Sent:
    content = msg.get("content")
    sent = Sent(msg["role"], record)
    if isinstance(content, str):
        sent.items.append(Item({"type": "text", "text": content}, record, None))
        sent.whole = True
    elif isinstance(content, list):
        sent.items = [Item(b, record, k) for k, b in enumerate(content)]
    return sent


def _type(item: Item) -> str | None:
    """A block's ``type``; None when it has none that is text (a list or a number names no kind)."""
    kind = item.block.get("type") if isinstance(item.block, Mapping) else None
    return kind if isinstance(kind, str) else None


def _call_ids(sent: Sent) -> list[str]:
    if sent.role != "assistant":
        return []
    return [i.block.get("id") for i in sent.items if _type(i) == "tool_use" and isinstance(i.block.get("id"), str)]


def _is_result(item: Item) -> bool:
    return _type(item) == "tool_result"


@dataclass(slots=True)
class TaskState:
    """What export needs from the import: which agent, and what it sends (records in order)."""

    agent: str
    sent: list[Sent]


class Reader:
    """Builds what one agent sends, noting what it leaves out."""

    def __init__(self, task: TaskFile) -> None:
        self.task = task
        self.records = task.records
        self.left_out: list[tuple[int, int | None, str]] = []      # (record, block or None, why)
        self.late: list[str] = []          # calls whose placeholder the resume puts after text

    def usable(self, k: int) -> bool:
        r = self.records[k]
        return isinstance(r, Mapping) and r.get("role") in ("user", "assistant")

    # Cline ---------------------------------------------------------------------------
    def cline(self) -> list[Sent]:
        n = len(self.records)
        deleted = self.task.deleted_range
        start = deleted[1] + 1 if deleted else 2
        order = [*range(min(2, n)), *range(max(start, 2), n)]
        if deleted:
            for k in range(2, min(start, n)):
                self.left_out.append((k, None, f"in Cline's truncation range {list(deleted)}"))
        sent = []
        for k in order:
            if self.usable(k):
                sent.append(_blocks(k, self.records[k]))
            else:
                self.left_out.append((k, None, "not a user or assistant message"))
        if start > 2 and len(sent) > 2 and sent[2].role == "user" and not sent[2].whole:
            for it in [i for i in sent[2].items if _is_result(i)]:
                self.left_out.append((it.record, it.index, "the first message after Cline's truncation loses its results"))
            sent[2].items = [i for i in sent[2].items if not _is_result(i)]
        if sent and sent[-1].role == "assistant":
            sent.append(Sent("user", None))        # the resumption message
        for k in range(len(sent) - 1):
            self._cline_pair(sent[k], sent[k + 1])
        return [s for s in sent if s.record is not None or s.items]

    def _cline_pair(self, turn: Sent, nxt: Sent) -> None:
        ids = _call_ids(turn)
        if not ids or nxt.role != "user":
            return
        found: dict[str, Item] = {}
        earlier: list[Item] = []
        other = []
        for it in nxt.items:
            cid = it.block.get("tool_use_id") if _is_result(it) else None
            if cid:
                if cid in found:
                    earlier.append(found[cid])
                found[cid] = it            # of two results for one id, the later is kept
            else:
                other.append(it)
        update = False
        if found:
            expected = 0
            for it in nxt.items:
                if expected >= len(ids):
                    break
                if _is_result(it) and it.block.get("tool_use_id") == ids[expected]:
                    expected += 1
                else:
                    update = True
                    break
            if not update and expected < len(found):
                update = True
        text, _ = PLACEHOLDER["cline"]
        for cid in ids:
            if cid not in found:
                found[cid] = Item({"type": "tool_result", "tool_use_id": cid, "content": text}, placeholder=text, call=cid)
                update = True
        if not update:
            return                             # sent as it is stored
        for it in earlier:
            self.left_out.append((it.record, it.index, "Cline sends the later of two results for one call"))
        for cid, it in found.items():
            if cid not in ids and it.record is not None:
                self.left_out.append((it.record, it.index, "Cline drops a result its turn does not ask for"))
        nxt.items = [found[cid] for cid in ids] + other

    # Roo and Kilo --------------------------------------------------------------------
    def roo(self, agent: str) -> list[Sent]:
        recs = self.records
        stored = [_blocks(k, recs[k]) if self.usable(k) else None for k in range(len(recs))]
        for k, s in enumerate(stored):
            if s is None and not (isinstance(recs[k], Mapping) and recs[k].get("type") == "reasoning"):
                self.left_out.append((k, None, "not a user or assistant message"))
        live = [s for s in stored if s is not None]
        live.append(self._resume(live, agent))
        sent = self._effective(live, agent)
        out = []
        for s in sent:
            if s.role == "assistant" and s.items and _type(s.items[0]) == "reasoning":
                self.left_out.append((s.record, s.items[0].index, "reasoning stored for history, not sent"))
                s.items = s.items[1:]
            kept = [i for i in s.items if _type(i) in ANTHROPIC_BLOCKS or i.placeholder]
            held = {id(i) for i in kept}
            for i in s.items:
                if id(i) not in held and i.record is not None:
                    self.left_out.append((i.record, i.index, f"a {_type(i)!s} block, which the Anthropic handler drops"))
            s.items = kept
            if s.items or s.whole:
                out.append(s)
        return out

    def _resume(self, live: list[Sent], agent: str) -> Sent:
        new = Sent("user", None, resumed=True)
        if not live:
            return new
        last = live[-1]
        rec = self.records[last.record]
        text, _ = PLACEHOLDER[agent]
        if agent == "roo" and rec.get("isSummary"):
            return new
        if last.role == "assistant":
            new.items = [Item({"type": "tool_result", "tool_use_id": c, "content": text}, placeholder=text, call=c)
                         for c in _call_ids(last)]
        else:
            live.pop()
            new = Sent("user", last.record, list(last.items), last.whole, resumed=True)
            if live and live[-1].role == "assistant":
                answered = {i.block.get("tool_use_id") for i in new.items if _is_result(i)}
                new.items += [Item({"type": "tool_result", "tool_use_id": c, "content": text}, placeholder=text, call=c)
                              for c in _call_ids(live[-1]) if c not in answered]
        history = self._effective(list(live), agent) if agent == "roo" else live
        if agent == "roo" and not (history and history[-1].role == "assistant"):
            # addToApiConversationHistory writes the results as text ("Tool result: ...").
            new.items = [Item({"type": "text", "text": "Tool result:\n" + result_text(i.block.get("content"))},
                              i.record, i.index) if _is_result(i) else i for i in new.items if i.placeholder is None]
            return new
        self._validate(new, [s for s in history if s.role == "assistant"][-1:])
        # A placeholder the resume appends after the user's own words is refused by Anthropic
        # (results must open the message): the agent does not repair that call, the import
        # leaves it unanswered so that the repair writes its result where it belongs.
        late = [i for k, i in enumerate(new.items) if i.placeholder is not None
                and any(not _is_result(j) for j in new.items[:k])]
        if late:
            self.late = [i.call for i in late]
            new.items = [i for i in new.items if i not in late]
        return new

    def _validate(self, new: Sent, prev: list[Sent]) -> None:
        """validateAndFixToolResultIds on the message a resume writes."""
        if not prev or new.whole:
            return
        uses = _call_ids(prev[0])
        if not uses:
            return
        seen: set[Any] = set()
        items = []
        for it in new.items:
            if _is_result(it):
                cid = it.block.get("tool_use_id")
                if cid in seen:
                    if it.record is not None:
                        self.left_out.append((it.record, it.index, "a second result for one call, dropped on resume"))
                    continue
                seen.add(cid)
            items.append(it)
        new.items = items
        results = [i for i in items if _is_result(i)]
        if all(r.block.get("tool_use_id") in uses for r in results) and set(uses) <= seen:
            return
        used: set[str] = set()
        fixed = []
        for it in items:
            if not _is_result(it):
                fixed.append(it)
                continue
            cid = it.block.get("tool_use_id")
            if cid in uses and cid not in used:
                used.add(cid)
                fixed.append(it)
                continue
            k = results.index(it)
            if k < len(uses) and uses[k] not in used:
                used.add(uses[k])
                fixed.append(Item({**it.block, "tool_use_id": uses[k]}, it.record, it.index))
            elif it.record is not None:
                self.left_out.append((it.record, it.index, "a result for no call of its turn, dropped on resume"))
        missing = [Item({"type": "tool_result", "tool_use_id": c, "content": VALIDATOR_TEXT},
                        placeholder=VALIDATOR_TEXT, call=c) for c in uses if c not in used]
        new.items = missing + fixed

    def _effective(self, live: list[Sent], agent: str) -> list[Sent]:
        recs = self.records

        def rec(s: Sent) -> Mapping:
            return recs[s.record] if s.record is not None and not s.resumed else {}

        summaries = [k for k, s in enumerate(live) if rec(s).get("isSummary") is True]
        if agent == "roo" and summaries:
            for s in live[:summaries[-1]]:
                self.left_out.append((s.record, None, "condensed: Roo Code sends from the last summary on"))
            part = live[summaries[-1]:]
            declared = {c for s in part for c in _call_ids(s)}
            out = []
            for s in part:
                if s.role == "user" and not s.whole:
                    gone = [i for i in s.items if _is_result(i) and i.block.get("tool_use_id") not in declared]
                    for i in gone:
                        if i.record is not None:
                            self.left_out.append((i.record, i.index, "its call was condensed away"))
                    s.items = [i for i in s.items if i not in gone]
                    if not s.items and s.record is not None and gone:
                        continue
                out.append(s)
            markers = {rec(s).get("truncationId") for s in out if rec(s).get("isTruncationMarker")}
            return [s for s in out if not self._hidden(s, rec(s), "truncationParent", markers, "truncated")]
        ids = {rec(s).get("condenseId") for s in live if rec(s).get("isSummary")} - {None}
        markers = {rec(s).get("truncationId") for s in live if rec(s).get("isTruncationMarker")} - {None}
        out = [s for s in live if not self._hidden(s, rec(s), "condenseParent", ids, "condensed")
               and not self._hidden(s, rec(s), "truncationParent", markers, "truncated")]
        summaries = [k for k, s in enumerate(out) if rec(s).get("isSummary")]
        if summaries:
            rest = out[summaries[-1]:]
            for s in out[1 if rest[0].role != "user" else 0:summaries[-1]]:
                self.left_out.append((s.record, None, "before the last summary"))
            if rest[0].role != "user" and out[0].role == "user":
                rest = [out[0], *rest]
            return rest
        return out

    def _hidden(self, s: Sent, rec: Mapping, key: str, live_ids: set, what: str) -> bool:
        value = rec.get(key)
        if value and value in live_ids:
            self.left_out.append((s.record, None, f"{what} ({key} {value})"))
            return True
        return False

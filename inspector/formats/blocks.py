"""Import and export for formats whose messages hold lists of blocks or parts (Anthropic,
Bedrock Converse, Gemini). The three differ only in how a block is spelled; the mapping to
flat messages and back, and the grouping of results, are the same and live here.

Import: an assistant message becomes one flat assistant row (text blocks joined, each call
block a flat call); a user message becomes one flat ``tool`` row per result block, and one
flat user row per run of other blocks, in block order.

Export in the same format keeps every original message object untouched unless the engine
changed it; a changed message keeps its other keys and loses only the blocks the engine
dropped. Synthetic results are written natively. All results of a turn go in one user
message, ahead of the text that follows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine import EXPORT_CLAUSE, Kind, Result, declare
from ..io import InputError
from .base import Decisions, Exported, Imported, Loc, Reasoning, join_text, kind_of, note_unconverted, split_body

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("export-merged", EXPORT_CLAUSE, False, "merged on export",
         "The output format allows no two messages of this role in a row, so they were written as one.", "change"),
    Kind("export-developer-system", EXPORT_CLAUSE, False, "developer into system",
         "An OpenAI developer message was written into the target's top-level system field: the target has "
         "no developer role.", "change"),
    Kind("empty-turn-omitted", EXPORT_CLAUSE, False, "empty turn left out",
         "An assistant turn with no text and no call was not written: the target refuses a message with empty "
         "content, and the turn held nothing to keep.", "change"),
)



@dataclass(slots=True)
class Piece:
    role: str                      # "assistant", "user" or "other"
    src: int | None                # index of the original message; None for new blocks
    idx: list[int] | None          # kept block indexes of that message; None: the whole message
    blocks: list[Any] = field(default_factory=list)   # new blocks (synthetic or converted)
    result: bool = False
    synthetic: bool = False
    origin: int | None = None      # the flat row it writes (for export events)


class BlockSpec:
    """How one format spells messages and blocks. Subclasses fill in the hooks."""

    name = ""
    container = "messages"
    key = "content"
    assistant = "assistant"
    user = "user"
    system_fields: tuple[str, ...] = ("system",)
    merge_users = False       # True: consecutive user messages always become one (Bedrock alternation)
    merge_reason = ""         # why, for the export event

    # -- reading
    def role_of(self, message: Mapping) -> str | None:
        role = message.get("role")
        return role if isinstance(role, str) and role.strip() else None

    def is_user(self, message: Mapping) -> bool:
        return message.get("role") == self.user

    def classify(self, block: Any) -> tuple[str, Any]:
        raise NotImplementedError

    def system_text(self, value: Any) -> str:
        raise NotImplementedError

    def reasoning_of(self, block: Any) -> tuple[str, bool, bool, str] | None:
        """``(kind, signed, encrypted, text)`` when an assistant block is (or carries)
        reasoning, else None."""
        return None

    # -- writing
    def text_block(self, text: str) -> Any:
        raise NotImplementedError

    def call_block(self, cid: str, call: Any, imported: Imported) -> Any:
        raise NotImplementedError

    def result_block(self, cid: str, text: str, synthetic: bool, call: Any, imported: Imported) -> Any:
        raise NotImplementedError

    def system_top(self, texts: list[str]) -> dict[str, Any]:
        raise NotImplementedError

    def fold_system(self, body: Mapping, items: list[Any]) -> dict[str, Any]:
        """The top-level system field with hoisted messages appended: each item is a message's
        string content or its original blocks, carried as they are."""
        raise NotImplementedError

    def arrange(self, im: Imported, origin: int, blocks: list[Any], kept: list[int], strict: bool,
                notes: Exported) -> list[int]:
        """The order to write an assistant message's kept blocks in (a format may repair it)."""
        return kept

    # -- shared machinery
    def import_(self, document: Any, name: str) -> Imported:
        body, history = split_body(document, self.container)
        if history is None:
            raise InputError(name, f"{self.name}: expected an array of {self.container} or an object with a "
                                   f"{self.container!r} array, got {kind_of(document)}")
        im = Imported(self.name, [], document, container=self.container if body is not None else None,
                      history=history)
        lost = im.unconverted                    # (message, key, block) the flat form does not carry
        if body is not None:
            for fld in self.system_fields:
                if body.get(fld) is not None:
                    im.add({"role": "system", "content": self.system_text(body[fld])}, Loc(fld))
                    break
        for i, m in enumerate(history):
            if not isinstance(m, Mapping):
                im.add(m, Loc(i))           # the engine drops it (clause 1) and says why
                continue
            role = self.role_of(m)
            if role is None:
                im.add(dict(m), Loc(i))
                continue
            blocks = m.get(self.key)
            if not isinstance(blocks, list):
                im.add({"role": role, "content": blocks}, Loc(i))
                continue
            if role == "assistant":
                texts, calls, locs = [], [], []
                thoughts: list[tuple[int, tuple[str, bool, bool, str]]] = []
                for k, b in enumerate(blocks):
                    what, value = self.classify(b)
                    if what == "text":
                        texts.append(value)
                    elif what == "call":
                        calls.append(value)
                        locs.append(Loc(i, self.key, (k,)))
                    else:
                        lost.append((i, self.key, k))
                    thought = self.reasoning_of(b)
                    if thought is not None:
                        thoughts.append((k, thought))
                flat = {"role": "assistant", "content": join_text(texts)}
                if calls:
                    flat["tool_calls"] = calls
                row = im.add(flat, Loc(i), locs)
                if thoughts:
                    model = m.get("model") if isinstance(m.get("model"), str) else None
                    for k, (kind, signed, encrypted, text) in thoughts:
                        im.reasoning.append(Reasoning(row, Loc(i, self.key, (k,)), kind, signed, encrypted, model,
                                                      tuple(j for j, c in enumerate(locs) if c.blocks[0] >= k), text))
                continue
            run: list[int] = []
            texts = []
            for k, b in enumerate(blocks):
                what, value = self.classify(b)
                if what == "result":
                    if run:
                        im.add({"role": role, "content": join_text(texts)}, Loc(i, self.key, tuple(run)))
                        run, texts = [], []
                    raw_id, text = value
                    im.add({"role": "tool", "content": text, "tool_call_id": raw_id}, Loc(i, self.key, (k,)))
                else:
                    run.append(k)
                    if what == "text":
                        texts.append(value)
                    else:
                        lost.append((i, self.key, k))
            if run or not blocks:
                im.add({"role": role, "content": join_text(texts)}, Loc(i, self.key, tuple(run)))
        return im

    def result_order(self, rows: list[tuple[dict[str, Any], int | None]], im: Imported) -> list[tuple[dict[str, Any], int | None]]:
        """The final rows in the order to write them; the engine's order unless a format pairs
        results by position (Gemini without ids)."""
        return rows

    def export_same(self, im: Imported, result: Result, notes: Exported) -> Any:
        d = Decisions.of(result)
        strict = any(s.name == "strict" for s in result.stages)
        pieces: list[Piece] = []
        folded: list[Any] = []
        history = im.history
        for msg, o in self.result_order(d.rows, im):
            if o is None:
                cid = msg["tool_call_id"]
                block = self.result_block(cid, msg["content"], True, d.calls_by_id.get(cid), im)
                pieces.append(Piece("user", None, None, [block], result=True, synthetic=True))
                continue
            loc = im.sources[o]
            if isinstance(loc.message, str):
                continue                     # the top-level system field stays where it is
            orig = history[loc.message]
            if msg["role"] == "system" and im.container is not None:
                # Hoisted natively into the top-level system field, its blocks as they are.
                content = orig.get(self.key) if isinstance(orig, Mapping) else None
                if isinstance(content, list) and loc.blocks is not None:
                    folded.append([content[k] for k in loc.blocks])
                else:
                    folded.append(msg["content"])
                continue
            if msg["role"] == "assistant" and isinstance(orig, Mapping) and isinstance(orig.get(self.key), list) \
                    and loc.blocks is None:
                gone = {im.calls[o][j].blocks[0] for j in d.dropped_calls.get(o, ())}
                kept = [k for k in range(len(orig[self.key])) if k not in gone]
                kept = self.arrange(im, o, orig[self.key], kept, strict, notes)
                pieces.append(Piece("assistant", loc.message, kept, origin=o))
                continue
            if loc.blocks is None:
                role = "user" if isinstance(orig, Mapping) and self.is_user(orig) else "other"
                pieces.append(Piece(role, loc.message, None, origin=o))
            else:
                pieces.append(Piece("user", loc.message, list(loc.blocks), result=msg["role"] == "tool", origin=o))
        groups = self._group(pieces, cross=False)
        self._note_merges(notes, groups, lambda q: f"{self.container}[{q.src}]", self.merge_reason)
        messages = [self._build(g, history) for g in groups]
        top = {}
        if folded:
            top = self.fold_system(im.document, folded)
        if im.container is None:
            return messages
        body = dict(im.document)
        body.update(top)
        body[im.container] = messages
        return body

    def export_new(self, im: Imported, result: Result, notes: Exported) -> Any:
        """Write the engine's flat output in this format (from another format)."""
        note_unconverted(im, self.name, notes)
        d = Decisions.of(result)
        pieces: list[Piece] = []
        systems: list[str] = []
        for msg, o in self.result_order(d.rows, im):
            role = msg["role"]
            if role in ("system", "developer"):      # OpenAI's developer role is its system prompt
                systems.append(msg["content"])
                if role == "developer":
                    notes.note("export-developer-system",
                               f"row {o} is a developer message; {self.name} has no developer role, so its text "
                               f"is written into the top-level system field.", origin=o)
            elif role == "assistant":
                blocks = [self.text_block(msg["content"])] if msg["content"].strip() else []
                blocks += [self.call_block(c["tool_call_id"], c, im) for c in msg.get("tool_calls") or ()]
                if not blocks:
                    # Anthropic, Bedrock and Gemini refuse a message with no content; the turn
                    # holds nothing, so it is left out, as LiteLLM (BerriAI/litellm@00814e43
                    # factory.py anthropic_messages_pt: no assistant message without content) and
                    # pydantic-ai (pydantic/pydantic-ai@00031cf2 models/anthropic.py _map_message:
                    # an empty response adds no message) convert one. The rows around it, both
                    # the user's, then go in one user message (``export-merged``).
                    notes.note("empty-turn-omitted", f"row {o} is an assistant turn with no text and no call; "
                               f"{self.name} refuses a message with empty content, so it is not written.",
                               origin=o)
                    continue
                pieces.append(Piece("assistant", None, None, blocks, origin=o))
            elif role == "tool":
                cid = msg["tool_call_id"]
                block = self.result_block(cid, msg["content"], o is None, d.calls_by_id.get(cid), im)
                pieces.append(Piece("user", None, None, [block], result=True, synthetic=o is None, origin=o))
            else:
                pieces.append(Piece("user", None, None, [self.text_block(msg["content"])], origin=o))
        groups = self._group(pieces, cross=True)
        self._note_merges(notes, groups, lambda q: f"row {q.origin}",
                          "what follows one turn goes in one user message",
                          "consecutive assistant rows are one turn, its text ahead of its calls")
        messages = [self._build(g, []) for g in groups]
        return {**self.system_top(systems), self.container: messages}

    def _group(self, pieces: list[Piece], cross: bool) -> list[list[Piece]]:
        """Consecutive pieces that form one provider message (linear: flags per group)."""
        groups: list[list[Piece]] = []
        results = synthetic = False
        srcs: set[int | None] = set()
        for p in pieces:
            # Same format: pieces of one original message stay together, and a result the engine
            # wrote or moved joins its turn's results; separate original messages that were
            # already neighbours stay separate unless the format requires one (``merge_users``).
            # Every merge of separate messages is an export event.
            # Converting, consecutive assistant rows are one turn: the providers combine them
            # anyway, and a separate message would put its text after the turn's calls.
            if groups and p.role == groups[-1][0].role and (
                (p.role == "user" and (
                    cross or self.merge_users or (p.result and results and not self._in_place(groups[-1][-1], p))
                    or (p.src is not None and p.src in srcs) or synthetic))
                or (p.role == "assistant" and cross)
            ):
                groups[-1].append(p)
                results = results and p.result
                synthetic = synthetic and p.synthetic
            else:
                groups.append([p])
                results, synthetic, srcs = p.result, p.synthetic, set()
            srcs.add(p.src)
        return groups

    @staticmethod
    def _in_place(prev: Piece, p: Piece) -> bool:
        """Whether ``p`` opens the original message that came right after ``prev``'s."""
        return p.src is not None and prev.src is not None and p.src == prev.src + 1 and p.idx is not None \
            and (not p.idx or p.idx[0] == 0)

    def _note_merges(self, notes: Exported, groups: list[list[Piece]], name, reason: str,
                     assistant_reason: str = "") -> None:
        """One export event for each written message that joins rows from separate messages."""
        for group in groups:
            firsts: dict[Any, Piece] = {}
            for q in group:
                if q.src is not None or q.origin is not None:
                    firsts.setdefault(q.src if q.src is not None else ("row", q.origin), q)
            if len(firsts) < 2:
                continue
            parts = list(firsts.values())
            where = ", ".join(name(q) for q in parts)
            turn = group[0].role == "assistant"
            why = assistant_reason if turn else reason
            notes.note("export-merged",
                           f"{where} are written as one {self.assistant if turn else self.user} message"
                           f"{': ' + why if why else ''}.", origin=parts[1].origin, cause=parts[0].origin)

    def _build(self, group: list[Piece], history: list[Any]) -> Any:
        first = next((q for q in group if q.src is not None), None)
        if first is not None:
            orig = history[first.src]
            srcs = {q.src for q in group}
            if srcs == {first.src}:
                if len(group) == 1 and first.idx is None:
                    return orig
                blocks = orig.get(self.key)
                order = [k for q in group for k in (q.idx or ())]
                if isinstance(blocks, list) and order == list(range(len(blocks))):
                    return orig
        blocks = []
        if first is None and group[0].role == "assistant" and len(group) > 1:
            # One converted turn: its text first, then its calls (nothing may follow a call).
            new = [b for q in group for b in q.blocks]
            calls = [b for b in new if self.classify(b)[0] == "call"]
            return {"role": self.assistant, self.key: [b for b in new if self.classify(b)[0] != "call"] + calls}
        for q in group:
            if q.src is None:
                blocks.extend(q.blocks)
                continue
            content = history[q.src].get(self.key)
            if q.idx is None:
                blocks.extend(content if isinstance(content, list) else [self.text_block(content)])
            else:
                blocks.extend(content[k] for k in q.idx)
        if first is not None:
            out = dict(history[first.src])
        else:
            out = {"role": self.assistant if group[0].role == "assistant" else self.user}
        out[self.key] = blocks
        return out

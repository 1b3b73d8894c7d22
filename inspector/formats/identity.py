"""Identity before MEM-5: the call each result answers, as the provider pairs them.

MEM-5 (clause 3) matches ids as sets over the whole list; on the flat list, the rule's own
shape, that is the rule, and the flat format keeps it (``LITERAL``). A provider body or an
agent's store is not that list: its format says which result answers which call, and what
the provider accepted stays accepted (``../shared/spec/semantics.md``, "Identity in provider
formats and stores"). Each format declares its pairing on its ``Format`` (``pairing``), and
:func:`assign` runs once on every import (``formats.import_history``), before the engine:

- a later pair (a call and the result after it) whose id string an earlier pair, already
  complete, used gets a derived identity (``id-reused``); a reusing call with no result of its
  own is not a pair, and clause 3 drops it as a redeclaration, as on the flat list (pydantic-ai
  and deer-flow answer it as interrupted instead: ``docs/identity.md``);
- a call whose id is empty or missing, with a result of empty or missing id in the block
  right after its turn, is paired with it by position (``id-derived``);
- an id declared again while its first declaration is still open, or twice in one turn,
  is left as it is: MEM-5 drops it as a redeclaration;
- in call order (Responses items), an output that comes before any call with its call_id
  answers nothing: it is read apart, MEM-5 drops it as an orphan, and a later output answers
  the call (``result-early``; R3-23);
- an interrupted placeholder (Inspector's own, or an agent's it can recognize) followed later
  by the real result of the same call is superseded: the real result answers the call and
  the placeholder no longer does (``result-superseded``; MEM-5 then drops it as answering no
  call).

:func:`restore` writes the original id strings back on export, so a valid document with
reused ids comes back byte-identical; converting to a target whose provider refuses reused
ids (:data:`REFUSE_REUSE`) keeps the derived identities, and that rename is an export event
(``id-renamed``) showing both ids.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import orjson

from ..engine import EXPORT_CLAUSE, IMPORT_CLAUSE, INTERRUPTED, Kind, Result, call_id, declare
from .base import Exported, Imported

# How a format pairs a result with its call (the ``Format.pairing`` fact).
LITERAL = "literal"        # MEM-5's own list: ids as plain strings, matched as sets
ADJACENT = "adjacent"      # results follow their call's turn (Chat, Anthropic, Bedrock, the stores)
CALL_ORDER = "call-order"  # Responses items: a function_call_output follows its function_call by call_id
BY_NAME = "name"           # Gemini: by id, else by name and order (the importer derives those itself)
PAIRINGS: dict[str, str] = {
    LITERAL: "ids are plain strings matched as sets over the whole list (MEM-5 as written)",
    ADJACENT: "a result answers the latest open call with its id; an empty id pairs by position in the "
              "results right after the call's turn",
    CALL_ORDER: "an output item answers the latest open call item with its call_id; an empty call_id pairs "
                "by position in the outputs right after the call",
    BY_NAME: "a response answers the call with its id, else the first open call of its name in the turn "
             "before it",
}

# Targets whose provider documents a tool call id as unique in a request, with the source: a
# conversion to them writes a reused id under its derived identity. Anthropic documents each
# tool_use id as unique and refuses a duplicate in one message ("messages.N.content.M: `tool_use`
# ids must be unique": anthropics/claude-code#20700, anomalyco/opencode#1279); a reuse across
# turns was observed accepted (pydantic/pydantic-ai @ 4fda389, a cassette of
# tests/cassettes/test_tool_search/), so ``check --target anthropic`` warns, never errs.
REFUSE_REUSE: dict[str, str] = {
    "anthropic": "https://docs.anthropic.com/en/api/messages",
}

# Placeholders standing for a result nobody saw, recognized by their exact text: Inspector's
# own (the engine's synthetic result) and Claude Code's, which writes this tool_result when
# the user interrupts a call (anthropics/claude-code, session files; the text the CLI shows).
PLACEHOLDERS: frozenset[str] = frozenset({
    INTERRUPTED,
    "[Request interrupted by user for tool use]",
})

EMITS = declare(
    Kind("id-reused", IMPORT_CLAUSE, False, "id reused",
         "A call reuses the id of an earlier call whose result already came; the provider pairs it with the "
         "result after it, so it is read under an identity of its own (the id itself is written back).",
         "note", "call"),
    Kind("id-derived", IMPORT_CLAUSE, False, "id derived",
         "A call or response had no id, so one was derived from its position to pair them.", "note", "call"),
    Kind("result-superseded", IMPORT_CLAUSE, False, "placeholder superseded",
         "An interrupted placeholder was followed by the call's real result: the real one answers the call, "
         "and the placeholder answers nothing.", "note"),
    Kind("result-early", IMPORT_CLAUSE, False, "output before its call",
         "An output comes before any call with its call_id; in call order it answers nothing, so it is read "
         "apart and a later output answers the call.", "note"),
    Kind("id-renamed", EXPORT_CLAUSE, False, "id renamed",
         "The target documents a call id as unique in a request, so a later call reusing one and its result are written "
         "under the identity Inspector derived.", "change"),
)

_UNUSABLE = ("", "0")


def _unusable(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value in _UNUSABLE)


def _spelling(value: Any) -> str:
    """How an unusable id is spelled, for pairing by position: a missing id reads as ``""``."""
    return value if isinstance(value, str) else ""


class _Namer:
    """Derived identities, unique against every id string of the document; and where each id
    string is declared and answered (built once, when the first derived identity is needed)."""

    def __init__(self, messages: list[Any]) -> None:
        taken: set[str] = set()
        self.results: dict[str, list[int]] = {}
        self.calls: dict[str, list[int]] = {}
        for pos, m in enumerate(messages):
            if type(m) is not dict:
                continue
            if isinstance(m.get("tool_call_id"), str):
                taken.add(m["tool_call_id"])
                if m.get("role") == "tool":
                    self.results.setdefault(m["tool_call_id"], []).append(pos)
            for c in m.get("tool_calls") or () if isinstance(m.get("tool_calls"), list) else ():
                if isinstance(c, Mapping):
                    taken.add(call_id(c))
                    if m.get("role") == "assistant":
                        self.calls.setdefault(call_id(c), []).append(pos)
        self.taken = taken

    def answered(self, s: str, pos: int) -> bool:
        """Whether a result with id ``s`` follows the turn at ``pos`` before ``s`` is declared
        again: the reusing call has a result of its own, so the two are a pair."""
        after = self.results.get(s, ())
        k = bisect_right(after, pos)
        if k == len(after):
            return False
        later = self.calls.get(s, ())
        d = bisect_right(later, pos)
        return d == len(later) or after[k] < later[d]

    def declared(self) -> Any:
        """Every call id string the document declares (built on first use)."""
        return self.calls.keys()

    def __call__(self, stem: str) -> str:
        # Only [a-zA-Z0-9_-] so a derived identity is a valid id for every target.
        base = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_-") else "_" for ch in stem) or "call"
        n = 2
        while f"{base}-{n}" in self.taken:
            n += 1
        name = f"{base}-{n}"
        self.taken.add(name)
        return name


def assign(im: Imported, pairing: str) -> None:
    """Give each call and result of ``im.messages`` the identity its format pairs it by
    (module docstring). Messages it changes are replaced by copies (an importer may hand the
    input's own objects over); ``im.identity`` maps each derived identity to the id string
    the document holds (None: it had none)."""
    if pairing == LITERAL:
        return
    msgs = im.messages
    namer: _Namer | None = None
    last_result: dict[str, int] | None = None   # the last result of each id string, once an early one is met
    open_: dict[str, str] = {}                 # id string -> identity of its open call
    done: dict[str, tuple[str, int, bool]] = {}  # id string -> (identity, result row, placeholder?)
    for pos, m in enumerate(msgs):
        if type(m) is not dict:
            continue
        role = m.get("role")
        if role == "assistant" and isinstance(m.get("tool_calls"), list):
            calls = m["tool_calls"]
            here: set[str] = set()
            empty: list[int] = []
            new_calls: list[Any] | None = None
            for j, call in enumerate(calls):
                if not isinstance(call, Mapping):
                    continue
                raw = call.get("tool_call_id", call.get("id"))
                if _unusable(raw):
                    empty.append(j)
                    continue
                s = call_id(call)
                if s in open_ or s in here:
                    # A real redeclaration: read under the identity it redeclares, so that MEM-5
                    # drops it as the second declaration of that very call.
                    if open_[s] != s:
                        if new_calls is None:
                            new_calls = list(calls)
                        new_calls[j] = {**call, "tool_call_id": open_[s]}
                    continue
                here.add(s)
                if s in done:
                    if namer is None:
                        namer = _Namer(msgs)
                    if not namer.answered(s, pos):
                        continue                # no result of its own: clause 3 reads it as a redeclaration
                    ident = namer(s)
                    im.identity[ident] = s
                    if new_calls is None:
                        new_calls = list(calls)
                    new_calls[j] = {**call, "tool_call_id": ident}
                    first = done[s][1]
                    im.note(pos, "id-reused",
                            f"Call {j} reuses the id {s!r}, whose earlier pair (result at #{first}) is complete; "
                            f"the provider pairs it with the result after it, so it is read as {ident!r} "
                            f"(written back as {s!r}).", call=j, tool_call_id=s)
                    open_[s] = ident
                else:
                    open_[s] = s
            if empty:
                # By position, each spelling apart ("" and a missing id alike; "0" with "0").
                k = pos + 1
                results: dict[Any, list[int]] = {}
                while k < len(msgs) and type(msgs[k]) is dict and msgs[k].get("role") == "tool":
                    if _unusable(msgs[k].get("tool_call_id")):
                        results.setdefault(_spelling(msgs[k].get("tool_call_id")), []).append(k)
                    k += 1
                pairs: list[tuple[int, int]] = []
                for j in empty:
                    same = results.get(_spelling(calls[j].get("tool_call_id", calls[j].get("id"))))
                    if same:
                        pairs.append((j, same.pop(0)))
                for j, r in pairs:
                    if namer is None:
                        namer = _Namer(msgs)
                    call = calls[j]
                    stem = call.get("name") if isinstance(call.get("name"), str) and call.get("name") else "call"
                    ident = namer(f"{stem}-{pos}-{j}")
                    im.identity[ident] = call.get("tool_call_id", call.get("id"))
                    if new_calls is None:
                        new_calls = list(calls)
                    new_calls[j] = {**call, "tool_call_id": ident}
                    msgs[r] = {**msgs[r], "tool_call_id": ident}
                    im.note(pos, "id-derived",
                            f"Call {j} has no usable id, and the result at #{r} (no id either) answers it by "
                            f"position; both are read as {ident!r}, which is never written back.",
                            call=j, tool_call_id=ident)
                    open_[ident] = ident
            if new_calls is not None:
                msgs[pos] = {**m, "tool_calls": new_calls}
        elif role == "tool":
            s = m.get("tool_call_id")
            if not isinstance(s, str):
                continue
            if s in open_:
                ident = open_.pop(s)
                if ident != s:
                    msgs[pos] = {**m, "tool_call_id": ident}
                done[s] = (ident, pos, _placeholder(m))
            elif s in done:
                ident, first, held = done[s]
                if held and not _placeholder(m):
                    # The real result came after a placeholder: it answers the call.
                    if namer is None:
                        namer = _Namer(msgs)
                    gone = namer(f"{s}-placeholder")
                    msgs[first] = {**msgs[first], "tool_call_id": gone}
                    if ident != s:
                        msgs[pos] = {**m, "tool_call_id": ident}
                    done[s] = (ident, pos, False)
                    im.note(first, "result-superseded",
                            f"This interrupted placeholder for call {s!r} is superseded by the real result at "
                            f"#{pos}: the real one answers the call, and this one answers none (MEM-5 drops it).",
                            tool_call_id=s)
                elif ident != s:
                    msgs[pos] = {**m, "tool_call_id": ident}   # a second result of that pair: a duplicate
            elif pairing in (CALL_ORDER, ADJACENT) and s not in _UNUSABLE:
                # A result before any call with its id answers nothing in the format's pairing
                # (R3-23). When a later result for that id follows, it is read apart (MEM-5 drops
                # it as an orphan) so that the later, real one answers the call instead of being
                # dropped as a duplicate of it; alone, it stays MEM-5's to judge (a result before
                # its call: the rule's known limit, which --strict repairs), so that every format
                # reads it alike and a conversion is a fixed point.
                if namer is None:
                    namer = _Namer(msgs)
                if last_result is None:
                    last_result = {}
                    for k, x in enumerate(msgs):
                        if type(x) is dict and x.get("role") == "tool" and isinstance(x.get("tool_call_id"), str):
                            last_result[x["tool_call_id"]] = k
                if s in namer.declared() and last_result.get(s, pos) > pos:
                    gone = namer(f"{s}-early")
                    msgs[pos] = {**m, "tool_call_id": gone}
                    im.note(pos, "result-early",
                            f"This output for call {s!r} comes before any call with that call_id; in call order it "
                            "answers nothing, so it is read apart (MEM-5 drops it as an orphan) and a later "
                            "output answers the call.", tool_call_id=s)


def _placeholder(m: Mapping) -> bool:
    """Whether a result is a placeholder: its text is one, or (a Gemini response Inspector wrote)
    a JSON object of one key whose text is one."""
    content = m.get("content")
    if not isinstance(content, str):
        return False
    text = content.strip()
    if text in PLACEHOLDERS:
        return True
    if text.startswith("{") and len(text) < 200:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return False
        if not (isinstance(value, dict) and len(value) == 1):
            return False
        inner = next(iter(value.values()))
        return isinstance(inner, str) and inner in PLACEHOLDERS
    return False


def original(im: Imported, identity: Any) -> Any:
    """The id string the document holds for ``identity`` (itself when not derived)."""
    return im.identity.get(identity, identity) if isinstance(identity, str) else identity


def restore(im: Imported, result: Result, to: str, provider: str | None = None,
            notes: Exported | None = None) -> Result:
    """``result`` with the original id strings back, for an export to ``to`` (the input's
    own format, or another). Converting keeps the identity derived for an empty id (a
    target gets a usable id), and, where the target refuses reused ids
    (:data:`REFUSE_REUSE`, read from ``provider``, the target format's provider), the identity
    derived for a reuse: that rename is noted."""
    if not im.identity:
        return result
    same = to in ("same", im.format)
    back: dict[str, Any] = {}
    renamed: list[tuple[str, str]] = []
    for ident, s in im.identity.items():
        if same:
            back[ident] = s
        elif _unusable(s):
            continue
        elif (provider or to) in REFUSE_REUSE:
            renamed.append((s, ident))
        else:
            back[ident] = s
    if notes is not None and renamed:
        shown = ", ".join(f"{s!r} -> {ident!r}" for s, ident in renamed[:5])
        more = f" and {len(renamed) - 5} more" if len(renamed) > 5 else ""
        notes.note("id-renamed", f"{to} documents a tool call id as unique in a request ({REFUSE_REUSE[provider or to]}): "
                                 f"{len(renamed)} later call(s) and their results are written under a new id: "
                                 f"{shown}{more}.")
    if not back:
        return result
    return replace(result, messages=[_with_ids(m, back) for m in result.messages])


def _with_ids(m: Any, back: dict[str, Any]) -> Any:
    if type(m) is not dict:
        return m
    if m.get("role") == "tool" and m.get("tool_call_id") in back:
        return {**m, "tool_call_id": back[m["tool_call_id"]]}
    calls = m.get("tool_calls")
    if isinstance(calls, list) and any(isinstance(c, Mapping) and c.get("tool_call_id") in back for c in calls):
        return {**m, "tool_calls": [{**c, "tool_call_id": back[c["tool_call_id"]]}
                                    if isinstance(c, Mapping) and c.get("tool_call_id") in back else c
                                    for c in calls]}
    return m


def reused(im: Imported) -> dict[str, str]:
    """Each identity derived for a reused id string -> that string (what a target that refuses
    reuse reports)."""
    return {ident: s for ident, s in im.identity.items() if not _unusable(s)}

"""Strict format detection: a format is chosen only on evidence that belongs to it alone.

Every registered format is asked for its evidence (``Format.evidence``: its own markers, a
``tool_use`` block, a ``functionCall`` part, a ``function_call`` item...). Exactly one format
with evidence wins. Evidence for two formats is an :class:`InputError` that lists what was
tried: a guess is never presented as fact.

Input with no evidence at all:
- plain messages (no list content) are ``flat``: every chat format reads them the same, and
  MEM-5's own reading is the one to show;
- messages whose content parts no format claims alone (the ``text`` parts OpenAI and
  Anthropic share) are read by the first registered format whose part vocabulary holds them
  all (``openai-chat`` for shared text parts), which writes every part back as it was;
  parts that fit no format are read by MEM-5 itself (``flat``, clause 1 writes them as text);
- a list of entries none of which has a role is not a history at all (another tool's
  export, say): an error naming what was tried and the formats Inspector reads, never a
  "repair" that drops every entry;
- anything else is an error naming the formats tried.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..io import InputError, NotAHistory
from .base import kind_of
from .registry import REGISTRY
from .shape import forget, shape_of

FALLBACK = "flat"


def evidence(document: Any) -> dict[str, list[str]]:
    """Every registered format's reasons, for the formats that have any (registry order)."""
    try:
        return _evidence(document)
    finally:
        forget()


def _evidence(document: Any) -> dict[str, list[str]]:
    found = {}
    for name, fmt in REGISTRY.items():
        reasons = fmt.evidence(document)
        if reasons:
            found[name] = reasons
    return found


def detect(document: Any, name: str) -> str:
    """The one format ``document`` belongs to, or an InputError saying what was tried."""
    try:
        return _detect(document, name)
    finally:
        forget()   # the shape every format read is kept until the decision is made


def _detect(document: Any, name: str) -> str:
    found = _evidence(document)
    if found.keys() == {"flat", "openai-chat"}:
        # The flat shape reads both call spellings (MEM-11), so a mix of them is flat.
        return "flat"
    if len(found) == 1:
        return next(iter(found))
    stores = [f for f in found if REGISTRY[f].is_session]
    if len(stores) == 1:
        # An agent's own container markers (a Gemini CLI record's sessionId) decide: the parts
        # inside its records are the agent's, whatever provider format they also resemble.
        return stores[0]
    if len(found) > 1:
        listed = "; ".join(f"{f} ({why[0]})" for f, why in found.items())
        raise InputError(name, f"ambiguous format: it has markers of {listed}; pass --from NAME to choose")
    plain = isinstance(document, list) or (isinstance(document, Mapping) and isinstance(document.get("messages"), list))
    if plain:
        shape = shape_of(document, "messages")
        if shape.present and not shape.roles and _entries(document):
            raise not_a_history(document, name)
        if not shape.list_content:
            return FALLBACK
        fits = [f.name for f in REGISTRY.values() if shape.blocks and f.parts and shape.blocks.keys() <= f.parts]
        return fits[0] if fits else FALLBACK
    tried = ", ".join(REGISTRY)
    if isinstance(document, Mapping) and isinstance(document.get("role"), str):
        # A record of `inspector batch` that is one message: the file holds a message per line.
        raise NotAHistory(name, 'one message, not a history: expected a JSON array of messages or an object with a '
                               '"messages" array; a file with one message per line is one history, which '
                               "'inspector FILE' and 'inspector normalize FILE' read whole")
    if isinstance(document, Mapping):
        keys = ", ".join(sorted(map(str, document))[:8]) or "no keys"
        raise NotAHistory(name, f'unrecognized format: expected a JSON array of messages or an object with a '
                               f'"messages" array (flat, openai-chat, anthropic, bedrock), "input" '
                               f'(openai-responses) or "contents" (gemini); the top-level object has {keys}; '
                               f"tried {tried}")
    raise NotAHistory(name, f'expected a JSON array of messages or an object with a "messages" array, '
                           f"got {kind_of(document)}; tried {tried}")


def _entries(document: Any) -> list[Any]:
    return document if isinstance(document, list) else document["messages"]


def not_a_history(document: Any, name: str) -> NotAHistory:
    """The error for a document whose entries have no role: it is no conversation history."""
    entries = _entries(document)
    first = next((e for e in entries if isinstance(e, Mapping)), None)
    seen = (f"its first entry has keys {', '.join(sorted(map(str, first))[:6]) or 'none'}"
            if first is not None else f"its entries are {kind_of(entries[0])}")
    where = "the array" if isinstance(document, list) else 'the "messages" array'
    known = "; ".join(f"{n} ({f.label})" for n, f in REGISTRY.items())
    return NotAHistory(name, f"not a conversation history: no entry of {where} has a role ({len(entries)} entries; "
                            f"{seen}); tried {', '.join(REGISTRY)}. Inspector reads: {known}. "
                            "Pass --from NAME if it is one of them")

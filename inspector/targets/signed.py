"""Reasoning signed by one model and sent to another.

A provider checks a signature or an encrypted reasoning payload against the model that
issued it. The model that wrote each block is what its importer recorded
(``Reasoning.model``: a message's ``model``, a Claude Code line's ``message.model``, a Codex
``turn_context``'s, an OpenCode message's ``modelID``); the model the request goes to is
``--model`` (``check --model``, for a session store, whose file names no request model) or
the body's own ``model``. Only where both are known is anything said.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from .base import SIGNED_CLAUSE, Hit, Rule, View, signed_rule, signed_repairs

# A dated snapshot or a deployment's spelling names the same model: claude-sonnet-4-5-20250929
# and claude-sonnet-4-5, anthropic/claude-sonnet-4-5, us.anthropic.claude-sonnet-4-5-v1:0,
# claude-sonnet-4-5@20250929 (Vertex).
_VENDOR = re.compile(r"^(?:[a-z]{2}\.)?(?:anthropic|openai)\.")
_SUFFIX = re.compile(r"(?:[-@]\d{8}|-v\d+:\d+|-\d{4}-\d{2}-\d{2})+$")

# Stores whose agent itself leaves out reasoning another model wrote: OpenCode sends a
# reasoning part only when its message's providerID and modelID are the resumed model's
# (anomalyco/opencode packages/opencode/src/session/message-v2.ts, toModelMessages, at
# 007a9409bafea06d6b9084ff1f6d1fe9f5e3a803), so a model switch never replays a foreign signature.
FILTERS_BY_MODEL = frozenset({"opencode", "opencode-export"})


def base_name(model: str) -> str:
    name = model.strip().lower().rsplit("/", 1)[-1]
    return _SUFFIX.sub("", _VENDOR.sub("", name))


def same_model(a: str, b: str) -> bool:
    return base_name(a) == base_name(b)


def request_model(view: View, fmt: str) -> str | None:
    """The model the history is sent to: ``--model``, else the exported body's ``model``."""
    model = view.model or view.setting(fmt, "model")
    return model if isinstance(model, str) and model else None


class Signed(NamedTuple):
    row: int                    # the checked row (the engine's output) of the turn
    record: Any                 # the importer's Reasoning record
    where: str                  # its native location


def latest_signed(view: View, kinds: frozenset[str]) -> Signed | None:
    """The first signed block of ``kinds`` in the latest turn that carries one and is sent
    (its row survives the repair), with the model recorded for it; None when the export
    strips reasoning or the agent leaves foreign reasoning out itself."""
    out = view.outcome
    if out is None and view.given is not None:      # the rows as given: each row is its own
        im, rows = view.given, {i: i for i in range(len(view.messages))}
    elif out is None or getattr(out, "reasoning", "keep") == "strip":
        return None
    else:
        im = out.imported
        rows = {o: i for i, o in enumerate(out.result.origins) if o is not None}
    if im.format in FILTERS_BY_MODEL:
        return None
    best: Signed | None = None
    for r in im.reasoning:
        if r.signed and r.kind in kinds and r.row is not None and r.row in rows:
            if best is None or rows[r.row] > best.row:
                best = Signed(rows[r.row], r, r.loc.describe(im.container))
    return best


def other_model(view: View, fmt: str, kinds: frozenset[str]) -> tuple[Signed, str, str] | None:
    """(the latest signed block, who wrote it, who it goes to) when the two models differ."""
    model = request_model(view, fmt)
    found = latest_signed(view, kinds) if model is not None else None
    wrote = found.record.model if found is not None else None
    if found is None or not wrote or same_model(wrote, model):
        return None
    return found, wrote, model


def repairs(view: View, fmt: str, kinds: frozenset[str]) -> Iterator[Hit]:
    """``signed-turn-repaired`` for a target's own documents (``base.signed_repairs``) and for
    the session stores that replay its signed reasoning (a Claude Code or Cline session's
    thinking, a Codex rollout's encrypted reasoning): each export event saying a repair changed
    such a turn, as the warning of what the provider may do, on the row it concerns."""
    if view.native(fmt) is not None:
        yield from signed_repairs(view, fmt)
        return
    out = view.outcome
    if out is None:
        return
    if not any(r.signed and r.kind in kinds for r in getattr(out.imported, "reasoning", ())):
        return
    rows = {o: i for i, o in enumerate(out.result.origins) if o is not None}
    for e in getattr(out, "export_events", ()):
        if e.clause == SIGNED_CLAUSE:
            yield Hit(rows.get(e.origin, 0), e.message)


def rule(fmt: str, source: str, kinds: frozenset[str]) -> Rule:
    """The ``signed-turn-repaired`` rule of a target whose signed reasoning session stores replay."""
    base = signed_rule(fmt, source)
    return dataclasses.replace(base, check=lambda view: repairs(view, fmt, kinds),
                               summary="a repair changed a turn that carries signed reasoning, or cut rows before it "
                                       "(native, and session stores)")

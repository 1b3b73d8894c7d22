"""Codex rollouts of paginated threads (``history_mode: "paginated"``, the default for new
threads from Codex 0.153, openai/codex PR #29927): which ones the rollout alone says what a
resume sends, and a clear refusal for the others."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..io import InputError

MIGRATE = ("Codex keeps a paginated thread's history in pages (its state database's thread_history_1.sqlite "
           "and the thread's earlier rollouts); `codex migrate-rollouts` moves legacy rollouts into that form "
           "and has no way back")


def check(entries: list[Any], name: str, item_of: Callable[[Any], Any],
          compaction: Callable[[Any], Any]) -> str | None:
    """A rollout of a paginated thread (``history_mode: "paginated"`` in its session_meta, the
    default from Codex 0.153, openai/codex PR #29927). Its lines are the same records: Codex's
    persistence policy (``codex-rs/rollout/src/policy.rs`` at 0136a731: every ResponseItem is
    persisted whatever the mode; ``item_completed`` events only for plans and sleeps) keeps the
    response items a resume rebuilds its request from. Two cases are not in this file alone and
    are refused: a page that continues another rollout (``history_base``: its history starts in
    thread ``thread_id`` up to ``end_ordinal_exclusive``), and a rollout that holds turn items
    but no response item."""
    meta = next((e["payload"] for e in entries if isinstance(e, Mapping) and e.get("type") == "session_meta"
                 and isinstance(e.get("payload"), Mapping)), {})
    mode = meta.get("history_mode")
    if mode in (None, "legacy"):
        return None
    base = meta.get("history_base")
    if isinstance(base, Mapping):
        where = base.get("thread_id")
        upto = base.get("end_ordinal_exclusive")
        raise InputError(name, f"codex-rollout: a paginated Codex rollout that continues the history of thread "
                               f"{where} (its session_meta's history_base, up to ordinal {upto}): what Codex sends "
                               f"on resume starts in that thread's rollout, not in this file, so Inspector cannot "
                               f"read it from this file alone. {MIGRATE}")
    items = sum(1 for e in entries if item_of(e) is not None or compaction(e) is not None)
    turns = sum(1 for e in entries if isinstance(e, Mapping) and e.get("type") == "event_msg"
                and isinstance(e.get("payload"), Mapping) and e["payload"].get("type") == "item_completed")
    if not items and turns:
        raise InputError(name, f"codex-rollout: a paginated Codex rollout holding {turns} turn item(s) "
                               f"(item_completed) and no response item: what Codex sends on resume is not in this file, so "
                               f"Inspector cannot read it. {MIGRATE}")
    return (f"a paginated Codex rollout (history_mode {mode!r}): read from its response items, which Codex "
            f"writes in every mode (openai/codex codex-rs/rollout/src/policy.rs at 0136a731); Codex also keeps a "
            f"projection of it in thread_history_1.sqlite for its paged view, which a repair of the rollout does "
            f"not rewrite, and a line the repair adds has no ordinal (RolloutLine's ordinal is optional)")

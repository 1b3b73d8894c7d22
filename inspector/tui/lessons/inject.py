"""Failure injection: one realistic way a working session breaks, applied to a valid history.

Each injection is one of the playground's edits (:mod:`inspector.tui.edits`) on the
document's own entries (a message list in the Chat Completions shape: an assistant entry
holding ``tool_calls``, a ``tool`` entry answering one by ``tool_call_id``), so the broken
history is read again by the format's importer like any other edit, and undo gives back the
valid one. What each does, in the project's words:

- ``cut-mid-call``: the session ends right after the model asked for tools (a crash or a
  kill before any call ran): every entry after the first call is gone.
- ``drop-parallel-result``: two calls ran in parallel and the process died after writing
  one answer: the second answer of a parallel turn is gone.
- ``duplicate-result``: a retry wrote a call's answer a second time, right after the first.
- ``compact-between``: a compaction summarised everything up to and including a call, and
  kept its answer: the answer now follows a summary, its call gone.
- ``reuse-id``: the provider gave two parallel calls of one turn the same id (goose #9786,
  opencode #1279): the second call and its answer carry the first one's id.
- ``switch-model``: the session goes on with another model while its history holds
  thinking the first model signed: the request body's ``model`` changes (a field edit).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import edits
from ..rows import call_ids

SUMMARY = {"role": "user", "content": "[Summary of the conversation so far: the user asked for a status check.]"}


def _calls(entry: Any) -> list[str]:
    return [ident for ident, j in call_ids(entry) if j is not None]


def _answers(entry: Any) -> str | None:
    return next((ident for ident, j in call_ids(entry) if j is None), None)


def _first_call(native: edits.Native, parallel: bool = False) -> int:
    for k, entry in enumerate(native.items):
        if len(_calls(entry)) >= (2 if parallel else 1):
            return k
    raise ValueError("the history holds no " + ("parallel calls" if parallel else "call"))


def _answer_of(native: edits.Native, ident: str, after: int) -> int:
    for k in range(after + 1, len(native.items)):
        if _answers(native.items[k]) == ident:
            return k
    raise ValueError(f"no answer to {ident}")


def cut_mid_call(native: edits.Native) -> edits.Edit:
    k = _first_call(native)
    rest = len(native.items) - k - 1
    if rest <= 0:
        raise ValueError("the history already ends at its call")
    return edits.delete_edit(native, edits.Target("entries", k + 1, rest))


def drop_parallel_result(native: edits.Native) -> edits.Edit:
    k = _first_call(native, parallel=True)
    return edits.delete_edit(native, edits.Target("entries", _answer_of(native, _calls(native.items[k])[1], k)))


def duplicate_result(native: edits.Native) -> edits.Edit:
    k = _first_call(native)
    answer = _answer_of(native, _calls(native.items[k])[0], k)
    return edits.insert_edit(native, edits.Target("entries", answer), [native.items[answer]], "a retried result")


def compact_between(native: edits.Native) -> edits.Edit:
    k = _first_call(native)
    first = 1 if native.items and isinstance(native.items[0], Mapping) and native.items[0].get("role") == "system" \
        else 0
    return edits.replace_edit(native, edits.Target("entries", first, k - first + 1), [dict(SUMMARY)])


def reuse_id(native: edits.Native) -> edits.Edit:
    """Two parallel calls of one turn come out under one id, and both answers carry it. A reuse
    across turns, after the first pair was complete, is not a failure: a provider pairs each
    call with the results right after its turn (issue 30, ``docs/identity.md``)."""
    turn = _first_call(native, parallel=True)
    first, second = _calls(native.items[turn])[:2]
    answer = _answer_of(native, second, turn)
    call_entry = _renamed(native.items[turn], second, first)
    answer_entry = {**native.items[answer], "tool_call_id": first}
    values = [call_entry, *native.items[turn + 1:answer], answer_entry]
    return edits.replace_edit(native, edits.Target("entries", turn, answer - turn + 1), values)


def _renamed(entry: Mapping[str, Any], new: str, old: str) -> dict[str, Any]:
    calls = []
    for call in entry["tool_calls"]:
        if isinstance(call, Mapping):
            call = {key: (old if value == new and key in ("id", "tool_call_id") else value)
                    for key, value in call.items()}
        calls.append(call)
    return {**entry, "tool_calls": calls}


OTHER_MODEL = {"claude-opus-4-1": "claude-sonnet-4-5"}  # the model a switch goes to (default: claude-opus-4-1)


def switch_model(native: edits.Native) -> edits.Edit:
    if native.body is None or not isinstance(native.body.get("model"), str):
        raise ValueError("the history names no model to switch from")
    model = native.body["model"]
    return edits.replace_edit(native, edits.Target("field", name="model"), OTHER_MODEL.get(model, "claude-opus-4-1"))


INJECTIONS: dict[str, tuple[str, Callable[[edits.Native], edits.Edit]]] = {
    "cut-mid-call": ("the session is cut right after a call", cut_mid_call),
    "drop-parallel-result": ("one of two parallel results is lost", drop_parallel_result),
    "duplicate-result": ("a retry writes a result twice", duplicate_result),
    "compact-between": ("a compaction cuts a call from its result", compact_between),
    "reuse-id": ("two parallel calls come out under one id", reuse_id),
    "switch-model": ("the session switches model under signed thinking", switch_model),
}


def inject(native: edits.Native, name: str) -> edits.Edit:
    """The edit that applies failure ``name`` to ``native`` (:class:`ValueError` when the
    history has nothing it applies to)."""
    return INJECTIONS[name][1](native)


__all__ = ["INJECTIONS", "inject"]

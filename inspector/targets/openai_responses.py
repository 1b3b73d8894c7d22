"""OpenAI Responses: every ``function_call_output`` follows its ``function_call`` and every
call gets an output. A request that continues server-side state (``previous_response_id``
``conversation`` or ``item_reference`` items) may answer calls the server holds. Item types Inspector does not know
are carried through, never reported."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .base import EARLY, ERROR, WARNING, Hit, Rule, View, calls_of, cid_of, create, is_map, result_id

NAME = "openai-responses"
ROLES = frozenset({"user", "assistant", "system", "developer", "tool"})
STATE_KEYS = ("previous_response_id", "conversation")

DOCS = "https://platform.openai.com/docs/api-reference/responses/create"


def declared(view: View) -> dict[str, int]:
    def build():
        at: dict[str, int] = {}
        for i, m in view.rows:
            if m["role"] == "assistant":
                for cid in map(cid_of, calls_of(m)):
                    if cid is not None:
                        at.setdefault(cid, i)
        return at
    return view.memo("responses-declared", build)


def server_state(view: View) -> bool:
    """The request continues state the server holds (a body field, or ``item_reference``
    items), so the server may hold calls that outputs in ``input`` answer."""
    def build() -> bool:
        out = view.outcome
        im = out.imported if out is not None and out.imported.format == NAME else None
        if im is None:
            return False
        if is_map(im.document) and any(im.document.get(k) for k in STATE_KEYS):
            return True
        return any(is_map(item) and item.get("type") == "item_reference" for item in im.history)
    return view.memo("responses-server-state", build)


def output_without_call(view: View) -> Iterator[Hit]:
    at = declared(view)
    held = server_state(view)
    for i, m in view.rows:
        if m["role"] != "tool":
            continue
        cid = result_id(m)
        if cid in at and at[cid] < i:
            continue
        if cid not in at and held:
            continue                      # answers a call the server holds
        yield Hit(i, f"No tool call found for function call output with call_id {cid}.", cid,
                  fix=EARLY if cid in at else "Remove the output (normalizing drops orphans).", strict=cid in at)


def call_without_output(view: View) -> Iterator[Hit]:
    answered = {result_id(m) for i, m in view.rows if m["role"] == "tool"}
    at = declared(view)
    for i, m in view.rows:
        if m["role"] != "assistant":
            continue
        for j, cid in enumerate(map(cid_of, calls_of(m))):
            if cid is not None and cid not in answered and at.get(cid) == i:
                yield Hit(i, f"No tool output found for function call {cid}.", cid, call=j)


def _carried_item(view: View, index: int) -> bool:
    """The row stands for an input item that is not a message (its type is carried through)."""
    im = view.native(NAME)
    o = view.origin(index)
    if im is None or o is None:
        return False
    loc = im.sources[o]
    item = im.history[loc.message] if isinstance(loc.message, int) else None
    if not isinstance(item, Mapping):
        return False
    kind = item.get("type")
    return kind is not None and kind != "message"


def unknown_role(view: View) -> Iterator[Hit]:
    for i, m in view.rows:
        if m["role"] not in ROLES and not _carried_item(view, i):
            yield Hit(i, f"Invalid value: '{m['role']}'. Supported values are: 'assistant', 'system', 'developer', "
                         "and 'user'.")


TARGET = create(NAME, [
    Rule("output-without-call", output_without_call, ERROR, "https://github.com/continuedev/continue/issues/10092",
         "a function_call_output with no function_call before it (unless the request continues server-side state)"),
    Rule("call-without-output", call_without_output, ERROR, "https://github.com/tjardoo/openai-client/pull/124",
         "a function_call with no function_call_output after it",
         "Add a function_call_output after the call (normalizing or --strict does).", strict=True),
    Rule("unknown-role", unknown_role, WARNING, DOCS,
         "a message role Responses does not list (item types it does not know are not reported)",
         "Give the message a supported role, or remove it."),
])

"""OpenAI Responses: every ``function_call_output`` follows its ``function_call`` and every
call gets an output. A request that continues server-side state (``previous_response_id``
``conversation`` or ``item_reference`` items) may answer calls the server holds. Item types Inspector does not know
are carried through, never reported."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from . import signed
from .base import (EARLY, ERROR, WARNING, Hit, Rule, View, after_compaction, calls_of, cid_of, create,
                   is_map, result_id)
from .text import surrogate_rule

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


REASONING = "https://platform.openai.com/docs/guides/reasoning"
INPUT_ROLES = frozenset({"user", "system", "developer"})


def _type(item) -> str | None:
    """An item's type (a message without one is a message); None for anything else, so a
    garbled body (a type that is a list or an object) is never used as a key."""
    if not is_map(item):
        return None
    kind = item.get("type", "message" if "role" in item else None)
    return kind if isinstance(kind, str) else None


def _model_item(item) -> bool:
    """An item the model produced (what may follow a reasoning item): an assistant message,
    a reasoning item, a call of any kind. Inputs (user messages, outputs) are not."""
    kind = _type(item)
    if kind == "message":
        return item.get("role") not in INPUT_ROLES
    return isinstance(kind, str) and not kind.endswith("_output") and kind != "item_reference"


def _items(view: View) -> list:
    return view.sent(NAME) or []


def reasoning_without_following(view: View) -> Iterator[Hit]:
    """Native: a reasoning item is sent with the item it produced right after it."""
    items = _items(view)
    for k, item in enumerate(items):
        if _type(item) == "reasoning" and (k + 1 == len(items) or not _model_item(items[k + 1])):
            place = view.near(items, k, "content")
            if place is not None:
                yield Hit(place[0], f"Item '{item.get('id', '')}' of type 'reasoning' was provided without its "
                                    "required following item.", where=place[1])


def call_without_reasoning(view: View) -> Iterator[Hit]:
    """Native: in a request that sends reasoning items, the stored function_calls (``fc_``
    ids) of a user turn (everything after a user message) that has no reasoning item at all.
    A reasoning item covers the calls after it until the next user message (measured: a
    recorded loop of reasoning, call, output, call was accepted); whether the model
    reasoned before a turn is not written in the request, so this is a warning."""
    items = _items(view)
    if not any(_type(item) == "reasoning" for item in items):
        return
    pending: list[int] = []
    reasoned = False

    def report() -> Iterator[Hit]:
        for k in pending if not reasoned else ():
            place = view.near(items, k, "content")
            if place is not None:
                yield Hit(place[0], f"Item '{items[k]['id']}' of type 'function_call' was provided without its "
                                    "required reasoning item.", items[k].get("call_id"), where=place[1])

    for k, item in enumerate(items):
        kind = _type(item)
        if kind == "message" and item.get("role") == "user":
            yield from report()
            pending, reasoned = [], False
        elif kind == "reasoning":
            reasoned = True
        elif kind == "function_call" and isinstance(item.get("id"), str) and item["id"]:
            pending.append(k)
    yield from report()


def unstored_reference(view: View) -> Iterator[Hit]:
    """Native, ``store: false``: nothing is kept server-side, so an item sent by reference
    (an ``item_reference``, a reasoning item with an id and no ``encrypted_content``) is not
    found. A reasoning item with neither is ``reasoning-without-encrypted-content``."""
    if view.setting(NAME, "store") is not False:
        return
    items = _items(view)
    for k, item in enumerate(items):
        kind = _type(item)
        if kind == "item_reference" or (kind == "reasoning" and not item.get("encrypted_content")
                                        and isinstance(item.get("id"), str) and item["id"]):
            place = view.near(items, k, "content")
            if place is not None:
                yield Hit(place[0], f"Item with id '{item.get('id', '')}' not found. Items are not persisted when "
                                    "'store' is set to false. Try again with 'store' set to true, or remove this item "
                                    "from your input.", where=place[1])


# -- reasoning items as the API takes them back (issue 21: what Codex rollouts replay) --------

# Codex sends ``store: false`` (``store: provider.is_azure_responses_endpoint()``,
# openai/codex codex-rs/core/src/client.rs): what its rollout replays must carry its own
# encrypted_content, as nothing is kept server-side.
STORE_FALSE_STORES = frozenset({"codex-rollout"})
# The id prefix the API expects of each item type it issues (observed in the refusals below).
ID_PREFIX = {"reasoning": "rs", "function_call": "fc", "message": "msg", "custom_tool_call": "ctc"}


class Sent(NamedTuple):
    item: Any
    index: int | None           # its place in the request's input, where the body is the request
    row: int
    where: str


def _reasoning_sent(view: View) -> list[Sent]:
    """The reasoning items the request carries: native, every reasoning item of the exported
    input; a session store that replays Responses items (a Codex rollout, an Agents SDK
    session), every reasoning item its importer recorded whose turn the repair kept, read
    from the store itself (``Imported.block_of``). None when the export strips reasoning."""
    def build() -> list[Sent]:
        out = view.outcome
        if out is None or getattr(out, "reasoning", "keep") == "strip":
            return []
        items = view.sent(NAME)
        if items is not None:
            found = []
            for k, item in enumerate(items):
                place = view.near(items, k, "content") if _type(item) == "reasoning" else None
                if place is not None:
                    found.append(Sent(item, k, place[0], place[1]))
            return found
        im = out.imported
        rows = {o: i for i, o in enumerate(out.result.origins) if o is not None}
        first = next(iter(rows.values()), 0)
        found = []
        for r in im.reasoning:
            if r.kind != "reasoning" or (r.row is not None and r.row not in rows):
                continue
            item = im.block_of(r)
            if is_map(item) and _type(item) == "reasoning":
                found.append(Sent(item, None, rows.get(r.row, first), r.loc.describe(im.container)))
        return found
    return view.memo("responses-reasoning-sent", build)


def _input(sent: Sent, field: str) -> str:
    return f"input[{sent.index}].{field}" if sent.index is not None else f"input[…].{field} ({sent.where})"


def _store_false(view: View) -> bool:
    if view.setting(NAME, "store") is False:
        return True
    out = view.outcome
    return out is not None and view.native(NAME) is None and out.imported.format in STORE_FALSE_STORES


def reasoning_without_encrypted_content(view: View) -> Iterator[Hit]:
    """``store: false`` (the body's, or a Codex rollout's, which Codex always sends so): a
    reasoning item with neither an id to look up nor its ``encrypted_content`` carries
    nothing the API can read back (openai/codex #19661: a rollout written without
    ``include: reasoning.encrypted_content``)."""
    if not _store_false(view):
        return
    for sent in _reasoning_sent(view):
        if not sent.item.get("encrypted_content") and not sent.item.get("id"):
            yield Hit(sent.row, f"Missing required parameter: '{_input(sent, 'encrypted_content')}'.", where=sent.where)


def reasoning_content(view: View) -> Iterator[Hit]:
    """A reasoning item whose ``content`` is a non-empty list (raw ``reasoning_text`` another
    Responses-compatible provider returned, replayed to OpenAI): OpenAI takes a reasoning
    item's ``summary`` and ``encrypted_content`` only (openai/codex #36551)."""
    for sent in _reasoning_sent(view):
        content = sent.item.get("content")
        if isinstance(content, list) and content:
            yield Hit(sent.row, f"Invalid '{_input(sent, 'content')}': array too long. Expected an array with maximum "
                                f"length 0, but got an array with length {len(content)} instead.", where=sent.where)


def item_id_prefix(view: View) -> Iterator[Hit]:
    """An item whose ``id`` does not start with the prefix the API gives its type (``rs`` for
    reasoning, ``fc`` function_call, ``msg`` message, ``ctc`` custom_tool_call): ids a proxy
    or another provider minted (``item_…``, a bare UUID) are refused (openai/codex #39125,
    #38855, #33176). Native: every item; a session store: its reasoning items."""
    items = view.sent(NAME)
    if items is not None:
        candidates = [(k, item) for k, item in enumerate(items) if _type(item) in ID_PREFIX]
        checked = []
        for k, item in candidates:
            place = view.near(items, k, "content")
            if place is not None:
                checked.append(Sent(item, k, place[0], place[1]))
    else:
        checked = list(_reasoning_sent(view))
    for sent in checked:
        rid = sent.item.get("id")
        want = ID_PREFIX[_type(sent.item)]
        if isinstance(rid, str) and rid and not rid.startswith(want):
            yield Hit(sent.row, f"Invalid '{_input(sent, 'id')}': '{rid}'. Expected an ID that begins with '{want}'.",
                      where=sent.where)


def encrypted_other_model(view: View) -> Iterator[Hit]:
    """Encrypted reasoning of the latest turn that carries some, written by another model
    than the one the request goes to (``--model``, or the body's), where both are known (a
    Codex rollout records each turn's model): the new model may not read it (openai/codex
    #17541, a model switch mid-conversation)."""
    found = signed.other_model(view, NAME, frozenset({"reasoning"}))
    if found is not None:
        at, wrote, model = found
        yield Hit(at.row, f"The encrypted content for item {at.where} could not be verified (written by {wrote}, "
                          f"sent to {model}).", where=at.where)


# Calls the client runs, besides function calls (issue 31, item 3), and the words the API
# refuses one without its output in: observed for local shell (openai/openai-agents-python
# #1855) and shell calls (microsoft/agent-framework #8663); the same family by the docs.
CLIENT_CALLS = {"local_shell_call": "local shell call", "shell_call": "shell call",
                "apply_patch_call": "apply patch call", "computer_call": "computer call",
                "tool_search_call": "tool search call", "mcp_approval_request": "MCP approval request"}
OBSERVED = frozenset({"local_shell_call", "shell_call"})


def _answered(item) -> object:
    if not is_map(item):
        return None
    said = item.get("approval_request_id") if _type(item) == "mcp_approval_response" else \
        item.get("call_id", item.get("id"))
    return said if isinstance(said, str) else None       # an id that is no string answers nothing


def _client_calls(view: View, observed: bool) -> Iterator[Hit]:
    """Read in the input as it came (the export answers these calls itself, each an event
    that quotes the same refusal), so that ``check`` names each one where it is."""
    im = view.native(NAME)
    items = im.history if im is not None and isinstance(im.history, list) else []
    answered = {_answered(it) for it in items if _type(it) not in CLIENT_CALLS}
    for k, it in enumerate(items):
        kind = _type(it)
        if kind not in CLIENT_CALLS or (kind in OBSERVED) != observed:
            continue
        if kind == "tool_search_call" and it.get("execution") != "client":
            continue                                # the server runs it and writes its output
        key = it.get("id") if kind == "mcp_approval_request" else it.get("call_id")
        if key in answered:
            continue
        found = view.near(items, k, "input")
        if found is not None:
            yield Hit(found[0], f"No tool output found for {CLIENT_CALLS[kind]} {key}.", str(key), where=found[1])


def client_call_without_output(view: View) -> Iterator[Hit]:
    yield from _client_calls(view, observed=True)


def other_client_call_without_output(view: View) -> Iterator[Hit]:
    yield from _client_calls(view, observed=False)


TARGET = create(NAME, after_compaction([
    Rule("output-without-call", output_without_call, ERROR, "https://github.com/continuedev/continue/issues/10092",
         "a function_call_output with no function_call before it (unless the request continues server-side state)"),
    Rule("call-without-output", call_without_output, ERROR, "https://github.com/tjardoo/openai-client/pull/124",
         "a function_call with no function_call_output after it",
         "Add a function_call_output after the call (normalizing or --strict does).", strict=True),
    Rule("unknown-role", unknown_role, WARNING, DOCS,
         "a message role Responses does not list (item types it does not know are not reported)",
         "Give the message a supported role, or remove it."),
    Rule("reasoning-without-following", reasoning_without_following, ERROR,
         "https://github.com/continuedev/continue/issues/8933",
         "a reasoning item not followed by the item it produced (native)",
         "Send the reasoning item with the message or call that came right after it, or neither."),
    Rule("call-without-reasoning", call_without_reasoning, WARNING, "https://github.com/can1357/oh-my-pi/issues/4173",
         "a stored function_call (fc_ id) in a user turn with no reasoning item, in a request that sends "
         "reasoning (native)",
         "Send the turn's reasoning item back, unchanged, before the call."),
    Rule("unstored-reference", unstored_reference, ERROR, "https://github.com/vercel/ai/issues/7543",
         "store: false, and an item sent by id only (item_reference, reasoning without encrypted_content) (native)",
         "Send the reasoning with its encrypted_content (include reasoning.encrypted_content), or set store to true."),
    Rule("reasoning-without-encrypted-content", reasoning_without_encrypted_content, ERROR,
         "https://github.com/openai/codex/issues/19661",
         "store: false (a Codex rollout's too), and a reasoning item with neither an id nor its encrypted_content",
         "Send the reasoning item with its encrypted_content (include reasoning.encrypted_content when it is "
         "made), or leave it out (--reasoning strip)."),
    Rule("reasoning-content", reasoning_content, ERROR, "https://github.com/openai/codex/issues/36551",
         "a reasoning item whose content array is not empty (raw reasoning text from another provider)",
         "Leave the reasoning item out when the history goes to OpenAI (--reasoning strip), or send only its "
         "summary and encrypted_content."),
    Rule("item-id-prefix", item_id_prefix, ERROR, "https://github.com/openai/codex/issues/39125",
         "an item id without its type's prefix (rs_ reasoning, fc_ function_call, msg_ message, ctc_ "
         "custom_tool_call)",
         "Leave the id out of the item (the API takes items without one), or send the id the API issued; "
         "Inspector does not rewrite ids."),
    Rule("encrypted-other-model", encrypted_other_model, WARNING, "https://github.com/openai/codex/issues/17541",
         "the latest encrypted reasoning was written by another model than the request's or --model's (where both "
         "are known)",
         "Resume with the model that wrote it, or send the history with --reasoning strip."),
    Rule("client-call-without-output", client_call_without_output, ERROR,
         "https://github.com/openai/openai-agents-python/pull/1855",
         "a local_shell_call or shell_call (run by the client) with no output item after it (native)",
         "Give the call its output; inspector normalize writes an interrupted output of its type after its turn "
         "(an event)."),
    Rule("other-client-call-without-output", other_client_call_without_output, WARNING,
         "https://platform.openai.com/docs/guides/tools-local-shell",
         "an apply_patch_call, computer_call, client tool_search_call or mcp_approval_request with no output or "
         "response after it (the same family; not observed refused) (native)",
         "Give the call its output; normalizing writes an interrupted one after its turn (a computer_call needs "
         "a screenshot, which only the client can take)."),
    surrogate_rule(WARNING, DOCS),
    signed.rule(NAME, "https://github.com/can1357/oh-my-pi/issues/4173", frozenset({"reasoning"})),
], NAME, None))

"""Anthropic Messages: each assistant turn's ``tool_use`` ids are answered by ``tool_result``
blocks first thing in the next user message, and nothing but more ``tool_use`` follows the
first ``tool_use`` of an assistant message. Consecutive messages of one role are combined
into one turn, so calls of two assistant messages in a row answered together are valid."""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import signed
from .base import (ERROR, MOVE, RENAME, WARNING, Hit, Rule, View, after_compaction, create, is_map, result_id,
                   stray_results, unanswered)
from .text import surrogate_rule

NAME = "anthropic"
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")

MESSAGES = "https://docs.anthropic.com/en/api/messages"
THINKING = ("thinking", "redacted_thinking")
THINKING_KINDS = frozenset(THINKING)
SIGNED = "Never edit, reorder or drop the signed blocks of the latest assistant message; Inspector never does."


def tool_use_without_result(view: View) -> Iterator[Hit]:
    for t, missing in unanswered(view.turns(combine_assistant=True), leading=True):
        i, j, c = missing[0]
        yield Hit(i, f"messages.{t}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                     f"{', '.join(c for _, _, c in missing)}. Each `tool_use` block must have a corresponding "
                     "`tool_result` block in the next message.", c, call=j)


def result_without_tool_use(view: View) -> Iterator[Hit]:
    for t, k, i, cid in stray_results(view.turns(combine_assistant=True)):
        yield Hit(i, f"messages.{t}.content.{k}: unexpected `tool_use_id` found in `tool_result` blocks: "
                     f"{cid}. Each `tool_result` block must have a corresponding `tool_use` block in the "
                     "previous message.", cid)


def tool_use_id_pattern(view: View) -> Iterator[Hit]:
    for t, turn in enumerate(view.turns(combine_assistant=True)):
        if turn.side == "assistant":
            for k, (i, j, cid) in enumerate(turn.call_ids()):
                if not ID_PATTERN.match(cid := view.sent_id(cid)):
                    yield Hit(i, f"messages.{t}.content.{k}.tool_use.id: String should match pattern "
                                 "'^[a-zA-Z0-9_-]+$'", cid, call=j)


def tool_use_id_reused(view: View) -> Iterator[Hit]:
    """An id string used by two calls of the request (``messages.N.content.M: `tool_use` ids must be
    unique`` when both are in one message, the case clause 3 already drops): the import read the later pair under an
    identity of its own (``formats.identity``), which an export written back as it was
    (``same``, or a target that takes reuse) turns into the original string again. Converting
    to Anthropic writes the derived identity instead, so such an outcome has nothing to say."""
    out = view.outcome
    derived = getattr(getattr(out, "imported", None), "identity", None)
    if not derived or any(e.kind == "id-renamed" for e in getattr(out, "export_events", ())):
        return
    reused = {ident: s for ident, s in derived.items() if isinstance(s, str) and s not in ("", "0")}
    if not reused:
        return
    for t, turn in enumerate(view.turns(combine_assistant=True)):
        if turn.side == "assistant":
            for k, (i, j, cid) in enumerate(turn.call_ids()):
                if cid in reused:
                    yield Hit(i, f"messages.{t}.content.{k}: `tool_use` ids must be unique", reused[cid], call=j,
                              fix=f"Rename the later call and its result ({reused[cid]!r} -> {cid!r}): "
                                  "`inspector normalize --to anthropic` writes this pair under that id, an "
                                  "id-renamed event showing both.")


def tool_use_id_duplicate(view: View) -> Iterator[Hit]:
    """Two tool_use blocks of one assistant turn under one id string: refused (claude-code #20700,
    opencode #1279). MEM-5 clause 3 drops the second declaration with its result."""
    for t, turn in enumerate(view.turns(combine_assistant=True)):
        if turn.side == "assistant":
            seen: set[str] = set()
            for k, (i, j, cid) in enumerate(turn.call_ids()):
                sent = view.sent_id(cid)
                if sent in seen:
                    yield Hit(i, f"messages.{t}.content.{k}: `tool_use` ids must be unique", sent, call=j)
                seen.add(sent)


def tool_result_duplicate(view: View) -> Iterator[Hit]:
    """Two tool_result blocks of one user turn answering one tool_use (a retry folded into the
    turn): the API documents one result per tool_use. Clause 3 keeps the first."""
    for t, turn in enumerate(view.turns(combine_assistant=True)):
        if turn.side == "user":
            seen: set[str] = set()
            for i, m in turn.rows:
                if m["role"] == "tool":
                    sent = view.sent_id(result_id(m))
                    if sent in seen:
                        yield Hit(i, f"messages.{t}: two tool_result blocks answer tool_use {sent} (the API "
                                     "documents one result per tool_use; no refusal text recorded)", sent)
                    seen.add(sent)


def unknown_role(view: View) -> Iterator[Hit]:
    for t, turn in enumerate(view.turns(combine_assistant=True)):
        for i, m in turn.rows:
            if m["role"] not in ("user", "assistant", "tool"):
                yield Hit(i, f"messages.{t}.role: Input should be 'user' or 'assistant'")


def text_after_tool_use(view: View) -> Iterator[Hit]:
    """Native: after the first ``tool_use`` block of an assistant turn only ``tool_use``
    blocks may follow (measured: ``[tool_use, text]`` and ``[text, tool_use, text]`` are
    rejected, ``[text, tool_use]`` and ``[tool_use, tool_use]`` accepted). Consecutive
    assistant messages are one turn, so the blocks run on across them. Read in what export
    writes (dropped calls gone, ``--strict`` reordering applied), located in the input."""
    uses: list[str] = []          # tool_use ids seen so far in the current assistant turn
    reported = False
    for position, message in enumerate(view.sent(NAME) or ()):
        if not (is_map(message) and message.get("role") == "assistant"):
            uses, reported = [], False
            continue
        blocks = message.get("content")
        for block in blocks if isinstance(blocks, list) and not reported else ():
            kind = block.get("type") if is_map(block) else None
            if kind == "tool_use":
                uses.append(str(block.get("id")))
            elif uses:
                found = view.locate(block, "content")
                if found is not None:
                    yield Hit(found[0], f"messages.{position}: `tool_use` ids were found without `tool_result` "
                                        f"blocks immediately after: {', '.join(uses)}. Each `tool_use` block must "
                                        "have a corresponding `tool_result` block in the next message.", uses[0],
                              where=found[1])
                reported = True
                break
        found = view.locate(message, "content") if isinstance(blocks, str) and blocks.strip() else None
        if found is not None and uses and not reported:     # a text message after the turn's tool_use
            yield Hit(found[0], f"messages.{position}: `tool_use` ids were found without `tool_result` blocks "
                                f"immediately after: {', '.join(uses)}. Each `tool_use` block must have a "
                                "corresponding `tool_result` block in the next message.", uses[0], where=found[1])
            reported = True


def _assistants(view: View) -> list[tuple[int, object]]:
    """(position, message) of each assistant message the provider would receive."""
    return [(p, m) for p, m in enumerate(view.sent(NAME) or ())
            if is_map(m) and m.get("role") == "assistant"]


def _blocks(message) -> list:
    content = message.get("content")
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content}] if isinstance(content, str) else []


def _kind(block) -> object:
    return block.get("type") if is_map(block) else None


def thinking_mode(view: View) -> str | None:
    """The request's ``thinking`` setting: ``enabled``, ``adaptive``, ``disabled`` (also
    when absent: the API's default), or None when the body is not known."""
    if view.document(NAME) is None:
        return None
    setting = view.setting(NAME, "thinking")
    kind = setting.get("type") if is_map(setting) else None
    return kind if isinstance(kind, str) else "disabled"


def _hit(view: View, message, block, text: str) -> Iterator[Hit]:
    found = view.locate(block, "content") if block is not None else None
    found = found or view.locate(message, "content")
    if found is not None:
        yield Hit(found[0], text, where=found[1])


def thinking_not_first(view: View) -> Iterator[Hit]:
    """Native, thinking enabled: the last assistant message, when it makes tool calls (the
    request continues its tool loop), starts with a thinking or redacted_thinking block."""
    assistants = _assistants(view)
    if thinking_mode(view) != "enabled" or not assistants:
        return
    position, message = assistants[-1]
    blocks = _blocks(message)
    if not any(_kind(b) == "tool_use" for b in blocks) or _kind(blocks[0]) in THINKING:
        return
    yield from _hit(view, message, blocks[0],
                    f"messages.{position}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                    f"`{_kind(blocks[0])}`. When `thinking` is enabled, a final `assistant` message must start with "
                    "a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).")


def thinking_when_disabled(view: View) -> Iterator[Hit]:
    """Native, thinking disabled or absent: an assistant message that ends the request (a
    prefill) holds no thinking. Earlier assistant turns may keep theirs (measured: an
    accepted body without the setting replays a thinking block in an earlier turn)."""
    history = view.sent(NAME) or []
    if thinking_mode(view) != "disabled" or not history or not is_map(history[-1]) or \
            history[-1].get("role") != "assistant":
        return
    position, message = len(history) - 1, history[-1]
    for k, block in enumerate(_blocks(message)):
        if _kind(block) in THINKING:
            yield from _hit(view, message, block,
                            f"messages.{position}.content.{k}: When thinking is disabled, an `assistant` message in "
                            "the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` "
                            "in your request.")
            return


def issuer(view: View, message) -> str | None:
    """The model that wrote an assistant message, where the stored document says so (a
    ``model`` key on the message, as stores that keep one write it)."""
    model = message.get("model")
    return model if isinstance(model, str) and model else None


def signature_other_model(view: View) -> Iterator[Hit]:
    """Signed blocks of the latest assistant message that carries some, written by a model
    other than the one the request goes to (only where both models are known). Native: the
    message's ``model`` against the body's (or ``--model``). A session store (Claude Code,
    the Cline family): the model its importer recorded for the block (a line's
    ``message.model``, a record's ``modelInfo``) against ``--model``, which names the model
    the session is resumed with."""
    if view.native(NAME) is None:
        found = signed.other_model(view, NAME, THINKING_KINDS)
        if found is not None:
            at, wrote, model = found
            yield Hit(at.row, f"{at.where}: Invalid `signature` in `thinking` block (signed by {wrote}, resumed "
                              f"with {model})", where=at.where)
        return
    model = signed.request_model(view, NAME)
    if model is None:
        return
    for position, message in reversed(_assistants(view)):
        blocks = _blocks(message)
        thinking = [(k, b) for k, b in enumerate(blocks) if _kind(b) in THINKING]
        if not thinking:
            continue
        wrote = issuer(view, message)
        if wrote is not None and not signed.same_model(wrote, model):
            k, block = thinking[0]
            yield from _hit(view, message, block,
                            f"messages.{position}.content.{k}: Invalid `signature` in `thinking` block (written by "
                            f"{wrote}, sent to {model})")
        return


def _unsigned(block) -> bool:
    return _kind(block) == "thinking" and not (isinstance(block.get("signature"), str) and block["signature"])


def thinking_unsigned(view: View) -> Iterator[Hit]:
    """A ``thinking`` block sent without its signature (none, or an empty one), which the API
    cannot verify: agents that persisted a block before its signature arrived fail on every
    later request (anthropics/claude-code #21726: 534 of 537 blocks with empty signatures;
    openclaw #84430, reproduced on claude-sonnet-4-6). Native: every assistant message sent.
    A session store: each unsigned thinking block its importer says the agent sends."""
    history = view.sent(NAME)
    if history is not None:
        for position, message in enumerate(history):
            if not (is_map(message) and message.get("role") == "assistant"):
                continue
            for k, block in enumerate(_blocks(message)):
                if _unsigned(block):
                    yield from _hit(view, message, block,
                                    f"messages.{position}.content.{k}: Invalid signature in thinking block")
        return
    out = view.outcome
    if out is None or getattr(out, "reasoning", "keep") == "strip":
        return
    rows = {o: i for i, o in enumerate(out.result.origins) if o is not None}
    im = out.imported
    for r in im.reasoning:
        if r.kind != "thinking" or r.signed or r.row not in rows:
            continue
        block = im.block_of(r)
        if is_map(block) and _unsigned(block):
            where = r.loc.describe(im.container)
            yield Hit(rows[r.row], f"{where}: Invalid signature in thinking block", where=where)


EMPTY_MESSAGE = "all messages must have non-empty content except for the optional final assistant message"


MODIFIED = ("`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These "
            "blocks must remain as they were in the original response.")


def thinking_duplicated(view: View) -> Iterator[Hit]:
    """Native: the latest assistant message that carries thinking holds the same signed block
    twice (a client that both kept the block in the content and added it again from a
    reasoning field: BerriAI/litellm #23047, #23137); the API reads the turn as modified. An
    empty thinking text with its signature is a valid block and is not reported."""
    for position, message in reversed(_assistants(view)):
        blocks = _blocks(message)
        thinking = [(k, b) for k, b in enumerate(blocks) if _kind(b) in THINKING]
        if not thinking:
            continue
        seen: set = set()
        for k, b in thinking:
            mark = (b.get("type"), b.get("signature") if _kind(b) == "thinking" else b.get("data"))
            if mark[1] and mark in seen:
                yield from _hit(view, message, b, f"messages.{position}.content.{k}: {MODIFIED}")
                return
            seen.add(mark)
        return


def final_whitespace(view: View) -> Iterator[Hit]:
    """Native: the request ends with an assistant message (a prefill) whose text ends in
    whitespace, which the API refuses (tailcallhq/forgecode #1872, anomalyco/opencode #1295)."""
    history = view.sent(NAME) or []
    last = history[-1] if history else None
    if not (is_map(last) and last.get("role") == "assistant"):
        return
    blocks = _blocks(last)
    if blocks and _kind(blocks[-1]) == "text" and isinstance(blocks[-1].get("text"), str) \
            and blocks[-1]["text"] != blocks[-1]["text"].rstrip():
        yield from _hit(view, last, blocks[-1] if isinstance(last.get("content"), list) else None,
                        "messages: final assistant content cannot end with trailing whitespace")


def blank_text(view: View) -> Iterator[Hit]:
    """Native: the blank text Anthropic refuses, in the scope observed (issue 31, item 4):
    an empty text block anywhere (claude-code #59812, #49171); a message that is nothing but
    whitespace text (claude-code #23440, opencode #31259); an empty string or list as a
    message's content (claude-code #6774). A whitespace-only text block beside other content
    is accepted (a recorded request, HTTP 200 from claude-haiku-4-5, holds ``" "`` before two
    ``tool_use`` blocks) and not reported. The last message, an assistant prefill, may be
    empty."""
    history = view.sent(NAME) or []
    for position, message in enumerate(history):
        if not is_map(message) or (position == len(history) - 1 and message.get("role") == "assistant"):
            continue
        content = message.get("content")
        if content == "" or content == []:
            yield from _hit(view, message, None, f"messages.{position}: {EMPTY_MESSAGE}")
            continue
        if isinstance(content, str) and not content.strip():
            yield from _hit(view, message, None, "messages: text content blocks must contain non-whitespace text")
            continue
        blocks = content if isinstance(content, list) else []
        texts = [b for b in blocks if _kind(b) == "text" and isinstance(b.get("text"), str)]
        for block in texts:
            if not block["text"]:
                yield from _hit(view, message, block, "messages: text content blocks must be non-empty")
        if blocks and len(texts) == len(blocks) and all(b["text"] and not b["text"].strip() for b in texts):
            yield from _hit(view, message, texts[0], "messages: text content blocks must contain non-whitespace text")


SERVER_USES = ("server_tool_use", "mcp_tool_use")


def _server_result(block) -> bool:
    """A result block the server writes in the assistant turn (``web_search_tool_result``,
    ``mcp_tool_result``, ``advisor_tool_result``...), not a client ``tool_result``."""
    kind = _kind(block)
    return isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result"


def _client_results_only(message) -> bool:
    content = message.get("content") if is_map(message) else None
    return is_map(message) and message.get("role") == "user" and isinstance(content, list) and bool(content) and \
        all(_kind(b) == "tool_result" for b in content)


def server_pairing(history: list) -> tuple[list, list]:
    """(unpaired uses, stray results) of the server and MCP tools in a request, as
    (position, block number, block). A use is paired by a result block with its id anywhere in
    the request (the result may come in the next assistant message: pydantic-ai's
    ``result-in-a-later-response-is-kept``); it may go unpaired only while it is in flight,
    when every later message is a user turn of client ``tool_result`` blocks only (measured on
    claude-sonnet-4-5 in pydantic-ai ``tests/models/anthropic/test_unpaired_native_tool_calls.py``).
    A server result needs its use earlier in the same assistant turn (anthropics/claude-code
    #89348: a user line spliced between them splits the turn, and the API refuses it)."""
    answered = {b.get("tool_use_id") for m in history if is_map(m) and m.get("role") == "assistant"
                for b in _blocks(m) if _server_result(b)}
    flight = len(history)           # the first position from which every message is a client-results turn
    while flight > 0 and _client_results_only(history[flight - 1]):
        flight -= 1
    unpaired, stray = [], []
    turn: set = set()
    for p, m in enumerate(history):
        if not (is_map(m) and m.get("role") == "assistant"):
            turn = set()
            continue
        for k, b in enumerate(_blocks(m)):
            kind = _kind(b)
            if kind in SERVER_USES:
                turn.add(b.get("id"))
                if b.get("id") not in answered and p + 1 < flight:
                    unpaired.append((p, k, b))
            elif _server_result(b) and b.get("tool_use_id") not in turn:
                stray.append((p, k, b))
    return unpaired, stray


def server_tool_without_result(view: View) -> Iterator[Hit]:
    history = view.sent(NAME) or []
    for p, k, b in server_pairing(history)[0]:
        if _kind(b) == "mcp_tool_use":
            text = f"mcp_tool_use with id {b.get('id')} was found without a corresponding mcp_tool_result block"
        else:
            text = (f"{b.get('name')} tool use with id {b.get('id')} was found without a corresponding "
                    f"{b.get('name')}_tool_result block")
        yield from _hit(view, history[p], b, f"messages.{p}.content.{k}: {text}")


def advisor_result_without_use(view: View) -> Iterator[Hit]:
    yield from _stray_results(view, advisor=True)


def server_result_without_use(view: View) -> Iterator[Hit]:
    yield from _stray_results(view, advisor=False)


def _stray_results(view: View, advisor: bool) -> Iterator[Hit]:
    history = view.sent(NAME) or []
    for p, k, b in server_pairing(history)[1]:
        if (_kind(b) == "advisor_tool_result") != advisor:
            continue
        kind, use = _kind(b), "mcp_tool_use" if _kind(b) == "mcp_tool_result" else "server_tool_use"
        yield from _hit(view, history[p], b,
                        f"messages.{p}.content.{k}: unexpected `tool_use_id` found in `{kind}` blocks: "
                        f"{b.get('tool_use_id')}. Each `{kind}` block must have a corresponding `{use}` block "
                        "before it.")


def caller_without_server_use(view: View) -> Iterator[Hit]:
    """A client ``tool_use`` made by code the server ran (programmatic tool calling: its
    ``caller`` names a ``server_tool_use``) whose server call is no longer in the request."""
    history = view.sent(NAME) or []
    seen: set = set()
    for p, m in enumerate(history):
        if not (is_map(m) and m.get("role") == "assistant"):
            continue
        for k, b in enumerate(_blocks(m)):
            if _kind(b) in SERVER_USES:
                seen.add(b.get("id"))
            caller = b.get("caller") if _kind(b) == "tool_use" else None
            ref = caller.get("tool_id") if is_map(caller) else None
            if isinstance(ref, str) and ref not in seen:
                yield from _hit(view, m, b, f"messages.{p}.content.{k}: tool_use {b.get('id')} names caller "
                                            f"{ref}, a server_tool_use that is not in the request")


TARGET = create(NAME, after_compaction([
    Rule("tool-use-without-result", tool_use_without_result, ERROR,
         "https://github.com/anthropics/claude-code/issues/1237",
         "tool_use ids of an assistant turn not answered first thing in the very next user message",
         MOVE, strict=True),
    Rule("result-without-tool-use", result_without_tool_use, ERROR,
         "https://github.com/anthropics/claude-code/issues/18947",
         "a tool_result whose tool_use is not in the previous assistant turn",
         MOVE, strict=True),
    Rule("tool-use-id-pattern", tool_use_id_pattern, ERROR, "https://github.com/CommandCodeAI/command-code/issues/323",
         "a tool_use id outside [a-zA-Z0-9_-]", RENAME),
    Rule("text-after-tool-use", text_after_tool_use, ERROR, "https://github.com/stacklok/mecatl/issues/1465",
         "a block other than tool_use after the first tool_use of an assistant turn (native)",
         "Put the turn's text and other blocks before its first tool_use (--strict does this; Inspector's export "
         "never writes this shape).", strict=True),
    # A warning: the API documents a tool_use id as unique, and refuses a duplicate within one
    # message (claude-code #20700), but a request reusing the id of a completed pair in a later
    # turn was answered 200 (pydantic/pydantic-ai @ 4fda389, tests/cassettes/test_tool_search/
    # test_cross_provider_capability_replay[google-gemini-3-flash-preview-anthropic-claude-sonnet-4-5].yaml).
    Rule("tool-use-id-reused", tool_use_id_reused, WARNING, MESSAGES,
         "an id string used by two tool_use blocks of one request, a later turn reusing a completed pair's id "
         "(documented unique; a duplicate in one message is refused, reuse across turns observed accepted)",
         RENAME),
    Rule("tool-use-id-duplicate", tool_use_id_duplicate, ERROR, "https://github.com/anthropics/claude-code/issues/20700",
         "two tool_use blocks of one assistant turn under one id", "Normalize: MEM-5 clause 3 drops the second "
         "declaration with its result."),
    # A warning: documented (one tool_result per tool_use), no refusal of this shape recorded.
    Rule("tool-result-duplicate", tool_result_duplicate, WARNING,
         "https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use",
         "two tool_result blocks of one user turn answering one tool_use", "Normalize: MEM-5 clause 3 keeps the "
         "first result and drops the second."),
    Rule("unknown-role", unknown_role, WARNING, MESSAGES, "a role other than user and assistant",
         "Use role user or assistant (a system prompt goes in the top-level system field)."),
    Rule("thinking-not-first", thinking_not_first, ERROR, "https://github.com/anomalyco/opencode/issues/3077",
         "thinking enabled: the last assistant message makes tool calls but does not start with a thinking block "
         "(native)",
         "Send the turn's thinking blocks back unchanged, first in the message, or disable thinking for this "
         "request."),
    Rule("thinking-when-disabled", thinking_when_disabled, ERROR,
         "https://github.com/tailcallhq/forgecode/issues/1853",
         "thinking disabled or absent: an assistant message that ends the request holds a thinking block (native)",
         "Enable thinking in the request (the thinking setting), or send the history to a request that has it."),
    Rule("signature-other-model", signature_other_model, ERROR,
         "https://github.com/anthropics/anthropic-sdk-python/issues/1598",
         "the latest signed thinking was written by another model than the request's or --model's (where both are "
         "known; native, and session stores that record the model)",
         "Send the history to the model that wrote the thinking, or remove that message's thinking blocks "
         "(the provider then reads the turn without them)."),
    Rule("thinking-unsigned", thinking_unsigned, ERROR, "https://github.com/anthropics/claude-code/issues/21726",
         "a thinking block sent without its signature (native, and session stores)",
         "Remove the unsigned thinking block (it cannot be verified; the provider reads the turn without it), "
         "or send the history with --reasoning strip."),
    Rule("thinking-duplicated", thinking_duplicated, ERROR, "https://github.com/BerriAI/litellm/issues/23047",
         "the latest assistant message with thinking holds one signed thinking block twice (native)",
         "Remove the second copy of the block: the turn must be sent as the response was."),
    Rule("final-assistant-whitespace", final_whitespace, ERROR, "https://github.com/tailcallhq/forgecode/issues/1872",
         "the request ends with an assistant message (a prefill) whose text ends in whitespace (native)",
         "Trim the prefill's trailing whitespace, or leave out a prefill of only whitespace (--strict does both).",
         strict=True),
    Rule("blank-text", blank_text, ERROR, "https://github.com/anthropics/claude-code/issues/23440",
         "an empty text block, or a message of nothing but blank text or empty content, not the final assistant "
         "message (native; a whitespace-only block beside other content is accepted)",
         "Leave the empty block out, or give an empty message a placeholder text (--strict does both).",
         strict=True),
    # orjson's words for it are Anthropic's: "no low surrogate in string" (claude-code #6199, CHANGELOG 2.1.132).
    Rule("server-tool-without-result", server_tool_without_result, ERROR,
         "https://github.com/pydantic/pydantic-ai/blob/5344c9aeee47029954d8208fc51cb8b240117775/tests/models/"
         "anthropic/test_unpaired_native_tool_calls.py",
         "a server_tool_use or mcp_tool_use with no result block in the request, unless still in flight (every "
         "later message a user turn of client tool_result blocks only) (native)",
         "Drop the unpaired server call (--strict does this, moving its cache_control to the block before it); "
         "while its result is in flight the request is accepted as it is.", strict=True),
    Rule("advisor-result-without-use", advisor_result_without_use, ERROR,
         "https://github.com/anthropics/claude-code/issues/89348",
         "an advisor_tool_result without its server_tool_use earlier in the same assistant turn (native; "
         "also anthropics/claude-code #62885, #92611)",
         "Drop the stray result block (--strict does this), or put back the turn's server_tool_use before it.",
         strict=True),
    Rule("server-result-without-use", server_result_without_use, WARNING,
         "https://github.com/anthropics/claude-code/issues/89348",
         "another server tool result (web_search_tool_result, mcp_tool_result...) without its call earlier in "
         "the same assistant turn: refused for advisor_tool_result, not observed for the others (native)",
         "Put back the call before the result, or remove the result block with it."),
    Rule("caller-without-server-use", caller_without_server_use, WARNING, "https://github.com/vercel/ai/issues/12504",
         "a client tool_use whose caller names a server_tool_use that is not in the request (native)",
         "Keep the server_tool_use that made the call, or remove the caller field together with it."),
    surrogate_rule(ERROR, "https://github.com/anthropics/claude-code/issues/6199", "no low surrogate in string",
                   repaired=True),
    signed.rule(NAME, "https://github.com/anthropics/anthropic-sdk-python/issues/1598", THINKING_KINDS),
], NAME, "content"))

"""Writes ``peers/pydantic_ai_unpaired_native.json``: the cases of pydantic-ai's
``tests/models/anthropic/test_unpaired_native_tool_calls.py`` (at the commit below) as the
Anthropic request bodies its mapper is given and the message shapes it sends, with
Inspector's verdict on each. Run by hand (``python tests/conformance/build_pydantic_unpaired.py``);
the JSON is what the tests read."""

from __future__ import annotations

import json
from pathlib import Path

REPO, COMMIT = "pydantic/pydantic-ai", "5344c9aeee47029954d8208fc51cb8b240117775"
PATH = "tests/models/anthropic/test_unpaired_native_tool_calls.py"

Q = "Look up the 10-year Treasury duration, then add 2 and 2."
FOLLOW = "In one sentence: does a longer duration mean more interest-rate risk?"
SEARCH_ID, CALL_ID, MCP_ID = "srvtoolu_01EoSNE7k4dUJyGatASCV5qs", "toolu_01WjXqPrN8vKsRt2YbLmZdQe", \
    "mcptoolu_01AbCdEfGhIjKlMnOpQrStUv"
SEARCH = {"type": "server_tool_use", "id": SEARCH_ID, "name": "web_search",
          "input": {"query": "10-year Treasury modified duration"}}
RESULT = {"type": "web_search_tool_result", "tool_use_id": SEARCH_ID,
          "content": [{"type": "web_search_result", "url": "https://example.com/treasury",
                       "title": "Treasury duration", "encrypted_content": "encrypted"}]}
MCP = {"type": "mcp_tool_use", "id": MCP_ID, "name": "ask_question", "server_name": "docs",
       "input": {"question": "What is the 10-year Treasury duration?"}}
MCP_RESULT = {"type": "mcp_tool_result", "tool_use_id": MCP_ID, "is_error": False,
              "content": [{"type": "text", "text": "8.1"}]}
ADD = {"type": "tool_use", "id": CALL_ID, "name": "add", "input": {"a": 2, "b": 2}}
ADD_RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": CALL_ID, "content": "4"}]}
THINKING = {"type": "thinking", "thinking": "Searching for the duration.", "signature": "sig"}
CACHE = {"type": "ephemeral", "ttl": "5m"}
TOOL_SEARCH = {"type": "server_tool_use", "id": "srv_orphan", "name": "tool_search_tool_regex",
               "input": {"queries": ["weather"]}}


def user(text=Q, **extra):
    return {"role": "user", "content": [{"type": "text", "text": text, **extra}]}


def assistant(*blocks):
    return {"role": "assistant", "content": list(blocks)}


def continued(*parts, follow=True):
    return [user(), assistant(*parts, ADD), ADD_RESULT, assistant({"type": "text", "text": "It is 4."}),
            *([user(FOLLOW)] if follow else [])]


def body(messages):
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages}


def case(test, messages, peer, errors, verdict="agree", why="", identity=False, sent=None, ours=None):
    """``peer``: the shape (role, block types) the peer sends, or the whole messages it sends
    (``sent``); ``errors``: the Anthropic rules Inspector reports as errors on the body;
    ``ours``: what ``normalize --strict`` sends where the verdict is not ``agree`` (a shape or
    whole messages, as the peer's is given)."""
    return {"source": {"repository": REPO, "path": PATH, "commit": COMMIT, "test": test},
            "target": "anthropic", "body": body(messages), "peer_shape": peer, "peer_sent": sent,
            "inspector": ours, "errors": errors, "verdict": verdict, "why": why,
            **({"tags": ["identity"]} if identity else {})}


DROPPED = [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]], ["assistant", ["text"]],
           ["user", ["text"]]]
CASES = [
    case("test_drop_unpaired_native_tool_calls[result-never-arrived-drops-the-call]", continued(SEARCH), DROPPED,
         ["server-tool-without-result"]),
    case("test_drop_unpaired_native_tool_calls[unrenderable-result-drops-the-call]", continued(SEARCH), DROPPED,
         ["server-tool-without-result"], why="On the wire the result that did not render is no block at all: "
         "the body is the one of result-never-arrived."),
    case("test_drop_unpaired_native_tool_calls[paired-call-is-kept]", continued(SEARCH, RESULT),
         [["user", ["text"]], ["assistant", ["server_tool_use", "web_search_tool_result", "tool_use"]],
          ["user", ["tool_result"]], ["assistant", ["text"]], ["user", ["text"]]], []),
    case("test_drop_unpaired_native_tool_calls[result-in-a-later-response-is-kept]",
         [user(), assistant(SEARCH), assistant(RESULT, {"type": "text", "text": "It is 8.1."}), user(FOLLOW)],
         [["user", ["text"]], ["assistant", ["server_tool_use"]], ["assistant", ["web_search_tool_result", "text"]],
          ["user", ["text"]]], []),
    case("test_drop_unpaired_native_tool_calls[turn-holding-only-the-call-is-removed]",
         [user(), assistant(SEARCH), assistant({"type": "text", "text": "It is 8.1."}), user(FOLLOW)],
         [["user", ["text"]], ["assistant", ["text"]], ["user", ["text"]]], ["server-tool-without-result"]),
    case("test_drop_unpaired_native_tool_calls[in-flight-call-is-kept]",
         [user(), assistant(SEARCH, {**ADD, "input": {}}), ADD_RESULT],
         [["user", ["text"]], ["assistant", ["server_tool_use", "tool_use"]], ["user", ["tool_result"]]], []),
    case("test_drop_unpaired_native_tool_calls[in-flight-tool-search-call-drops-anyway]",
         [user(), assistant(TOOL_SEARCH, {**ADD, "input": {}}), ADD_RESULT],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]], [], "differs",
         "The peer drops an in-flight tool search because Amazon Bedrock refuses the shape and a search is cheap to "
         "redo. Inspector judges the request for the target it is checked against: Anthropic's own API accepts an "
         "in-flight call (the peer measured it), so the body goes out as the model wrote it and nothing the user "
         "did not ask for is removed.",
         ours=[["user", ["text"]], ["assistant", ["server_tool_use", "tool_use"]], ["user", ["tool_result"]]]),
    case("test_drop_unpaired_native_tool_calls[mcp-result-never-arrived-drops-the-call]", continued(MCP), DROPPED,
         ["server-tool-without-result"]),
    case("test_drop_unpaired_native_tool_calls[in-flight-mcp-call-is-kept]",
         [user(), assistant(MCP, {**ADD, "input": {}}), ADD_RESULT],
         [["user", ["text"]], ["assistant", ["mcp_tool_use", "tool_use"]], ["user", ["tool_result"]]], []),
    case("test_mcp_call_answered_by_its_replayed_result_is_kept", continued(MCP, MCP_RESULT, follow=False),
         [["user", ["text"]], ["assistant", ["mcp_tool_use", "mcp_tool_result", "tool_use"]],
          ["user", ["tool_result"]], ["assistant", ["text"]]], []),
    case("test_dropped_call_keeps_the_cache_boundary",
         [user(), assistant({**SEARCH, "cache_control": CACHE}), assistant({"type": "text", "text": "It is 8.1."}),
          user(FOLLOW)], None, ["server-tool-without-result"],
         sent=[user(cache_control=CACHE), assistant({"type": "text", "text": "It is 8.1."}), user(FOLLOW)]),
    case("test_dropped_call_skips_a_block_that_cannot_carry_the_boundary",
         [user(), assistant({"type": "text", "text": "Searching."}, THINKING, {**SEARCH, "cache_control": CACHE}),
          user(FOLLOW)], None, ["server-tool-without-result"],
         sent=[user(), assistant({"type": "text", "text": "Searching.", "cache_control": CACHE}, THINKING),
               user(FOLLOW)]),
    case("test_dropped_call_hands_the_boundary_back_a_message_when_its_turn_cannot_carry_it",
         [user(), assistant(THINKING, {**SEARCH, "cache_control": CACHE}), user(FOLLOW)], None,
         ["server-tool-without-result"],
         sent=[user(cache_control=CACHE), assistant(THINKING), user(FOLLOW)]),
    case("test_dropped_call_skips_a_block_that_is_not_a_mapping",
         [user(), assistant(MCP_RESULT, {**SEARCH, "cache_control": CACHE}), user(FOLLOW)], None,
         ["server-tool-without-result"], "differs",
         "Both drop the unpaired search and keep the mcp_tool_result that has no call before it. The peer moves the "
         "cache boundary past the result (its result is an SDK object it cannot write into) to the user message; "
         "Inspector writes it on the result block right before the dropped call, where the user's boundary was, so "
         "the cached prefix is the one the user chose. Inspector also warns (server-result-without-use) that the "
         "result has no call before it, which the API refuses for advisor_tool_result.",
         sent=[user(cache_control=CACHE), assistant(MCP_RESULT), user(FOLLOW)],
         ours=[user(), assistant({**MCP_RESULT, "cache_control": CACHE}), user(FOLLOW)]),
    case("test_dropped_call_hands_its_cache_boundary_to_the_block_before_it",
         [user(), assistant({"type": "text", "text": "Searching."}, {**SEARCH, "cache_control": CACHE}), user(FOLLOW)],
         None, ["server-tool-without-result"],
         sent=[user(), assistant({"type": "text", "text": "Searching.", "cache_control": CACHE}), user(FOLLOW)]),
    case("test_orphaned_tool_search_call_is_dropped_through_an_agent_run",
         [user("pay rent and send status"),
          assistant({"type": "server_tool_use", "id": "srv_orphan", "name": "tool_search_tool_regex",
                     "input": {"queries": ["pay.*"]}},
                    {"type": "tool_use", "id": "cl_1", "name": "send_status", "input": {"message": "looking"}}),
          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "cl_1", "content": "ok"},
                                       {"type": "text", "text": "continue"}]}],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result", "text"]]],
         ["server-tool-without-result"],
         why="The new prompt rides in the results turn, so the call is no longer in flight: both drop it."),
    case("test_unpaired_native_tool_call_history_is_accepted (recorded: the unpaired call replayed is refused)",
         continued(SEARCH), DROPPED, ["server-tool-without-result"]),
    case("test_in_flight_mcp_call_history_is_accepted (recorded HTTP 200)",
         [user(), assistant({**MCP, "id": "mcptoolu_01SAss3KEwASziHZoMR6HcZU", "server_name": "deepwiki"}, ADD),
          ADD_RESULT],
         [["user", ["text"]], ["assistant", ["mcp_tool_use", "tool_use"]], ["user", ["tool_result"]]], []),
    case("test_in_flight_native_tool_call_history_is_accepted (recorded HTTP 200)",
         [user(), assistant(SEARCH, ADD), ADD_RESULT],
         [["user", ["text"]], ["assistant", ["server_tool_use", "tool_use"]], ["user", ["tool_result"]]], []),
]

if __name__ == "__main__":
    out = Path(__file__).with_name("peers") / "pydantic_ai_unpaired_native.json"
    out.write_text(json.dumps(CASES, indent=1, ensure_ascii=False) + "\n")
    print(f"{out}: {len(CASES)} cases")

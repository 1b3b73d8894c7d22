"""Writes ``peers/litellm_message_sanitization.json``: the cases of LiteLLM's
``tests/test_litellm/llms/anthropic/test_message_sanitization.py`` (at the commit below).
LiteLLM sanitizes OpenAI-shaped messages on their way to Anthropic: a case whose input is
OpenAI-shaped is read as ``openai-chat`` and written ``--to anthropic``; one already in
Anthropic's shape is an Anthropic body. The shapes are what goes to Anthropic. Run by hand."""

from __future__ import annotations

import json
from pathlib import Path

REPO, COMMIT = "BerriAI/litellm", "09e904eb14909cf69c15b0e326d778010e976156"
PATH = "tests/test_litellm/llms/anthropic/test_message_sanitization.py"
PLACEHOLDER = "[System: Empty message content sanitised to satisfy protocol]"


def call(cid, name="get_weather", args='{"location": "Nashik, India"}'):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def A(*calls, content=None):
    return {"role": "assistant", "content": content, **({"tool_calls": list(calls)} if calls else {})}


def U(content):
    return {"role": "user", "content": content}


def T(cid, content):
    return {"role": "tool", "tool_call_id": cid, "content": content}


def text(t):
    return {"type": "text", "text": t}


USE = {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"command": "ls"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "file.txt"}


def case(test, messages, peer, verdict="agree", why="", ours=None, source="openai-chat", shape="turns"):
    body = ({"model": "gpt-4o", "messages": messages} if source == "openai-chat"
            else {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages})
    return {"source": {"repository": REPO, "path": PATH, "commit": COMMIT, "test": test}, "format": source,
            "target": "anthropic", "shape": shape, "body": body, "peer_shape": peer, "peer_sent": None,
            "inspector": ours, "verdict": verdict, "why": why}


SWITCH = ("LiteLLM leaves the history as it is when modify_params is off. Inspector has one switch of that kind, and "
          "it is the command: inspector check reports and writes nothing, inspector normalize always repairs, each "
          "change an event, so a history is never sent half-repaired by a setting nobody remembers.")
DROP_EMPTY = ("LiteLLM writes its placeholder into every blank text block. Inspector follows what Anthropic was "
              "observed to refuse: an empty block beside other content is left out (nothing is lost), a "
              "whitespace-only block beside other content is accepted (a recorded HTTP 200) and kept as written, "
              "and only a message left with nothing gets one short placeholder, \"(empty)\". The peer's "
              "\"[System: ...]\" text reads to the model as an instruction it never received.")
CASES = [
    case("TestMessageSanitization::test_case_a_orphaned_tool_call_single",
         [U("What is the weather in Nashik?"), A(call("toolu_01Kus2cC3ydjBW7UK4GJqBP4"))],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]]),
    case("TestMessageSanitization::test_case_a_orphaned_tool_call_multiple",
         [U("Get weather for Nashik and Mumbai"), A(call("call_1"), call("call_2")), T("call_1", "Weather in Nashik: 25°C")],
         [["user", ["text"]], ["assistant", ["tool_use", "tool_use"]], ["user", ["tool_result", "tool_result"]]],
         why="Both send one block of two results; LiteLLM puts the interrupted one after the real one, Inspector "
             "ahead of it (MEM-5 as semantics.md reads it), an order Anthropic accepts either way."),
    case("TestMessageSanitization::test_case_b_orphaned_tool_result",
         [U("Hello"), A(content="Hi there!"), T("nonexistent_id", "Some result")],
         [["user", ["text"]], ["assistant", ["text"]]]),
    case("TestMessageSanitization::test_case_b_valid_tool_result_preserved",
         [U("What's the weather?"), A(call("call_123", args='{"location": "Boston"}')), T("call_123", "Weather: 20°C")],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]]),
    case("TestMessageSanitization::test_case_c_empty_text_content_user",
         [U(""), A(content="Hello!")], [["user", ["text"]], ["assistant", ["text"]]]),
    case("TestMessageSanitization::test_case_c_whitespace_only_content",
         [U("   \n  \t  "), A(content="  ")], [["user", ["text"]], ["assistant", ["text"]]], "differs",
         "LiteLLM turns a blank final assistant message into its placeholder, which Anthropic then takes as a "
         "prefill the answer must continue. A prefill of nothing asks for nothing: Inspector leaves it out (Anthropic "
         "refuses a final assistant text ending in whitespace, tailcallhq/forgecode#1872), and the blank user "
         "message reads \"(empty)\".", ours=[["user", ["text"]]]),
    case("TestMessageSanitization::test_case_c_valid_content_preserved",
         [U("Hello"), A(content="Hi there!")], [["user", ["text"]], ["assistant", ["text"]]]),
    case("TestMessageSanitization::test_combined_cases",
         [U("Get weather"), A(call("call_1", args='{"location": "NYC"}')), U(""), A(content="Response"),
          T("orphaned_id", "Some data")],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result", "text"]], ["assistant", ["text"]]],
         "differs", "The empty user message joins the interrupted result in one user turn. " + DROP_EMPTY,
         ours=[["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]], ["assistant", ["text"]]]),
    case("TestMessageSanitization::test_modify_params_false_no_sanitization",
         [U(""), A(call("call_1", args="{}"))], [["user", ["text"]], ["assistant", ["tool_use"]]], "differs",
         SWITCH, ours=[["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]]),
    case("TestMessageSanitization::test_anthropic_messages_pt_integration",
         [U("What is the weather in Nashik?"), A(call("toolu_01Kus2cC3ydjBW7UK4GJqBP4"))],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]]),
    case("TestMessageSanitization::test_empty_string_content_sanitized_without_modify_params",
         [U("First message"), U("please review this"), U("")], [["user", ["text", "text", "text"]]], "differs",
         "The three user messages are one Anthropic turn, so the empty one is an empty block beside others. " + DROP_EMPTY,
         ours=[["user", ["text", "text"]]]),
    case("TestMessageSanitization::test_empty_text_block_in_list_content_sanitized",
         [U([text("real content"), text(""), text("  \n  ")])], [["user", ["text", "text", "text"]]], "differs",
         DROP_EMPTY, ours=[["user", ["text", "text"]]], source="anthropic"),
    case("TestMessageSanitization::test_non_empty_content_unchanged_without_modify_params",
         [U("Hello"), A(content="Hi there"), U("How are you?")],
         [["user", ["text"]], ["assistant", ["text"]], ["user", ["text"]]]),
    case("TestEmptyTextWithNonTextContent::test_assistant_list_with_tool_use_drops_empty_text_block",
         [U("run ls"), {"role": "assistant", "content": [text(""), USE]}, {"role": "user", "content": [RESULT]}],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]], source="anthropic"),
    case("TestEmptyTextWithNonTextContent::test_assistant_empty_string_with_tool_calls_drops_text",
         [U("run ls"), A(call("call_1", "bash", "{}"), content=""), T("call_1", "file.txt")],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]]),
    case("TestEmptyTextWithNonTextContent::test_user_list_with_tool_result_drops_empty_text",
         [U("run ls"), {"role": "assistant", "content": [USE]}, {"role": "user", "content": [RESULT, text("")]}],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]], source="anthropic"),
    case("TestEmptyTextWithNonTextContent::test_user_list_with_image_drops_empty_text",
         [U([text("   "), {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}])],
         [["user", ["image"]]], "differs", DROP_EMPTY, ours=[["user", ["text", "image"]]], source="anthropic"),
    case("TestEmptyTextWithNonTextContent::test_all_empty_text_blocks_still_get_placeholder",
         [U([text(""), text("   ")])], [["user", ["text", "text"]]], "differs",
         DROP_EMPTY + " One placeholder says the message was empty; two copies of it say nothing more.",
         ours=[["user", ["text"]]], source="anthropic"),
    case("TestEmptyTextWithNonTextContent::test_plain_empty_user_string_still_gets_placeholder",
         [U(""), A(content="ok")], [["user", ["text"]], ["assistant", ["text"]]]),
    case("TestEmptyTextWithNonTextContent::test_anthropic_messages_pt_does_not_leak_placeholder_with_tool_use",
         [U("run ls"), {"role": "assistant", "content": [text(""), USE]}, {"role": "user", "content": [RESULT]}],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]], source="anthropic"),
    case("TestEmptyTextWithNonTextContent::test_anthropic_messages_pt_no_leak_openai_shape_tool_calls",
         [U("run ls"), A(call("call_1", "bash", '{"command": "ls"}'), content=""), T("call_1", "file.txt")],
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result"]]]),
]

if __name__ == "__main__":
    out = Path(__file__).with_name("peers") / "litellm_message_sanitization.json"
    out.write_text(json.dumps(CASES, indent=1, ensure_ascii=False) + "\n")
    print(f"{out}: {len(CASES)} cases")

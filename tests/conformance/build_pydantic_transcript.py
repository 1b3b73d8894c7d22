"""Writes ``peers/pydantic_ai_transcript_repair.json``: the cases of pydantic-ai's
``tests/test_transcript_repair.py`` (at the commit below) as the request bodies the repaired
history goes out as (OpenAI Chat for client calls, Anthropic where a native tool call is in
it), with the peer's new prompt as the last user message, the shape the peer sends, and
Inspector's verdict. Run by hand; the JSON is what the tests read."""

from __future__ import annotations

import json
from pathlib import Path

REPO, COMMIT, PATH = "pydantic/pydantic-ai", "07d7c38cb3ca90ee85fb7e1705deafefb6f593ff", "tests/test_transcript_repair.py"
CUT = '{"city": "Mex'                     # arguments cut off mid-stream


def U(text):
    return {"role": "user", "content": text}


def A(*calls, text=None):
    m = {"role": "assistant", "content": text}
    if calls:
        m["tool_calls"] = [{"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
                           for cid, name, args in calls]
    return m


def T(cid, text="Sunny"):
    return {"role": "tool", "tool_call_id": cid, "content": text}


W = ("call_1", "get_weather", '{"city": "Mexico City"}')


def chat(*messages):
    return {"model": "gpt-4o", "messages": list(messages)}


def anthropic(*messages):
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": list(messages)}


SRV = {"type": "server_tool_use", "id": "srv_1", "name": "code_execution", "input": {"code": "2+2"}}
SRV_RESULT = {"type": "code_execution_tool_result", "tool_use_id": "srv_1",
              "content": {"type": "code_execution_result", "stdout": "4", "stderr": "", "return_code": 0, "content": []}}


def text(t):
    return {"type": "text", "text": t}


# Shapes: OpenAI Chat as [role, ids] (an assistant's call ids, a tool message's answered id);
# Anthropic as provider turns (consecutive messages of one role are one turn) of block types.
# Issue 30's reading (shared/spec/semantics.md, "Identity in provider formats and stores"): only a later
# *pair* (a call with a result of its own) that reuses a completed pair's id gets an identity of its own.
REUSED_ALONE = ("The later call reuses call_1 after its pair was complete but has no result of its own. The "
                "project's reading gives a derived identity only to a later pair; a lone reusing call is a "
                "redeclaration for MEM-5 clause 3, which drops it (call-redeclared, turn-emptied), so the "
                "model is not shown an 'interrupted' answer for a call that never ran. The peer keeps it and "
                "answers it as interrupted; both are accepted by the target.")
REUSED_OPEN = ("call_1 is declared again while its first declaration is still open (never answered). The "
               "project's reading keeps this a real redeclaration: MEM-5 clause 3 drops the later call with "
               "its result, and the first call is answered as interrupted. The peer renames the later call "
               "and keeps 'Rainy'; Inspector cannot tell which city a result for an id declared twice "
               "answers, and never moves a result across identities.")

def case(test, body, peer, verdict="agree", why="", ours=None, identity=False, fmt="openai-chat"):
    return {"source": {"repository": REPO, "path": PATH, "commit": COMMIT, "test": test}, "target": fmt,
            "shape": "chat" if fmt == "openai-chat" else "turns", "body": body, "peer_shape": peer, "peer_sent": None, "inspector": ours, "verdict": verdict, "why": why,
            **({"tags": ["identity"]} if identity else {})}


AHEAD = ("The peer writes the interrupted results after the results that did arrive; MEM-5 as this project reads it "
         "(semantics.md, clause 3 C) writes them directly after the turn, ahead of the real ones. Both orders are one "
         "block of results right after the call, which every provider accepts; Inspector's place depends on the "
         "turn alone, so the same broken turn is always repaired to the same bytes whatever arrived.")
KEEP_CALL = ("The peer drops a call whose arguments were cut off mid-stream. Inspector keeps every call the model "
             "made unless the provider refuses it: OpenAI stores arguments as a string and does not parse them, so "
             "the call goes out with an interrupted result, and the history still says that the model asked for "
             "get_weather. Where a provider does parse them (xAI, vLLM), check --target names the call "
             "(call-arguments-json) instead of losing it silently.")
CASES = [
    case("test_dangling_tool_call_gets_synthesized_return",
         chat(U("What is the weather?"), A(W), U("Never mind, tell me a joke."), A(text="Here is a joke."),
              U("Explain?")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []], ["assistant", []], ["user", []]]),
    case("test_partially_answered_parallel_tool_calls",
         chat(U("Calculate."), A(("call_volume", "get_volume", '{"size": 6}'), ("call_mass", "get_mass", '{"size": 6}'),
                                 ("call_density", "get_density", "{}")), T("call_volume", "216")),
         [["user", []], ["assistant", ["call_volume", "call_mass", "call_density"]], ["tool", ["call_volume"]],
          ["tool", ["call_mass"]], ["tool", ["call_density"]]], "differs", AHEAD,
         ours=[["user", []], ["assistant", ["call_volume", "call_mass", "call_density"]], ["tool", ["call_mass"]],
               ["tool", ["call_density"]], ["tool", ["call_volume"]]]),
    case("test_incomplete_tool_call_args_dropped",
         chat(U("What is the weather?"), A(("call_1", "get_time", '{"tz": "UTC"}'), ("call_2", "get_weather", CUT),
                                           text="Let me look that up."), U("Never mind."), A(text="OK."), U("Thanks.")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []], ["assistant", []], ["user", []]],
         "differs", KEEP_CALL,
         ours=[["user", []], ["assistant", ["call_1", "call_2"]], ["tool", ["call_1"]], ["tool", ["call_2"]],
               ["user", []], ["assistant", []], ["user", []]]),
    case("test_response_with_only_incomplete_tool_call_dropped",
         chat(U("What is the weather?"), A(("call_1", "get_weather", CUT)), U("Are you there?"), A(text="Yes."),
              U("Thanks.")),
         [["user", []], ["user", []], ["assistant", []], ["user", []]], "differs", KEEP_CALL,
         ours=[["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []], ["assistant", []],
               ["user", []]]),
    case("test_trailing_incomplete_tool_call_resumed_with_retry",
         chat(U("What is the weather?"), A(("call_1", "get_weather", CUT))),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]]],
         why="The peer runs the tool again and answers with its retry prompt; Inspector, which runs nothing, answers "
             "with an interrupted result. Both send the call with a result."),
    case("test_deferred_run_history_not_silently_repaired",
         chat(U("Do it."), A(("call_data", "get_data", "{}"), ("call_file", "create_file", '{"path": "x"}')),
              T("call_data", "data"), U("Never mind.")),
         [["user", []], ["assistant", ["call_data", "call_file"]], ["tool", ["call_data"]], ["tool", ["call_file"]],
          ["user", []]], "differs",
         "Like the peer, the repaired copy is what is sent: Inspector never writes over its input. " + AHEAD,
         ours=[["user", []], ["assistant", ["call_data", "call_file"]], ["tool", ["call_file"]], ["tool", ["call_data"]],
               ["user", []]]),
    case("test_result_before_call_dropped_as_orphan_and_call_synthesized",
         chat(U("What is the weather?"), T("call_1"), A(W), U("And tomorrow?"), A(text="No idea."), U("Thanks.")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []], ["assistant", []], ["user", []]],
         why="MEM-5 pairs ids as sets and keeps the early result; --strict (with which these cases run) drops it "
             "and closes the call, as the peer does."),
    case("test_orphaned_tool_result_dropped",
         chat(U("What is the weather?"), T("ghost"), A(text="It is sunny."), U("Thanks.")),
         [["user", []], ["assistant", []], ["user", []]]),
    case("test_orphaned_result_emptying_last_request_keeps_placeholder",
         chat(U("Hi"), A(text="Hello."), T("ghost", "x"), U("Continue.")),
         [["user", []], ["assistant", []], ["user", []]]),
    case("test_dangling_native_tool_call_dropped",
         anthropic({"role": "user", "content": [text("Compute 2+2.")]},
                   {"role": "assistant", "content": [text("Let me run that."), SRV]},
                   {"role": "user", "content": [text("Never mind.")]}, {"role": "user", "content": [text("Thanks.")]}),
         [["user", ["text"]], ["assistant", ["text"]], ["user", ["text", "text"]]], fmt="anthropic"),
    case("test_dangling_native_tool_call_empties_response_dropped",
         anthropic({"role": "user", "content": [text("Compute 2+2.")]}, {"role": "assistant", "content": [SRV]},
                   {"role": "user", "content": [text("Never mind.")]}, {"role": "user", "content": [text("Thanks.")]}),
         [["user", ["text", "text", "text"]]], fmt="anthropic"),
    case("test_native_tool_call_with_result_kept",
         anthropic({"role": "user", "content": [text("Compute 2+2.")]},
                   {"role": "assistant", "content": [SRV, SRV_RESULT, text("The answer is 4.")]},
                   {"role": "user", "content": [text("Thanks.")]}),
         [["user", ["text"]], ["assistant", ["server_tool_use", "code_execution_tool_result", "text"]],
          ["user", ["text"]]], fmt="anthropic"),
    case("test_orphaned_result_and_dangling_call_in_one_history",
         chat(U("Do two things."), T("ghost", "x"), A(("real_1", "real_tool", '{"a": 1}')), U("Actually stop."),
              A(text="Stopped."), U("Thanks.")),
         [["user", []], ["assistant", ["real_1"]], ["tool", ["real_1"]], ["user", []], ["assistant", []],
          ["user", []]]),
    case("test_full_pipeline_idempotent_and_deterministic",
         anthropic({"role": "user", "content": [text("Start."),
                                                {"type": "tool_result", "tool_use_id": "ghost", "content": "x"}]},
                   {"role": "assistant", "content": [{"type": "tool_use", "id": "real_1", "name": "real_tool",
                                                      "input": {"a": 1}}, {**SRV, "input": {"code": "x"}}]},
                   {"role": "user", "content": [text("Never mind.")]}, {"role": "assistant", "content": [text("OK.")]},
                   {"role": "user", "content": [text("Explain?")]}),
         [["user", ["text"]], ["assistant", ["tool_use"]], ["user", ["tool_result", "text"]], ["assistant", ["text"]],
          ["user", ["text"]]], fmt="anthropic",
         why="Every case also checks the peer's point here: normalizing the repaired output again changes nothing."),
    case("test_duplicate_result_ignored",
         chat(U("What is the weather?"), A(W), T("call_1"), T("call_1", "Sunny again"), A(text="Sunny!"), U("Thanks.")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["tool", ["call_1"]], ["assistant", []],
          ["user", []]], "peer-wrong",
         "The peer sends the second result for call_1 as it is. OpenAI refuses a tool_call_id answered twice "
         "(duplicate-tool-call-id, agno-agi/agno#5116) and Anthropic one tool_use answered twice; MEM-5 clause 3 "
         "keeps the first result and drops the duplicate, with an event.",
         ours=[["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["assistant", []], ["user", []]]),
    case("test_retry_prompt_answers_tool_call",
         chat(U("What is the weather?"), A(("call_1", "get_weather", '{"city": "Atlantis"}')),
              T("call_1", "Unknown city, try again."), A(text="I could not find that city."), U("Thanks.")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["assistant", []], ["user", []]]),
    case("test_reused_tool_call_id_dangling_call_repaired",
         chat(U("What is the weather?"), A(W), T("call_1"), A(("call_1", "get_weather", '{"city": "Amsterdam"}')),
              U("Never mind."), A(text="OK."), U("Thanks.")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["assistant", ["call_1"]], ["tool", ["call_1"]],
          ["user", []], ["assistant", []], ["user", []]], "differs", REUSED_ALONE, identity=True,
         ours=[["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []], ["assistant", []],
               ["user", []]]),
    case("test_reused_tool_call_id_shadowed_open_call_repaired",
         chat(U("What is the weather?"), A(W), U("In Amsterdam, I mean."),
              A(("call_1", "get_weather", '{"city": "Amsterdam"}')), T("call_1", "Rainy"), A(text="Rainy!"),
              U("Thanks.")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []], ["assistant", ["call_1"]],
          ["tool", ["call_1"]], ["assistant", []], ["user", []]], "differs", REUSED_OPEN, identity=True,
         ours=[["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []], ["assistant", []],
               ["user", []]]),
    case("test_dangling_tool_call_followed_by_response",
         chat(U("What is the weather?"), A(W), A(text="I could not check the weather."), U("Try again?")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["assistant", []], ["user", []]]),
    case("test_valid_history_untouched",
         chat(U("What is the weather?"), A(W), T("call_1"), A(text="It is sunny."), U("Thanks!")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["assistant", []], ["user", []]]),
    case("test_repair_is_idempotent_and_deterministic",
         chat(U("What is the weather?"), A(W), U("Never mind."), A(text="OK."), U("Explain?")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []], ["assistant", []], ["user", []]]),
    case("test_cancelled_stream_with_incomplete_tool_call_round_trips",
         chat(U("What is the weather?"), A(("call_1", "get_weather", CUT), text="Let me ch"),
              U("Never mind, just say hi.")),
         [["user", []], ["assistant", []], ["user", []]], "differs", KEEP_CALL,
         ours=[["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []]]),
    case("test_cancelled_stream_with_complete_tool_call_round_trips",
         chat(U("What is the weather?"), A(W, text="Let me check."), U("Never mind, just say hi.")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []]]),
    case("test_interrupted_tool_execution_round_trips",
         chat(U("Calculate volume and mass."), A(("call_volume", "get_volume", '{"size": 6}'),
                                                 ("call_mass", "get_mass", '{"size": 6}')), T("call_volume", "216")),
         [["user", []], ["assistant", ["call_volume", "call_mass"]], ["tool", ["call_volume"]], ["tool", ["call_mass"]]],
         "differs", AHEAD,
         ours=[["user", []], ["assistant", ["call_volume", "call_mass"]], ["tool", ["call_mass"]], ["tool", ["call_volume"]]]),
    case("test_history_processor_output_repaired",
         chat(U("What is the weather?"), A(W), U("Explain?")),
         [["user", []], ["assistant", ["call_1"]], ["tool", ["call_1"]], ["user", []]]),
]

if __name__ == "__main__":
    out = Path(__file__).with_name("peers") / "pydantic_ai_transcript_repair.json"
    out.write_text(json.dumps(CASES, indent=1, ensure_ascii=False) + "\n")
    print(f"{out}: {len(CASES)} cases")

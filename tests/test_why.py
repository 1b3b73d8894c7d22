"""``inspector why``: an error text, raw or reworded, maps to its rule; with a file, the
entries the error names are the ones shown, and the repaired copy clears them."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from inspector import why
from inspector.cli import main
from inspector.pipeline import load_file, run_file
from inspector.targets import KNOWN_ERRORS, OWN_TEXT, REGISTRY, TARGETS, check

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
CC = "https://github.com/anthropics/claude-code/issues/"


def rules_of(text: str) -> set[tuple[str, str]]:
    reading = why.read(text)
    assert reading.known, f"not matched: {text!r} (closest {[(m.target, m.rule) for m in reading.closest]})"
    return {(m.target, m.rule) for m in reading.matches}


# Each error string of issue 34, as a person holds it.
ISSUE = [
    ("messages.3: tool_use ids were found without tool_result blocks immediately after: toolu_01ABCDEFGH",
     ("anthropic", "tool-use-without-result")),
    ("unexpected tool_use_id found in tool_result blocks", ("anthropic", "result-without-tool-use")),
    ("messages.1.content.0.thinking.signature: Invalid signature in thinking block", ("anthropic", "thinking-unsigned")),
    ("no low surrogate in string", ("anthropic", "lone-surrogate")),
    ("text content blocks must be non-empty", ("anthropic", "blank-text")),
    ("No tool output found for function call call_9f8e7d", ("openai-responses", "call-without-output")),
    ("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'",
     ("openai-chat", "tool-calls-unanswered")),
    ("Invalid 'messages[3].tool_calls[0].id': string too long", ("openai-chat", "tool-call-id-length")),
    ("Please ensure that the number of function response parts is equal to the number of function call parts",
     ("gemini", "response-count")),
    ("Function call is missing a thought_signature", ("gemini", "thought-signature")),
    ("API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation.",
     ("anthropic", "tool-use-without-result")),
    ("orphaned tool_result in conversation history", ("anthropic", "result-without-tool-use")),
    ("duplicate tool_use ID", ("anthropic", "tool-use-id-reused")),
]


@pytest.mark.parametrize("text,rule", ISSUE, ids=[t[:40] for t, _ in ISSUE])
def test_each_error_string_of_the_issue_maps_to_its_rule(text, rule):
    assert rule in rules_of(text)


# Raw texts as the rules' sources (and the reports they link) show them, with their own ids and positions.
RAW = [
    (CC + "13964", "messages.12.content.4: unexpected `tool_use_id` found in `tool_result` blocks: "
     "toolu_01NTC5Dcxuc9LdQFXHLeUMW7. Each `tool_result` block must have a corresponding `tool_use` block in the "
     "previous message.", ("anthropic", "result-without-tool-use")),
    (CC + "6836", "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
     "toolu_vrtx_016rTtBk2j9afpfgXJRMYJeB. Each `tool_use` block must have a corresponding `tool_result` block in "
     "the next message.", ("anthropic", "tool-use-without-result")),
    (CC + "28515", "messages.43.content.2: tool_use ids must be unique", ("anthropic", "tool-use-id-reused")),
    (CC + "21083", "messages.1.content.1: `tool_use` ids must be unique", ("anthropic", "tool-use-id-reused")),
    (CC + "20895", "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
     "toolu_01FUwrjSj49dk7GyZZhChLiV. Each `tool_result` block must have a corresponding `tool_use` block in the "
     "previous message.", ("anthropic", "result-without-tool-use")),
    ("https://github.com/CommandCodeAI/command-code/issues/323",
     "messages.5.content.2.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
     ("anthropic", "tool-use-id-pattern")),
    ("https://github.com/anomalyco/opencode/issues/3077",
     "messages.7.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` "
     "is enabled, a final `assistant` message must start with a thinking block", ("anthropic", "thinking-not-first")),
    ("https://github.com/tailcallhq/forgecode/issues/1853",
     "messages.3.content.1: When thinking is disabled, an `assistant` message in the final position cannot contain "
     "`thinking`.", ("anthropic", "thinking-when-disabled")),
    ("https://github.com/anthropics/anthropic-sdk-python/issues/1598",
     "messages.9.content.0: Invalid `signature` in `thinking` block", ("anthropic", "signature-other-model")),
    (CC + "23440", "messages: text content blocks must contain non-whitespace text", ("anthropic", "blank-text")),
    (CC + "6199", "The request body is not valid JSON: no low surrogate in string: line 1 column 51235 (char 51234)",
     ("anthropic", "lone-surrogate")),
    ("https://github.com/openai/openai-python/issues/2061", "Invalid 'messages[5].tool_calls': empty array. "
     "Expected an array with minimum length 1, but got an empty array instead.", ("openai-chat", "empty-tool-calls")),
    ("https://github.com/agno-agi/agno/issues/5116", "Invalid parameter: Duplicate value for 'tool_call_id' of "
     "'call_8s9d' in messages[4] and messages[9].", ("openai-chat", "duplicate-tool-call-id")),
    ("https://github.com/agno-agi/agno/issues/1784", "An assistant message with 'tool_calls' must be followed by "
     "tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
     "call_E3y", ("openai-chat", "tool-calls-unanswered")),
    ("https://github.com/itmisx/deepx-code/issues/94", "Invalid parameter: messages with role 'tool' must be a "
     "response to a preceeding message with 'tool_calls'.", ("openai-chat", "tool-without-calls")),
    ("https://github.com/vercel/ai/issues/5171", "Invalid 'messages[12].tool_calls[1].id': string too long. "
     "Expected a string with maximum length 40, but got a string with length 47 instead.",
     ("openai-chat", "tool-call-id-length")),
    ("https://github.com/continuedev/continue/issues/10092",
     "No tool call found for function call output with call_id call_Zk2.", ("openai-responses", "output-without-call")),
    ("https://github.com/tjardoo/openai-client/pull/124", "No tool output found for function call call_q1w2e3.",
     ("openai-responses", "call-without-output")),
    ("https://github.com/continuedev/continue/issues/8933", "Item 'rs_68a1f' of type 'reasoning' was provided "
     "without its required following item.", ("openai-responses", "reasoning-without-following")),
    ("https://github.com/vercel/ai/issues/7543", "Item with id 'rs_0abc' not found. Items are not persisted when "
     "`store` is set to false.", ("openai-responses", "unstored-reference")),
    ("https://github.com/openai/codex/issues/19661", "Missing required parameter: 'input[12].encrypted_content'.",
     ("openai-responses", "reasoning-without-encrypted-content")),
    ("https://github.com/openai/codex/issues/36551", "Invalid 'input[4].content': array too long. Expected an array "
     "with maximum length 0, but got an array with length 2 instead.", ("openai-responses", "reasoning-content")),
    ("https://github.com/openai/codex/issues/39125", "Invalid 'input[3].id': 'item_17'. Expected an ID that begins "
     "with 'rs'.", ("openai-responses", "item-id-prefix")),
    ("https://github.com/langgenius/dify/issues/9294", "A conversation must alternate between user and assistant "
     "roles. Make sure the conversation alternates between user and assistant roles and try again.",
     ("bedrock", "not-alternating")),
    ("https://github.com/zeroclaw-labs/zeroclaw/pull/1476", "Expected toolResult blocks at messages.4.content for "
     "the following Ids: tooluse_Xy12", ("bedrock", "tool-use-without-result")),
    ("https://github.com/Just-Curieous/Curie/issues/16", "The number of toolResult blocks at messages.6.content "
     "exceeds the number of toolUse blocks of previous turn.", ("bedrock", "too-many-results")),
    ("https://github.com/aws-samples/bedrock-engineer/issues/8", "The text field in the ContentBlock object at "
     "messages.3.content.0 is blank. Add text to the text field, and try again.", ("bedrock", "blank-text")),
    ("https://github.com/google-gemini/gemini-cli/issues/11814", "Please ensure that function call turn comes "
     "immediately after a user turn or after a function response turn.", ("gemini", "call-turn-position")),
    ("https://github.com/langchain-ai/langchain/issues/27799", "Please ensure that function response turn comes "
     "immediately after a function call turn.", ("gemini", "response-turn-position")),
    ("https://github.com/NoeFabris/opencode-antigravity-auth/issues/368", "Function call is missing a "
     "thought_signature in functionCall parts. This is required for tools to work correctly, and missing "
     "thought_signature may lead to degraded model performance. Additional data, function call "
     "`default_api:bash`, position 4.", ("gemini", "thought-signature")),
    ("https://github.com/NousResearch/hermes-agent/pull/11722", "Not the same number of function calls and "
     "responses", ("mistral", "calls-responses-mismatch")),
    ("https://github.com/anomalyco/opencode/issues/1680", "Tool call id was toolu_01AbC but must be a-z, A-Z, 0-9, "
     "with a length of 9.", ("mistral", "tool-call-id-format")),
    ("https://github.com/datapizza-labs/datapizza-ai/issues/98", "Unexpected role 'user' after role 'tool'",
     ("mistral", "user-after-tool")),
    ("https://github.com/charmbracelet/crush/issues/279", "Unexpected role 'tool' after role 'user'",
     ("mistral", "tool-after-user")),
    ("https://github.com/solbrowse/extension/issues/16", "Assistant message must have either content or "
     "tool_calls, but not none", ("mistral", "empty-assistant")),
    ("https://github.com/hackclub/ai/issues/22", "'messages.7' : for 'role:tool' the following must be "
     "satisfied[('messages.7.tool_call_id' : property 'tool_call_id' is missing)]", ("groq", "tool-call-id-missing")),
    ("https://github.com/AstrBotDevs/AstrBot/issues/5946", "'messages.4' : for 'role:assistant' the following must "
     "be satisfied[('messages.4' : property 'reasoning_content' is unsupported)]", ("groq", "thinking-fields")),
    ("https://github.com/earendil-works/pi/issues/3636", "The `reasoning_content` in the thinking mode must be "
     "passed back to the API.", ("deepseek", "reasoning-not-passed-back")),
    ("https://github.com/spiceai/spiceai/issues/4734", "The arguments to a tool_call with ID 'call_7' are not a "
     "valid JSON string", ("xai", "call-arguments-json")),
]


def reworded(text: str) -> list[str]:
    """How the same refusal reaches a person: wrapped in an agent's JSON, in lower case
    without the backticks, cut after its first sentence."""
    wrapped = ('API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":'
               + json.dumps(text) + '},"request_id":"req_011CW6srrMDmuwnnoYQSVLUU"}')
    first = text.split(". ")[0]
    return [wrapped, text.replace("`", "").lower(), first]


def test_at_least_thirty_raw_texts():
    assert len(RAW) >= 30 and len({r for _, _, r in RAW}) >= 30


@pytest.mark.parametrize("source,text,rule", RAW, ids=[f"{r[0]}/{r[1]}" for _, _, r in RAW])
def test_raw_and_reworded_texts_from_the_rules_sources_map_to_their_rule(source, text, rule):
    assert rule in rules_of(text)
    for variant in reworded(text):
        if len(why.tokens(variant)) >= 3:
            assert rule in rules_of(variant), variant


# A flat history that breaks most pairing and shape rules at once, for every target.
BROKEN = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": "hi"},
    {"role": "tool", "tool_call_id": "call_orphan1", "content": "x"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "call_" + "x" * 70, "name": "f", "arguments": "{bad"},
                                                         {"id": "a b", "name": "g", "arguments": "{}"}]},
    {"role": "assistant", "content": "", "tool_calls": []},
    {"role": "model", "content": "m"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "callabcdef", "name": "f", "arguments": "{}"}]},
    {"role": "tool", "tool_call_id": "callabcdef", "content": "r"},
    {"role": "tool", "tool_call_id": "callabcdef", "content": "r2"},
    {"role": "tool", "content": "no id"},
    {"role": "user", "content": "half \ud83d"},
    {"role": "assistant", "content": None},
]


def _stands_for(problem) -> bool:
    matches = why.read(problem.error).matches
    return any(m.rule == problem.rule and (m.target == problem.target or problem.target in m.also) for m in matches)


@pytest.mark.parametrize("target", TARGETS)
def test_every_text_a_rule_writes_maps_back_to_that_rule(target):
    """What the rules themselves answer (not a copy of it): each problem's text is read back
    as the rule that wrote it, over a broken flat history and over every sample."""
    problems = [p for p in check(BROKEN, target) if p.rule not in OWN_TEXT]
    for sample in sorted(SAMPLES.glob("[0-9]*")):
        problems += [p for p in check(run_file(sample), target) if p.rule not in OWN_TEXT]
    assert problems
    wrong = [(p.rule, p.error) for p in problems if not _stands_for(p)]
    assert not wrong


def test_every_known_text_names_rules_of_the_tables():
    tables = {(t, r.name) for t in REGISTRY for r in REGISTRY[t].rules}
    pending = {("anthropic", "tool-use-id-reused")}     # the identity branch adds it (issue 30)
    for k in KNOWN_ERRORS:
        for rule in k.rules:
            assert k.target == "*" or (k.target, rule) in tables | pending, (k.target, rule)


def test_unknown_text_says_so_and_lists_the_closest():
    reading = why.read("Invalid value supplied somewhere in the request")
    assert not reading.known and reading.closest
    assert main(["why", "the weather is nice today"]) == 1


# Refusals that are not about the history's shape: no rule stands for them, and none is guessed.
OTHER = [
    "prompt is too long: 210000 tokens > 200000 maximum",
    '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
    "Rate limit reached for gpt-4o in organization org-abc on tokens per min",
    "authentication_error: invalid x-api-key",
    "Your credit balance is too low to access the Anthropic API",
    "Invalid value for tool_choice",
    "tool use failed",
]


@pytest.mark.parametrize("text", OTHER)
def test_other_refusals_are_unknown(text):
    assert not why.read(text).known


def test_the_text_can_come_from_standard_input(monkeypatch, capsys):
    import io

    body = '{"type":"error","error":{"type":"invalid_request_error","message":"messages.63.content.1: `tool_use` ids must be unique"}}'
    monkeypatch.setattr("sys.stdin", io.StringIO(body))
    assert main(["why", "--json", "-"]) == 0
    assert orjson.loads(capsys.readouterr().out)["matches"][0]["rule"] == "tool-use-id-duplicate"


def test_unknown_text_in_the_cli(capsys):
    assert main(["why", "Invalid value given for tool"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("Unknown error text") and "Closest rules:" in out


# -- with the file -----------------------------------------------------------------------

SAMPLE13 = SAMPLES / "13-anthropic-retry-and-parallel-call.json"


def test_rewind_message_on_sample_13_points_at_the_unanswered_call(capsys):
    text = "API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation."
    assert main(["why", "--json", text, str(SAMPLE13)]) == 0
    report = orjson.loads(capsys.readouterr().out)
    entries = report["file"]["entries"]
    assert entries and {e["rule"] for e in entries} == {"tool-use-without-result"}
    problems = [p for p in check(load_file(SAMPLE13).messages, "anthropic")
                if p.rule == "tool-use-without-result"]
    assert [e["tool_call_id"] for e in entries] == [p.tool_call_id for p in problems]
    assert report["file"]["cleared"] and "normalize" in report["file"]["command"]


def _two_breaks(tmp_path: Path) -> Path:
    doc = {"messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01AAA", "name": "a", "input": {}}]},
        {"role": "user", "content": "next"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01BBB", "name": "b", "input": {}}]},
        {"role": "user", "content": "again"},
    ]}
    path = tmp_path / "case.json"
    path.write_bytes(orjson.dumps(doc))
    return path


def test_the_entry_the_error_names_is_the_one_shown(tmp_path, capsys):
    path = _two_breaks(tmp_path)
    text = ("messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01BBB. "
            "Each `tool_use` block must have a corresponding `tool_result` block in the next message.")
    assert main(["why", "--json", text, str(path)]) == 0
    entries = orjson.loads(capsys.readouterr().out)["file"]["entries"]
    assert [e["tool_call_id"] for e in entries] == ["toolu_01BBB"]
    assert entries[0]["where"] == "messages[3].content[0]" and entries[0]["named"]
    # The other call, named instead, is the one shown.
    assert main(["why", "--json", text.replace("BBB", "AAA").replace("messages.3", "messages.1"), str(path)]) == 0
    entries = orjson.loads(capsys.readouterr().out)["file"]["entries"]
    assert [e["tool_call_id"] for e in entries] == ["toolu_01AAA"]


def test_paths_and_addresses_in_the_text_do_not_count():
    assert why.tokens("see /home/alice/project/src/main.py and https://example.com/a/b") == ["see"]
    text = "orphaned tool_result in conversation history /Users/bob/.claude/projects/x/y.jsonl"
    assert ("anthropic", "result-without-tool-use") in rules_of(text)


def test_in_a_session_file_the_entry_is_shown_by_its_lines(capsys):
    path = SAMPLES / "21-claude-code-session.jsonl"
    problems = [p for p in check(load_file(path).messages, "anthropic") if p.rule == "tool-use-without-result"]
    cid = problems[0].tool_call_id
    text = f"messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: {cid}"
    assert main(["why", "--json", text, str(path)]) == 0
    entries = orjson.loads(capsys.readouterr().out)["file"]["entries"]
    assert [e["tool_call_id"] for e in entries] == [cid] and entries[0]["where"].startswith("line")


def test_fix_writes_the_repaired_copy_beside_the_input_and_leaves_the_input(tmp_path, capsys):
    path = _two_breaks(tmp_path)
    before = path.read_bytes()
    assert main(["why", "--fix", "tool_use ids were found without tool_result blocks", str(path)]) == 0
    out = capsys.readouterr().out
    fixed = tmp_path / "case.repaired.json"
    assert path.read_bytes() == before and fixed.exists()
    assert f"inspector normalize {path} -o {fixed}" in out
    assert not [p for p in check(run_file(fixed), "anthropic") if p.rule == "tool-use-without-result"]
    assert main(["normalize", str(path), "-q"]) == 0
    assert capsys.readouterr().out.encode() == fixed.read_bytes()


def test_fix_never_writes_over_the_input(tmp_path):
    path = _two_breaks(tmp_path)
    before = path.read_bytes()
    assert main(["why", "--fix", "-o", str(path), "tool_use ids were found without tool_result blocks",
                 str(path)]) == 2
    assert path.read_bytes() == before


def test_message_text_is_printed_inert(tmp_path, capsys):
    doc = {"messages": [{"role": "user", "content": "x"},
                        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01\x1b[31mX",
                                                           "name": "a", "input": {}}]}]}
    path = tmp_path / "esc.json"
    path.write_bytes(orjson.dumps(doc))
    main(["why", "tool_use ids were found without tool_result blocks", str(path)])
    assert "\x1b" not in capsys.readouterr().out


def test_an_error_naming_an_id_the_file_lacks_says_so(capsys):
    """The report said "the error names no entry" of an error that names one, only not in this
    file (an error pasted from another session, or from before a repair)."""
    from inspector.bundled import samples_dir
    from inspector.cli import main

    sample = str(samples_dir() / "21-claude-code-session.jsonl")
    text = "messages.1: tool_use ids were found without tool_result blocks immediately after: toolu_NOPE123"
    assert main(["why", text, sample]) == 0
    out = capsys.readouterr().out
    assert "the error names toolu_NOPE123, which this file does not hold" in out
    assert "names no entry" not in out
    assert main(["why", text.replace("toolu_NOPE123", "toolu_01GitLog"), sample, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["file"]["absent"] == []


# -- an entry the agent repairs itself on resume -----------------------------------------------

REWIND_TEXT = "API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation."
AGENT_REPAIRS = [
    # (sample, error text, agent, the calls it repairs itself, of them the ones whose real result is lost)
    ("28-crush-session.db", REWIND_TEXT, "Crush", ["toolu_p99", "toolu_r03"], ["toolu_r03"]),
    ("22-codex-rollout.jsonl", "No tool output found for function call call_Gt5mK8.", "Codex CLI", ["call_Gt5mK8"],
     ["call_Gt5mK8"]),
    ("32-openclaw-agent.sqlite", REWIND_TEXT, "OpenClaw", ["toolu_02"], ["toolu_02"]),
]


@pytest.mark.parametrize("sample,text,agent,calls,lost", AGENT_REPAIRS, ids=[a[0] for a in AGENT_REPAIRS])
def test_an_entry_the_agent_repairs_itself_is_the_agents_not_one_that_breaks_the_rule(sample, text, agent, calls,
                                                                                      lost, capsys):
    """``why`` listed these as entries that break the rule while ``check`` and ``doctor`` said
    the agent repairs them itself: it judged the rows as read, not as the agent sends them."""
    from inspector.verdict import LOST, resume_verdict

    path = SAMPLES / sample
    assert main(["why", "--json", text, str(path)]) == 0
    found = orjson.loads(capsys.readouterr().out)["file"]
    assert found["entries"] == [] and found["agent"] == agent
    covered = found["agent_repairs"]
    assert [e["tool_call_id"] for e in covered] == calls
    # The claim in the verdict's own words, its cost where it has one.
    sentence = resume_verdict(run_file(path)).sentence()
    for e in covered:
        repair = e["agent_repair"]
        assert repair["agent"] == agent and repair["words"] in sentence
        assert (LOST in repair["words"]) == (e["tool_call_id"] in lost) == (repair["cost"] == LOST)
    assert main(["why", text, str(path)]) == 0
    out = capsys.readouterr().out
    assert f"but {agent} repairs it itself on resume" in out
    assert f"{agent} repairs this itself, so the error must have come from a different state of the session" in out
    assert "names no entry" not in out and "the entries the error names:" not in out.split("but")[0]


def test_a_claim_with_a_version_names_the_older_versions(tmp_path, capsys):
    path = tmp_path / "crush.db"
    path.write_bytes((SAMPLES / "28-crush-session.db").read_bytes())
    assert main(["why", "--fix", REWIND_TEXT, str(path)]) == 0
    out = capsys.readouterr().out
    # Crush records no version: one before 0.59.0 (the newer of its two claims) sends it as it stands.
    assert "(or from Crush before 0.59.0, which sends it as it stands)" in out
    # --fix asked for the repaired copy: it is written all the same, beside the input.
    assert f"wrote {tmp_path / 'crush.repaired.db'} (the repaired copy, all the same)" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crush.db", "crush.repaired.db"]


def test_a_history_with_no_agent_keeps_its_entries(capsys):
    assert main(["why", "--json", REWIND_TEXT, str(SAMPLE13)]) == 0
    found = orjson.loads(capsys.readouterr().out)["file"]
    assert found["agent"] is None and found["agent_repairs"] == [] and found["entries"]


# -- positions as providers print them ---------------------------------------------------------

def test_positions_in_the_forms_providers_print():
    # OpenAI Chat's param (simonw/llm issue 937), OpenAI's own texts and Anthropic's / Bedrock's paths.
    assert why.positions('"param":"messages.[3].role"') == {"messages.3"}
    assert why.positions("Invalid 'messages[2].tool_calls': empty array.") == {"messages.2"}
    assert why.positions("Missing required parameter: 'input[3].encrypted_content'.") == {"input.3"}
    assert why.positions("messages.12.content.4: unexpected") == {"messages.12"}
    assert why.positions("at 'messages.2.member.role'") == {"messages.2"}
    assert why.positions("contents[1].parts[0]") == {"contents.1"}


SAMPLE17 = SAMPLES / "17-long-parallel-call-ids.json"
UNANSWERED = next(k.text for k in KNOWN_ERRORS if k.rules == ("tool-calls-unanswered",) and k.target == "openai-chat")


@pytest.mark.parametrize("param", ["messages.[2].role", "messages.2", "messages[2]"])
def test_an_openai_chat_error_is_narrowed_to_the_message_it_names(param, capsys):
    """OpenAI Chat's texts name no position and its ``param`` reads ``messages.[2].role``:
    ``why`` showed every entry of the rule (messages[2] and messages[7])."""
    text = orjson.dumps({"error": {"message": UNANSWERED.replace("call_abc", "call_x"), "param": param}}).decode()
    assert main(["why", "--json", text, str(SAMPLE17)]) == 0
    entries = orjson.loads(capsys.readouterr().out)["file"]["entries"]
    assert [(e["where"], e["named"]) for e in entries] == [("messages[2]", True)]
    text = text.replace("2", "7")
    assert main(["why", "--json", text, str(SAMPLE17)]) == 0
    assert [e["where"] for e in orjson.loads(capsys.readouterr().out)["file"]["entries"]] == ["messages[7]"]


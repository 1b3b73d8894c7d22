"""Issue 20's provider refusals as test cases: (target, rule, subject, the provider's error
text, native location or None). A subject is flat messages, or (format, document) read
through the pipeline, or (format, session file bytes, model) for a session store resumed with
``--model``. Each document is the smallest body that shows the refusal its issue reports."""

from __future__ import annotations


def U(text="u"):
    return {"role": "user", "content": text}


def A(*ids, args="{}", text=""):
    return {"role": "assistant", "content": text,
            "tool_calls": [{"tool_call_id": i, "name": "f", "arguments": args} for i in ids]}


def T(cid, text="r"):
    return {"role": "tool", "content": text, "tool_call_id": cid}


THINK = {"type": "thinking", "thinking": "The user wants the weather.", "signature": "EqQBCkYIBxgCKkD"}
USE = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"}]}
SERVER_USE = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "Paris weather"}}
SEARCH_RESULT = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
ADVISOR_RESULT = {"type": "advisor_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
ENABLED = {"type": "enabled", "budget_tokens": 2048}


def anthropic(*messages, **settings):
    return {"model": "claude-sonnet-4-5", "max_tokens": 4096, **settings,
            "messages": [{"role": "user", "content": "Weather in Paris?"}, *messages]}


def chat(*messages, **settings):
    return {"model": "gpt-4.1", **settings, "messages": [{"role": "user", "content": "Weather in Paris?"}, *messages]}


def chat_call(cid="call_1", args="{}", **extra):
    return {"role": "assistant", "content": None, **extra,
            "tool_calls": [{"id": cid, "type": "function", "function": {"name": "weather", "arguments": args}}]}


def chat_result(cid="call_1"):
    return {"role": "tool", "tool_call_id": cid, "content": "18C"}


def responses(*items, **settings):
    return {"model": "gpt-5", **settings, "input": [{"role": "user", "content": "Weather in Paris?"}, *items]}


def reasoning(rid="rs_1", **extra):
    return {"type": "reasoning", "id": rid, "summary": [], **extra}


def fcall(fid, cid):
    return {"type": "function_call", "id": fid, "call_id": cid, "name": "weather", "arguments": "{}"}


def fout(cid):
    return {"type": "function_call_output", "call_id": cid, "output": "18C"}


def gemini(*contents, **settings):
    return {**settings, "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}, *contents]}


def gcall(signature=None):
    part = {"functionCall": {"name": "weather", "args": {"city": "Paris"}}}
    if signature:
        part["thoughtSignature"] = signature
    return {"role": "model", "parts": [part]}


GRESULT = {"role": "user", "parts": [{"functionResponse": {"name": "weather", "response": {"t": "18C"}}}]}

LONG = "call_" + "x" * 36                       # 41 characters
THINKING_FIRST = ("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. "
                  "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
                  "(preceeding the lastmost set of `tool_use` and `tool_result` blocks).")
SIGNATURE = ("Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
             "correctly, and missing thought_signature may lead to degraded model performance. Additional data, "
             "function call `default_api:weather`, position 1.")
BUSE = {"toolUse": {"toolUseId": "t1", "name": "weather", "input": {}}}
# What a signed-turn-repaired warning adds to the repair it names (issue 20, item 2).
RISK = ("The provider checks signed reasoning against the turn it was issued with and may reject the request; "
        "send the history with --reasoning strip if it does.")
BAD_ARGS = '{"city": "Paris", description": "cut"}'


def _codex_reasoning() -> bytes:
    from sessions.codex_builder import Rollout

    r = Rollout()
    r.user("Weather in Paris?")
    r.reasoning("**Looking it up**")
    r.call("call_1", "curl wttr.in/Paris")
    r.output("call_1", "18C")
    return r.data()


CODEX_REASONING = _codex_reasoning()


CASES = [
    # Issue 30: two tool_use blocks of one turn under one id (claude-code#20700), and two
    # tool_result blocks for one tool_use in one user turn (documented: one result per tool_use).
    ("anthropic", "tool-use-id-duplicate", [U(), A("toolu_1", "toolu_1"), T("toolu_1"), T("toolu_1")],
     "messages.1.content.1: `tool_use` ids must be unique", None),
    ("anthropic", "tool-result-duplicate", [U(), A("toolu_1"), T("toolu_1"), T("toolu_1", "again")],
     "messages.2: two tool_result blocks answer tool_use toolu_1 (the API documents one result per tool_use; "
     "no refusal text recorded)", None),
    # Anthropic (anomalyco/opencode#3077, tailcallhq/forgecode#1853, anthropic-sdk-python#1598, claude-code#6199)
    ("anthropic", "thinking-not-first",
     ("anthropic", anthropic({"role": "assistant", "content": [USE]}, RESULT, thinking=ENABLED)),
     THINKING_FIRST, "messages[1].content[0]"),
    ("anthropic", "thinking-when-disabled",
     ("anthropic", anthropic({"role": "assistant", "content": [THINK, {"type": "text", "text": "It is"}]})),
     "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot "
     "contain `thinking`. To use thinking blocks, enable `thinking` in your request.", "messages[1].content[0]"),
    ("anthropic", "signature-other-model",
     ("anthropic", anthropic({"role": "assistant", "model": "claude-opus-4-1", "content": [THINK, USE]}, RESULT,
                             thinking=ENABLED)),
     "messages.1.content.0: Invalid `signature` in `thinking` block (written by claude-opus-4-1, sent to "
     "claude-sonnet-4-5)", "messages[1].content[0]"),
    ("anthropic", "thinking-unsigned",
     ("anthropic", anthropic({"role": "assistant", "content": [{"type": "thinking", "thinking": "Look it up.",
                                                                 "signature": ""}, USE]}, RESULT, thinking=ENABLED)),
     "messages.1.content.0: Invalid signature in thinking block", "messages[1].content[0]"),
    ("anthropic", "blank-text",
     ("anthropic", anthropic({"role": "assistant", "content": [{"type": "text", "text": " \n"}]},
                             {"role": "user", "content": "go on"})),
     "messages: text content blocks must contain non-whitespace text", "messages[1].content[0]"),
    ("anthropic", "lone-surrogate", [U("Nice \ud83d")],
     "The request body is not valid JSON: no low surrogate in string (U+D83D at character 5 of content)",
     None),
    ("anthropic", "signed-turn-repaired",
     ("anthropic", anthropic({"role": "assistant", "content": [THINK, USE, USE]}, RESULT, thinking=ENABLED)),
     "messages[1].content[0] (thinking) is signed, and the repair dropped call(s) toolu_1 from its turn. " + RISK,
     "messages[1]"),
    # Bedrock (aws-samples/bedrock-engineer#8)
    ("bedrock", "blank-text",
     ("bedrock", {"messages": [{"role": "user", "content": [{"text": "Weather?"}]},
                               {"role": "assistant", "content": [{"text": "Looking."}]},
                               {"role": "user", "content": [{"text": ""}]}]}),
     "The text field in the ContentBlock object at messages.2.content.0 is blank. Add text to the text field, and "
     "try again.", "messages[2].content[0]"),
    ("bedrock", "signed-turn-repaired",
     ("bedrock", {"messages": [{"role": "user", "content": [{"text": "Weather?"}]},
                               {"role": "assistant", "content": [
                                   {"reasoningContent": {"reasoningText": {"text": "call", "signature": "c2ln"}}},
                                   BUSE, BUSE]},
                               {"role": "user", "content": [{"toolResult": {"toolUseId": "t1",
                                                                            "content": [{"text": "18C"}]}}]}]}),
     "messages[1].content[0] (reasoningContent) is signed, and the repair dropped call(s) t1 from its turn. " + RISK,
     "messages[1]"),
    ("bedrock", "lone-surrogate", [U("\ude00 cut")],
     "The request body is not valid JSON: invalid low surrogate in string (U+DE00 at character 0 of content)",
     None),
    # OpenAI Chat (vercel/ai#5171)
    ("openai-chat", "tool-call-id-length", [U(), A(LONG), T(LONG)],
     "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got "
     "a string with length 41 instead.", None),
    ("openai-chat", "lone-surrogate", [U(), A("call_1", args='{"q": "\ud83d"}'), T("call_1")],
     "The request body is not valid JSON: invalid high surrogate in string (U+D83D at character 7 of "
     "tool_calls[0].arguments)", None),
    # OpenAI Responses (continuedev/continue#8933, can1357/oh-my-pi#4173, vercel/ai#7543)
    ("openai-responses", "reasoning-without-following",
     ("openai-responses", responses(reasoning(encrypted_content="gAAA"), {"role": "user", "content": "go on"})),
     "Item 'rs_1' of type 'reasoning' was provided without its required following item.", "input[1]"),
    ("openai-responses", "call-without-reasoning",
     ("openai-responses", responses(reasoning(encrypted_content="gAAA"), fcall("fc_1", "call_1"), fout("call_1"),
                                    {"role": "assistant", "content": "18C."}, {"role": "user", "content": "Rome?"},
                                    fcall("fc_2", "call_2"), fout("call_2"))),
     "Item 'fc_2' of type 'function_call' was provided without its required reasoning item.", "input[6]"),
    ("openai-responses", "unstored-reference",
     ("openai-responses", responses(reasoning(), {"type": "message", "role": "assistant", "content": "18C."},
                                    store=False)),
     "Item with id 'rs_1' not found. Items are not persisted when 'store' is set to false. Try again with 'store' "
     "set to true, or remove this item from your input.", "input[1]"),
    # What the Responses API refuses of replayed reasoning items (openai/codex #19661, #36551, #39125)
    ("openai-responses", "reasoning-without-encrypted-content",
     ("openai-responses", responses({"type": "reasoning", "summary": []},
                                    {"type": "message", "role": "assistant", "content": "18C."}, store=False)),
     "Missing required parameter: 'input[1].encrypted_content'.", "input[1]"),
    ("openai-responses", "reasoning-content",
     ("openai-responses", responses(reasoning(content=[{"type": "reasoning_text", "text": "Look it up."}],
                                              encrypted_content=None),
                                    {"type": "message", "role": "assistant", "content": "18C."})),
     "Invalid 'input[1].content': array too long. Expected an array with maximum length 0, but got an array with "
     "length 1 instead.", "input[1]"),
    ("openai-responses", "item-id-prefix",
     ("openai-responses", responses(reasoning("item_df7e40c3f04f", encrypted_content="gAAA"), fcall("fc_1", "call_1"),
                                    fout("call_1"))),
     "Invalid 'input[1].id': 'item_df7e40c3f04f'. Expected an ID that begins with 'rs'.", "input[1]"),
    ("openai-responses", "signed-turn-repaired",
     ("openai-responses", responses(reasoning(encrypted_content="gAAA"), fcall("fc_1", "call_1"),
                                    fcall("fc_2", "call_1"), fout("call_1"))),
     "input[1] (reasoning) is signed, and the repair dropped call(s) call_1 from its turn. " + RISK, "input[1..3]"),
    ("openai-responses", "lone-surrogate", [U("\ud83d")],
     "The request body is not valid JSON: invalid high surrogate in string (U+D83D at character 0 of content)",
     None),
    # Gemini (NoeFabris/opencode-antigravity-auth#368; docs.apiyi.com FAQ)
    ("gemini", "thought-signature", ("gemini", gemini(gcall(), GRESULT, model="gemini-3-pro-preview")),
     SIGNATURE, "contents[1].parts[0]"),
    ("gemini", "thought-signature-unknown-model", ("gemini", gemini(gcall("c2lnMQ=="), GRESULT, gcall(), GRESULT)),
     SIGNATURE, "contents[3].parts[0]"),
    ("gemini", "signed-turn-repaired",
     ("gemini", gemini({"role": "model", "parts": [
         {"functionCall": {"id": "c1", "name": "weather", "args": {}}, "thoughtSignature": "c2ln"},
         {"functionCall": {"id": "c1", "name": "weather", "args": {}}}]},
         {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "weather", "response": {}}}]})),
     "contents[1].parts[0] (thoughtSignature) is signed, and the repair dropped call(s) c1 from its turn. " + RISK,
     "contents[1]"),
    ("gemini", "lone-surrogate", [U("\udbff")],
     "The request body is not valid JSON: invalid high surrogate in string (U+DBFF at character 0 of content)",
     None),
    # Mistral (solbrowse/extension#16)
    ("mistral", "empty-assistant", [U(), {"role": "assistant", "content": ""}, U("hello?")],
     "Assistant message must have either content or tool_calls, but not none", None),
    ("mistral", "lone-surrogate", [U("\ud83d")],
     "The request body is not valid JSON: invalid high surrogate in string (U+D83D at character 0 of content)",
     None),
    # xAI (spiceai/spiceai#4734), vLLM (MoonshotAI/kimi-cli#2165)
    ("xai", "call-arguments-json", ("openai-chat", chat(chat_call(args=BAD_ARGS), chat_result())),
     "The arguments to a tool_call with ID 'call_1' are not a valid JSON string", "messages[1].tool_calls[0]"),
    ("vllm", "call-arguments-json", ("openai-chat", chat(chat_call(args=BAD_ARGS), chat_result())),
     "tool_call 'call_1': arguments are not valid JSON (json.loads failed)", "messages[1].tool_calls[0]"),
    # Groq (hackclub/ai#22, tidyverse/ellmer#162, AstrBotDevs/AstrBot#5946)
    ("groq", "tool-call-id-missing", [U(), A("call_1"), {"role": "tool", "content": "18C"}],
     "'messages.2' : for 'role:tool' the following must be satisfied[('messages.2.tool_call_id' : property "
     "'tool_call_id' is missing)]", None),
    ("groq", "assistant-content-not-string",
     ("openai-chat", chat({"role": "assistant", "content": [{"type": "text", "text": "18C."}]})),
     "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1.content' : value must be "
     "a string)]", "messages[1]"),
    ("groq", "thinking-fields",
     ("openai-chat", chat(chat_call(reasoning_content="The user wants the weather."), chat_result())),
     "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1' : property "
     "'reasoning_content' is unsupported)]", "messages[1]"),
    # DeepSeek (earendil-works/pi#3636)
    ("deepseek", "reasoning-not-passed-back",
     ("openai-chat", chat(chat_call(), chat_result(), model="deepseek-reasoner")),
     "The `reasoning_content` in the thinking mode must be passed back to the API.", "messages[1]"),
    # A session store resumed with another model (check --model): the model its turn_context recorded
    ("openai-responses", "encrypted-other-model", ("codex-rollout", CODEX_REASONING, "gpt-5.4"),
     "The encrypted content for item line 5 could not be verified (written by gpt-5-codex, sent to gpt-5.4).",
     "line 5"),
    # Issue 31: what Anthropic refuses of server and MCP tools (pydantic-ai test_unpaired_native_tool_calls.py,
    # measured on claude-sonnet-4-5; anthropics/claude-code #89348; vercel/ai #12504)
    ("anthropic", "server-tool-without-result",
     ("anthropic", anthropic({"role": "assistant", "content": [SERVER_USE, USE]}, RESULT,
                             {"role": "assistant", "content": "18C."}, {"role": "user", "content": "And Rome?"})),
     "messages.1.content.0: web_search tool use with id srvtoolu_1 was found without a corresponding "
     "web_search_tool_result block", "messages[1].content[0]"),
    ("anthropic", "advisor-result-without-use",
     ("anthropic", anthropic({"role": "assistant", "content": [SERVER_USE]}, {"role": "user", "content": "hook"},
                             {"role": "assistant", "content": [ADVISOR_RESULT, {"type": "text", "text": "Done."}]},
                             {"role": "user", "content": "next"})),
     "messages.3.content.0: unexpected `tool_use_id` found in `advisor_tool_result` blocks: srvtoolu_1. Each "
     "`advisor_tool_result` block must have a corresponding `server_tool_use` block before it.",
     "messages[3].content[0]"),
    ("anthropic", "server-result-without-use",
     ("anthropic", anthropic({"role": "assistant", "content": [SEARCH_RESULT, {"type": "text", "text": "18C."}]},
                             {"role": "user", "content": "next"})),
     "messages.1.content.0: unexpected `tool_use_id` found in `web_search_tool_result` blocks: srvtoolu_1. Each "
     "`web_search_tool_result` block must have a corresponding `server_tool_use` block before it.",
     "messages[1].content[0]"),
    ("anthropic", "caller-without-server-use",
     ("anthropic", anthropic({"role": "assistant", "content": [
         {**USE, "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_gone"}}]}, RESULT)),
     "messages.1.content.0: tool_use toolu_1 names caller srvtoolu_gone, a server_tool_use that is not in the "
     "request", "messages[1].content[0]"),
    # Issue 31 item 3: calls the client runs in Responses (openai-agents-python #1855, agent-framework #8663)
    ("openai-responses", "client-call-without-output",
     ("openai-responses", responses({"type": "local_shell_call", "id": "lsh_1", "call_id": "call_MEmrSaOboO5WG3MXGazSubb7",
                                     "action": {"type": "exec", "command": ["ls"]}, "status": "completed"},
                                    {"role": "user", "content": "and now?"})),
     "No tool output found for local shell call call_MEmrSaOboO5WG3MXGazSubb7.", "input[1]"),
    ("openai-responses", "other-client-call-without-output",
     ("openai-responses", responses({"type": "computer_call", "id": "cu_1", "call_id": "call_c",
                                     "action": {"type": "screenshot"}, "status": "completed"},
                                    {"role": "user", "content": "and now?"})),
     "No tool output found for computer call call_c.", "input[1]"),
    # Issue 31 item 5: call fields OpenAI refuses (continuedev/continue#9784, aaif-goose/goose-mobile#20), images
    # outside user messages (All-Hands-AI/OpenHands#7700)
    ("openai-chat", "call-fields",
     ("openai-chat", chat({"role": "assistant", "content": " ", "tool_calls": [
         {"id": "call_NXb8SS0nb3vaoLZyHxJB6mwJ", "type": "function",
          "function": {"name": "", "arguments": "{\"filepath\":\"main.py\"}"}}]},
         {"role": "tool", "tool_call_id": "call_NXb8SS0nb3vaoLZyHxJB6mwJ", "content": "print(1)"})),
     "Invalid 'messages[1].tool_calls[0].function.name': empty string. Expected a string with minimum length 1, but "
     "got an empty string instead.", "messages[1].tool_calls[0]"),
    ("openai-chat", "image-outside-user",
     ("openai-chat", chat(chat_call(), {"role": "tool", "tool_call_id": "call_1", "content": [
         {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]})),
     "Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an "
     "image URL.", "messages[2].content[0]"),
    # Issue 31 item 7: a signed thinking block sent twice (BerriAI/litellm#23047)
    ("anthropic", "thinking-duplicated",
     ("anthropic", anthropic({"role": "assistant", "content": [THINK, THINK, USE]}, RESULT, thinking=ENABLED)),
     "messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
     "modified. These blocks must remain as they were in the original response.", "messages[1].content[1]"),
    # Issue 31 item 4: a prefill ending in whitespace (tailcallhq/forgecode#1872)
    ("anthropic", "final-assistant-whitespace",
     ("anthropic", anthropic({"role": "assistant", "content": [{"type": "text", "text": "title: "}]})),
     "messages: final assistant content cannot end with trailing whitespace", "messages[1].content[0]"),
]

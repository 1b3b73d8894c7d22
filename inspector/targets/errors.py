"""The error texts people arrive with, each tied to the rule(s) it stands for: ``inspector why``.

Every rule of the provider tables writes the provider's own refusal for the case it finds
(``Hit.error``); this module keeps one instance of each such text, as a provider answered
it, and the texts agents show instead of the provider's (Claude Code's "/rewind" message,
the wording of bug reports), each with where it was seen. The rule tables stay the one
place a rule's severity, source, summary and fix are kept: an entry here names rules, and
``inspector why`` reads the rest from the table.

An entry may name several rules: one provider text written by two rules (Anthropic's
"tool_use ids were found without tool_result blocks" is both a missing result and text
after a call), or an agent's blanket message that stands for several refusals. With a
file, the problems found decide which one it is.
"""

from __future__ import annotations

from dataclasses import dataclass

ANY = "*"           # every target that has the rule (the text is the same everywhere)

# Rules whose text is Inspector's own note, not a provider's refusal: there is nothing to paste.
OWN_TEXT = frozenset({"signed-turn-repaired"})


@dataclass(frozen=True, slots=True)
class Known:
    target: str                 # a target name, or ANY
    rules: tuple[str, ...]      # the rules this text stands for, the likeliest first
    text: str                   # one instance, as it was shown (ids and positions are ignored when matching)
    source: str = ""            # where it was seen; "" for the rule's own source (its table row)
    agent: str = ""             # the agent that showed it instead of the provider's text; "" for the provider's


CC = "https://github.com/anthropics/claude-code/issues/"

KNOWN: tuple[Known, ...] = (
    # -- Anthropic ---------------------------------------------------------------------------
    Known("anthropic", ("tool-use-without-result", "text-after-tool-use"),
          "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: "
          "toolu_01Rhf56T5ACxeQoFv. Each `tool_use` block must have a corresponding `tool_result` block in the "
          "next message."),
    Known("anthropic", ("result-without-tool-use",),
          "messages.12.content.4: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01NTC5Dcxuc9Ld. "
          "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
          CC + "13964"),
    Known("anthropic", ("tool-use-id-pattern",),
          "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    Known("anthropic", ("tool-use-id-duplicate", "tool-use-id-reused"),
          "messages.43.content.2: `tool_use` ids must be unique", CC + "28515"),
    Known("anthropic", ("tool-result-duplicate",),
          "messages.3: two tool_result blocks answer tool_use toolu_01 (the API documents one result per "
          "tool_use; no refusal text recorded)"),
    Known("anthropic", ("unknown-role",), "messages.2.role: Input should be 'user' or 'assistant'"),
    Known("anthropic", ("thinking-not-first",),
          "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When "
          "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
          "lastmost set of `tool_use` and `tool_result` blocks)."),
    Known("anthropic", ("thinking-when-disabled",),
          "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot "
          "contain `thinking`. To use thinking blocks, enable `thinking` in your request."),
    Known("anthropic", ("thinking-unsigned", "signature-other-model"),
          "messages.1.content.0.thinking.signature: Invalid signature in thinking block", CC + "21726"),
    Known("anthropic", ("signature-other-model", "thinking-unsigned"),
          "messages.1.content.0: Invalid `signature` in `thinking` block"),
    Known("anthropic", ("blank-text",), "messages: text content blocks must be non-empty"),
    Known("anthropic", ("blank-text",), "messages: text content blocks must contain non-whitespace text"),
    Known("anthropic", ("lone-surrogate",),
          "The request body is not valid JSON: no low surrogate in string: line 1 column 4242 (char 4241)",
          CC + "6199"),
    # Claude Code's own wording: its "/rewind" message stands for the tool_use/tool_result refusals
    # (#54638 carries messages.5 "tool_use ids were found without tool_result", #21088 "tool_use ids must be unique").
    Known("anthropic", ("tool-use-without-result", "result-without-tool-use", "tool-use-id-reused",
                        "tool-use-id-duplicate", "text-after-tool-use"),
          "API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation.",
          CC + "54638", "Claude Code"),
    Known("anthropic", ("result-without-tool-use",), "orphaned tool_result in conversation history",
          CC + "13964", "Claude Code"),
    Known("anthropic", ("result-without-tool-use",), "Orphaned tool_result block without corresponding tool_use",
          CC + "20895", "Claude Code"),
    Known("anthropic", ("tool-use-without-result",),
          "Orphaned tool_use blocks cause conversation corruption after parallel tool calls", CC + "21041",
          "Claude Code"),
    Known("anthropic", ("tool-use-id-duplicate", "tool-use-id-reused"), "duplicate tool_use ID", CC + "20885",
          "Claude Code"),
    Known("anthropic", ("tool-use-without-result", "result-without-tool-use"),
          "tool_use/tool_result block mismatch causing bad conversation state", CC + "6836", "Claude Code"),
    # -- OpenAI Chat Completions -------------------------------------------------------------
    Known("openai-chat", ("empty-tool-calls",),
          "Invalid 'messages[2].tool_calls': empty array. Expected an array with minimum length 1, but got an "
          "empty array instead."),
    Known("openai-chat", ("duplicate-tool-call-id",),
          "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_abc' in messages[3] and messages[5]."),
    Known("openai-chat", ("tool-calls-unanswered",),
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
          "'tool_call_id'. The following tool_call_ids did not have response messages: call_abc"),
    Known("openai-chat", ("tool-without-calls",),
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
          "'tool_calls'."),
    Known("openai-chat", ("tool-call-id-not-found",),
          "Invalid parameter: 'tool_call_id' of 'call_abc' not found in 'tool_calls' of previous message."),
    Known("openai-chat", ("unknown-role",),
          "Invalid value: 'model'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and "
          "'developer'."),
    Known("openai-chat", ("assistant-content-part",),
          "Invalid value: 'tool_use'. Supported values are: 'text' and 'refusal'."),
    Known("openai-chat", ("tool-call-id-length",),
          "Invalid 'messages[3].tool_calls[0].id': string too long. Expected a string with maximum length 40, but "
          "got a string with length 64 instead."),
    # -- OpenAI Responses --------------------------------------------------------------------
    Known("openai-responses", ("output-without-call",),
          "No tool call found for function call output with call_id call_abc."),
    Known("openai-responses", ("call-without-output",), "No tool output found for function call call_abc."),
    Known("openai-responses", ("unknown-role",),
          "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'."),
    Known("openai-responses", ("reasoning-without-following",),
          "Item 'rs_abc' of type 'reasoning' was provided without its required following item."),
    Known("openai-responses", ("call-without-reasoning",),
          "Item 'fc_abc' of type 'function_call' was provided without its required reasoning item."),
    Known("openai-responses", ("unstored-reference",),
          "Item with id 'rs_abc' not found. Items are not persisted when `store` is set to false. Try again with "
          "`store` set to true, or remove this item from your input."),
    Known("openai-responses", ("reasoning-without-encrypted-content",),
          "Missing required parameter: 'input[3].encrypted_content'."),
    Known("openai-responses", ("reasoning-content",),
          "Invalid 'input[2].content': array too long. Expected an array with maximum length 0, but got an array "
          "with length 1 instead."),
    Known("openai-responses", ("item-id-prefix",),
          "Invalid 'input[1].id': 'item_0'. Expected an ID that begins with 'rs'."),
    Known("openai-responses", ("encrypted-other-model",),
          "The encrypted content for item rs_abc could not be verified."),
    # -- Amazon Bedrock (Converse) -----------------------------------------------------------
    Known("bedrock", ("first-not-user",),
          "A conversation must start with a user message. Try again with a conversation that starts with a user "
          "message."),
    Known("bedrock", ("not-alternating",),
          "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
          "between user and assistant roles and try again."),
    Known("bedrock", ("tool-use-without-result",),
          "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_abc"),
    Known("bedrock", ("too-many-results",),
          "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous "
          "turn."),
    Known("bedrock", ("tool-use-id",),
          "1 validation error detected: Value 'a b' at 'messages.2.member.content.1.member.toolUse.toolUseId' "
          "failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"),
    Known("bedrock", ("tool-use-id",),
          "1 validation error detected: Value 'call_abc' at 'messages.2.member.content.1.member.toolUse.toolUseId' "
          "failed to satisfy constraint: Member must have length less than or equal to 64"),
    Known("bedrock", ("unknown-role",),
          "1 validation error detected: Value 'tool' at 'messages.2.member.role' failed to satisfy constraint: "
          "Member must satisfy enum value set: [user, assistant]"),
    Known("bedrock", ("blank-text",),
          "The text field in the ContentBlock object at messages.1.content.0 is blank. Add text to the text field, "
          "and try again."),
    # -- Gemini ------------------------------------------------------------------------------
    Known("gemini", ("call-turn-position",),
          "Please ensure that function call turn comes immediately after a user turn or after a function response "
          "turn."),
    Known("gemini", ("response-turn-position",),
          "Please ensure that function response turn comes immediately after a function call turn."),
    Known("gemini", ("response-count",),
          "Please ensure that the number of function response parts is equal to the number of function call parts "
          "of the function call turn."),
    Known("gemini", ("unknown-role",), "Please use a valid role: user, model."),
    Known("gemini", ("thought-signature", "thought-signature-unknown-model"),
          "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
          "correctly, and missing thought_signature may lead to degraded model performance. Additional data, "
          "function call `default_api:read_file`, position 2."),
    # -- Mistral -----------------------------------------------------------------------------
    Known("mistral", ("calls-responses-mismatch",), "Not the same number of function calls and responses"),
    Known("mistral", ("tool-call-id-format",),
          "Tool call id was call_abc but must be a-z, A-Z, 0-9, with a length of 9."),
    Known("mistral", ("user-after-tool",), "Unexpected role 'user' after role 'tool'"),
    Known("mistral", ("tool-after-user",), "Unexpected role 'tool' after role 'user'"),
    Known("mistral", ("empty-assistant",), "Assistant message must have either content or tool_calls, but not none"),
    # -- the OpenAI-compatible servers -------------------------------------------------------
    Known("groq", ("tool-call-id-missing",),
          "'messages.3' : for 'role:tool' the following must be satisfied[('messages.3.tool_call_id' : property "
          "'tool_call_id' is missing)]"),
    Known("groq", ("assistant-content-not-string",),
          "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2.content' : value must "
          "be a string)]"),
    Known("groq", ("thinking-fields",),
          "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : property "
          "'reasoning_content' is unsupported)]"),
    Known("deepseek", ("reasoning-not-passed-back",),
          "The `reasoning_content` in the thinking mode must be passed back to the API."),
    Known("xai", ("call-arguments-json",), "The arguments to a tool_call with ID 'call_abc' are not a valid JSON string"),
    Known("vllm", ("call-arguments-json",), "tool_call 'call_abc': arguments are not valid JSON (json.loads failed)"),
    # -- every target ------------------------------------------------------------------------
    Known(ANY, ("lone-surrogate",),
          "The request body is not valid JSON: invalid high surrogate in string (U+D83D at character 12)"),
    Known("anthropic", ("lone-surrogate",), "no low surrogate in string", CC + "6199"),
)

__all__ = ["ANY", "KNOWN", "OWN_TEXT", "Known"]

"""Histories written from each provider's documented request shapes (a weather bot calling
one tool twice in parallel), and helpers to break them the way real histories break.

Each ``clean`` document needs no repair; ``interrupted`` loses one result; ``noisy`` adds a
duplicate and an orphan result inside existing messages, so that removing them must give
back exactly ``clean``.
"""

from __future__ import annotations

import copy

INTERRUPTED = "Tool call was interrupted; no result."

OPENAI_CHAT = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"}], "name": "ana"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_abc", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "call_def", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}]},
        {"role": "tool", "tool_call_id": "call_abc", "content": "18C"},
        {"role": "tool", "tool_call_id": "call_def", "content": [{"type": "text", "text": "24C"}]},
        {"role": "assistant", "content": "Paris 18C, Rome 24C.", "refusal": None},
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
}

OPENAI_RESPONSES = {
    "model": "gpt-5",
    "input": [
        {"role": "developer", "content": "You are a weather bot."},
        {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris and Rome?"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_A", "name": "get_weather",
         "arguments": "{\"city\":\"Paris\"}", "status": "completed"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_B", "name": "get_weather",
         "arguments": "{\"city\":\"Rome\"}", "status": "completed"},
        {"type": "function_call_output", "call_id": "call_A", "output": "18C"},
        {"type": "function_call_output", "call_id": "call_B", "output": "24C"},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
         "content": [{"type": "output_text", "text": "Paris 18C, Rome 24C.", "annotations": []}]},
    ],
}

ANTHROPIC = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": "You are a weather bot.",
    "messages": [
        {"role": "user", "content": "What's the weather in Paris and Rome?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Two cities, two calls.", "signature": "EqQBCgIYAhIM"},
            {"type": "text", "text": "I'll check both."},
            {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Rome"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "18C"},
            {"type": "tool_result", "tool_use_id": "toolu_01B", "content": [{"type": "text", "text": "24C"}]}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Paris is 18C and Rome 24C."}]},
        {"role": "user", "content": [{"type": "text", "text": "Thanks!", "cache_control": {"type": "ephemeral"}}]},
    ],
}

GEMINI = {
    "systemInstruction": {"parts": [{"text": "You are a weather bot."}]},
    "contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2ln"},
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"temp": "18C"}}},
            {"functionResponse": {"name": "get_weather", "response": {"temp": "24C"}}}]},
        {"role": "model", "parts": [{"text": "Paris 18C, Rome 24C."}]},
        {"role": "user", "parts": [{"text": "Thanks!"}]},
    ],
    "generationConfig": {"temperature": 0.2},
}

GEMINI_IDS = {
    "contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}]},
        {"role": "model", "parts": [
            {"functionCall": {"id": "fc-1", "name": "get_weather", "args": {"city": "Paris"}}},
            {"functionCall": {"id": "fc-2", "name": "get_weather", "args": {"city": "Rome"}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"id": "fc-1", "name": "get_weather", "response": {"temp": "18C"}}},
            {"functionResponse": {"id": "fc-2", "name": "get_weather", "response": {"temp": "24C"}}}]},
        {"role": "model", "parts": [{"text": "Paris 18C, Rome 24C."}]},
        {"role": "user", "parts": [{"text": "Thanks!"}]},
    ],
}

BEDROCK = {
    "modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "system": [{"text": "You are a weather bot."}],
    "messages": [
        {"role": "user", "content": [{"text": "Weather in Paris and Rome?"}]},
        {"role": "assistant", "content": [
            {"text": "Checking both."},
            {"toolUse": {"toolUseId": "tooluse_A1", "name": "get_weather", "input": {"city": "Paris"}}},
            {"toolUse": {"toolUseId": "tooluse_B2", "name": "get_weather", "input": {"city": "Rome"}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_A1", "content": [{"json": {"temp": "18C"}}]}},
            {"toolResult": {"toolUseId": "tooluse_B2", "content": [{"text": "24C"}], "status": "success"}}]},
        {"role": "assistant", "content": [{"text": "Paris 18C, Rome 24C."}]},
        {"role": "user", "content": [{"text": "Thanks!"}]},
    ],
    "inferenceConfig": {"maxTokens": 512},
}

FLAT = [
    {"role": "system", "content": "You are a weather bot."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "get_weather"}]},
    {"role": "tool", "content": "18C", "tool_call_id": "c1"},
    {"role": "assistant", "content": "Paris 18C."},
]

CLEAN = {"openai-chat": OPENAI_CHAT, "openai-responses": OPENAI_RESPONSES, "anthropic": ANTHROPIC,
         "gemini": GEMINI, "bedrock": BEDROCK, "flat": FLAT}


def _sessions():
    from sessions.clean import clean_sessions  # the agents' session files, as parsed documents

    return clean_sessions()


CLEAN.update(_sessions())


def clone(doc):
    return copy.deepcopy(doc)

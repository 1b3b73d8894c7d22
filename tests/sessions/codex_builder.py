"""Codex CLI rollouts built the way codex-rs writes them: ``{timestamp, type, payload}``
lines, Responses items under ``response_item``, events and turn context between them."""

from __future__ import annotations

from typing import Any

import orjson

SESSION = "0199d3f2-7c1e-7a40-9b6e-5d2f8e3c1a07"


class Rollout:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.second = 0
        self._line("session_meta", {"id": SESSION, "timestamp": "2025-10-12T09:14:03.100Z", "cwd": "/home/dana/shop",
                                    "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": None,
                                    "source": "cli", "model_provider": "openai",
                                    "git": {"commit_hash": "9f2c1e4", "branch": "main"}})

    def _line(self, kind: str, payload: Any) -> dict[str, Any]:
        self.second += 1
        entry = {"timestamp": f"2025-10-12T09:14:{self.second:02d}.000Z", "type": kind, "payload": payload}
        self.lines.append(entry)
        return entry

    def user(self, text: str) -> None:
        self._line("turn_context", {"cwd": "/home/dana/shop", "approval_policy": "on-request",
                                    "sandbox_policy": {"mode": "workspace-write"}, "model": "gpt-5-codex",
                                    "effort": "medium", "summary": "auto"})
        self._line("response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": text}]})
        self._line("event_msg", {"type": "user_message", "message": text, "images": []})

    def reasoning(self, title: str) -> None:
        self._line("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": title}],
                                     "content": None, "encrypted_content": "gAAAAABo6x" + title[:6].encode().hex()})

    def call(self, call_id: str, command: str) -> None:
        args = orjson.dumps({"command": ["bash", "-lc", command], "workdir": "/home/dana/shop"}).decode()
        self._line("response_item", {"type": "function_call", "name": "shell", "arguments": args, "call_id": call_id})

    def output(self, call_id: str, text: str, code: int = 0) -> None:
        out = orjson.dumps({"output": text, "metadata": {"exit_code": code, "duration_seconds": 0.4}}).decode()
        self._line("response_item", {"type": "function_call_output", "call_id": call_id, "output": out})
        self._line("event_msg", {"type": "token_count", "info": None, "rate_limits": None})

    def say(self, text: str) -> None:
        self._line("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}]})
        self._line("event_msg", {"type": "agent_message", "message": text})

    def compact(self, keep: list[Any], summary: str) -> None:
        self._line("compacted", {"message": summary, "replacement_history": keep})

    def items(self) -> list[Any]:
        return [e["payload"] for e in self.lines if e["type"] == "response_item"]

    def data(self) -> bytes:
        return b"".join(orjson.dumps(e) + b"\n" for e in self.lines)


def crash_missing_output() -> bytes:
    r = Rollout()
    r.user("The checkout test fails, can you look?")
    r.reasoning("**Running the failing test**")
    r.call("call_Hn2k7Q", "pytest -q tests/test_checkout.py")
    r.output("call_Hn2k7Q", "F\nassert 10.0 == 9.99", 1)
    r.reasoning("**Reading cart totals**")
    r.call("call_Qz81Lm", "sed -n 30,60p shop/cart.py")
    r.user("Codex crashed, please continue.")
    return r.data()


def orphan_output_after_compaction() -> bytes:
    r = Rollout()
    r.user("The checkout test fails, can you look?")
    r.call("call_Hn2k7Q", "pytest -q tests/test_checkout.py")
    r.output("call_Hn2k7Q", "F\nassert 10.0 == 9.99", 1)
    r.call("call_Wd5s0P", "grep -rn round shop/")
    r.compact([{"type": "message", "role": "user", "content": [{"type": "input_text",
                "text": "The checkout test fails, can you look?"}]}],
              "Summary: the checkout total is rounded to one decimal.")
    r.output("call_Wd5s0P", "shop/cart.py:41: return round(total, 1)")
    r.say("Totals are rounded to one decimal; I'll fix that.")
    return r.data()


def duplicate_output() -> bytes:
    r = Rollout()
    r.user("Run the suite.")
    r.call("call_Rt4u9X", "pytest -x")
    r.output("call_Rt4u9X", "timed out", 124)
    r.output("call_Rt4u9X", "1 failed, 41 passed", 1)
    r.say("One test still fails.")
    return r.data()


def clean() -> bytes:
    r = Rollout()
    r.user("Run the suite.")
    r.reasoning("**Running tests**")
    r.call("call_Rt4u9X", "pytest -x")
    r.output("call_Rt4u9X", "42 passed", 0)
    r.say("All 42 tests pass.")
    return r.data()


BROKEN = {"crash-missing-output": crash_missing_output, "orphan-after-compaction": orphan_output_after_compaction,
          "duplicate-output": duplicate_output}

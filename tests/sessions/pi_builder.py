"""pi v3 session files written as pi writes them (badlogic/pi-mono @ 83378aad, packages/coding-agent
``src/core/session-manager.ts``): a ``session`` header, then one entry per line, each
``JSON.stringify`` of ``{type, id, parentId, timestamp, ...}`` followed by ``\\n``
(``_persist``/``appendFileSync``); ids are 8 hex digits (``generateId``), each entry the child of
the leaf before it (``_appendEntry``). Messages are pi-ai's (``packages/ai/src/types.ts``):
assistant ``{role, content, api, provider, model, usage, stopReason, timestamp}`` with blocks
``text``, ``thinking`` (+``thinkingSignature``), ``toolCall`` (+``thoughtSignature``);
``toolResult`` ``{role, toolCallId, toolName, content, isError, timestamp}``.

Scenarios: ``clean``, ``crash`` (a call with no result, then a user message), ``aborted`` (an
aborted assistant whose call got a result written), ``compacted`` (a compaction keeps the last
turn), ``responses`` (a composite ``call_…|fc_…`` id), ``branched`` (an abandoned branch).
"""

from __future__ import annotations

import json
from typing import Any

USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def stringify(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Session:
    """A session as SessionManager appends it (the leaf moves to each new entry)."""

    def __init__(self, sid: str = "7d3c1f0e-5a5b-4c2e-9f51-0c8a7e1b2d34", cwd: str = "/home/dev/app") -> None:
        self.entries: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": sid,
                                               "timestamp": "2026-11-03T09:00:00.000Z", "cwd": cwd}]
        self.leaf: str | None = None
        self.n = 0

    def append(self, kind: str, **fields: Any) -> str:
        self.n += 1
        eid = f"{0xa1000000 + self.n * 0x1111:08x}"
        entry = {"type": kind, "id": eid, "parentId": self.leaf,
                 "timestamp": f"2026-11-03T09:{self.n // 60:02d}:{self.n % 60:02d}.000Z", **fields}
        self.entries.append(entry)
        self.leaf = eid
        return eid

    def user(self, text: str) -> str:
        return self.append("message", message={"role": "user", "content": text, "timestamp": 1762160400000 + self.n})

    def assistant(self, blocks: list[dict[str, Any]], stop: str = "stop", provider: str = "anthropic",
                  model: str = "claude-sonnet-4-5", api: str = "anthropic-messages") -> str:
        return self.append("message", message={"role": "assistant", "content": blocks, "api": api,
                                               "provider": provider, "model": model, "usage": USAGE,
                                               "stopReason": stop, "timestamp": 1762160400000 + self.n})

    def result(self, call_id: str, name: str, text: str, error: bool = False) -> str:
        return self.append("message", message={"role": "toolResult", "toolCallId": call_id, "toolName": name,
                                               "content": [{"type": "text", "text": text}], "isError": error,
                                               "timestamp": 1762160400000 + self.n})

    def branch(self, entry_id: str) -> None:
        """``branch(entryId)``: the next entry is a child of ``entry_id``."""
        self.leaf = entry_id

    def text(self) -> str:
        return "".join(stringify(e) + "\n" for e in self.entries)


def call(cid: str, name: str, args: dict[str, Any], sig: str | None = None) -> dict[str, Any]:
    out = {"type": "toolCall", "id": cid, "name": name, "arguments": args}
    if sig:
        out["thoughtSignature"] = sig
    return out


def thinking(text: str, sig: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "thinkingSignature": sig}


def scenario(name: str) -> Session:
    s = Session()
    s.append("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    s.append("thinking_level_change", thinkingLevel="medium")
    s.user("List the failing tests")
    if name == "responses":
        s.assistant([thinking("", '{"type":"reasoning","id":"rs_1","encrypted_content":"gAAA"}'),
                     call("call_Ab12|fc_0a1b2c3d", "bash", {"command": "pytest -q"})],
                    stop="toolUse", provider="openai", model="gpt-5", api="openai-responses")
        s.result("call_Ab12|fc_0a1b2c3d", "bash", "2 failed")
        s.assistant([{"type": "text", "text": "Two tests fail."}], provider="openai", model="gpt-5",
                    api="openai-responses")
        return s
    s.assistant([thinking("Run the suite.", "EqQBCkYIBxgCKkD0"), call("toolu_01", "bash", {"command": "pytest -q"})],
                stop="toolUse")
    s.result("toolu_01", "bash", "2 failed, 40 passed")
    s.assistant([{"type": "text", "text": "Two tests fail: test_a and test_b."}])
    if name == "clean":
        return s
    if name == "crash":
        s.user("Fix test_a")
        s.assistant([thinking("Read it first.", "EqQBCkYIBxgCKkD1"), call("toolu_02", "read", {"path": "t.py"})],
                    stop="toolUse")
        s.user("Are you there?")
        s.assistant([{"type": "text", "text": "Yes."}])
    elif name == "aborted":
        s.user("Fix test_a")
        s.assistant([call("toolu_03", "edit", {"path": "a.py"})], stop="aborted")
        s.result("toolu_03", "edit", "Tool execution was aborted", error=True)
        s.user("Try again")
        s.assistant([{"type": "text", "text": "Retrying."}])
    elif name == "compacted":
        kept = s.user("Now fix them")
        s.assistant([call("toolu_04", "edit", {"path": "a.py"})], stop="toolUse")
        s.result("toolu_04", "edit", "ok")
        s.append("compaction", summary="The user asked to list and fix failing tests.", firstKeptEntryId=kept,
                 tokensBefore=50000)
        s.user("Done?")
        s.assistant([{"type": "text", "text": "Done."}])
    elif name == "branched":
        fork = s.leaf
        s.user("Abandoned idea")
        s.assistant([call("toolu_05", "bash", {"command": "rm -rf build"})], stop="toolUse")
        s.branch(fork)
        s.user("Different idea")
        s.assistant([{"type": "text", "text": "Sure."}])
    return s


def sample() -> Session:
    """``samples/31-pi-session.jsonl``: a compacted session on OpenAI Responses (composite
    ``call_…|fc_…`` ids, encrypted reasoning), a bash call lost when pi was killed mid-run,
    then the user's next message; and a turn that ended in a provider error (retried) whose call
    still got a result written."""
    s = Session("0f6b9a4e-2d1c-4b7a-8e3f-5a9c1d2e3b4f", "/home/dana/shop")
    s.append("model_change", provider="openai", modelId="gpt-5.1-codex")
    s.user("Why does the cart total drift by a cent?")
    resp = {"provider": "openai", "model": "gpt-5.1-codex", "api": "openai-responses"}
    s.assistant([thinking("", '{"type":"reasoning","id":"rs_01","encrypted_content":"gAAAAB1x"}'),
                 call("call_Q1cart|fc_01cart", "read", {"path": "shop/cart.py"})], stop="toolUse", **resp)
    s.result("call_Q1cart|fc_01cart", "read", "def total(items): return round(sum(i.price for i in items), 1)")
    kept = s.assistant([{"type": "text", "text": "total() rounds to one decimal."}], **resp)
    s.append("compaction", summary="The user asked why the cart total drifts; total() rounds to one decimal.",
             firstKeptEntryId=kept, tokensBefore=48211)
    s.user("Run the cart tests")
    s.assistant([thinking("", '{"type":"reasoning","id":"rs_02","encrypted_content":"gAAAAB2y"}'),
                 call("call_R2test|fc_02test", "bash", {"command": "pytest tests/test_cart.py -q"})],
                stop="toolUse", **resp)
    s.user("pi crashed - are the tests passing?")
    s.assistant([call("call_S3edit|fc_03edit", "edit", {"path": "shop/cart.py"})], stop="error", **resp)
    s.result("call_S3edit|fc_03edit", "edit", "Operation aborted", error=True)
    s.assistant([{"type": "text", "text": "The tests never finished. Shall I run them again?"}], **resp)   # the retry
    s.user("Leave the file alone for now.")
    s.assistant([{"type": "text", "text": "Understood."}], **resp)
    return s


# -- oh-my-pi -----------------------------------------------------------------------------------
# can1357/oh-my-pi writes pi's tree with its own ids and entries (session-manager.ts @ adad196fd3ba:
# ``generateId`` = ``nanoid(8)``, a session id ``nanoid()``, files ``<iso time, [:.] as ->_<id>.jsonl``
# under ``~/.omp/agent/sessions/--<cwd>--/``; ``model_change`` as ``{model: "provider/id", role}``;
# ``ttsr_injection``; ``fileMention`` messages), and since then (session-entries.ts @ 01d016cac40f) a
# first line that is a 256-byte title slot (``serializeTitleSlot``), ``mode_change`` and
# ``reset_boundary`` (``/clear``) entries.

NANOID = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict"   # nanoid's url alphabet


def nanoid(seed: int, size: int) -> str:
    """A fixed id in nanoid's alphabet (its ``-`` and ``_`` included), one per seed."""
    out, n = [], seed
    for _ in range(size):
        n = (n * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        out.append(NANOID[n >> 58])
    return "".join(out)


def title_slot(title: str, updated: str, source: str = "auto") -> str:
    """``serializeTitleSlot``: the slot's JSON padded with spaces to exactly 256 UTF-8 bytes."""
    slot = {"type": "title", "v": 1, "title": title, "source": source, "updatedAt": updated, "pad": ""}
    slot["pad"] = " " * (255 - len(stringify(slot).encode()))
    line = stringify(slot) + "\n"
    assert len(line.encode()) == 256
    return line


class OmpSession(Session):
    """A session as oh-my-pi's SessionManager writes it."""

    def __init__(self, title: str | None = "Fix the failing tests", cwd: str = "/home/dev/app") -> None:
        super().__init__(nanoid(1, 21), cwd)
        self.entries[0]["title"] = title
        self.title = title

    def append(self, kind: str, **fields: Any) -> str:
        eid = super().append(kind, **fields)
        fresh = nanoid(self.n + 100, 8)
        self.entries[-1]["id"] = fresh
        for e in self.entries:
            if e.get("parentId") == eid:
                e["parentId"] = fresh
        self.leaf = fresh
        return fresh

    def model(self, model: str = "anthropic/claude-sonnet-4-5", role: str | None = "default") -> str:
        return self.append("model_change", model=model, **({"role": role} if role else {}))

    def mention(self, path: str, content: str) -> str:
        return self.append("message", message={"role": "fileMention", "files": [
            {"path": path, "content": content, "lineCount": content.count("\n") + 1}],
            "timestamp": 1762160400000 + self.n})

    def name(self) -> str:
        stamp = self.entries[0]["timestamp"].replace(":", "-").replace(".", "-")
        return f"{stamp}_{self.entries[0]['id']}.jsonl"

    def text(self) -> str:
        slot = title_slot(self.title, "2026-11-03T09:00:30.000Z") if self.title else ""
        return slot + super().text()


def omp_scenario(name: str) -> OmpSession:
    """``clean``: a title slot, the model as oh-my-pi records it, a TTSR injection, an ``@file``
    mention and one call answered; ``cleared``: a result written for a call the turn never made
    (the provider refuses it), then ``/clear`` and a new exchange after it;
    ``cleared_then_broken``: the same with another such result after ``/clear``."""
    s = OmpSession()
    s.model()
    s.append("model_change", model="anthropic/claude-haiku-4-5", role="smol")
    s.append("ttsr_injection", injectedRules=["no-force-push"])
    s.user("Why does test_a fail?")
    s.mention("tests/test_a.py", "def test_a():\n    assert total([0.1, 0.2]) == 0.3")
    s.assistant([call("toolu_01", "bash", {"command": "pytest tests/test_a.py -q"})], stop="toolUse")
    s.result("toolu_01", "bash", "1 failed")
    s.assistant([{"type": "text", "text": "Float rounding: compare with pytest.approx."}])
    if name == "clean":
        return s
    s.user("And test_b?")
    s.assistant([{"type": "text", "text": "Running it."}])
    s.result("toolu_09", "bash", "1 passed")
    s.assistant([{"type": "text", "text": "test_b passes."}])
    s.append("reset_boundary")
    s.user("Start over: list the tests")
    s.assistant([call("toolu_02", "bash", {"command": "pytest --co -q"})], stop="toolUse")
    s.result("toolu_02", "bash", "test_a\ntest_b")
    if name == "cleared_then_broken":          # the same orphan, after /clear this time
        s.result("toolu_08", "bash", "stale output")
    s.assistant([{"type": "text", "text": "Two tests."}])
    return s

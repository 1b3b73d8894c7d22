"""Task folders of Cline, Roo Code and Kilo Code, built the way each extension writes them
(record keys in the extension's order, ``JSON.stringify`` without indentation), so the tests
can break them in each way a resume goes wrong. Sources: docs/stores/cline.md.

A folder is written under a fake ``globalStorage/<extension id>`` root:
``tasks/<taskId>/api_conversation_history.json``, ``ui_messages.json``,
``task_metadata.json`` and, for Cline, ``state/taskHistory.json`` holding the truncation range.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXTENSION_IDS = {"cline": "saoudrizwan.claude-dev", "roo": "rooveterinaryinc.roo-cline",
                 "kilo": "kilocode.kilo-code"}
TASK_ID = "1760260800000"
START = 1760260800000
CWD = "/home/dana/shop"
MODEL = "claude-sonnet-4-5-20250929"


def stringify(value: Any, indent: int | None = None) -> bytes:
    """``JSON.stringify(value)`` (or ``JSON.stringify(value, null, indent)``), as the extensions
    write their files: compact, non-ASCII unescaped, no trailing newline."""
    if indent is None:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    return json.dumps(value, ensure_ascii=False, indent=indent).encode()


def text(t: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": t, **extra}


def tool(tool_id: str, name: str = "execute_command", **params: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": params or {"command": "ls"}}


def result(tool_id: str, output: Any, error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": output}
    if error:
        block["is_error"] = True
    return block


def thinking(thought: str, signature: str | None = "EqQBCkgIBRABGAIiQL2mZ8w0Wc", **extra: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "thinking", "thinking": thought}
    if signature is not None:
        block["signature"] = signature
    block.update(extra)
    return block


def environment(n: int) -> dict[str, Any]:
    return text(f"<environment_details>\n# VSCode Visible Files\nshop/cart.py\n\n# Current Time\n"
                f"10/12/2025, 9:{10 + n:02d}:00 AM (UTC)\n</environment_details>")


class Task:
    """One task's files. ``ext`` is ``cline``, ``roo`` or ``kilo``; ``summary_role`` is the
    role Roo (``user``, 3.43+) or Kilo and older Roo (``assistant``) give a condense summary."""

    def __init__(self, ext: str, task_id: str = TASK_ID) -> None:
        self.ext = ext
        self.task_id = task_id
        self.messages: list[dict[str, Any]] = []
        self.ui: list[dict[str, Any]] = []
        self.clock = START
        self.deleted_range: list[int] | None = None
        self.context_history: list[Any] | None = None
        self.requests = 0

    def _ts(self) -> int:
        self.clock += 7_000
        return self.clock

    def _say(self, say: str, text_: str, **extra: Any) -> None:
        msg: dict[str, Any] = {"ts": self._ts(), "type": "say", "say": say, "text": text_, **extra}
        if self.ext == "cline":
            msg["conversationHistoryIndex"] = len(self.messages) - 1
            if self.deleted_range is not None:
                msg["conversationHistoryDeletedRange"] = list(self.deleted_range)
        self.ui.append(msg)

    def task(self, prompt: str) -> dict[str, Any]:
        self._say("task", prompt)
        return self.user(text(f"<task>\n{prompt}\n</task>"), environment(0))

    def user(self, *blocks: Any, **extra: Any) -> dict[str, Any]:
        content: Any = blocks[0] if len(blocks) == 1 and isinstance(blocks[0], str) else list(blocks)
        msg = {"role": "user", "content": content, **extra}
        msg.setdefault("ts", self._ts())
        self.messages.append(msg)
        return msg

    def assistant(self, *blocks: Any, **extra: Any) -> dict[str, Any]:
        self.requests += 1
        self._say("api_req_started", json.dumps({"request": "…", "tokensIn": 5120, "tokensOut": 40,
                                                 "cacheWrites": 0, "cacheReads": 4096, "cost": 0.0213}))
        if self.ext == "cline":
            msg = {"role": "assistant", "content": list(blocks),
                   "modelInfo": {"modelId": MODEL, "providerId": "anthropic", "mode": "act"},
                   "id": f"msg_01Cl{self.requests:04d}",
                   "metrics": {"tokens": {"prompt": 5120, "completion": 40, "cached": 4096}, "cost": 0.0213},
                   "ts": self._ts(), **extra}
        else:
            msg = {"role": "assistant", "content": list(blocks), **extra}
            msg.setdefault("ts", self._ts())
        self.messages.append(msg)
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "text":
                self._say("text", b["text"])
        return msg

    def raw(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.messages.append(msg)
        return msg

    def condense(self, summary: str, keep: int = 2, condense_id: str = "c0ffee00-1111-4222-8333-444455556666"
                 ) -> dict[str, Any]:
        """A non-destructive condense as the extension writes it. Roo (3.43+): every message
        tagged, the summary a user message appended at the end. Kilo (and Roo before 3.43): the
        first message and the last ``keep`` stay, the others are tagged, the summary is an
        assistant message inserted before the kept ones."""
        if self.ext == "roo":
            for m in self.messages:
                m.setdefault("condenseParent", condense_id)
            msg = {"role": "user", "content": [text(f"## Conversation Summary\n{summary}")],
                   "ts": self.messages[-1]["ts"] + 1, "isSummary": True, "condenseId": condense_id}
            self.messages.append(msg)
        else:
            start = len(self.messages) - keep
            for m in self.messages[1:start]:
                m.setdefault("condenseParent", condense_id)
            # The calls whose results open the kept tail go into the summary, so that they stay
            # paired (Kilo's getKeepMessagesWithToolBlocks / toolUseBlocksToPreserve).
            answered = {b.get("tool_use_id") for b in self.messages[start]["content"]
                        if isinstance(b, dict) and b.get("type") == "tool_result"}
            kept_calls = [b for b in self.messages[start - 1]["content"]
                          if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") in answered]
            msg = {"role": "assistant", "content": [text(summary), *kept_calls], "ts": self.messages[start]["ts"] - 1,
                   "isSummary": True, "condenseId": condense_id}
            self.messages.insert(start, msg)
        self._say("condense_context", "", contextCondense={"cost": 0.0412, "prevContextTokens": 171022,
                                                           "newContextTokens": 9120, "summary": summary,
                                                           "condenseId": condense_id})
        return msg

    def slide(self, frac: float = 0.5, truncation_id: str = "7a1d0000-2222-4333-8444-555566667777") -> dict[str, Any]:
        """Roo's and Kilo's sliding-window truncation (context-management/index.ts
        truncateConversation): an even number of visible messages after the first are tagged
        ``truncationParent`` and a user marker is inserted before the first one kept."""
        visible = [k for k, m in enumerate(self.messages) if not m.get("truncationParent")
                   and not m.get("isTruncationMarker")]
        raw = int((len(visible) - 1) * frac)
        remove = raw - raw % 2
        for k in visible[1:remove + 1]:
            self.messages[k] = {**self.messages[k], "truncationParent": truncation_id}
        at = visible[remove + 1] if remove + 1 < len(visible) else len(self.messages)
        marker = {"role": "user", "content": f"[Sliding window truncation: {remove} messages hidden to reduce context]",
                  "ts": self.messages[at]["ts"] - 1 if at < len(self.messages) else self._ts(),
                  "isTruncationMarker": True, "truncationId": truncation_id}
        self.messages.insert(at, marker)
        return marker

    def truncate_range(self, start: int, end: int) -> None:
        """Cline's context truncation: the inclusive range of messages no longer sent."""
        self.deleted_range = [start, end]
        self._say("text", "Context window truncated.")

    # -- files -----------------------------------------------------------------------------
    def metadata(self) -> dict[str, Any]:
        return {"files_in_context": [{"path": "shop/cart.py", "record_state": "active", "record_source": "read_tool",
                                      "cline_read_date": START + 14_000, "cline_edit_date": None,
                                      "user_edit_date": None}],
                "model_usage": [{"ts": START + 7_000, "model_id": MODEL, "model_provider_id": "anthropic",
                                 "mode": "act"}],
                "environment_history": []}

    def history_item(self) -> dict[str, Any]:
        item = {"id": self.task_id, "ulid": "01K7C0ZQ4V3N8T6W2Y5X9B1D7F", "ts": self.clock,
                "task": self.ui[0]["text"] if self.ui else "", "tokensIn": 5120 * self.requests,
                "tokensOut": 40 * self.requests, "cacheWrites": 0, "cacheReads": 4096 * self.requests,
                "totalCost": round(0.0213 * self.requests, 4), "size": 48213, "cwdOnTaskInitialization": CWD,
                "isFavorited": False, "modelId": MODEL}
        if self.deleted_range is not None:
            item["conversationHistoryDeletedRange"] = list(self.deleted_range)
        return item

    def api_bytes(self) -> bytes:
        return stringify(self.messages)

    def write(self, root: str | Path) -> Path:
        """Write the folder under ``root`` (a fake globalStorage/<extension id>); returns the
        task folder."""
        root = Path(root)
        folder = root / "tasks" / self.task_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "api_conversation_history.json").write_bytes(self.api_bytes())
        (folder / "ui_messages.json").write_bytes(stringify(self.ui))
        meta = self.metadata()
        (folder / "task_metadata.json").write_bytes(stringify(meta, 2) if self.ext == "cline" else stringify(meta))
        if self.context_history is not None:
            (folder / "context_history.json").write_bytes(stringify(self.context_history))
        if self.ext == "cline":
            (root / "state").mkdir(exist_ok=True)
            (root / "state" / "taskHistory.json").write_bytes(stringify([self.history_item()]))
        elif self.ext == "roo":
            (folder / "history_item.json").write_bytes(stringify(self.history_item()))
        return folder


# -- scenarios ---------------------------------------------------------------------------------
# Each returns a Task; ``SCENARIOS[name](ext)``. What each extension does with it on resume is
# the simulator's to say (tests/sessions/cline_simulate.py).

def opening(t: Task) -> None:
    t.task("The checkout test fails with a rounding error, can you look?")
    t.assistant(text("I'll run the failing test first."), tool("toolu_01Run", command="pytest tests/test_checkout.py"))
    t.user(result("toolu_01Run", "FAILED tests/test_checkout.py::test_total - assert 10.0 == 9.99"), environment(1))


def clean(ext: str) -> Task:
    """A healthy task that ended at attempt_completion: its call is unanswered until the user
    replies, as in every finished task."""
    t = Task(ext)
    opening(t)
    t.assistant(tool("toolu_01Read", "read_file", path="shop/cart.py"))
    t.user(result("toolu_01Read", "def total(items):\n    return round(sum(items), 1)"), environment(2))
    t.assistant(text("total() rounds to one decimal."), tool("toolu_01Done", "attempt_completion",
                                                           result="Totals now round to cents."))
    return t


def crash_trailing(ext: str) -> Task:
    """VS Code was closed while a command ran: the task ends with the call unanswered."""
    t = Task(ext)
    opening(t)
    t.assistant(text("Running the whole suite."), tool("toolu_01Suite", command="pytest -x"))
    return t


def crash_parallel_lost(ext: str) -> Task:
    """Two parallel calls; the window reloaded after one result was written and the user went
    on: the other call is unanswered in the middle of the history."""
    t = Task(ext)
    opening(t)
    t.assistant(text("Reading both files."), tool("toolu_01Cart", "read_file", path="shop/cart.py"),
                tool("toolu_01Tax", "read_file", path="shop/tax.py"))
    t.user(result("toolu_01Tax", "RATE = 0.2"), environment(2))
    t.assistant(text("The tax rate is fine; the cart file did not load."))
    t.user(text("<user_message>\nlook at cart.py again\n</user_message>"), environment(3))
    t.assistant(tool("toolu_01Again", "read_file", path="shop/cart.py"))
    t.user(result("toolu_01Again", "def total(items):\n    return round(sum(items), 1)"), environment(4))
    return t


def crash_then_typed(ext: str) -> Task:
    """A command never returned and the user's next words were stored right after it (as Roo
    and Kilo did before they validated user messages): a resume appends its placeholder after
    those words, where Anthropic refuses a result."""
    t = Task(ext)
    opening(t)
    t.assistant(text("Running the whole suite."), tool("toolu_01Suite", command="pytest -x"))
    t.user(text("<user_message>\nVS Code froze, I restarted it. Go on.\n</user_message>"), environment(2))
    return t


def duplicate_result(ext: str) -> Task:
    """A terminal fallback answered one command twice, in two user messages (Roo #10465)."""
    t = Task(ext)
    opening(t)
    t.assistant(tool("toolu_01Slow", command="npm run test:e2e"))
    t.user(result("toolu_01Slow", "Command timed out after 600s", error=True), environment(2))
    t.user(result("toolu_01Slow", "41 passed, 1 failed"), text("<user_message>\nthe tests finished\n</user_message>"))
    t.assistant(text("One end-to-end test still fails."), tool("toolu_01Log", command="cat e2e.log"))
    t.user(result("toolu_01Log", "checkout.spec: expected 9.99"), environment(3))
    return t


def orphan_result(ext: str) -> Task:
    """A stream was cut after its call had run: the assistant message was saved without the
    call, the result came after it and names a call the history never declares."""
    t = Task(ext)
    opening(t)
    t.assistant(text("Let me look at the cart module.\n\n[Response interrupted by API Error]"))
    t.user(result("toolu_01Lost", "def total(items):\n    return round(sum(items), 1)"), environment(2))
    t.assistant(text("total() rounds to one decimal."), tool("toolu_01Fix", "apply_diff", path="shop/cart.py"))
    t.user(result("toolu_01Fix", "Changes applied."), environment(3))
    return t


def condensed(ext: str) -> Task:
    """A condensed (Roo, Kilo) or truncated (Cline) task whose stored history holds a result
    the cut orphaned: the extension does not send it."""
    t = Task(ext)
    opening(t)
    t.assistant(tool("toolu_01Grep", "search_files", path="shop", regex="round"))
    t.user(result("toolu_01Grep", "shop/cart.py:41: return round(total, 1)"), environment(2))
    t.assistant(text("Found it."), tool("toolu_01Open", "read_file", path="shop/cart.py"))
    t.user(result("toolu_01Open", "def total(items):\n    return round(sum(items), 1)"), environment(3))
    if ext == "cline":
        # messages 2..5 are no longer sent; message 6 (a user message) opens the rest, and the
        # results it carries lost their calls: Cline strips them.
        t.assistant(tool("toolu_01Edit", "replace_in_file", path="shop/cart.py"))
        t.user(result("toolu_01Edit", "Changes applied."), environment(4))
        t.truncate_range(2, 5)
        t.assistant(text("Fixed: totals now round to cents."), tool("toolu_01Done", "attempt_completion",
                                                                     result="Fixed."))
        t.user(result("toolu_01Done", "The user approved."), text("<feedback>\nrun the tests\n</feedback>"))
        t.assistant(tool("toolu_01Test", command="pytest"))
        t.user(result("toolu_01Test", "42 passed"), environment(5))
        return t
    if ext == "roo":
        t.assistant(tool("toolu_01Edit", "apply_diff", path="shop/cart.py"))
        t.condense("The user asked to fix a rounding bug; total() in shop/cart.py rounds to one decimal; "
                   "an edit was started.")
        # The edit finished after the condense: its result is after the summary, its call is not.
        t.user(result("toolu_01Edit", "Changes applied."), environment(4))
    else:
        t.condense("The user asked to fix a rounding bug; total() in shop/cart.py rounds to one decimal.", keep=3)
        t.assistant(tool("toolu_01Edit", "apply_diff", path="shop/cart.py"))
        t.user(result("toolu_01Edit", "Changes applied."), environment(4))
    t.assistant(text("Fixed: totals now round to cents."), tool("toolu_01Test", command="pytest"))
    t.user(result("toolu_01Test", "42 passed"), environment(5))
    return t


def reasoning(ext: str) -> Task:
    """Extended thinking in every turn (signed, as Anthropic returned it), and a turn whose
    parallel call lost its result: the repair must leave every thinking block as it is."""
    t = Task(ext)
    t.task("Why does the export write an empty CSV?")
    sig = {"cline": "ErUBCkYIBhgCIkB0", "roo": "EqQBCkgIBRABGAIi", "kilo": "EsgBCkYIBxgCKkC3"}[ext]
    extra = {"summary": [], "call_id": "msg_01Th0001"} if ext == "cline" else {}
    t.assistant(thinking("The CSV is empty: either no rows or the writer is never flushed.", sig + "Aa1", **extra),
                text("Checking the log and the writer."), tool("toolu_01Log", command="tail -n 20 logs/export.log"),
                tool("toolu_01Writer", "read_file", path="export/writer.py"))
    t.user(result("toolu_01Log", "WARN 0 rows selected"), environment(1))
    t.assistant(thinking("Zero rows selected: the query filters on a date in the future.", sig + "Bb2", **extra),
                text("The query selected no rows."), tool("toolu_01Query", "read_file", path="export/query.sql"))
    t.user(result("toolu_01Query", "WHERE day > now()"), environment(2))
    if ext == "cline":
        # Cline keeps an unsigned thinking block when a provider returned none; it never sends it.
        t.assistant(thinking("Summarize.", None, summary=[], call_id="msg_01Th0003"),
                    text("The filter compares with now(), so no row ever matches."))
    elif ext == "roo":
        # A turn from a non-Anthropic model: plain reasoning stored first, never sent to Anthropic.
        t.assistant({"type": "reasoning", "text": "Explain the filter.", "summary": []},
                    text("The filter compares with now(), so no row ever matches."))
    else:
        t.assistant(thinking("Explain the filter.", sig + "Cc3"),
                    text("The filter compares with now(), so no row ever matches."))
    t.user(text("<user_message>\nthanks, fix it\n</user_message>"), environment(3))
    return t


def truncated(ext: str) -> Task:
    """A long task the extension truncated: the hidden part holds a call that never got a
    result (an old crash); what is sent after the cut is whole."""
    t = Task(ext)
    opening(t)
    t.assistant(tool("toolu_01Old", command="make build"))
    t.user(text("<user_message>\nthe build hung, I restarted VS Code\n</user_message>"), environment(2))
    t.assistant(tool("toolu_01Ls", "list_files", path="shop"))
    t.user(result("toolu_01Ls", "cart.py\ntax.py"), environment(3))
    t.assistant(tool("toolu_01Read", "read_file", path="shop/cart.py"))
    t.user(result("toolu_01Read", "def total(items):\n    return round(sum(items), 1)"), environment(4))
    if ext == "cline":
        t.truncate_range(2, 5)
    else:
        t.slide(0.5)
    t.assistant(text("total() rounds to one decimal."), tool("toolu_01Fix", "apply_diff", path="shop/cart.py"))
    t.user(result("toolu_01Fix", "Changes applied."), environment(5))
    return t


SCENARIOS = {
    "truncated": truncated,
    "clean": clean,
    "crash-trailing": crash_trailing,
    "crash-parallel-lost": crash_parallel_lost,
    "crash-then-typed": crash_then_typed,
    "duplicate-result": duplicate_result,
    "orphan-result": orphan_result,
    "condensed": condensed,
    "reasoning": reasoning,
}

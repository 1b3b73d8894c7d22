"""Broken Claude Code sessions, one per failure the issue lists (and a clean one)."""

from __future__ import annotations

from .claude_builder import Session, text, tool


def opening(s: Session) -> None:
    s.snapshot()
    s.user("The checkout test fails with a rounding error, can you look?")
    s.assistant("msg_01A7kq2", text("Let me run the test first."), tool("toolu_01Run", "pytest tests/test_checkout.py"))
    s.result("toolu_01Run", "FAILED tests/test_checkout.py::test_total - assert 10.0 == 9.99")


def crash_missing_result() -> bytes:
    """The CLI was killed while a command ran: the call has no result; the user wrote again."""
    s = Session()
    opening(s)
    s.assistant("msg_01B2cr4", text("I'll look at the cart code."), tool("toolu_01Cat", "cat shop/cart.py"))
    s.user("Sorry, my terminal crashed. Where were we?")
    return s.data()


def orphan_after_compaction() -> bytes:
    """Auto-compaction summarized the call away while its command ran; its result came after."""
    s = Session()
    opening(s)
    s.assistant("msg_01C3co5", tool("toolu_01Grep", "grep -rn round shop/"))
    s.boundary()
    s.result("toolu_01Grep", "shop/cart.py:41:    return round(total, 1)")
    s.assistant("msg_01C4co6", text("Found it: totals are rounded to one decimal."))
    s.user("Fix it please.")
    return s.data()


def duplicate_ids() -> bytes:
    """One message declares toolu_01Lint twice (as Claude Code 2.1.19 sent, \"messages.1.content.1:
    `tool_use` ids must be unique\", anthropics/claude-code#21083)."""
    s = Session()
    opening(s)
    s.assistant("msg_01D5du7", tool("toolu_01Lint", "ruff check shop/"), tool("toolu_01Lint", "ruff check shop/"))
    s.result("toolu_01Lint", "All checks passed!")
    s.assistant("msg_01D6du8", text("The linter is clean."))
    s.user("Go on.")
    return s.data()


def reused_id() -> bytes:
    """A later turn reuses toolu_01Run, whose first pair is complete (issue 30): the API answered a
    request like it (pydantic-ai's recorded cassette), so nothing is broken."""
    s = Session()
    opening(s)
    s.assistant("msg_01D5du7", tool("toolu_01Run", "pytest tests/test_checkout.py"))
    s.result("toolu_01Run", "FAILED tests/test_checkout.py::test_total - assert 10.0 == 9.99")
    s.assistant("msg_01D6du8", text("The same assertion fails."))
    s.user("Go on.")
    return s.data()


def parallel_one_lost() -> bytes:
    """Two parallel calls; the writer lost one result entirely."""
    s = Session()
    opening(s)
    s.assistant("msg_01E7pa9", text("Reading both files."), tool("toolu_01Cart", "cat shop/cart.py"),
                tool("toolu_01Tax", "cat shop/tax.py"))
    s.result("toolu_01Tax", "RATE = 0.2")
    s.user("Anything?")
    return s.data()


def result_off_chain() -> bytes:
    """Two parallel calls; each result hangs off its own tool_use line, so only the last branch
    is on the chain a resume walks (#31330)."""
    s = Session()
    opening(s)
    a1, a2 = s.assistant("msg_01F8oc1", tool("toolu_01Cart", "cat shop/cart.py"), tool("toolu_01Tax", "cat shop/tax.py"))
    s.result("toolu_01Cart", "def total(items):\n    return round(sum(items), 1)", parent=a1["uuid"])
    s.result("toolu_01Tax", "RATE = 0.2", parent=a2["uuid"])
    s.assistant("msg_01F9oc2", text("total() rounds to one decimal; that is the bug."))
    s.user("Fix it please.")
    return s.data()


def duplicate_result() -> bytes:
    """A timed-out command was retried and both results were written for one tool_use."""
    s = Session()
    opening(s)
    s.assistant("msg_01G1dr2", tool("toolu_01Slow", "pytest -x"))
    s.result("toolu_01Slow", "Command timed out after 2m 0s", error=True)
    s.result("toolu_01Slow", "1 failed, 41 passed")
    s.assistant("msg_01G2dr3", text("One test still fails."))
    return s.data()


def split_and_clean() -> bytes:
    """A healthy session: split assistant lines, a sidechain, a summary and snapshots."""
    s = Session()
    opening(s)
    s.sidechain("Search the repo for rounding helpers")
    s.assistant("msg_01H3ok4", text("The total is rounded to one decimal."), tool("toolu_01Edit", "sed -i s/1)/2)/ shop/cart.py"))
    s.result("toolu_01Edit", "")
    s.system("Checkpoint saved")
    s.assistant("msg_01H4ok5", text("Fixed: totals now round to cents."))
    s.summary("Fix checkout rounding")
    return s.data()


BROKEN = {
    "crash-missing-result": crash_missing_result,
    "orphan-after-compaction": orphan_after_compaction,
    "duplicate-ids": duplicate_ids,
    "parallel-one-lost": parallel_one_lost,
    "result-off-chain": result_off_chain,
    "duplicate-result": duplicate_result,
}


def separated_result() -> bytes:
    """The user typed while a command ran, so their line landed between the call and its result."""
    s = Session()
    opening(s)
    s.assistant("msg_01J5sp6", tool("toolu_01Long", "pytest -q"))
    s.user("also check the linter when done")
    s.result("toolu_01Long", "42 passed")
    s.assistant("msg_01J6sp7", text("Tests pass; running the linter."))
    return s.data()


def orphan_in_mixed_line() -> bytes:
    """After compaction an interrupted tool's error result and the user's note share one line."""
    s = Session()
    opening(s)
    s.assistant("msg_01K7mx8", tool("toolu_01Gone", "make build"))
    s.boundary()
    s.user([{"type": "tool_result", "tool_use_id": "toolu_01Gone", "content": "interrupted", "is_error": True},
            {"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.user("Let's try the tests instead.")
    return s.data()


def broken_parent() -> bytes:
    """A line names a parent that was never written (#22526): a resume starts after it."""
    s = Session()
    opening(s)
    s.user("Next question.", parent="6b1e0000-0000-4000-8000-00000000dead")
    s.assistant("msg_01L8bp9", tool("toolu_01Ls", "ls"))
    s.user("hello?")
    return s.data()


def compacted_elsewhere() -> bytes:
    """A compact boundary whose logical parent lives in another (older) session file."""
    s = Session()
    s.last = "0a0a0a0a-0000-4000-8000-0000000f11e5"
    s.boundary()
    s.assistant("msg_01M9ce1", tool("toolu_01Cat", "cat README.md"))
    s.result("toolu_01Cat", "# shop")
    s.assistant("msg_01M9ce2", text("The README is one line."))
    return s.data()


def crash_with_trailing_system_line() -> bytes:
    """The last turn's call never returned; a turn_duration system line hangs off it (2.1.x)."""
    s = Session(version="2.1.90")
    opening(s)
    s.assistant("msg_01N1ts2", text("Editing the cart."), tool("toolu_01Edit", "sed -i s/1)/2)/ shop/cart.py"))
    s.system("turn_duration")
    return s.data()

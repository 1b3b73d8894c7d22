"""Reasoning in the agents' session stores (issue 20 items 1, 2 and 5, for the stores): each
store's importer records its thinking or reasoning with its turn, signed or not and the model
that wrote it where the store says so; a repair that touches a signed turn says so; and
``--reasoning strip`` removes every block, one event per block, every other line or row as it
was.

Ground truth per store: Claude Code writes one content block per assistant line in 2.1.x
streaming, a ``thinking`` block with its ``signature`` (anthropics/claude-code #21726 and
#66204 quote such lines, and the "Invalid `signature` in `thinking` block" a resume gets);
Codex writes ``{"type": "reasoning", "summary", "content"?, "encrypted_content"}`` response
items (openai/codex ``codex-rs/protocol/src/models.rs``, ``ResponseItem::Reasoning``) and the
model of each turn on its ``turn_context`` line; OpenCode keeps a ``reasoning`` part whose
signature is in ``metadata.anthropic.signature`` and the model on the message
(``packages/opencode/src/session/message-v2.ts``); Cline and Roo keep Anthropic ``thinking``
blocks, Roo also ``reasoning`` blocks and records; the Agents SDK stores Responses
``reasoning`` items as rows."""

from __future__ import annotations

import json

import orjson
import pytest

from inspector.cli import main
from inspector.pipeline import run

from . import simulate
from .claude_builder import Session, text, tool

SIG = "EqQBCkYIBRgCKkB" + "x" * 40


def thinking(thought: str, sig: str = SIG) -> dict:
    return {"type": "thinking", "thinking": thought, "signature": sig}


def claude_session(duplicate: bool = False, words: bool = False) -> bytes:
    """Extended thinking streamed one block per line: thinking, text, call; then a second
    turn whose thinking is redacted. ``duplicate``: the second turn declares toolu_01Run
    again (a replayed turn), which MEM-5 drops from the signed turn; ``words``: that turn
    has text too, so it survives without its call."""
    s = Session(version="2.1.90")
    s.user("The checkout test fails with a rounding error, can you look?")
    s.assistant("msg_01A7kq2", thinking("Run the test first."), text("Let me run the test."),
                tool("toolu_01Run", "pytest tests/test_checkout.py"))
    s.result("toolu_01Run", "FAILED test_total - assert 10.0 == 9.99")
    second = [text("Reading the cart.")] if words else []
    second.append(tool("toolu_01Run" if duplicate else "toolu_01Cat", "cat shop/cart.py"))
    s.assistant("msg_01B2cr4", {"type": "redacted_thinking", "data": "RkFLRQ=="}, *second)
    s.result("toolu_01Cat", "def total(): ...") if not duplicate else s.result("toolu_01Run", "again")
    s.assistant("msg_01C3ok5", text("Totals are rounded to one decimal."))
    s.user("Fix it please.")
    return s.data()


def test_claude_code_records_each_thinking_line_with_its_turn_and_model():
    out = run(claude_session(), "s.jsonl")
    assert not out.changed
    got = [(r.kind, r.signed, r.encrypted, r.row, r.before, r.model, r.loc.describe()) for r in out.imported.reasoning]
    assert got == [("thinking", True, False, 1, (0,), "claude-sonnet-4-5-20250929", "line 2, content[0]"),
                   ("redacted_thinking", True, True, 3, (0,), "claude-sonnet-4-5-20250929", "line 6, content[0]")]
    first = out.imported.reasoning[0]
    assert out.imported.block_of(first) == thinking("Run the test first.")
    assert first.text == "Run the test first."


def test_claude_code_repair_of_a_signed_turn_is_an_event_and_the_thinking_line_stays():
    data = claude_session(duplicate=True, words=True)
    out = run(data, "s.jsonl")
    event, = [e for e in out.export_events if e.kind == "signed-calls-dropped"]
    assert "line 6, content[0] (redacted_thinking) is signed" in event.message and "toolu_01Run" in event.message
    assert data.split(b"\n")[5] in out.data.split(b"\n")     # the redacted_thinking line, byte for byte
    # A signed turn left with nothing but its thinking goes whole, and says so.
    out = run(claude_session(duplicate=True), "s.jsonl")
    event, = [e for e in out.export_events if e.kind == "signed-turn-dropped"]
    assert event.message.startswith("line 6, content[0] (redacted_thinking) was signed")


def test_claude_code_strip_removes_every_thinking_line_and_relinks_the_chain():
    data = claude_session()
    out = run(data, "s.jsonl", reasoning="strip")
    stripped = [e for e in out.export_events if e.kind == "reasoning-stripped"]
    assert sum("content[0]" in e.message for e in stripped) == 2
    written = out.data
    assert b'"thinking"' not in written and b"redacted_thinking" not in written and b"signature" not in written
    assert simulate.dangling(written) == [] and simulate.problems(written) == []
    before, after = data.split(b"\n"), written.split(b"\n")
    assert len(after) == len(before) - 2
    relinked = {int(e.message.split()[1].rstrip(":")) for e in out.export_events if e.kind == "entry-relinked"}
    assert relinked == {3, 7}                                # the lines that hung off a thinking line
    untouched = [line for k, line in enumerate(before, 1) if k not in {2, 3, 6, 7}]
    assert all(line in after for line in untouched)
    # What a resume sends still has every turn, text and call.
    request = simulate.request(written)
    assert [m["role"] for m in request["messages"]] == ["user", "assistant", "user", "assistant", "user",
                                                        "assistant", "user"]


def test_claude_code_strip_from_the_command_line(tmp_path):
    src = tmp_path / "s.jsonl"
    src.write_bytes(claude_session())
    assert main(["normalize", str(src), "--reasoning", "strip", "-o", str(tmp_path / "o.jsonl"), "-q"]) == 0
    assert b"signature" not in (tmp_path / "o.jsonl").read_bytes()
    assert src.read_bytes() == claude_session()

"""Where Claude Code's own recovery puts an off-chain result back, and what it then sends
(issue 29: "Claude Code claims that understate").

Claude Code 2.1.80 and later put back a result that hangs off its own tool_use line (the
parallel-call layout of 2.1.x). Its source (2.1.88, read at DroxKiwi/claude-code-leak-packaged
@ fb1320d1baf5, ``src/utils/sessionStorage.ts`` and ``src/utils/messages.ts``) puts that result
after the last chain line of the call's ``message.id``, and its request builder then pairs each
call only with the message right after the call's merged message. A result put elsewhere is
stripped, and the call gets a "[Tool result missing due to internal error]" placeholder. The
verdict must then say that Claude Code sends the placeholder and loses the result, never that
it repairs the session itself at no cost.

The independent model is ``simulate.claude_code_request`` (written from that source, apart
from the importer): each test compares the verdict's claims with what it says Claude Code sends.
"""

from __future__ import annotations

import pytest

from inspector.cli import main
from inspector.pipeline import run
from inspector.verdict import AGENT_REPAIRS, LOST, STATUS_WORDS, resume_verdict

from . import simulate
from .claude_builder import Session, text, tool
from .scenarios import opening, result_off_chain

CART = "def total(items):\n    return round(sum(items), 1)"


def split_by_a_prompt() -> bytes:
    """A prompt typed while the command ran hangs off the call's line, and the API message's
    text line hangs off the prompt: the message's last chain line comes after the prompt, and
    the result (off the chain, hanging off the call's line) is put back there."""
    s = Session(version="2.1.88")
    opening(s)
    call, = s.assistant("msg_01K1sp1", tool("toolu_01Cart", "cat shop/cart.py"))
    s.user("Also look at tax.py when you can.", parent=call["uuid"])
    said, = s.assistant("msg_01K1sp1", text("Will do, after this file."))
    s.result("toolu_01Cart", CART, parent=call["uuid"])
    s.assistant("msg_01K2sp2", text("total() rounds to one decimal; that is the bug."), parent=said["uuid"])
    s.user("Fix it please.")
    return s.data()


def hung_off_a_note() -> bytes:
    """The result hangs off a system line (no message.id): Claude Code does not put it back."""
    s = Session(version="2.1.88")
    opening(s)
    s.assistant("msg_01L1no1", tool("toolu_01Cart", "cat shop/cart.py"))
    note = s.system("Command running in the background")
    s.result("toolu_01Cart", CART, parent=note["uuid"])
    s.user("Any news?", parent=note["uuid"])
    return s.data()


def bridged_progress() -> bytes:
    """The result hangs off a progress line under the call (a transcript from before
    progress lines left the chain): Claude Code bridges the progress line and puts it back
    right after the call."""
    s = Session(version="2.1.88")
    opening(s)
    call, = s.assistant("msg_01M1pr1", tool("toolu_01Cart", "cat shop/cart.py"))
    progress = {**s._head(call["uuid"]), "type": "progress", "data": {"type": "bash_progress"},
                "uuid": s._uuid(), "timestamp": s._stamp()}
    s._add(progress, chain=False)
    s.result("toolu_01Cart", CART, parent=progress["uuid"])
    s.assistant("msg_01M2pr2", text("total() rounds to one decimal."), parent=call["uuid"])
    s.user("Fix it please.")
    return s.data()


def parallel_layout() -> bytes:
    data = result_off_chain()
    return data.replace(b'"version":"2.0.14"', b'"version":"2.1.88"')


CASES = {"split-by-a-prompt": split_by_a_prompt, "hung-off-a-note": hung_off_a_note,
         "bridged-progress": bridged_progress, "parallel-layout": parallel_layout}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_claims_say_what_claude_code_sends(name):
    data = CASES[name]()
    _, placeholders, _ = simulate.claude_code_request(data)
    v = resume_verdict(run(data, f"{name}.jsonl"))
    assert v.status == AGENT_REPAIRS and not v.refusals, v.sentence()
    put_back = {c: claim for claim in v.claims for c in claim.calls}
    assert put_back, v.sentence()
    for call, claim in put_back.items():
        if call in placeholders:         # Claude Code sends a placeholder: the claim says so, and its cost
            assert claim.repair.name == "result-unpaired" and claim.cost == LOST, (name, claim.words())
            assert "placeholder" in claim.words() and call in claim.words()
        else:                            # Claude Code pairs the real result: no cost
            assert claim.repair.name == "result-recovered" and claim.cost == "", (name, claim.words())


def test_the_model_tells_the_shapes_apart():
    """The model sees each case as Claude Code's source does: two of the four lose the result."""
    lost = {n for n, make in CASES.items() if simulate.claude_code_request(make())[1]}
    assert lost == {"split-by-a-prompt", "hung-off-a-note"}


@pytest.mark.parametrize("name", ["split-by-a-prompt", "hung-off-a-note"])
def test_a_result_claude_code_would_lose_is_written_back(name, tmp_path, capsys):
    """The agent's repair loses the result the file holds, so it covers nothing: check exits 1
    (its line opening with the verdict's word), and normalize's copy, resumed by Claude Code,
    sends the real result and no placeholder."""
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(CASES[name]())
    assert main(["check", str(path)]) == 1
    line = capsys.readouterr().out
    assert line.startswith(f"{path}: {STATUS_WORDS[AGENT_REPAIRS]}: "), line
    assert "placeholder" in line and "toolu_01Cart" in line and LOST in line, line
    assert main(["normalize", "-q", str(path)]) == 0
    repaired = (tmp_path / f"{name}.repaired.jsonl").read_bytes()
    messages, placeholders, stripped = simulate.claude_code_request(repaired)
    assert (placeholders, stripped) == ([], [])
    sent = [b for m in messages for b in m["content"] if b.get("type") == "tool_result"]
    assert any(b["tool_use_id"] == "toolu_01Cart" and b["content"] == CART for b in sent)


def test_the_parallel_layout_still_resumes_untouched(tmp_path, capsys):
    path = tmp_path / "p.jsonl"
    path.write_bytes(parallel_layout())
    assert main(["check", str(path)]) == 0
    assert "result-unpaired" not in capsys.readouterr().out

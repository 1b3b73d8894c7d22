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
    again while the first is still open (a replayed turn; its one result comes after), which
    MEM-5 drops from the signed turn (a replay after a complete pair would be a pair of its own,
    issue 30); ``words``: that turn has text too, so it survives without its call."""
    s = Session(version="2.1.90")
    s.user("The checkout test fails with a rounding error, can you look?")
    s.assistant("msg_01A7kq2", thinking("Run the test first."), text("Let me run the test."),
                tool("toolu_01Run", "pytest tests/test_checkout.py"))
    if duplicate:
        s.user("Still running?")
    else:
        s.result("toolu_01Run", "FAILED test_total - assert 10.0 == 9.99")
    second = [text("Reading the cart.")] if words else []
    second.append(tool("toolu_01Run" if duplicate else "toolu_01Cat", "cat shop/cart.py"))
    s.assistant("msg_01B2cr4", {"type": "redacted_thinking", "data": "RkFLRQ=="}, *second)
    if duplicate:
        s.result("toolu_01Run", "FAILED test_total - assert 10.0 == 9.99")
    else:
        s.result("toolu_01Cat", "def total(): ...")
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


# -- Codex --------------------------------------------------------------------------------

def codex_rollout() -> bytes:
    from .codex_builder import Rollout

    r = Rollout()
    r.user("Why does the checkout test fail?")
    r.reasoning("**Running the failing test**")
    r.call("call_A1", "pytest -q")
    r.output("call_A1", "1 failed")
    user, _, call, output = r.items()
    r.compact([user, {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAABkept"}, call, output,
               {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It fails."}]}],
              "The test fails on rounding.")
    r.user("Fix it.")
    r.lines[-3]["payload"]["model"] = "gpt-5.1-codex-max"                     # the model changed for this turn
    r.reasoning("**Editing cart.py**")
    r.say("Done.")
    return r.data()


def test_codex_records_reasoning_items_with_the_turn_context_model():
    data = codex_rollout()
    out = run(data, "rollout.jsonl")
    got = [(r.kind, r.signed, r.encrypted, r.loc.describe(), r.model) for r in out.imported.reasoning]
    assert got == [("reasoning", True, True, "line 9, replacement_history[1]", "gpt-5-codex"),
                   ("reasoning", True, True, "line 13", "gpt-5.1-codex-max")]
    assert out.imported.block_of(out.imported.reasoning[1])["summary"][0]["text"] == "**Editing cart.py**"
    assert out.imported.block_of(out.imported.reasoning[0])["encrypted_content"] == "gAAAAABkept"
    assert not out.changed and out.data == data


def test_codex_strip_removes_reasoning_lines_and_compacted_items_only():
    data = codex_rollout()
    out = run(data, "rollout.jsonl", reasoning="strip")
    where = [e.message.split(" (")[0] for e in out.export_events if e.kind == "reasoning-stripped"]
    assert where == ["line 5", "line 9, replacement_history[1]", "line 13"]
    written = out.data
    assert b'"type":"reasoning"' not in written and b"encrypted_content" not in written
    before, after = data.split(b"\n"), written.split(b"\n")
    assert [line for k, line in enumerate(before, 1) if k not in (5, 9, 13)] == \
        [line for k, line in enumerate(after, 1) if k != 8]            # line 9 is now line 8, rewritten
    again = run(written, "rollout.jsonl")
    assert not again.imported.reasoning and not again.changed


# -- Agents SDK -------------------------------------------------------------------------

REASONED = {"id": "rs_01", "summary": [{"text": "Look it up.", "type": "summary_text"}], "type": "reasoning",
            "encrypted_content": "gAAAAABenc"}


def agents_items(orphan: bool) -> list:
    from . import agents_builder

    items = agents_builder.orphan_output() if orphan else agents_builder.clean()
    items.insert(1, dict(REASONED))
    return items


def test_a_repair_under_reasoning_strip_warns_of_no_signed_turn():
    """--reasoning strip removes the signed block the warning is about: the warning said to use
    --reasoning strip when it already was, and its event named a block that is not sent."""
    from inspector.targets import check

    out = run(claude_session(duplicate=True, words=True), "s.jsonl", reasoning="strip")
    assert not [e for e in out.export_events if e.clause == "reasoning:signed"]
    assert not [p for p in check(out, "anthropic") if p.rule == "signed-turn-repaired"]
    assert [e for e in out.export_events if e.kind == "reasoning-stripped"]


@pytest.mark.parametrize("orphan", [False, True], ids=["clean", "repaired"])
def test_agents_sdk_records_reasoning_rows_and_strip_deletes_only_them(tmp_path, orphan):
    from . import agents_builder

    db = agents_builder.make(tmp_path / "s.db", {"main": agents_items(orphan), "other": agents_items(False)})
    out = run(db.read_bytes(), str(db), session="main")
    (r,) = out.imported.reasoning
    assert (r.kind, r.signed, r.encrypted, r.loc.describe(), r.row, r.before) == \
        ("reasoning", True, True, "row 2", 1, (0,))
    assert out.imported.block_of(r)["id"] == "rs_01"
    (tmp_path / "kept.db").write_bytes(out.data)
    stripped = run(db.read_bytes(), str(db), session="main", reasoning="strip")
    event, = [e for e in stripped.export_events if e.kind == "reasoning-stripped"]
    assert "reasoning item rs_01" in event.message
    (tmp_path / "o.db").write_bytes(stripped.data)
    left = agents_builder.items(tmp_path / "o.db", "main")
    assert left == [i for i in agents_builder.items(tmp_path / "kept.db", "main") if i.get("type") != "reasoning"]
    assert len(left) < len(agents_builder.items(tmp_path / "kept.db", "main"))
    assert agents_builder.items(tmp_path / "o.db", "other") == agents_items(False)    # the other session as it was
    again = run(stripped.data, str(tmp_path / "o.db"), session="main")
    assert not again.imported.reasoning and not again.changed


# -- OpenCode ---------------------------------------------------------------------------

def opencode_session():
    from .opencode_builder import clean, reasoning, text

    s = clean()                                        # a signed reasoning part, sent as thinking
    s.user("And the foreign one?")
    s.assistant(reasoning("Look for round( in shop/.", signature=None, openai={"itemId": "rs_68c1"}),
                text("Because of `round(total, 1)`."), model={"providerID": "openai", "modelID": "gpt-5"})
    s.user("Fix it please.")
    return s


@pytest.mark.parametrize("shape", ["db", "export"])
def test_opencode_records_reasoning_parts_sent_or_not_and_strip_removes_them(tmp_path, shape):
    from .opencode_builder import write_db

    s = opencode_session()
    if shape == "db":
        path = write_db(tmp_path / "opencode.db", s)
    else:
        path = tmp_path / "s.json"
        path.write_bytes(s.export())
    data = path.read_bytes()
    out = run(data, str(path))
    assert not out.changed
    got = [(r.signed, r.row is not None, r.model, r.text[:8]) for r in out.imported.reasoning]
    assert got == [(True, True, "claude-sonnet-4-5", "The tota"), (False, False, "gpt-5", "Look for")]
    sent = out.imported.reasoning[0]
    assert out.imported.block_of(sent)["metadata"]["anthropic"]["signature"] == "EqQBCkYIBRgCKkBsig0001"
    assert sent.before == (0,) and out.imported.messages[sent.row]["role"] == "assistant"
    stripped = run(data, str(path), reasoning="strip")
    assert sum(e.kind == "reasoning-stripped" for e in stripped.export_events) == 2
    again = run(stripped.data, str(path))
    assert not again.imported.reasoning and not again.changed
    assert b'"reasoning"' not in stripped.data.replace(b'"reasoning": 0', b"").replace(b'"reasoning":0', b"")
    if shape == "export":
        # Every other byte as OpenCode printed it: the text is the original with two parts cut out.
        assert len(stripped.data) < len(data) and stripped.data.startswith(data[:200])


# -- Cline, Roo Code, Kilo Code ------------------------------------------------------------

@pytest.mark.parametrize("ext", ["cline", "roo", "kilo"])
def test_cline_family_records_thinking_and_strip_keeps_every_other_record_byte_for_byte(tmp_path, ext):
    from inspector.formats import cline

    from . import cline_builder as b

    folder = b.SCENARIOS["reasoning"](ext).write(tmp_path / "in" / b.EXTENSION_IDS[ext])
    path = folder / cline.HISTORY_FILE
    data = path.read_bytes()
    out = run(data, str(path))
    got = [(r.kind, r.signed, r.row is not None, r.loc.describe()) for r in out.imported.reasoning]
    last = {"cline": ("thinking", False, False), "roo": ("reasoning", False, False), "kilo": ("thinking", True, True)}
    assert got == [("thinking", True, True, "messages[1].content[0]"), ("thinking", True, True, "messages[3].content[0]"),
                   (*last[ext], "messages[5].content[0]")]
    assert [r.model for r in out.imported.reasoning][0] == ("claude-sonnet-4-5-20250929" if ext == "cline" else None)
    assert out.imported.reasoning[0].before == (0, 1)
    stripped = run(data, str(path), reasoning="strip")
    assert sum(e.kind == "reasoning-stripped" for e in stripped.export_events) == 3
    before, after = json.loads(data), json.loads(stripped.data)
    assert all(not any(isinstance(x, dict) and x.get("type") in ("thinking", "reasoning") for x in r["content"])
               for r in after if isinstance(r.get("content"), list))
    repaired = out.data                                  # the repair alone (one scenario also answers a call)
    kept = [repaired[a:z] for a, z in cline.element_spans(repaired, repaired.index(b"["))]
    written = [stripped.data[a:z] for a, z in cline.element_spans(stripped.data, stripped.data.index(b"["))]
    untouched = [k for k in range(len(before)) if k not in (1, 3, 5)]
    assert all(kept[k] in written for k in untouched)
    again = run(stripped.data, str(path))
    assert not again.imported.reasoning


# -- what the provider says of a store's reasoning (check --target, --model) ---------------

def _rules(outcome, target, model=None):
    from inspector.targets import check

    return [(p.rule, p.severity, p.where, p.error) for p in check(outcome, target, model)
            if p.rule in ("signature-other-model", "encrypted-other-model", "reasoning-content", "item-id-prefix",
                          "reasoning-without-encrypted-content")]


def test_a_claude_session_resumed_with_another_model_is_refused_and_an_alias_is_the_same_model():
    out = run(claude_session(), "s.jsonl")
    (hit,) = _rules(out, "anthropic", "claude-opus-4-5")
    assert hit[:3] == ("signature-other-model", "error", "line 6, content[0]")      # the latest signed turn
    assert "signed by claude-sonnet-4-5-20250929, resumed with claude-opus-4-5" in hit[3]
    assert _rules(out, "anthropic", "claude-sonnet-4-5") == []            # the dated snapshot's alias
    assert _rules(out, "anthropic", "anthropic/claude-sonnet-4-5") == []
    assert _rules(out, "anthropic") == []                                 # no model named: nothing said
    assert _rules(run(claude_session(), "s.jsonl", reasoning="strip"), "anthropic", "claude-opus-4-5") == []


def test_opencode_leaves_foreign_reasoning_out_itself_so_a_model_switch_is_not_reported(tmp_path):
    s = opencode_session()
    path = tmp_path / "s.json"
    path.write_bytes(s.export())
    assert _rules(run(path.read_bytes(), str(path)), "anthropic", "claude-opus-4-5") == []


def _rollout_with(**reasoning) -> bytes:
    from .codex_builder import Rollout

    r = Rollout()
    r.user("Why does the checkout test fail?")
    r.reasoning("**Running the failing test**")
    r.lines[-1]["payload"].update(reasoning)
    r.call("call_A1", "pytest -q")
    r.output("call_A1", "1 failed")
    r.say("It fails on rounding.")
    return r.data()


def test_codex_reasoning_items_the_responses_api_refuses():
    raw = run(_rollout_with(content=[{"type": "reasoning_text", "text": "think"}], encrypted_content=None),
              "rollout.jsonl")
    found = {h[0]: h for h in _rules(raw, "openai-responses")}
    assert set(found) == {"reasoning-content", "reasoning-without-encrypted-content"}     # Codex sends store: false
    assert found["reasoning-content"][2] == "line 5"
    assert "array too long. Expected an array with maximum length 0, but got an array with length 1" in \
        found["reasoning-content"][3]
    assert found["reasoning-without-encrypted-content"][3] == \
        "Missing required parameter: 'input[…].encrypted_content (line 5)'."
    minted = run(_rollout_with(id="item_df7e40c3f04fc8ade5c3800e"), "rollout.jsonl")
    (hit,) = _rules(minted, "openai-responses")
    assert hit[0] == "item-id-prefix" and hit[3].endswith("Expected an ID that begins with 'rs'.")
    assert _rules(run(_rollout_with(id="rs_68c1"), "rollout.jsonl"), "openai-responses") == []
    assert _rules(run(_rollout_with(), "rollout.jsonl"), "openai-responses") == []
    # --reasoning strip sends none of it.
    stripped = run(_rollout_with(content=[{"type": "reasoning_text", "text": "think"}], encrypted_content=None),
                   "rollout.jsonl", reasoning="strip")
    assert _rules(stripped, "openai-responses") == []


def test_check_model_on_the_command_line(tmp_path, capsys):
    src = tmp_path / "s.jsonl"
    src.write_bytes(claude_session())
    code = main(["check", str(src), "--target", "anthropic", "--model", "claude-opus-4-5"])
    out = capsys.readouterr().out
    assert code == 1 and "signature-other-model" in out and "resumed with claude-opus-4-5" in out
    assert main(["check", str(src), "--target", "anthropic", "--model", "claude-sonnet-4-5"]) == 0


def test_a_repair_of_a_signed_turn_in_a_store_is_the_signed_turn_repaired_warning():
    from inspector.targets import check

    out = run(claude_session(duplicate=True, words=True), "s.jsonl")
    (warning,) = [p for p in check(out, "anthropic") if p.rule == "signed-turn-repaired"]
    assert warning.severity == "warning" and "line 6, content[0] (redacted_thinking) is signed" in warning.error
    assert not [p for p in check(run(claude_session(), "s.jsonl"), "anthropic") if p.rule == "signed-turn-repaired"]


@pytest.mark.parametrize("orphan", [False, True], ids=["clean", "repaired"])
def test_agents_sdk_strip_in_place_applies_the_same_sql_to_the_live_file(tmp_path, orphan):
    from . import agents_builder

    db = agents_builder.make(tmp_path / "s.db", {"main": agents_items(orphan)})
    expected = run(db.read_bytes(), str(db), reasoning="strip")
    (tmp_path / "o.db").write_bytes(expected.data)
    assert main(["normalize", str(db), "--in-place", "--reasoning", "strip", "-q"]) == 0
    assert agents_builder.items(db, "main") == agents_builder.items(tmp_path / "o.db", "main")
    assert all(i.get("type") != "reasoning" for i in agents_builder.items(db, "main"))


def test_a_claude_session_that_kept_thinking_without_its_signature_is_refused():
    s = Session(version="2.1.20")
    s.user("Look at the cart.")
    s.assistant("msg_01U", thinking("Read it first.", sig=""), tool("toolu_01Cat", "cat shop/cart.py"))
    s.result("toolu_01Cat", "def total(): ...")
    s.user("And?")
    out = run(s.data(), "s.jsonl")
    assert [r.signed for r in out.imported.reasoning] == [False]
    (hit,) = [p for p in _rules_all(out) if p.rule == "thinking-unsigned"]
    assert hit.where == "line 2, content[0]" and hit.error == "line 2, content[0]: Invalid signature in thinking block"
    assert not [p for p in _rules_all(run(claude_session(), "s.jsonl")) if p.rule == "thinking-unsigned"]
    assert not [p for p in _rules_all(run(s.data(), "s.jsonl", reasoning="strip")) if p.rule == "thinking-unsigned"]


def _rules_all(outcome):
    from inspector.targets import check

    return check(outcome, "anthropic")


def test_a_cline_turn_the_repair_drops_goes_with_its_thinking_as_the_event_says(tmp_path):
    from inspector.formats import cline

    from . import cline_builder as b

    t = b.Task("kilo")
    t.task("Why?")
    t.assistant(b.thinking("first", "EsgBsigA"), b.tool("toolu_01A", command="ls"))
    t.user(b.environment(1))                      # the call still open (issue 30: after its result, a pair)
    t.assistant(b.thinking("again", "EsgBsigB"), b.tool("toolu_01A", command="ls"))      # a replayed turn
    t.user(b.result("toolu_01A", "y"), b.environment(2))
    t.assistant(b.text("done"))
    t.user(b.text("ok"), b.environment(3))
    path = t.write(tmp_path / "in" / b.EXTENSION_IDS["kilo"]) / cline.HISTORY_FILE
    out = run(path.read_bytes(), str(path))
    (event,) = [e for e in out.export_events if e.kind == "signed-turn-dropped"]
    assert event.message.startswith("messages[3].content[0] (thinking) was signed")
    written = json.loads(out.data)
    assert len(written) == len(json.loads(path.read_bytes())) - 1
    assert not any(isinstance(r["content"], list) and [x.get("type") for x in r["content"]] == ["thinking"]
                   for r in written)
    assert b"EsgBsigA" in out.data and b"EsgBsigB" not in out.data


@pytest.mark.parametrize("shape", ["db", "export"])
def test_an_opencode_step_replayed_with_its_result_keeps_its_reasoning_part(tmp_path, shape):
    """Issue 30: a replayed step reusing the id of a complete pair, with its own result, is a pair of
    its own: kept with its signed reasoning, nothing written. (It was the case that dropped a
    signed step; a step is now dropped only for an id declared twice in one turn.)"""
    from .opencode_builder import Session as OpenCodeSession
    from .opencode_builder import opening, reasoning, text, tool, write_db

    s = OpenCodeSession()
    opening(s)
    s.assistant(reasoning("Run it again.", signature="EqQBCkYIBRgCKkBsig0002"),
                tool("toolu_01Run", "bash", {"command": "pytest", "description": "Run test"}, "FAILED"),
                finish="tool-calls")                                      # a replayed step: the id again
    s.assistant(text("The same assertion fails."))
    s.user("Go on.")
    if shape == "db":
        path = write_db(tmp_path / "opencode.db", s)
    else:
        path = tmp_path / "s.json"
        path.write_bytes(s.export())
    out = run(path.read_bytes(), str(path))
    assert out.export_events == [] and out.result.events == [] and not out.changed
    assert out.data == path.read_bytes()
    assert [r.text for r in out.imported.reasoning] == ["Run it again."]
    assert "id-reused" in [e.kind for e in out.imported.events]

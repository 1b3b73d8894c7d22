"""A Claude Code session whose parent chain is damaged: a line that lost its ``uuid``, a
``parentUuid`` that names no line, a ``uuid`` that two lines hold.

Claude Code keeps its transcript lines in a map by ``uuid`` and walks ``parentUuid`` back
from the leaf until a parent is not in the map (anthropics/claude-code 2.1.88,
``src/utils/sessionStorage.ts``, ``buildConversationChain``); a line without a uuid is named
by no line, so it is on no chain, and only its API message (``message.id``) can bring it
back (``recoverOrphanedParallelToolResults``). The repair must send what that reading sends,
touch only the lines its events name, and be a fixed point: repairing its output again
changes nothing. The oracle for what a resume sends is the independent simulator
(``tests/sessions/simulate.py``), not the importer.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extras import repeatable
from inspector.formats import anthropic, claude_code
from inspector.pipeline import run

from sessions import scenarios, simulate

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "21-claude-code-session.jsonl"
NAME = "0f6c9a2e-3d1b-4c7e-8a55-b2e4d9f1c388.jsonl"


def lines_of(data: bytes) -> list[bytes]:
    return data[:-1].split(b"\n")


def file_of(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n"


def without_uuid_on_line_3() -> bytes:
    lines = lines_of(SAMPLE.read_bytes())
    assert b'"uuid":' in lines[2]
    lines[2] = lines[2].replace(b'"uuid":', b'"uuidX":')
    return file_of(lines)


def sent(data: bytes) -> list[dict]:
    """What the simulator says a resume sends, as flat messages."""
    return anthropic.import_(simulate.request(data), "<resume>").messages


def relinked_lines(outcome) -> set[int]:
    return {int(e.message.split()[1].rstrip(":")) for e in outcome.export_events if e.kind == "entry-relinked"}


def test_a_line_without_its_uuid_is_repaired_once_and_for_all():
    damaged = without_uuid_on_line_3()
    once = run(damaged, NAME)
    assert once.changed
    again = run(once.data, NAME)
    assert again.data == once.data
    assert not again.result.events and not again.export_events


def test_the_import_reads_what_a_resume_sends_from_the_damaged_chain():
    damaged = without_uuid_on_line_3()
    out = run(damaged, NAME)
    # The walk stops at line 4, whose parent (line 3's lost uuid) no line holds.
    assert [e.kind for e in out.imported.events if e.kind == "chain-broken"] == ["chain-broken"]
    assert "line 4 names parent" in next(e.message for e in out.imported.events if e.kind == "chain-broken")
    # Line 3's text is sent with its API message (line 4 and 5's message.id), though no line
    # names it. Line 6's result hangs off line 4, off the walk: the import puts it back by an
    # event (Claude Code 2.1.80's own repair, which the simulator leaves out).
    assert "Line 3 is part of the API message" in " ".join(e.message for e in out.imported.events)
    recovered = {e.origin for e in out.imported.events if e.kind == "result-recovered"}
    assert recovered == {1}
    assert [m for o, m in enumerate(out.imported.messages) if o not in recovered] == sent(damaged)


def test_the_repair_relinks_only_chain_lines_and_says_each_relink():
    damaged = without_uuid_on_line_3()
    out = run(damaged, NAME)
    before = [orjson.loads(x) for x in lines_of(damaged)]
    after = [orjson.loads(x) for x in lines_of(out.data)]
    # Line 3 has no uuid: no line can name it, so its own parent is left as it was.
    assert lines_of(out.data)[2] == lines_of(damaged)[2]
    assert 3 not in relinked_lines(out)
    # Nothing is made a root that was not one: a line re-rooted would start a chain of its own.
    roots = lambda entries: sorted(e["uuid"] for e in entries if "parentUuid" in e and e["parentUuid"] is None
                                   and e.get("uuid"))
    assert roots(after) == roots(before)
    # Every line whose parent changed is named by an entry-relinked event (by its input line).
    parent_after = {a["uuid"]: a.get("parentUuid") for a in after if a.get("uuid")}
    changed = {k + 1 for k, e in enumerate(before)
               if e.get("uuid") in parent_after and parent_after[e["uuid"]] != e.get("parentUuid")}
    assert changed and changed == relinked_lines(out)
    # A resume of the repaired file sends exactly the repair: the recovered result in its place,
    # the interrupted call answered, and nothing the provider refuses.
    assert simulate.problems(out.data) == []
    assert sent(out.data) == out.result.messages


def test_untouched_lines_keep_their_bytes_and_their_place():
    damaged = without_uuid_on_line_3()
    out = run(damaged, NAME)
    touched = relinked_lines(out) | {int(e.message.split()[1]) for e in out.export_events
                                     if e.kind in ("entry-removed", "entry-rewritten")}
    kept = [x for k, x in enumerate(lines_of(damaged), 1) if k not in touched]
    it = iter(lines_of(out.data))
    assert all(any(x == y for y in it) for x in kept)


def with_a_lost_call_and_an_undated_prompt() -> bytes:
    """The sample without line 4 (the first call's line, which line 5 hangs from) and line 6
    (that call's result), and with no timestamp on the last prompt: line 3 is then the newest
    line no line names, so a resume reads lines 2 and 3, and Claude Code's recovery puts back
    line 5 (the same message.id) and the result hanging from it, which the rest of the
    session (the next turn and the last prompt) hangs from in turn."""
    lines = lines_of(SAMPLE.read_bytes())
    prompt = orjson.loads(lines[10])
    assert prompt["message"]["content"].startswith("Sorry")
    del prompt["timestamp"]
    return file_of(lines[:3] + [lines[4]] + lines[6:10] + [orjson.dumps(prompt)] + lines[11:])


def test_a_put_back_line_with_the_rest_of_the_session_under_it_keeps_its_parent():
    damaged = with_a_lost_call_and_an_undated_prompt()
    out = run(damaged, NAME)
    assert [e.kind for e in out.imported.events] == ["sibling-recovered", "result-recovered"]
    # Re-linked under line 3, line 4 would bring its result and all under it onto the chain: a
    # resume would start from the last prompt, sending a turn this repair never read and a call
    # without its result (2.1.88 gives it a placeholder). Left as they are, they are sent as
    # the repair read them, and the next run reads the same.
    assert simulate.claude_code_request(out.data) == simulate.claude_code_request(damaged)
    assert simulate.claude_code_request(out.data)[1] == []
    assert not out.changed
    assert run(out.data, NAME).data == out.data


def with_stray_result_under_the_prompts_uuid() -> bytes:
    """The sample with a later line written under the uuid of its last prompt (line 11): a
    result for a call no turn declares, so the repair removes it."""
    lines = lines_of(SAMPLE.read_bytes())
    prompt = orjson.loads(lines[10])
    assert prompt["message"]["content"].startswith("Sorry")
    stray = {**prompt, "timestamp": "2025-10-12T09:10:12.000Z", "message": {"role": "user", "content": [
        {"tool_use_id": "toolu_01Gone", "type": "tool_result", "content": "stale", "is_error": False}]}}
    return file_of(lines + [orjson.dumps(stray)])


def test_removing_the_last_line_of_a_uuid_removes_the_earlier_line_it_hid():
    damaged = with_stray_result_under_the_prompts_uuid()
    # Claude Code keeps the last line of a uuid: the prompt on line 11 is never sent.
    assert "Sorry" not in orjson.dumps(simulate.request(damaged)).decode()
    once = run(damaged, NAME)
    removed = {int(e.message.split()[1]): e.message for e in once.export_events if e.kind == "entry-removed"}
    assert sorted(removed) == [11, 13]
    assert "line 13, which is removed, held its uuid after it" in removed[11]
    # Left in, the prompt would be read in line 13's place by the next resume: one pass is final.
    again = run(once.data, NAME)
    assert again.data == once.data
    assert not again.result.events and not again.export_events
    assert sent(once.data) == once.result.messages


def test_stripping_a_thinking_line_removes_the_earlier_line_under_its_uuid():
    lines = lines_of(SAMPLE.read_bytes())
    text = orjson.loads(lines[2])                      # line 3: the first turn's text
    thought = {**text, "message": {**text["message"], "content": [
        {"type": "thinking", "thinking": "Check the log first.", "signature": "c2ln"}]}}
    damaged = file_of(lines[:3] + [orjson.dumps(thought)] + lines[3:])
    once = run(damaged, NAME, reasoning="strip")
    removed = [e.message for e in once.export_events if e.kind == "entry-removed"]
    assert len(removed) == 1 and removed[0].startswith("Line 3 is removed too: line 4,")
    assert lines[2] not in lines_of(once.data)
    again = run(once.data, NAME, reasoning="strip")
    assert again.data == once.data and not again.export_events


def test_stripping_a_hidden_thinking_line_leaves_its_uuid_naming_the_line_that_holds_it():
    lines = lines_of(SAMPLE.read_bytes())
    text = orjson.loads(lines[2])
    thought = {**text, "message": {**text["message"], "content": [
        {"type": "thinking", "thinking": "Check the log first.", "signature": "c2ln"}]}}
    damaged = file_of(lines[:2] + [orjson.dumps(thought)] + lines[2:])   # line 3 hidden by line 4
    out = run(damaged, NAME, reasoning="strip")
    assert lines_of(damaged)[2] not in lines_of(out.data)
    # Line 5 names the uuid, which is line 4's: it keeps its parent and its bytes.
    assert not [e.message for e in out.export_events if e.message.startswith("Line 5:")]
    assert lines_of(damaged)[4] in lines_of(out.data)


def test_a_hidden_line_names_no_parent_so_the_leaf_is_the_one_claude_code_picks():
    lines = lines_of(SAMPLE.read_bytes())
    first, prompt = orjson.loads(lines[1]), orjson.loads(lines[10])
    # Line 13: the first prompt again, under the uuid of the last prompt (line 11), which it hides.
    damaged = file_of(lines + [orjson.dumps({**first, "uuid": prompt["uuid"]})])
    # Line 11 names line 10 as parent, but Claude Code's map no longer holds line 11: line 10 is
    # a leaf, and the newest one, so the resume ends at its call and the hidden prompt is not sent.
    chain = claude_code.walk([orjson.loads(x) for x in lines_of(damaged)])
    assert chain.lines[-1] == 9
    assert "Sorry" not in orjson.dumps(simulate.request(damaged)).decode()
    out = run(damaged, NAME)
    recovered = {e.origin for e in out.imported.events if e.kind == "result-recovered"}
    assert [m for o, m in enumerate(out.imported.messages) if o not in recovered] == sent(damaged)
    assert run(out.data, NAME).data == out.data


def test_a_hidden_line_after_the_leaf_is_not_on_the_chain():
    lines = lines_of(SAMPLE.read_bytes())
    prompt, text = orjson.loads(lines[10]), orjson.loads(lines[2])
    took = {k: prompt[k] for k in ("isSidechain", "sessionId", "version")}
    hidden = {"parentUuid": prompt["uuid"], **took, "type": "system", "subtype": "turn_duration", "durationMs": 5,
              "uuid": "9a0e7c1d-2b3f-4e5a-8c6d-7f8091a2b3c4", "timestamp": "2025-10-12T09:10:12.000Z"}
    later = {**hidden, "parentUuid": text["uuid"], "durationMs": 7, "timestamp": "2025-10-12T09:10:03.500Z"}
    entries = [orjson.loads(x) for x in lines] + [hidden, later]
    chain = claude_code.walk(entries)
    assert chain.lines[-1] == 10 and 12 not in chain.lines


# -- random damage to the chain ------------------------------------------------------------

BASES = {"sample": SAMPLE.read_bytes(), "parallel": scenarios.parallel_one_lost(),
         "off-chain": scenarios.result_off_chain(), "split": scenarios.split_and_clean()}
DAMAGE = ("drop-uuid", "rename-uuid", "dangling-parent", "duplicate-uuid", "parent-to-self")


def damage(data: bytes, cuts: list[tuple[str, float, float]]) -> bytes:
    entries = [orjson.loads(x) for x in lines_of(data)]
    chained = [k for k, e in enumerate(entries) if isinstance(e, dict) and isinstance(e.get("uuid"), str)]
    for kind, a, b in cuts:
        if not chained:
            break
        k = chained[int(a * (len(chained) - 1))]
        other = chained[int(b * (len(chained) - 1))]
        e = entries[k]
        if kind == "drop-uuid":
            e.pop("uuid", None)
        elif kind == "rename-uuid" and "uuid" in e:
            e["uuidX"] = e.pop("uuid")
        elif kind == "dangling-parent":
            e["parentUuid"] = f"00000000-0000-4000-8000-{k:012d}"
        elif kind == "duplicate-uuid" and isinstance(entries[other].get("uuid"), str):
            e["uuid"] = entries[other]["uuid"]
        elif kind == "parent-to-self" and isinstance(e.get("uuid"), str):
            e["parentUuid"] = e["uuid"]
    return file_of([orjson.dumps(e) for e in entries])


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], **repeatable())
@given(base=st.sampled_from(sorted(BASES)),
       cuts=st.lists(st.tuples(st.sampled_from(DAMAGE), st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=3),
       strict=st.booleans())
def test_any_damage_to_the_chain_is_repaired_to_a_fixed_point(base, cuts, strict):
    damaged = damage(BASES[base], cuts)
    once = run(damaged, NAME, strict=strict)
    again = run(once.data, NAME, strict=strict)
    assert again.data == once.data, [e.message for e in again.export_events]


def test_a_leaf_of_results_only_is_passed_over_for_the_chain_a_resume_of_the_repair_reads():
    # Line 4 (the LogTail call) lost its uuid, so lines 5 and 6 name a parent no line has; line
    # 11 took line 7's uuid, so line 7 (CfgRead's result) is hidden and line 5 is a leaf. The
    # newest leaf, line 6, is LogTail's result alone: a resume from it sends nothing. Removed,
    # it would hand the resume to line 5, whose calls the repair never answered.
    damaged = damage(BASES["sample"], [("drop-uuid", 0.25, 0.0), ("duplicate-uuid", 1.0, 0.625)])
    once = run(damaged, NAME)
    assert [e.kind for e in once.imported.events if e.kind == "leaf-passed-over"] == ["leaf-passed-over"]
    # LogTail's own result is put back after its call, not replaced by an 'interrupted' one.
    assert [e.tool_call_id for e in once.result.events if e.kind == "result-synthesized"] == ["toolu_01CfgRead"]
    assert simulate.problems(once.data) == []
    again = run(once.data, NAME)
    assert again.data == once.data
    assert not again.result.events and not again.export_events

"""The OpenCode resume simulator on sessions built from OpenCode's schema: the three stores
give one request; the shapes the provider refuses are refused and the ones OpenCode repairs
itself are not."""

from __future__ import annotations

import pytest

from . import opencode_builder as ob
from . import opencode_simulate as sim

ALL = {"clean": ob.clean, **ob.BROKEN, **ob.OLD_BUILDS_REFUSE, **ob.SELF_REPAIRED}


@pytest.mark.parametrize("name", sorted(ALL))
def test_database_tree_and_export_resume_alike(name, tmp_path):
    s = ALL[name]()
    db = ob.write_db(tmp_path / "opencode.db", s, wal=True, shuffle=True)
    tree = ob.write_storage(tmp_path / "storage", s)
    body = sim.resume_db(db)
    assert body == sim.resume_export(s.export()) == sim.resume_storage(tree, s.id)
    assert body["messages"][0]["role"] == "user"


@pytest.mark.parametrize("name", sorted(ob.BROKEN))
def test_broken_sessions_are_refused(name):
    assert sim.problems(sim.resume_export(ob.BROKEN[name]().export()))
    assert sim.problems(sim.resume_export(ob.BROKEN[name]().export(), reorder=False))


@pytest.mark.parametrize("name", sorted(ob.SELF_REPAIRED) + ["clean"])
def test_what_opencode_repairs_itself_is_accepted(name):
    assert sim.problems(sim.resume_export(ALL[name]().export())) == []


def test_an_interrupted_call_is_sent_with_the_placeholder_result():
    body = sim.resume_export(ob.crash_running().export())
    results = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_result"]
    assert results[-1] == {"type": "tool_result", "tool_use_id": "toolu_01Cat",
                           "content": sim.INTERRUPTED, "is_error": True}


def test_text_after_a_call_is_moved_first_by_current_opencode_only():
    data = ob.text_after_call().export()
    assert "text-after-tool-use" in sim.problems(sim.resume_export(data, reorder=False))
    assert sim.problems(sim.resume_export(data)) == []


def test_compaction_sends_the_summary_not_what_it_replaced():
    body = sim.resume_export(ob.compacted().export())
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][0]["content"] == [{"type": "text", "text": "What did we do so far?"}]
    assert not [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_use"]


def test_signed_reasoning_is_sent_as_thinking_and_foreign_reasoning_is_not():
    clean = sim.resume_export(ob.clean().export())
    thinking = [b for m in clean["messages"] for b in m["content"] if b["type"] == "thinking"]
    assert thinking and thinking[0]["signature"] == "EqQBCkYIBRgCKkBsig0001"
    foreign = sim.resume_export(ob.foreign_reasoning().export())
    assert not [b for m in foreign["messages"] for b in m["content"] if "thinking" in b["type"]]


def test_a_duplicate_call_is_refused_because_its_id_is_declared_twice():
    found = sim.problems(sim.resume_export(ob.duplicate_call().export()))
    assert "tool_use ids must be unique" in found

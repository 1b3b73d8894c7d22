"""oh-my-pi sessions built as oh-my-pi writes them (``pi_builder.OmpSession``, from can1357/oh-my-pi's
own source, see there): read with pi's reader, which honours what oh-my-pi adds to pi's file (a
first-line title slot, ``reset_boundary``, ``fileMention``, ``model_change`` as "provider/id"), and
agrees with the independent resume simulator (``pi_simulate``)."""

from __future__ import annotations

from pathlib import Path

from inspector.formats import REGISTRY, resume_command
from inspector.pipeline import run_file

from . import pi_builder as pb
from . import pi_simulate as sim
from .test_pi import flat_pairs as pairs    # the flat pairs of an import, as for pi


def write(tmp_path: Path, name: str) -> tuple[Path, pb.OmpSession]:
    s = pb.omp_scenario(name)
    folder = tmp_path / ".omp/agent/sessions/--home-dev-app--"
    folder.mkdir(parents=True)
    path = folder / s.name()
    path.write_text(s.text(), encoding="utf-8")
    return path, s


def test_the_title_slot_is_not_the_header_and_the_session_resumes_by_its_id(tmp_path):
    path, s = write(tmp_path, "clean")
    assert len(path.read_bytes().split(b"\n")[0]) == 255            # the slot: 256 bytes with its newline
    out = run_file(path)
    assert out.format == "pi-session" and not out.changed
    assert resume_command(out.imported, str(path)) == f"pi --session {s.entries[0]['id']}"
    assert out.imported.state.walk.slot == 0 and out.imported.state.walk.header == 1


def test_an_at_file_mention_is_sent_as_oh_my_pi_sends_it_and_ran_on_reads_its_model_change(tmp_path):
    path, _ = write(tmp_path, "clean")
    im = run_file(path).imported
    texts = [c.get("text") for m in im.messages if m.get("role") == "user"
             for c in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}])]
    mention = ('<system-reminder>\n<file path="tests/test_a.py">\ndef test_a():\n    assert total([0.1, 0.2]) == 0.3'
               '\n</file>\n</system-reminder>')
    assert any(mention in t for t in texts), texts
    sent = sim.sent(path.read_text("utf-8"))
    assert any(m["role"] == "user" and "<system-reminder>" in m["content"][0]["text"] for m in sent
               if isinstance(m["content"], list))
    # the default model, not the "smol" side model oh-my-pi records beside it
    models = REGISTRY["pi-session"].ran_on(im)
    assert models[0] == ("anthropic", "claude-sonnet-4-5")
    assert ("anthropic", "claude-haiku-4-5") not in models


def test_after_a_clear_only_what_follows_it_is_sent_and_judged(tmp_path):
    path, _ = write(tmp_path, "cleared")
    text = path.read_text("utf-8")
    out = run_file(path)
    # the result written for a call never made lies before /clear: oh-my-pi does not send it
    assert not out.changed, [e.kind for e in out.events]
    assert pairs(out.imported) == [p for p in sim.pairs(sim.sent(text)) if p[0] != "user"] \
        == [("call", "toolu_02"), ("result", "toolu_02")]
    assert out.imported.state.walk.reset is not None
    assert "toolu_09" in text                                          # still in the file, byte for byte


def test_a_break_after_a_clear_is_repaired_as_a_branch_oh_my_pi_resumes(tmp_path):
    path, _ = write(tmp_path, "cleared_then_broken")
    out = run_file(path)
    assert out.changed and "result-orphan" in [e.kind for e in out.events]
    written = out.data.decode()
    original = path.read_text("utf-8")
    assert written.startswith(original)                                 # every line kept, the slot first
    sent = sim.sent(written)
    calls = {b["id"] for m in sent if m["role"] == "assistant" for b in m["content"] if b.get("type") == "toolCall"}
    assert [m["toolCallId"] for m in sent if m["role"] == "toolResult"] == ["toolu_02"] and calls == {"toolu_02"}
    again = tmp_path / "again.jsonl"
    again.write_bytes(out.data)
    assert not run_file(again).changed                                  # a fixed point

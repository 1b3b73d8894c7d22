"""Cline, Roo Code and Kilo Code task folders: read as each extension sends them on resume,
repaired, and resumed again by the simulator (which follows the extensions' own code)."""

from __future__ import annotations

import json
import shutil

import pytest

from inspector.formats import cline
from inspector.pipeline import run

from . import cline_builder as b
from . import cline_simulate as sim

EXTS = ("cline", "roo", "kilo")
CASES = [(n, e) for n in sorted(b.SCENARIOS) for e in EXTS]


def build(tmp_path, name, ext):
    folder = b.SCENARIOS[name](ext).write(tmp_path / "in" / b.EXTENSION_IDS[ext])
    return folder, folder / cline.HISTORY_FILE


class Repaired:
    def __init__(self, path):
        self.data = path.read_bytes()
        self.outcome = run(self.data, str(path))
        assert self.outcome.imported.format == "cline"
        self.im, self.result, self.out = self.outcome.imported, self.outcome.result, self.outcome.data
        self.export_events = self.outcome.export_events

    def __iter__(self):
        return iter((self.data, self.im, self.result, self.out))


def repair(path):
    return Repaired(path)


def resumed(tmp_path, folder, out):
    """A copy of the extension's storage with the repaired history in place of the original."""
    root = tmp_path / "out" / folder.parent.parent.name
    shutil.copytree(folder.parent.parent, root)
    (root / "tasks" / folder.name / cline.HISTORY_FILE).write_bytes(out)
    return root / "tasks" / folder.name


def spans(data):
    return [data[a:z] for a, z in cline.element_spans(data, data.index(b"["))]


@pytest.mark.parametrize("name, ext", CASES, ids=[f"{n}-{e}" for n, e in CASES])
def test_resume_after_repair_is_accepted_and_untouched_records_keep_their_bytes(tmp_path, name, ext):
    folder, path = build(tmp_path, name, ext)
    refused = sim.problems(folder, ext)
    r = repair(path)
    data, im, result, out = r
    assert sim.problems(resumed(tmp_path, folder, out), ext) == []
    if ext == "cline":      # Cline 4 opening the repaired legacy task sends a valid request too
        assert sim.problems(resumed(tmp_path / "v4", folder, out), "cline-v4") == []
    if not refused:
        # What the extension resumes as it is comes back byte for byte.
        assert out == data and not result.events and not r.export_events and not r.outcome.changed
        return
    assert out != data
    touched = {int(e.message.split("]")[0].split("[")[1]) for e in r.export_events}
    before, after = spans(data), spans(out)
    added = sum(1 for e in r.export_events if e.kind == "entry-added")
    removed = sum(1 for e in r.export_events if e.kind == "entry-removed")
    assert len(after) == len(before) + added - removed
    assert [r for k, r in enumerate(before) if k not in touched] == [r for r in after if r in before]
    # The repaired file reads as clean: a second repair changes nothing.
    again = repair(resumed(tmp_path / "again", folder, out) / cline.HISTORY_FILE)
    assert not again.result.events and again.out == out and not again.outcome.changed


@pytest.mark.parametrize("ext", EXTS)
def test_a_call_the_extension_answers_itself_is_read_with_its_placeholder(tmp_path, ext):
    folder, path = build(tmp_path, "crash-trailing", ext)
    im = repair(path).im
    notes = [e for e in im.events if e.kind == "result-placeholder"]
    assert [e.tool_call_id for e in notes] == sim.placeholders(folder, ext) == ["toolu_01Suite"]
    row = im.messages[notes[0].origin]
    assert row == {"role": "tool", "content": cline.PLACEHOLDER[ext][0], "tool_call_id": "toolu_01Suite"}
    assert "added by the agent on resume" in im.where(notes[0].origin)


def test_cline_answers_a_lost_parallel_result_itself_roo_does_not(tmp_path):
    folder, path = build(tmp_path, "crash-parallel-lost", "cline")
    data, im, result, out = repair(path)
    assert out == data and [e.tool_call_id for e in im.events if e.kind == "result-placeholder"] == ["toolu_01Cart"]
    folder, path = build(tmp_path / "roo", "crash-parallel-lost", "roo")
    data, im, result, out = repair(path)
    assert [e.kind for e in result.events] == ["result-synthesized"]
    record = json.loads(out)[4]
    assert record["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_01Cart",
                                    "content": "Tool call was interrupted; no result.", "is_error": True}
    assert record["ts"] == json.loads(data)[4]["ts"]


@pytest.mark.parametrize("ext", ("roo", "kilo"))
def test_reasoning_turns_are_never_rewritten(tmp_path, ext):
    folder, path = build(tmp_path, "reasoning", ext)
    data, im, result, out = repair(path)
    records = json.loads(data)
    signed = [k for k, r in enumerate(records) if r["role"] == "assistant"]
    assert all(spans(data)[k] in spans(out) for k in signed)
    assert [e.kind for e in result.events] == ["result-synthesized"]


@pytest.mark.parametrize("ext", EXTS)
def test_what_the_filter_hides_is_not_read_and_not_touched(tmp_path, ext):
    folder, path = build(tmp_path, "condensed", ext)
    data, im, result, out = repair(path)
    assert out == data
    hidden = {"cline": "toolu_01Open", "roo": "toolu_01Edit", "kilo": None}[ext]
    ids = {m.get("tool_call_id") for m in im.messages} | {c["tool_call_id"] for m in im.messages
                                                          for c in m.get("tool_calls", ())}
    if hidden:
        assert hidden not in ids
        assert any(e.kind == "block-not-sent" and "not sent on resume" in e.message for e in im.events)
    # Kilo's file declares toolu_01Grep twice (the condensed turn and the summary): one is read.
    calls = [c["tool_call_id"] for m in im.messages for c in m.get("tool_calls", ())]
    assert len(calls) == len(set(calls))
    assert any("not sent on resume" in n for n in im.notes) or ext == "kilo"


def test_a_rewritten_record_is_written_as_json_stringify_writes_it(tmp_path):
    t = b.orphan_result("roo")
    t.messages[4]["content"].append(b.text("Prüfung — ✓ \u2028 done"))
    folder = t.write(tmp_path / b.EXTENSION_IDS["roo"])
    data, im, result, out = repair(folder / cline.HISTORY_FILE)
    record = spans(out)[4]
    assert record.startswith(b'{"role":"user","content":[{"type":"text","text":"<environment_details>')
    assert "Prüfung — ✓ \u2028 done".encode() in record and b'": ' not in record
    assert json.loads(record) == {**json.loads(data)[4], "content": json.loads(data)[4]["content"][1:]}
    assert not out.endswith(b"\n")


@pytest.mark.parametrize("ext", EXTS)
def test_the_extension_is_told_by_its_storage_folder_or_by_its_records(tmp_path, ext):
    folder, path = build(tmp_path, "condensed", ext)
    assert cline.parse(path.read_bytes(), str(path)).agent == ext
    loose = tmp_path / "loose" / cline.HISTORY_FILE
    loose.parent.mkdir()
    loose.write_bytes(path.read_bytes())
    assert cline.parse(loose.read_bytes(), str(loose)).agent == ext


def test_cline_truncation_range_is_read_from_the_task_history_or_the_ui_messages(tmp_path):
    folder, path = build(tmp_path, "condensed", "cline")
    assert cline.parse(path.read_bytes(), str(path)).deleted_range == (2, 5)
    (folder.parent.parent / "state" / "taskHistory.json").unlink()
    assert cline.parse(path.read_bytes(), str(path)).deleted_range == (2, 5)


@pytest.mark.parametrize("text", [b'[]', b'\xef\xbb\xbf [ {"a":"]},[\\"{"} ,\n 5, "x,y" ,[1,[2]] ]\n',
                                  b'[{"role":"user","content":"a"}]'])
def test_record_spans_follow_the_json_not_the_characters(text):
    body = text[3:] if text.startswith(b"\xef\xbb\xbf") else text
    found = [json.loads(s) for s in spans(text)]
    assert found == json.loads(body)


def test_a_repaired_task_under_another_name_is_still_a_task_and_a_fixed_point(tmp_path):
    """``normalize TASK -o out.json`` then ``check out.json``: the copy is told by its records
    (every message stamped with ``ts``, which no provider takes), as a batch record is, so
    the extension's own answer to its trailing call is not mistaken for a missing result."""
    from inspector import cli
    from inspector.bundled import samples_dir

    out, again = tmp_path / "out.json", tmp_path / "again.json"
    sample = samples_dir() / "25-roo-code-task.api_conversation_history.json"
    assert cli.main(["normalize", str(sample), "-o", str(out), "-q"]) == 0
    assert cli.main(["check", str(out)]) == 0
    assert cli.main(["normalize", str(out), "-o", str(again), "-q"]) == 0
    assert again.read_bytes() == out.read_bytes()


def test_a_list_is_a_task_only_when_every_message_carries_ts():
    from inspector.formats import REGISTRY

    cline = REGISTRY["cline"]
    stamped = [{"role": "user", "content": "hi", "ts": 1}, {"role": "assistant", "content": "yes", "ts": 2}]
    assert cline.evidence(stamped)
    assert not cline.evidence([stamped[0], {"role": "assistant", "content": "yes"}])
    assert not cline.evidence([{"role": "user", "content": "hi", "ts": True}])
    assert not cline.evidence([{"role": "user", "content": "hi", "ts": "1"}])
    assert not cline.evidence([])

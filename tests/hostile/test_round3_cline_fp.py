"""R3-30's Cline-family cases (``../shared/hostile-round3/store_fuzz3.py ... cline``, seed 12):
repaired Kilo Code and Roo Code tasks that were not fixed points, each cut down to the few
records that make it. What the extensions send on resume is read from Roo Code's source
(RooCodeInc/Roo-Code at cb836567180a3ff1da6d082f3178b90c3bd22a70:
``src/core/task/validateToolResultIds.ts`` checks the message a resume writes against the last
assistant message; ``Task.ts`` ``resumeTaskFromHistory`` writes its results as text when no
assistant message comes right before it), as ``inspector/formats/cline/resume.py`` models it.

- A result stored under an id no call of the last turn has is sent under that turn's call id
  (the check renames it by position). The repair took that call out (its id was still open from
  an earlier turn), so the stored id came back on the next read and answered another call.
- The last record is a truncation marker: the synthesized result went into a new record before
  it, and the check of the message the resume writes from that marker answered the call again.
- Roo: the repair removed the assistant record before the last one, and Roo then sends the last
  record's result as text; the call it answered was left unanswered in the written task.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from inspector import pipeline
from inspector.io import read_bytes

HISTORY = "api_conversation_history.json"


def _task(root: Path, extension: str, records: list) -> Path:
    path = root / extension / "tasks" / "1760260800000" / HISTORY
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(records))
    return path


def _user(*blocks, **keys) -> dict:
    return {"role": "user", "content": list(blocks), **keys}


def _assistant(*blocks) -> dict:
    return {"role": "assistant", "content": list(blocks)}


def _text(t: str) -> dict:
    return {"type": "text", "text": t}


def _use(cid: str) -> dict:
    return {"type": "tool_use", "id": cid, "name": "read_file", "input": {"path": "a.py"}}


def _result(cid: str, out: str = "x = 1") -> dict:
    return {"type": "tool_result", "tool_use_id": cid, "content": out}


def _twice(tmp_path: Path, path: Path, strict: bool) -> tuple[pipeline.Outcome, pipeline.Outcome, list]:
    """Repair the task, write it over a copy of its folder tree, and repair that again."""
    first = pipeline.run(read_bytes(path), str(path), strict=strict)
    assert first.changed
    copy = tmp_path / f"out-{strict}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(tmp_path / "in", copy)
    out = copy / path.relative_to(tmp_path / "in")
    out.write_bytes(first.data)
    again = pipeline.run(read_bytes(out), str(out), strict=strict)
    return first, again, json.loads(first.data)


def test_a_result_renamed_on_resume_keeps_the_name_it_is_sent_with(tmp_path):
    # call R is still open when the last turn declares it again; the last record's result names
    # Z, which Kilo's check renames to R (the last turn's only call)
    path = _task(tmp_path / "in", "kilocode.kilo-code", [
        _user(_text("<task>look</task>")),
        _assistant(_use("R")),
        _user(_text("<user_message>go on</user_message>")),
        _assistant(_text("Again."), _use("R")),
        _user(_result("Z"), _text("<environment_details/>")),
    ])
    for strict in (False, True):
        first, again, written = _twice(tmp_path, path, strict)
        assert not again.changed, [e.message for e in again.events if e.stage != "import"]
        names = [b.get("tool_use_id") for r in written for b in r["content"] if b.get("type") == "tool_result"]
        assert "Z" not in names and "R" in names, names
    # (with --strict that result goes: it answered the declaration the repair took out)
    assert any("now names R" in e.message for e in _twice(tmp_path, path, False)[0].events)


def test_the_last_record_a_truncation_marker_takes_the_interrupted_result(tmp_path):
    path = _task(tmp_path / "in", "kilocode.kilo-code", [
        _user(_text("<task>look</task>")),
        _assistant(_text("Running it."), _use("S")),
        _user(_text("<user_message>go on</user_message>"), isTruncationMarker=True, truncationId="t1"),
    ])
    for strict in (False, True):
        first, again, written = _twice(tmp_path, path, strict)
        assert not again.changed, [e.message for e in again.events if e.stage != "import"]
        assert len(written) == 3                       # no record added before the marker
        assert written[2]["content"][0]["tool_use_id"] == "S"


def test_roo_last_result_sent_as_text_leaves_its_call_answered_as_interrupted(tmp_path):
    # A is declared, the user speaks, A is declared again (dropped: A is still open) and answered
    # in the last record; with the redeclaring record gone, Roo sends that answer as text
    path = _task(tmp_path / "in", "rooveterinaryinc.roo-cline", [
        _user(_text("<task>look</task>")),
        _assistant(_use("A")),
        _user(_text("<user_message>again</user_message>")),
        _assistant(_use("A")),
        _user(_result("A"), _text("<environment_details/>")),
    ])
    first, again, written = _twice(tmp_path, path, False)
    assert not again.changed, [e.message for e in again.events if e.stage != "import"]
    assert [r["role"] for r in written] == ["user", "assistant", "user", "user"]
    assert written[2]["content"][0] == {"type": "tool_result", "tool_use_id": "A",
                                        "content": written[2]["content"][0]["content"], "is_error": True}
    assert any("sent as text" in e.message for e in first.events)

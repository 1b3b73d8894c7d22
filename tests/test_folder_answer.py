"""One folder, one answer: ``check DIR``, ``doctor DIR`` and the TUI's folder browser list the
same files with the same word each. ``check`` and ``doctor`` once walked a folder for agent
session files only (a folder of plain histories was "a directory, not a file", exit 2) while
the browser listed every history file and called a JSON index "unreadable"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector import cli
from inspector.bundled import samples_dir
from inspector.doctor import Found
from inspector.tui import facts
from inspector.tui.screens.browser import PASSED, check_file
from inspector.verdict import STATUS_WORDS


@pytest.fixture
def folder(tmp_path):
    samples = samples_dir()
    (tmp_path / "agent").mkdir()
    for name in ("01-falsy-id.json", "11-known-limit-separated-result.json", "12-clean-history.json", "index.json"):
        shutil.copy(samples / name, tmp_path / name)
    shutil.copy(samples / "21-claude-code-session.jsonl", tmp_path / "agent" / "session.jsonl")
    (tmp_path / "settings.json").write_text('{"theme": "dark"}')
    (tmp_path / "messages.json").write_text('[{"role": "user", "content": "hi"}]')
    return tmp_path


def _check(capsys, *argv) -> tuple[int, dict[str, str]]:
    code = cli.main(["check", *argv, "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return code, {Path(r["file"]).name: (PASSED if "passed_over" in r else STATUS_WORDS[r["status"]])
                  for r in lines}


def _doctor(capsys, folder) -> tuple[int, dict[str, str]]:
    code = cli.main(["doctor", str(folder), "--json"])
    report = json.loads(capsys.readouterr().out)
    said = {Path(r["path"]).name: STATUS_WORDS[r["status"]] for r in report["sessions"]}
    said.update({Path(p["file"]).name: PASSED for p in report["passed_over"]})
    return code, said


def _browser(folder) -> dict[str, str]:
    return {Path(p).name: check_file(p, item=Found(Path(p), folder, None, p, walked=True)).status
            for p in facts.files_under(folder)}


def test_check_doctor_and_the_browser_give_one_answer_per_file(folder, capsys):
    code, checked = _check(capsys, str(folder))
    doctor_code, doctor_said = _doctor(capsys, folder)
    browser = _browser(folder)
    assert checked == doctor_said == browser
    assert {n for n, s in checked.items() if s == PASSED} == {"index.json", "settings.json"}
    assert {"01-falsy-id.json", "12-clean-history.json", "messages.json", "session.jsonl"} <= checked.keys()
    assert code == doctor_code == 1          # something would change or fail; a file passed over is no error


def test_a_file_passed_over_in_a_folder_is_an_error_named_alone(folder, capsys):
    assert cli.main(["check", str(folder / "index.json")]) == 2
    assert "not a conversation history" in capsys.readouterr().err


def test_a_damaged_history_in_a_folder_is_never_passed_over(folder, capsys):
    """A file that is not JSON may be a damaged history: an error that names it, exit 2."""
    (folder / "broken.json").write_text('[{"role": "user", "content": "x"')
    code = cli.main(["check", str(folder)])
    out, err = capsys.readouterr()
    assert code == 2 and "broken.json" in err and "broken.json" not in out
    assert _browser(folder)["broken.json"] == "unreadable"


def test_a_folder_of_plain_histories_is_checked_not_refused(tmp_path, capsys):
    shutil.copy(samples_dir() / "12-clean-history.json", tmp_path / "h.json")
    assert cli.main(["check", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"{tmp_path / 'h.json'}: ok")

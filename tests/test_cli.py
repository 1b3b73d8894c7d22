"""The command line as scripts see it: exit codes, one-line errors naming file and
position, stdin, atomic output that never overwrites its input, and report shapes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from inspector import cli, io as iio
from inspector.bundled import samples_dir
from inspector.engine import normalize

BROKEN = [
    {"role": "user", "content": "weather in Oslo?"},
    {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "get_forecast"}]},
    {"role": "system", "content": "be brief"},
    {"role": "tool", "content": "r9", "tool_call_id": "c9"},
]
CLEAN = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


def write(path: Path, value) -> Path:
    path.write_bytes(value if isinstance(value, bytes) else orjson.dumps(value))
    return path


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# --- normalize ---------------------------------------------------------------------

def test_normalize_writes_the_engine_output_to_stdout(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    code, out, err = run(capsys, "normalize", str(src))
    assert code == 0
    assert out.encode() == iio.dump_messages(normalize(BROKEN).messages)
    assert json.loads(out)[0] == {"role": "system", "content": "be brief"}
    assert err == "dropped 1, synthesized 1, moved 1\n"


def test_normalize_compact_and_quiet(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    code, out, err = run(capsys, "normalize", str(src), "--compact", "--quiet")
    assert code == 0 and err == ""
    assert out.count("\n") == 1 and out.endswith("\n")
    assert out.encode() == iio.dump_messages(normalize(BROKEN).messages, compact=True)


def test_normalize_reads_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(orjson.dumps(BROKEN))))
    code, out, err = run(capsys, "normalize", "-", "-q")
    assert code == 0 and json.loads(out) == normalize(BROKEN).messages


def test_stdin_errors_are_named_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"[\n  {,\n")))
    code, out, err = run(capsys, "normalize", "-")
    assert code == 2 and out == ""
    assert one_error_line(err) == "<stdin>:2:4: unexpected character, expected a string key"


def test_request_body_object_is_accepted(tmp_path, capsys):
    src = write(tmp_path / "body.json", {"model": "gpt-4o", "messages": BROKEN, "temperature": 0})
    code, out, _ = run(capsys, "normalize", str(src), "-q")
    # a request body comes back a body with every field it had; only its messages change
    assert code == 0 and json.loads(out) == {"model": "gpt-4o", "messages": normalize(BROKEN).messages,
                                            "temperature": 0}


def test_bom_is_accepted(tmp_path, capsys):
    src = write(tmp_path / "bom.json", iio.BOM + orjson.dumps(CLEAN))
    code, out, _ = run(capsys, "normalize", str(src), "-q")
    assert code == 0 and json.loads(out) == CLEAN


def test_output_file_is_written_atomically(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    dst = tmp_path / "out.json"
    dst.write_text("old")
    code, out, err = run(capsys, "normalize", str(src), "-o", str(dst))
    assert code == 0 and out == ""
    assert dst.read_bytes() == iio.dump_messages(normalize(BROKEN).messages)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.json", "out.json"]
    assert err.startswith("dropped 1")


def test_output_dash_means_stdout(tmp_path, capsys):
    src = write(tmp_path / "h.json", CLEAN)
    code, out, _ = run(capsys, "normalize", str(src), "-o", "-", "-q")
    assert code == 0 and json.loads(out) == CLEAN


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_interrupted_write_leaves_target_and_folder_untouched(tmp_path, monkeypatch, failure):
    dst = tmp_path / "out.json"
    dst.write_text("previous export")

    def boom(*args, **kwargs):
        raise failure

    monkeypatch.setattr(iio.os, "replace", boom)
    with pytest.raises(type(failure)):
        iio.atomic_write(dst, b"[]\n")
    assert dst.read_text() == "previous export"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_interrupted_cli_run_leaves_no_half_file(tmp_path, monkeypatch, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    dst = tmp_path / "new.json"
    monkeypatch.setattr(iio.os, "fsync", lambda fd: (_ for _ in ()).throw(KeyboardInterrupt()))
    code, _, _ = run(capsys, "normalize", str(src), "-o", str(dst))
    assert code == 130
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.json"]


@pytest.mark.parametrize("how", ["same", "relative", "dotted", "symlink-out", "symlink-in", "hardlink"])
def test_refuses_to_overwrite_the_input(tmp_path, monkeypatch, capsys, how):
    src = write(tmp_path / "h.json", BROKEN)
    before = src.read_bytes()
    monkeypatch.chdir(tmp_path)
    inp, out = str(src), str(src)
    if how == "relative":
        out = "h.json"
    elif how == "dotted":
        (tmp_path / "sub").mkdir()
        out = "sub/../h.json"
    elif how == "symlink-out":
        (tmp_path / "link.json").symlink_to(src)
        out = "link.json"
    elif how == "symlink-in":
        (tmp_path / "link.json").symlink_to(src)
        inp = "link.json"
    elif how == "hardlink":
        os.link(src, tmp_path / "hard.json")
        out = "hard.json"
    code, stdout, err = run(capsys, "normalize", inp, "-o", out)
    assert code == 2 and stdout == ""
    line = one_error_line(err)
    assert line.startswith(f"{out}: refusing to write over the input")
    assert src.read_bytes() == before


def test_output_into_missing_folder_is_a_user_error(tmp_path, capsys):
    src = write(tmp_path / "h.json", CLEAN)
    code, _, err = run(capsys, "normalize", str(src), "-o", str(tmp_path / "no" / "x.json"))
    assert code == 2 and "does not exist" in one_error_line(err)


def test_output_onto_a_directory_is_a_user_error(tmp_path, capsys):
    src = write(tmp_path / "h.json", CLEAN)
    (tmp_path / "d").mkdir()
    code, _, err = run(capsys, "normalize", str(src), "-o", str(tmp_path / "d"))
    assert code == 2 and "is a directory" in one_error_line(err)


# --- bad input ---------------------------------------------------------------------

BAD_INPUTS = {
    "missing": (None, "{f}: no such file"),
    "directory": ("DIR", "{f}: is a directory, not a file"),
    "empty": (b"", "{f}: empty file: expected a JSON array of messages"),
    "blank": (b" \n\t\n", "{f}: empty file: expected a JSON array of messages"),
    "bom-only": (iio.BOM, "{f}: empty file: expected a JSON array of messages"),
    "invalid": (b'[\n  {"role": "user",\n   "content": oops}\n]', "{f}:3:15: unexpected character, expected a JSON value"),
    "truncated": (b'[{"role": "user"', "{f}:1:17: unexpected end of data"),
    "trailing": (b"[]\n[]", "{f}:2:1: unexpected content after document; this looks like JSON Lines, one "
                             "history per line: 'inspector batch FILE -o OUT.jsonl' repairs each line"),
    "non-ascii-col": ('[{"content": "ééé", x}]'.encode(), "{f}:1:21: unexpected character, expected a string key"),
    "latin-1": (b'[\n{"role": "user", "content": "caf\xe9"}]', "{f}:2:33: not valid UTF-8 (byte 0xe9)"),
    "utf-16": ("[]".encode("utf-16"), "{f}:1:1: not valid UTF-8 (byte 0xff)"),
}
# Wrong top level: the wording belongs to the format importers (which list what they
# tried); the CLI's contract is exit 2 and one line naming the file and the expectation.
TOP_LEVEL = {
    "string": b'"hello"',
    "number": b"42",
    "null": b"null",
    "object": b'{"role": "user"}',
    "messages-not-array": b'{"messages": {"role": "user"}}',
}


def _bad(tmp_path: Path, key: str) -> str:
    data, _ = BAD_INPUTS[key]
    path = tmp_path / f"{key}.json"
    if data == "DIR":
        path.mkdir()
    elif data is not None:
        path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("key", list(BAD_INPUTS))
@pytest.mark.parametrize("command", ["normalize", "explain", "check"])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, key, command):
    f = _bad(tmp_path, key)
    code, out, err = run(capsys, command, f)
    assert code == 2
    assert out == ""
    assert one_error_line(err) == BAD_INPUTS[key][1].format(f=f)


@pytest.mark.parametrize("key", list(TOP_LEVEL))
@pytest.mark.parametrize("command", ["normalize", "explain", "check"])
def test_wrong_top_level_exits_2_with_one_line(tmp_path, capsys, key, command):
    f = tmp_path / f"{key}.json"
    f.write_bytes(TOP_LEVEL[key])
    code, out, err = run(capsys, command, str(f))
    assert code == 2 and out == ""
    line = one_error_line(err)
    assert line.startswith(f"{f}: ")
    assert 'expected a JSON array of messages or an object with a "messages" array' in line


def test_bad_output_does_not_touch_existing_file(tmp_path, capsys):
    dst = tmp_path / "out.json"
    dst.write_text("keep me")
    code, _, _ = run(capsys, "normalize", _bad(tmp_path, "invalid"), "-o", str(dst))
    assert code == 2 and dst.read_text() == "keep me"


def test_usage_errors_exit_2(capsys):
    code = None
    with pytest.raises(SystemExit) as exc:
        cli.main(["normalize"])
    code = exc.value.code
    assert code == 2
    assert "Traceback" not in capsys.readouterr().err


# --- check -------------------------------------------------------------------------

def test_check_exit_codes(tmp_path, capsys):
    clean = write(tmp_path / "clean.json", CLEAN)
    broken = write(tmp_path / "broken.json", BROKEN)
    code, out, err = run(capsys, "check", str(clean))
    assert (code, out, err) == (0, f"{clean}: ok, nothing to change\n", "")
    code, out, _ = run(capsys, "check", str(clean), str(broken))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{clean}: ok, nothing to change"
    # every provider refuses the broken flat history as given: its line opens with the verdict's word
    assert lines[1].startswith(f"{broken}: fails: dropped 1, synthesized 1, moved 1, 3 events (every provider refuses it: ")
    code, out, err = run(capsys, "check", str(clean), str(tmp_path / "missing.json"), str(broken))
    assert code == 2
    assert len(out.splitlines()) == 2  # the readable files are still reported
    assert one_error_line(err) == f"{tmp_path / 'missing.json'}: no such file"


def test_check_counts_shape_changes_without_events(tmp_path, capsys):
    """Null content and the provider-flat id spelling change the output silently."""
    body = [{"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "f"}]},
            {"role": "tool", "content": "r", "tool_call_id": "c1"}]
    code, out, _ = run(capsys, "check", str(write(tmp_path / "o.json", body)))
    assert code == 1 and "would change" in out


@pytest.mark.parametrize("sample", ["01-falsy-id.json", "02-result-before-call.json"])
def test_check_names_the_providers_that_refuse_a_flat_history_it_changes(capsys, sample):
    """The text line said what MEM-5 changes and dropped which providers refuse the history,
    which --json, doctor and the TUI say: both forms carry the verdict's provider note."""
    path = str(samples_dir() / sample)
    _, out, _ = run(capsys, "check", path, "--json")
    verdict = json.loads(out)["verdict"]
    assert verdict["providers"]
    note = verdict["sentence"].removeprefix("MEM-5 changes it; ")
    _, text, _ = run(capsys, "check", path)
    assert note in text and text.startswith(path + ": ")


def test_check_on_its_own_output_is_clean(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    dst = tmp_path / "fixed.json"
    assert run(capsys, "normalize", str(src), "-o", str(dst), "-q")[0] == 0
    assert run(capsys, "check", str(dst))[0] == 0


# --- explain -----------------------------------------------------------------------

def test_explain_json_shape(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    code, out, err = run(capsys, "explain", str(src), "--json")
    assert code == 0 and err == ""
    report = json.loads(out)
    # The four keys, in order; later features may add keys after them.
    assert list(report)[:4] == ["dropped", "messages", "events", "stages"]
    result = normalize(BROKEN)
    assert report["dropped"] == result.dropped == 1
    assert report["messages"] == result.messages
    assert report["events"] == [e.to_dict() for e in result.events]
    for event in report["events"]:
        assert list(event) == ["stage", "clause", "kind", "drop", "origin", "call", "tool_call_id", "message", "cause"]
    assert [s["name"] for s in report["stages"]] == ["coerce", "hoist", "repair", "strip"]
    for stage, mine in zip(report["stages"], result.stages):
        assert list(stage) == ["name", "messages", "origins"]
        assert stage["messages"] == mine.messages and stage["origins"] == mine.origins


def test_explain_text_lists_every_event_by_stage_with_clause(tmp_path, capsys):
    src = write(tmp_path / "h.json", BROKEN)
    code, out, _ = run(capsys, "explain", str(src))
    assert code == 0
    assert out.splitlines()[0] == f"{src}: 4 in, 4 out; dropped 1, synthesized 1, moved 1"
    assert "https://flowdrop.io/spec/rules/gr-mem/mem-5" in out
    for event in normalize(BROKEN).events:
        assert event.message in out
    positions = [out.index(f"\n{name} (clause {n}") for n, name in enumerate(["coerce", "hoist", "repair", "strip"], 1)]
    assert positions == sorted(positions)
    assert "result-orphan" in out and "(3)" in out


def test_explain_text_keeps_control_characters_out_of_the_terminal(tmp_path, capsys):
    history = [{"role": "user", "content": "x", "\x1b[2J": 1},
               {"role": "tool", "content": "r", "tool_call_id": "\x1b[31mred"}]
    code, out, _ = run(capsys, "explain", str(write(tmp_path / "h.json", history)))
    assert code == 0 and "\x1b" not in out


@pytest.mark.parametrize("command", [("check",), ("check", "--target", "anthropic"), ("explain",),
                                     ("normalize",)])
def test_a_file_name_with_escapes_reaches_the_terminal_escaped(tmp_path, capsys, command):
    """check printed the name raw (doctor and the TUI escaped it): a name holding an escape
    sequence cleared the user's screen. Every line names it as \\x1b text instead."""
    history = [{"role": "user", "content": "x"},
               {"role": "assistant", "content": None,
                "tool_calls": [{"id": "c\x1b[31m", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]
    path = write(tmp_path / "evil\x1b[2J.json", history)
    code, out, err = run(capsys, *command[:1], str(path), *command[1:])
    assert code in (0, 1) and "\x1b" not in out + err
    assert command == ("normalize",) or "evil\\x1b[2J.json" in out + err     # normalize names no file


def test_an_unreadable_file_name_with_escapes_is_escaped_in_the_error(tmp_path, capsys):
    path = tmp_path / "bad\x1b]0;title\x07.json"
    path.write_text("[{")
    code, out, err = run(capsys, "check", str(path))
    assert code == 2 and "\x1b" not in err and "\x07" not in err and "bad\\x1b]0;title\\x07.json" in err


def test_explain_reads_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(orjson.dumps(CLEAN))))
    code, out, _ = run(capsys, "explain", "-", "--json")
    assert code == 0 and json.loads(out)["dropped"] == 0


# --- a real process ----------------------------------------------------------------

def _proc(*argv, stdin: bytes = b"", cwd=None):
    return subprocess.run([sys.executable, "-m", "inspector", *argv], input=stdin,
                          capture_output=True, cwd=cwd, timeout=60)


def test_python_dash_m_pipeline():
    sample = samples_dir() / "03-crash-parallel-calls.json"
    proc = _proc("normalize", "-", "--compact", stdin=sample.read_bytes())
    assert proc.returncode == 0
    assert proc.stderr == b"dropped 0, synthesized 1, moved 0\n"
    assert orjson.loads(proc.stdout) == normalize(orjson.loads(sample.read_bytes())).messages


def test_python_dash_m_user_errors_have_no_traceback(tmp_path):
    bad = tmp_path / "history.json"
    bad.write_bytes(b'[\n  {"role": "user"},\n  {"role": "tool", x}\n]')
    proc = _proc("normalize", str(bad))
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode() == f"{bad}:3:20: unexpected character, expected a string key\n"
    proc = _proc("check", str(tmp_path / "nope.json"), str(bad))
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 2


def test_python_dash_m_check_clean_sample():
    proc = _proc("check", str(samples_dir() / "12-clean-history.json"))
    assert proc.returncode == 0 and b"nothing to change" in proc.stdout


def test_the_process_entry_point_returns_main_s_code_and_freezes_what_is_left(monkeypatch):
    """``inspector`` and ``python -m inspector`` run ``entry``: main's exit code, with the
    objects still alive frozen so that the interpreter's last collection skips them."""
    import gc

    calls = []
    monkeypatch.setattr(cli, "main", lambda: 3)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    assert cli.entry() == 3 and calls == ["freeze"]


# --- the rule offline, and explain's answer first ----------------------------------

def test_explain_rule_prints_every_clause_and_the_known_limits_offline(capsys):
    from inspector.engine import CLAUSES, KNOWN_LIMITS, RULE_SOURCE

    code, out, _ = run(capsys, "explain", "--rule")
    assert code == 0
    assert RULE_SOURCE in out and "Known limits" in out
    for clause in CLAUSES.values():
        assert f"Clause {clause.number} ({clause.stage}): {clause.title}" in out
    assert len(KNOWN_LIMITS) == out.count("\n  - ")
    code, out, _ = run(capsys, "explain", "--rule", "--json")
    report = json.loads(out)
    assert [c["stage"] for c in report["clauses"]] == ["coerce", "hoist", "repair", "strip"]
    assert report["known_limits"] and report["source"] == RULE_SOURCE


def test_explain_without_a_file_or_rule_is_a_usage_error(capsys):
    code, _, err = run(capsys, "explain")
    assert code == 2 and "--rule" in err


def test_explain_of_a_long_one_to_one_history_comes_to_its_answer_at_once(tmp_path, capsys):
    """A 5,000-message chat body read one to one is one mapping line, not 5,000 before the events."""
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(5000)]
    messages.append({"role": "tool", "tool_call_id": "nobody", "content": "orphan"})
    body = write(tmp_path / "body.json", {"model": "gpt-5", "messages": messages})
    code, out, _ = run(capsys, "explain", str(body), "--from", "openai-chat")
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "  #0..#5000 <- messages[0..5000]"
    assert next(i for i, line in enumerate(lines) if "result-orphan" in line) < 40
    # --json still lists every origin
    code, out, _ = run(capsys, "explain", str(body), "--from", "openai-chat", "--json")
    assert len(json.loads(out)["import"]["sources"]) == 5001


def test_explain_caps_a_mapping_that_does_not_run_one_to_one(tmp_path, capsys):
    turns = [{"role": "user", "content": "go"}]
    for i in range(100):     # each user turn is read as a result row and a text row, by block
        turns.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "ls",
                                                        "input": {}}]})
        turns.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}",
                                                   "content": "ok"}, {"type": "text", "text": "next"}]})
    body = write(tmp_path / "anthropic.json", {"model": "claude-sonnet-5", "max_tokens": 10, "messages": turns})
    code, out, _ = run(capsys, "explain", str(body), "--from", "anthropic")
    assert code == 0
    mapping = out.split("\n\n")[0].splitlines()[1:]
    assert len(mapping) == 41 and "explain --json lists every" in mapping[-1]


def test_a_file_of_json_lines_is_named_as_such(tmp_path, capsys):
    path = tmp_path / "two.jsonl"
    path.write_text('[{"role": "user", "content": "a"}]\n[{"role": "user", "content": "b"}]\n')
    code, _, err = run(capsys, "normalize", str(path))
    assert code == 2 and f"{path}:2:1:" in err and "JSON Lines" in err and "inspector batch" in err
    other = tmp_path / "x.json"
    other.write_text('[{"role": "user", "content": "a"}] x')
    code, _, err = run(capsys, "normalize", str(other))
    assert code == 2 and "JSON Lines" not in err

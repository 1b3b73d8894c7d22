"""Issue 31 item 6 and hostile round 3 R3-24: half of an emoji (a lone surrogate escape, as
JavaScript's JSON.stringify writes it) is read in every reader, reported per entry with
Anthropic's own words, and replaced by U+FFFD (one event per entry) only in an export for a
provider that refuses it; every other byte of a session stays as it was."""

from __future__ import annotations

import json

from inspector import cli
from inspector.io import parse_json
from inspector.formats.jsonl import split
from inspector.formats.surrogates import fix_escapes
from inspector.pipeline import run, run_file
from inspector.targets import check, failed

# A Claude Code 2.1.100 session (before 2.1.132, which sanitizes on load) whose first prompt
# holds half an emoji: the R3-24 reproducer's shape (hostile-round3/README.md).
LINES = [
    b'{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"sessionId":"s1","version":"2.1.100",'
    b'"message":{"role":"user","content":"Fix the \\ud83d bug"},"timestamp":"2026-01-01T00:00:00.000Z"}',
    b'{"type":"assistant","uuid":"a1","parentUuid":"u1","isSidechain":false,"sessionId":"s1","version":"2.1.100",'
    b'"message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text",'
    b'"text":"Done \\ud83d\\ude00, a path C:\\\\ud83d stays"}]},"timestamp":"2026-01-01T00:00:01.000Z"}',
    b'{"type":"user","uuid":"u2","parentUuid":"a1","isSidechain":false,"sessionId":"s1","version":"2.1.100",'
    b'"message":{"role":"user","content":"thanks"},"timestamp":"2026-01-01T00:00:02.000Z"}',
]
SESSION = b"\n".join(LINES) + b"\n"
ANTHROPIC_TEXT = "no low surrogate in string"


def test_the_readers_do_not_stop_at_a_lone_surrogate():
    assert parse_json(b'[{"role": "user", "content": "a \\ud83d"}]', "x") == [{"role": "user", "content": "a \ud83d"}]
    lines = split(SESSION, "claude-code", "s.jsonl")
    assert lines.bad == [] and lines.entries[0]["message"]["content"] == "Fix the \ud83d bug"


def test_only_lone_escapes_are_replaced_and_nothing_else():
    fixed, count = fix_escapes(LINES[1])
    assert count == 0 and fixed == LINES[1]                  # a pair, and an escaped backslash before "ud83d"
    fixed, count = fix_escapes(b'"\\udc00 and \\ud83d"')
    assert count == 2 and fixed == b'"\\ufffd and \\ufffd"'


def test_claude_code_session_check_names_the_line_and_anthropic_words(tmp_path, capsys):
    path = tmp_path / "s.jsonl"
    path.write_bytes(SESSION)
    out = run_file(path)
    problems = [p for p in check(out, "anthropic") if p.rule == "lone-surrogate"]
    assert [(p.where, p.severity) for p in problems] == [("line 1", "error")]
    assert ANTHROPIC_TEXT in problems[0].error
    assert cli.main(["check", str(path)]) == 1


def test_normalize_writes_a_copy_anthropic_accepts_every_other_line_byte_identical(tmp_path):
    path, fixed = tmp_path / "s.jsonl", tmp_path / "out.jsonl"
    path.write_bytes(SESSION)
    out = run_file(path)
    (event,) = [e for e in out.export_events if e.kind == "surrogate-replaced"]
    assert event.message.startswith("line 1:") and ANTHROPIC_TEXT in event.message
    assert cli.main(["normalize", str(path), "-o", str(fixed)]) == 0
    written = fixed.read_bytes().split(b"\n")
    assert written[1:] == SESSION.split(b"\n")[1:]
    assert written[0] == LINES[0].replace(b"\\ud83d", b"\\ufffd")
    again = run_file(fixed)
    assert not failed(check(again, "anthropic")) and not again.changed
    assert path.read_bytes() == SESSION                     # the input is never written over


def test_an_anthropic_body_is_repaired_a_chat_body_keeps_its_escape():
    body = b'{"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": [{"role": "user", "content": "hi \\ud83d"}]}'
    out = run(body, "b.json", "anthropic")
    assert [e.kind for e in out.export_events] == ["surrogate-replaced"]
    assert json.loads(out.data)["messages"][0]["content"] == "hi \ufffd"
    chat = run(body.replace(b'"max_tokens": 9, ', b""), "c.json", "openai-chat")
    assert chat.export_events == [] and b"\\ud83d" in chat.data       # OpenAI warns only: the escape stays
    assert [p.severity for p in check(chat, "openai-chat") if p.rule == "lone-surrogate"] == ["warning"]

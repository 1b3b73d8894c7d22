"""Damage inside the lines of a JSON Lines session (issue 33): a record cut by raw line
breaks, NUL bytes, two records glued on one line, a record cut short, a raw U+2028. Each is
found with its line and column and either mended (the repaired copy is what repairing the
undamaged file gives) or kept and reported with its reason; never skipped without a word.

The damage is made the way the agents' reports show it (github/copilot-cli #2649 raw line
breaks in ``result.content``, #2217 / #2927 NUL padding after a crash, #4098 a cut record with
a whole one glued after it, #2012 / #2658 raw U+2028) on the bundled Claude Code and Codex
sessions, which are built from the agents' own writers (see their store modules). The
oracle is the undamaged file: what Inspector writes for the damaged one must be what it
writes for the file as the agent meant to write it.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from extras import repeatable
from inspector.io import InputError
from inspector.pipeline import run

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
CLAUDE, CODEX, GEMINI = "21-claude-code-session.jsonl", "22-codex-rollout.jsonl", "30-gemini-cli-session.jsonl"
# (sample, a 0-based line holding a message the resume sends, the name the file is read under)
CASES = [(CLAUDE, 3, "session.jsonl"), (CODEX, 5, "rollout-2025-10-12T09-14-00-0f9c1d2e.jsonl")]
DAMAGE_KINDS = ("line-mended", "line-repaired", "entry-skipped")
STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def lines_of(sample: str) -> list[bytes]:
    data = (SAMPLES / sample).read_bytes()
    assert data.endswith(b"\n")
    return data[:-1].split(b"\n")


def file_of(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n"


def inside_a_string(line: bytes, part: float = 0.5) -> int:
    """A byte offset ``part`` of the way into the line's longest string (between two ASCII
    bytes, not after a backslash)."""
    m = max(STRING.finditer(line), key=lambda m: m.end() - m.start())
    k = m.start() + 1 + int(part * (m.end() - m.start() - 2))
    while line[k - 1:k] == b"\\" or not line[k:k + 1].isascii() or not line[k - 1:k].isascii():
        k += 1
    return k


def said(outcome, kinds=DAMAGE_KINDS) -> str:
    return " ".join(e.message for e in outcome.events if e.kind in kinds)


def fixed_point(data: bytes, name: str) -> None:
    again = run(data, name)
    assert again.data == data
    assert not [e for e in again.events if e.kind in ("line-mended", "line-repaired")]


@pytest.mark.parametrize("sample,i,name", CASES)
def test_a_record_cut_by_raw_line_breaks_is_read_whole_and_written_on_one_line(sample, i, name):
    lines = lines_of(sample)
    line = lines[i]
    k, j = inside_a_string(line, 0.3), inside_a_string(line, 0.7)
    damaged = file_of(lines[:i] + [line[:k], line[k:j], line[j:]] + lines[i + 1:])
    meant = file_of(lines[:i] + [line[:k] + b"\\n" + line[k:j] + b"\\n" + line[j:]] + lines[i + 1:])

    outcome = run(damaged, name)
    assert f"Line {i + 1}, column {k + 1}: a raw line break" in said(outcome)
    for n in (i + 2, i + 3):                       # each line taken in is named
        assert f"Line {n} is taken into line {i + 1}" in said(outcome, ("line-repaired",))
    assert outcome.changed
    assert outcome.data == run(meant, name).data
    fixed_point(outcome.data, name)


@pytest.mark.parametrize("sample,i,name", CASES)
def test_nul_padding_between_the_lines_of_a_cut_record_is_removed_and_the_record_joined(sample, i, name):
    """The padding goes wherever it lies; left between the halves it would keep them apart
    until the next run, which would join them (the property found it)."""
    lines = lines_of(sample)
    line = lines[i]
    k = inside_a_string(line)
    damaged = file_of(lines[:i] + [line[:k], b"\x00" * 7, line[k:]] + lines[i + 1:])
    meant = file_of(lines[:i] + [line[:k] + b"\\n" + line[k:]] + lines[i + 1:])
    outcome = run(damaged, name)
    assert f"Line {i + 2} is 7 NUL bytes and nothing else" in said(outcome)
    assert f"Line {i + 1} and line {i + 3} were one record cut by raw line breaks" in said(outcome, ("line-repaired",))
    assert outcome.data == run(meant, name).data
    fixed_point(outcome.data, name)


@pytest.mark.parametrize("sample,i,name", CASES)
def test_a_break_between_a_records_tokens_is_left_out(sample, i, name):
    lines = lines_of(sample)
    line = lines[i]
    k = line.index(b'":') + 2                      # after the first key, before its value
    damaged = file_of(lines[:i] + [line[:k], line[k:]] + lines[i + 1:])
    outcome = run(damaged, name)
    assert f"Line {i + 1}, column {k + 1}" in said(outcome)
    assert outcome.data == run(file_of(lines), name).data


def test_a_crlf_record_cut_inside_a_string_keeps_its_line_ends():
    lines = lines_of(CLAUDE)
    line = lines[3]
    k = inside_a_string(line)
    crlf = [x + b"\r" for x in lines]
    damaged = file_of(crlf[:3] + [line[:k] + b"\r", line[k:] + b"\r"] + crlf[4:])
    outcome = run(damaged, "s.jsonl")
    assert outcome.imported.document.raw[3] == line[:k] + b"\\r\\n" + line[k:] + b"\r"
    assert all(x.endswith(b"\r") for x in outcome.data.split(b"\n")[:-1])


@pytest.mark.parametrize("sample,i,name", CASES)
def test_two_records_glued_on_one_line_are_split(sample, i, name):
    lines = lines_of(sample)
    damaged = file_of(lines[:i] + [lines[i] + lines[i + 1]] + lines[i + 2:])
    outcome = run(damaged, name)
    column = len(lines[i].decode()) + 1
    assert f"Line {i + 1}: two records glued on one line (the second from column {column})" in said(outcome)
    assert f"Line {i + 1} was two records glued on one line; split" in said(outcome, ("line-repaired",))
    assert outcome.data == run(file_of(lines), name).data
    fixed_point(outcome.data, name)


@pytest.mark.parametrize("sample,i,name", CASES)
def test_a_cut_record_with_a_whole_one_glued_after_it_is_kept_and_the_whole_one_read(sample, i, name):
    lines = lines_of(sample)
    cut = lines[i][:60]
    damaged = file_of(lines[:i] + [cut + lines[i + 1]] + lines[i + 2:])
    meant = file_of(lines[:i] + [cut, lines[i + 1]] + lines[i + 2:])
    outcome = run(damaged, name)
    assert f"Line {i + 1}: a record cut short, then one whole record written on the same line from column 61" \
        in said(outcome)
    assert outcome.data == run(meant, name).data
    assert cut in outcome.data.split(b"\n")          # the cut record is kept, on a line of its own
    fixed_point(outcome.data, name)


@pytest.mark.parametrize("case,hits", [
    (CASES[0], [("cut", 0.24638979992233906, 21), ("glue", 0.24638979992233906, 34),
                ("glue", 0.24638979992233906, 34)]),
    (CASES[1], [("cut", 0.038806753281423585, 21), ("glue", 0.038806753281423585, 21),
                ("glue", 0.038806753281423585, 21)])], ids=["claude-code", "codex"])
def test_a_cut_record_with_two_whole_ones_glued_after_it_gives_each_whole_one_its_line(case, hits):
    """The parser runs on over the first whole record before it stops, so the search from
    there finds only the second; the cut text left is searched again, as the next run would
    (the property found it: the next run split the cut line once more)."""
    sample, _, name = case
    data = (SAMPLES / sample).read_bytes()
    for kind, at, size in hits:
        data = damage(data, kind, at, size)
    outcome = run(data, name)
    assert "a record cut short, then two whole records written on the same line" in said(outcome)
    assert sum(1 for line in outcome.data.split(b"\n") if line and not _parses(line)) == 1
    fixed_point(outcome.data, name)


def _parses(line: bytes) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


@pytest.mark.parametrize("sample,i,name", CASES)
def test_nul_padding_after_a_crash_is_removed(sample, i, name):
    lines = lines_of(sample)
    damaged = file_of(lines) + b"\x00" * 1728            # copilot-cli #2217: 1,728 of them
    outcome = run(damaged, name)
    assert f"Line {len(lines) + 1} is 1728 NUL bytes and nothing else" in said(outcome)
    assert outcome.data == run(file_of(lines), name).data
    assert not [e for e in outcome.events if e.kind == "line-ended"]   # the last record had its line end
    fixed_point(outcome.data, name)


@pytest.mark.parametrize("sample,i,name", CASES)
def test_nuls_before_a_record_are_removed_and_its_text_kept(sample, i, name):
    lines = lines_of(sample)
    damaged = file_of(lines[:i] + [b"\x00" * 300 + lines[i]] + lines[i + 1:])
    outcome = run(damaged, name)
    assert f"Line {i + 1}, column 1: 300 NUL bytes outside its record text" in said(outcome)
    assert outcome.data == run(file_of(lines), name).data


@pytest.mark.parametrize("sample,i,name", CASES)
def test_a_nul_inside_a_records_text_is_refused_with_the_reason(sample, i, name):
    lines = lines_of(sample)
    k = inside_a_string(lines[i])
    bad = lines[i][:k] + b"\x00" + lines[i][k:]
    outcome = run(file_of(lines[:i] + [bad] + lines[i + 1:]), name)
    assert f"Line {i + 1} is not JSON (column {k + 1}: it holds NUL bytes inside its text" in said(outcome)
    assert bad in outcome.data.split(b"\n")              # kept as it was
    assert not [e for e in outcome.events if e.kind in ("line-mended", "line-repaired")]


@pytest.mark.parametrize("sample,i,name", CASES)
def test_a_record_cut_short_is_kept_and_named_with_where_it_stops(sample, i, name):
    lines = lines_of(sample)
    cut = lines[i][:70]
    outcome = run(file_of(lines[:i] + [cut] + lines[i + 1:]), name)
    assert f"Line {i + 1} is not JSON (column 71: the record is cut short" in said(outcome)
    assert cut in outcome.data.split(b"\n")
    assert not [e for e in outcome.events if e.kind in ("line-mended", "line-repaired")]


@pytest.mark.parametrize("sample,i,name", CASES)
def test_a_raw_line_separator_is_fine_where_the_agent_breaks_lines_at_newlines_only(sample, i, name):
    """Claude Code's CLI and Codex (Rust's ``lines()``) read such a record whole: the file is
    valid and comes back byte for byte where nothing else changes."""
    lines = lines_of(sample)
    k = inside_a_string(lines[i])
    line = lines[i][:k] + "\u2028".encode() + lines[i][k:]
    damaged = file_of(lines[:i] + [line] + lines[i + 1:])
    outcome = run(damaged, name)
    assert not [e for e in outcome.events if e.kind in DAMAGE_KINDS]
    assert line in outcome.data.split(b"\n")


def readline_records(data: bytes) -> list[dict]:
    """The records Gemini CLI reads from its log: Node's readline splits at ``\\r?\\n``, a lone
    ``\\r``, U+2028 and U+2029 (nodejs/node lib/internal/readline/interface.js ``lineEnding``
    at v24.20.0, 71b8b17), then each line is ``JSON.parse``d and skipped when it fails
    (google-gemini/gemini-cli packages/core/src/services/chatRecordingService.ts
    ``loadConversationRecord`` at 5411f113)."""
    out = []
    for line in re.split("\r?\n|\r(?!\n)|\u2028|\u2029", data.decode()):
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def test_a_raw_line_separator_in_a_gemini_cli_log_is_escaped_so_the_cli_reads_the_record():
    lines = lines_of(GEMINI)
    i = next(n for n, x in enumerate(lines) if b'"type":"user"' in x)
    k = inside_a_string(lines[i])
    damaged = file_of(lines[:i] + [lines[i][:k] + "\u2028".encode() + lines[i][k:]] + lines[i + 1:])
    lost = len(readline_records(file_of(lines))) - len(readline_records(damaged))
    assert lost == 1                                      # the CLI itself loses the record

    outcome = run(damaged, "session-2025-10-12T09-14-0f9c1d2e.jsonl")
    assert f"Line {i + 1}, column {k + 1}: one raw U+2028/U+2029 inside a string" in said(outcome)
    mended = outcome.data
    assert lines[i][:k] + b"\\u2028" + lines[i][k:] in mended.split(b"\n")
    assert len(readline_records(mended)) >= len(readline_records(file_of(lines)))
    fixed_point(mended, "session-2025-10-12T09-14-0f9c1d2e.jsonl")


# -- random damage -------------------------------------------------------------------------

def damage(data: bytes, kind: str, at: float, size: int) -> bytes:
    """``data`` with one kind of damage at the relative place ``at``."""
    p = min(int(at * len(data)), len(data) - 1)
    if kind == "newline":
        return data[:p] + b"\n" + data[p:]
    if kind == "separator":
        return data[:p] + "\u2028".encode() + data[p:]
    if kind == "nul":
        return data[:p] + b"\x00" * size + data[p:]
    if kind == "cut":                       # the rest of the line is lost
        end = data.find(b"\n", p)
        return data[:p] + data[end if end >= 0 else len(data):]
    if kind == "glue":                      # the next line break is lost
        end = data.find(b"\n", p)
        return data if end < 0 else data[:end] + data[end + 1:]
    raise AssertionError(kind)


KINDS = ("newline", "separator", "nul", "cut", "glue")
# Two the property found, each about once in several thousand examples: a Claude Code line the
# resume puts back (by message.id, or as its call's result) with the rest of the session under it.
LEAF_LOST = [("newline", 0.98046875, 1), ("nul", 0.25, 1)]
BRANCH_CARRIED = [("newline", 0.4839866836545631, 29), ("newline", 0.9796115264434178, 34),
                  ("cut", 2.225073858507e-311, 23)]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], **repeatable())
@given(case=st.sampled_from(CASES),
       hits=st.lists(st.tuples(st.sampled_from(KINDS), st.floats(0, 1), st.integers(1, 40)), min_size=1,
                     max_size=3))
@example(case=CASES[0], hits=LEAF_LOST)
@example(case=CASES[0], hits=BRANCH_CARRIED)
def test_random_damage_is_mended_or_named_never_skipped_silently(case, hits):
    sample, _, name = case
    data = (SAMPLES / sample).read_bytes()
    for kind, at, size in hits:
        data = damage(data, kind, at, size)
    try:
        outcome = run(data, name)
    except InputError as exc:            # a clear refusal (the first line is what names the format)
        assert str(exc)
        return
    told = said(outcome)
    for n, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            orjson.loads(line)
            continue
        except orjson.JSONDecodeError:
            pass
        assert re.search(rf"\b[Ll]ines? (?:\d+, )*(?:\d+ and )?{n}\b", told), (n, line[:120], told)
    again = run(outcome.data, name)
    assert not [e for e in again.events if e.kind in ("line-mended", "line-repaired")]    # no damage is left
    assert again.data == outcome.data                  # a fixed point, the Claude Code chain included


@pytest.mark.parametrize("hits", [LEAF_LOST, BRANCH_CARRIED], ids=["leaf-lost", "branch-carried"])
def test_a_claude_code_line_put_back_with_the_rest_of_the_session_under_it_is_repaired_in_one_run(hits):
    """leaf-lost: a NUL in line 4's text (the first call's line) makes it unreadable, and a raw
    line break in the last prompt's timestamp leaves that prompt without a time, so a resume
    starts from line 6, the result of line 4's call: the repair drops it, and with its line
    gone the next resume reads line 3's turn. Line 5 (the same API message) and line 7 (line 5's
    result) hang off that chain and are put back by Claude Code's own recovery; lines 9 to 11
    hang from line 7. Re-linked under line 3, they would bring those lines onto the chain, and
    a resume would start from the last prompt and send a call the repair never read: a second
    run must find nothing to change. branch-carried: line 4 is read, but a raw line break takes
    the id of line 6's result (the repair answers line 4's call as interrupted) and the last
    prompt's time, and lines 5 and 7 are put back in the first run already."""
    sample, _, name = CASES[0]
    data = (SAMPLES / sample).read_bytes()
    for kind, at, size in hits:
        data = damage(data, kind, at, size)
    once = run(data, name)
    again = run(once.data, name)
    assert {"sibling-recovered", "result-recovered"} <= {e.kind for e in again.events}
    assert not [e.message for e in again.export_events]
    assert again.data == once.data


def test_a_claude_code_line_without_its_uuid_is_a_fixed_point():
    """A line without its uuid is named by no line: the repair keeps its parent as it is and
    hangs the next chain line from the one before it, so a second run finds nothing to do."""
    lines = lines_of(CLAUDE)
    lines[2] = lines[2].replace(b'"uuid":', b'"uuid_":')       # valid JSON, no damage of a line
    once = run(file_of(lines), "session.jsonl").data
    assert run(once, "session.jsonl").data == once


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), where=st.floats(0, 1), nuls=st.integers(1, 2000),
       kind=st.sampled_from(("glue", "nul-before", "nul-after", "padding")))
def test_damage_between_whole_records_leaves_what_the_undamaged_file_gives(case, where, nuls, kind):
    """Records glued, NULs before or after a record, NUL padding at the end: nothing of any
    record is lost, so the copy is the one the undamaged file gives, whichever line it hit."""
    sample, _, name = case
    lines = lines_of(sample)
    k = min(int(where * (len(lines) - 1)), len(lines) - 2)
    if kind == "glue":
        damaged = file_of(lines[:k] + [lines[k] + lines[k + 1]] + lines[k + 2:])
    elif kind == "nul-before":
        damaged = file_of(lines[:k] + [b"\x00" * nuls + lines[k]] + lines[k + 1:])
    elif kind == "nul-after":
        damaged = file_of(lines[:k] + [lines[k] + b"\x00" * nuls] + lines[k + 1:])
    else:
        damaged = file_of(lines) + b"\x00" * nuls
    outcome = run(damaged, name)
    assert outcome.data == run(file_of(lines), name).data
    assert [e for e in outcome.events if e.kind == "line-repaired"]


def test_a_one_message_a_line_history_whose_first_line_is_glued_is_still_read_as_lines():
    """Sniffing reads glued records and NUL-padded ones too: a damaged first line does not
    turn a JSON Lines history into "not JSON"."""
    user, call = b'{"role":"user","content":"hi"}', b'{"role":"assistant","content":"ok"}'
    damaged = b"\x00\x00" + user + call + b"\n"
    outcome = run(damaged, "history.jsonl")
    assert outcome.data == user + b"\n" + call + b"\n"
    assert "Line 1, column 1: two NUL bytes outside its record text" in said(outcome)


def test_a_tool_output_of_hundreds_of_raw_lines_is_one_record_again():
    """copilot-cli #2649's writer put a fetched page's line breaks raw into the record: a
    record may span hundreds of lines, and a line of it may even be a JSON value of its own."""
    lines = lines_of(CODEX)
    page = [b"line %d of the page" % n for n in range(400)] + [b"42", b"[1, 2]"]
    record = (b'{"timestamp":"2025-10-12T09:14:07.500Z","type":"event_msg","payload":{"type":"agent_message",'
              b'"message":"')
    damaged = file_of(lines[:7] + [record + page[0]] + page[1:-1] + [page[-1] + b'"}}'] + lines[7:])
    meant = file_of(lines[:7] + [record + b"\\n".join(page) + b'"}}'] + lines[7:])
    outcome = run(damaged, CASES[1][2])
    assert outcome.data == run(meant, CASES[1][2]).data
    assert f"Line {8 + len(page) - 1} is taken into line 8" in said(outcome, ("line-repaired",))


# -- Copilot CLI's events.jsonl, at the reader ---------------------------------------------
# Its store comes with issue 33's Copilot item; the reader it uses is this one, asked to treat
# U+2028/U+2029 as damage (its loader fails on them: github/copilot-cli #2012, #2658). Events
# are shaped as the issue quotes them: {type, data, id, timestamp, parentId}.

def copilot_events() -> list[bytes]:
    events = [
        {"type": "session.start", "data": {"sessionId": "5fecb21a"}, "id": "e1", "timestamp": "t1", "parentId": None},
        {"type": "user.message", "data": {"content": "list the files"}, "id": "e2", "timestamp": "t2",
         "parentId": "e1"},
        {"type": "assistant.message", "data": {"content": "", "toolRequests": [
            {"toolCallId": "call_1", "name": "bash", "arguments": {"command": "ls"}}]}, "id": "e3",
         "timestamp": "t3", "parentId": "e2"},
        {"type": "tool.execution_complete", "data": {"toolCallId": "call_1", "success": True,
                                                     "result": {"content": "a.txt b.txt c.txt"}},
         "id": "e4", "timestamp": "t4", "parentId": "e3"},
        {"type": "assistant.message", "data": {"content": "Three files."}, "id": "e5", "timestamp": "t5",
         "parentId": "e4"},
    ]
    return [orjson.dumps(e) for e in events]


def copilot_read(data: bytes):
    from inspector.formats.jsonl import split
    return split(data, "copilot-cli", "events.jsonl", separators=True)


@pytest.mark.parametrize("kind", ["newline", "separator", "nul", "padding", "glued", "cut-then-glued", "cut"])
def test_a_copilot_events_file_with_each_damage_is_read_as_copilot_would_after_the_repair(kind):
    lines = copilot_events()
    result = lines[3]
    k = result.index(b"b.txt")
    expect = list(lines)
    if kind == "newline":                       # #2649: raw line breaks in result.content
        damaged = lines[:3] + [result[:k], result[k:]] + lines[4:]
        expect[3] = result[:k] + b"\\n" + result[k:]
    elif kind == "separator":                   # #2012: a raw U+2028 in the text
        damaged = lines[:3] + [result[:k] + "\u2028".encode() + result[k:]] + lines[4:]
        expect[3] = result[:k] + b"\\u2028" + result[k:]
    elif kind == "nul":                         # NULs, then the next write
        damaged = lines[:3] + [b"\x00" * 40 + result] + lines[4:]
    elif kind == "padding":                     # #2217: trailing NULs after the last line
        damaged = lines + [b"\x00" * 1728]
    elif kind == "glued":
        damaged = lines[:3] + [result + lines[4]]
    elif kind == "cut-then-glued":              # #4098: a cut event, then the whole one
        damaged = lines[:3] + [result[:k] + result] + lines[4:]
        expect = lines[:3] + [result[:k], result] + lines[4:]
    else:                                       # a crash mid-write: kept and reported
        damaged = lines[:3] + [result[:k]] + lines[4:]
        expect = damaged
    data = b"\n".join(damaged) + (b"" if kind == "padding" else b"\n")
    doc = copilot_read(data)
    assert doc.to_bytes() == b"\n".join(expect) + b"\n"
    assert doc.damage and all(d.line >= 1 and d.column >= 1 for d in doc.damage)
    if kind == "cut":
        assert doc.bad == [3] and not any(d.mended for d in doc.damage)
    else:
        assert not doc.bad and all(d.mended for d in doc.damage)
    assert copilot_read(doc.to_bytes()).to_bytes() == doc.to_bytes()      # read again: nothing left to mend

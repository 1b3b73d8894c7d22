"""What the round-3 store fuzz (``../shared/hostile-round3/store_fuzz3.py``, R3-30) still found
at seed 11, each case cut down to the few rows that make it: a repaired store normalized again
must need nothing (a fixed point), and the written rows must say what the engine decided.

- Goose (``.jsonl`` and database): a tool response stored twice after a request that Goose
  never sends (the session opens with that assistant message, which ``fix_lead_trail`` removes).
  Goose sends the first response (``fix_tool_calling`` pairs it before the leading message goes)
  and leaves the second out; the engine drops the sent one as an orphan. Writing only that cut
  let Goose pair the second response on the next read, so each pass removed one more.
- Agents SDK: calls with ``"call_id": ""`` are paired by position (the k-th output of a run of
  calls answers its k-th call, and any other item ends the run). A synthesized output written
  after the whole turn, or before the output of an earlier call, was read back as answering
  another call (or an unknown item), so each pass synthesized again.
- Crush ``--strict`` (seed 13): a result for the first of two declarations of one id was not
  written (the writer found the second declaration, which the repair cut).
- The largest refusal (a 70 MB Roo task nested 5,000 levels deep): refusing is right (nothing
  deeper than 1,024 levels is read, nothing deeper than 255 written), and the line says so.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from inspector import pipeline
from inspector.io import read_bytes

from sessions import agents_builder as A, goose_builder as G

T = 1764603000


def _twice_answered_opening() -> list:
    """The session opens with the assistant's request (the user turn before it was cut); the
    response to it is stored twice, then the conversation goes on."""
    return [
        ("assistant", [G.thinking("List it first."), G.text("Let me look."),
                       G.request("toolu_d01", "developer__shell", {"command": "ls src"})], T + 1, G.VISIBLE),
        ("user", [G.response("toolu_d01", "a.py\nb.py")], T + 2, G.VISIBLE),
        ("user", [G.response("toolu_d01", "a.py\nb.py")], T + 2, G.VISIBLE),
        ("assistant", [G.text("Two files: a.py and b.py.")], T + 3, G.VISIBLE),
        ("user", [G.text("Thanks. Now the tests?")], T + 4, G.VISIBLE),
    ]


def _normalized_twice(path: Path, out: Path, strict: bool, session: str | None = None) -> tuple:
    first = pipeline.run(read_bytes(path), str(path), session=session, strict=strict)
    assert first.changed
    out.write_bytes(first.data)
    again = pipeline.run(read_bytes(out), str(out), session=session, strict=strict)
    return first, again


def _sent_results(outcome) -> list[str]:
    """The results the repaired store sends on resume, read back as Goose reads it."""
    return [m.get("tool_call_id") for m in outcome.imported.messages if m.get("role") == "tool"]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("kind", ["jsonl", "db"])
def test_goose_second_response_is_not_promoted_by_the_repair(tmp_path, kind, strict):
    if kind == "jsonl":
        path = G.write_jsonl(tmp_path / "20250601_3.jsonl", _twice_answered_opening())
        out = tmp_path / "out.jsonl"
    else:
        path = G.write_db(tmp_path / "sessions.db", {"20250601_3": _twice_answered_opening()})
        out = tmp_path / "out.db"
    first, again = _normalized_twice(path, out, strict)
    kinds = sorted({e.kind for e in again.events if e.stage != "import"})
    assert not again.changed, kinds
    # Nothing answers the request Goose never sends, in the repair and when it is read back.
    assert _sent_results(again) == []
    # Both stored responses went, each named by an export event.
    removed = [e for e in first.events if e.stage == "export" and e.kind in ("entry-removed", "entry-rewritten")]
    assert len(removed) == 2, [e.message for e in first.events if e.stage == "export"]
    assert any("second" in e.message for e in removed), [e.message for e in removed]


def test_goose_second_response_stays_when_the_first_is_kept(tmp_path):
    """The same two responses after a request Goose does send: the first answers it, the second
    stays as Goose leaves it (out of every request), and nothing is written."""
    rows = [("user", [G.text("What is in src?")], T, G.VISIBLE), *_twice_answered_opening()]
    path = G.write_jsonl(tmp_path / "20250601_4.jsonl", rows)
    outcome = pipeline.run(read_bytes(path), str(path))
    assert not outcome.changed
    assert outcome.data == read_bytes(path)


def _call(args: str) -> dict:
    return {"arguments": args, "call_id": "", "name": "get_weather", "type": "function_call", "id": "__fake_id__"}


def _out(text: str, kind: str = "function_call_output") -> dict:
    return {"call_id": "", "output": text, "type": kind}


def _said(text: str) -> dict:
    return {"id": "__fake_id__", "content": [{"annotations": [], "text": text, "type": "output_text"}],
            "role": "assistant", "status": "completed", "type": "message"}


def _outputs_by_call(path: Path, session: str) -> dict[str, str]:
    """What the SDK's endpoint pairs, by position: each run of calls and outputs, the k-th
    output with the k-th call (read off the rows, the way the module docstring states it)."""
    pairs: dict[str, str] = {}
    pending: list[str] = []
    for item in A.items(path, session):
        kind = item.get("type")
        if kind == "function_call":
            pending.append(json.loads(item["arguments"])["city"])
        elif kind == "function_call_output" and pending:
            pairs[pending.pop(0)] = item["output"]
        else:
            pending.clear()
    return pairs


@pytest.mark.parametrize("strict", [False, True])
def test_agents_sdk_positional_output_written_where_its_call_reads_it(tmp_path, strict):
    """Two calls with empty ids and one output (the endpoint read it as the first call's); a
    call followed by an item of a type no one knows, holding ``"call_id": ""`` too."""
    items = [{"content": "Weather in Lisbon and Porto?", "role": "user"},
             _call('{"city":"Lisbon"}'), _call('{"city":"Porto"}'), _out("Porto: 17C"),
             _said("Lisbon 21C, Porto 17C."),
             {"content": "And Faro?", "role": "user"},
             _call('{"city":"Faro"}'), _out("Faro: 24C", "[bold]x[/]"), _said("Faro is 24C."),
             {"content": "Thanks", "role": "user"}]
    path = A.make(tmp_path / "conversations.db", {"user-0": items})
    out = tmp_path / "out.db"
    first, again = _normalized_twice(path, out, strict)
    assert not again.changed, sorted({e.kind for e in again.events if e.stage != "import"})
    pairs = _outputs_by_call(out, "user-0")
    # The stored output keeps the call the endpoint paired it with; the new ones answer the rest.
    assert pairs["Lisbon"] == "Porto: 17C"
    assert pairs["Porto"] == pairs["Faro"] == "Tool call was interrupted; no result."
    added = [e for e in first.events if e.stage == "export" and e.kind == "entry-added"]
    assert len(added) == 2


def test_a_session_nested_past_the_read_limit_is_refused_naming_the_limit(tmp_path):
    """The store fuzz's largest refusal at seed 11: a Roo task whose conversation file (70 MB,
    pretty-printed) holds an entry nested 5,000 levels deep. Inspector reads at most 1,024
    levels (and writes at most 255), so it refuses the file, and the line says why and where
    (it said only "depth limit exceeded")."""
    deep = "".join(f'\n{"  " * k}{{"a": ' for k in range(1100)) + "1" + "}" * 1100
    path = tmp_path / "deep.json"
    path.write_text('[{"role": "user", "content": "hi"},\n {"role": "assistant", "content": [' + deep + "]}]")
    from .harness import cli_run
    code, _, err = cli_run("check", str(path))
    assert code == 2, err
    line = err.strip().splitlines()
    assert len(line) == 1 and line[0].startswith(f"{path}:"), err
    where, reason = line[0][len(str(path)) + 1:].split(": ", 1)
    assert all(part.isdigit() for part in where.split(":")), err
    assert "1,024 levels" in reason, err


def test_crush_strict_result_for_the_first_of_two_declarations_is_written(tmp_path):
    """Seed 13's one case: a Crush session where one call id is declared twice, the first
    declaration unanswered (its turn's result answers another id) and the second answered.
    ``--strict`` gives the first declaration an interrupted result; the writer looked the call
    up by id, found the second declaration (cut), and wrote nothing, so each pass decided again."""
    from sessions import crush_builder as CR

    title, rows, summary = CR.cancelled()
    rows = [(mid, role, [CR.call("toolu_x02", "ls", '{"path":"src"}') if p["type"] == "tool_call" else p
                         for p in parts], when) if mid == "x-a1" else (mid, role, parts, when)
            for mid, role, parts, when in rows]
    path = CR.write_db(tmp_path / "crush.db", {"ses-0-cancelled": (title, rows, summary)})
    first, again = _normalized_twice(path, tmp_path / "out.db", strict=True)
    assert not again.changed, sorted({e.kind for e in again.events if e.stage != "import"})
    added = [e for e in first.events if e.stage == "export" and e.kind == "entry-added"]
    assert len(added) == 1 and "toolu_x02" in added[0].message, [e.message for e in first.events]
    conn = sqlite3.connect(tmp_path / "out.db")
    try:
        order = [r[0] for r in conn.execute("SELECT id FROM messages WHERE session_id = 'ses-0-cancelled' "
                                            "ORDER BY created_at, rowid")]
    finally:
        conn.close()
    assert order[order.index("x-a1") + 1] not in [r[0] for r in rows]      # the new result follows its call

"""Random Copilot CLI sessions (calls answered, lost, answered twice or late, sub-agents,
compactions, a cut last line), written as Copilot CLI writes them: the import never fails,
the ``--strict`` repair is a file the resume simulator accepts, every line it does not name
keeps its bytes and order, and repairing the repair changes nothing."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from sessions import copilot_builder as cb
from sessions import copilot_simulate as sim

from inspector.io import InputError
from inspector.pipeline import run

OPS = st.lists(st.one_of(
    st.tuples(st.just("user")),
    st.tuples(st.just("assistant"), st.integers(0, 3)),
    st.tuples(st.just("done"), st.integers(0, 20)),
    st.tuples(st.just("fail"), st.integers(0, 20)),
    st.tuples(st.just("sub"), st.booleans()),
    st.tuples(st.just("compact"), st.integers(0, 12)),
    st.tuples(st.just("noise"), st.sampled_from(["session.info", "assistant.turn_start", "session.resume"])),
), max_size=24)


def build(ops: list[tuple]) -> bytes:
    log = cb.Log()
    log.user("start")
    calls: list[str] = []
    for op in ops:
        kind = op[0]
        if kind == "user":
            log.user(f"prompt {len(log.events)}")
        elif kind == "assistant":
            new = [f"toolu_{len(log.events)}_{j}" for j in range(op[1])]
            calls += new
            log.assistant(f"reply {len(log.events)}", *((c, "bash", {"command": "ls"}) for c in new))
        elif kind in ("done", "fail") and calls:
            call = calls[op[1] % len(calls)]
            log.start(call, "bash")
            log.done(call, "ok") if kind == "done" else log.failed(call, "boom")
        elif kind == "sub":
            parent = calls[-1] if calls else "toolu_none"
            log.assistant("sub", (f"call_{len(log.events)}", "grep", {}), agent="sub-1", parent=parent)
            if op[1]:
                log.done(f"call_{len(log.events) - 1}", "found", agent="sub-1", parent=parent)
        elif kind == "compact":
            log.compact(op[1], f"summary {len(log.events)}")
        elif kind == "noise":
            log.add(op[1], {})
    return log.bytes()


@settings(deadline=None)
@given(OPS, st.sampled_from(["whole", "no-newline", "cut"]))
def test_random_sessions_repair_into_files_copilot_resumes(ops, end):
    data = build(ops)
    if end == "no-newline":
        data = data[:-1]
    elif end == "cut":
        data = data + b'{"type":"user.message","data":{"con'
    out = run(data, "events.jsonl", strict=True)
    assert out.imported.format == "copilot-cli"
    assert sim.problems(out.data) == [], out.data.decode()
    again = run(out.data, "events.jsonl", strict=True)
    assert not again.changed and again.data == out.data
    # Every line no event names is still there, in its order.
    removed = {int(e.message.split()[1]) for e in out.export_events if e.kind == "entry-removed"}
    moved = {int(e.message.split()[1]) for e in out.export_events if e.kind == "entry-moved"}
    before = data.split(b"\n")
    kept = [line for k, line in enumerate(before, 1) if k not in removed | moved and line]
    after = out.data.split(b"\n")
    assert [line for line in after if line in set(kept)] == [line for line in kept if line in set(after)]
    assert set(kept) <= set(after)


def damage(data: bytes, kind: str, at: int, pos: int) -> tuple[bytes, int]:
    """``data`` with one kind of line damage Copilot CLI's files are reported with, and the
    1-based line it hits: a raw line break inside a string (copilot-cli #2649), a record cut
    short (#1864), NUL padding after a crash (#2217), two records glued (#4098)."""
    lines = data.split(b"\n")[:-1]
    k = at % (len(lines) - 1 if kind == "glued" else len(lines))     # glued: a line with one after it
    line = lines[k]
    if kind == "newline":
        quote = line.find(b'"content":"')
        if quote < 0:
            quote = line.find(b'"id":"')
        cut = line.find(b':"', quote) + 2
        lines[k] = line[:cut] + b"\n" + line[cut:]
    elif kind == "cut":
        lines[k] = line[:max(1, pos % len(line))]
    elif kind == "nul":
        return data + b"\x00" * (pos % 300 + 1), len(lines) + 1
    elif kind == "glued":
        lines[k:k + 2] = [line[:max(1, pos % len(line))] + lines[k + 1]]
    return b"\n".join(lines) + b"\n", k + 1


@settings(deadline=None)
@given(st.sampled_from(sorted(cb.ALL)), st.sampled_from(["newline", "cut", "nul", "glued"]), st.integers(0, 40),
       st.integers(0, 10_000))
def test_random_line_damage_is_named_and_the_copy_is_all_json(name, kind, at, pos):
    data, line = damage(cb.ALL[name]().bytes(), kind, at, pos)
    try:
        out = run(data, "events.jsonl")
    except InputError as exc:       # refused whole: with the place it could not read
        assert re.search(r":\d+:\d+: ", str(exc)), exc
        return
    said = " ".join(e.message for e in [*out.imported.events, *out.export_events])
    if out.changed:
        assert f"Line {line}" in said or f"line {line}" in said, said      # never a silent skip
    for written in out.data.split(b"\n"):
        assert not written or isinstance(json.loads(written), dict)         # Copilot CLI reads every line
    again = run(out.data, "events.jsonl")
    assert again.data == out.data and not again.changed

"""A made-up "interrupted" result answers a call whose tool may already have run: the
engine's kind table says so, the event's sentence says so, and every view shows that
sentence (explain, the doctor's manifest) rather than deciding it again."""

from __future__ import annotations

import orjson

from inspector.cli import main
from inspector.engine import INTERRUPTED, SIDE_EFFECTS_UNKNOWN, kind, normalize
from inspector.bundled import samples_dir

CRASH = [
    {"role": "user", "content": "Deploy the site."},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "call_up", "type": "function",
                                                          "function": {"name": "deploy", "arguments": "{}"}}]},
    {"role": "user", "content": "Did it work?"},
]
EARLY = [
    {"role": "user", "content": "Send the invoice."},
    {"role": "tool", "tool_call_id": "call_mail", "content": "sent"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "call_mail", "type": "function",
                                                          "function": {"name": "send_mail", "arguments": "{}"}}]},
    {"role": "user", "content": "Thanks."},
]


def _made_up(result):
    """Events whose row is an interrupted result the engine wrote."""
    rows = {m.get("tool_call_id") for m, o in zip(result.messages, result.origins)
            if o is None and m.get("content") == INTERRUPTED}
    return [e for e in result.events if kind(e.kind).effect == "add" and e.tool_call_id in rows]


def test_every_made_up_result_says_its_side_effects_are_unknown():
    for messages, extensions in ((CRASH, ()), (EARLY, ("strict",))):
        events = _made_up(normalize(messages, extensions))
        assert events, extensions
        for e in events:
            assert kind(e.kind).unknown_effects
            assert e.message.endswith(SIDE_EFFECTS_UNKNOWN)


def test_explain_shows_it_on_the_event_line(tmp_path, capsys):
    path = tmp_path / "crash.json"
    path.write_bytes(orjson.dumps(CRASH))
    assert main(["explain", str(path)]) == 0
    [line] = [l for l in capsys.readouterr().out.splitlines() if "result-synthesized" in l]
    assert "Side effects unknown" in line
    assert main(["explain", "--json", str(samples_dir() / "03-crash-parallel-calls.json")]) == 0
    report = orjson.loads(capsys.readouterr().out)
    made = [e for e in report["events"] if e["kind"] == "result-synthesized"]
    assert made and all(SIDE_EFFECTS_UNKNOWN in e["message"] for e in made)


def test_a_result_nobody_made_up_says_nothing_of_side_effects():
    result = normalize([{"role": "user", "content": "hi"},
                        {"role": "tool", "tool_call_id": "x", "content": "orphan"}])
    assert result.events and not any(SIDE_EFFECTS_UNKNOWN in e.message for e in result.events)
    assert not kind("result-orphan").unknown_effects

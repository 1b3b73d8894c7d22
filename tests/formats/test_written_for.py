"""A conversion writes no message its provider refuses where leaving it out loses nothing, and
``check --target T`` judges the document ``normalize --to T`` writes: the two agree."""

from __future__ import annotations

import orjson
import pytest

from inspector import cli, targets
from inspector.pipeline import run

EMPTY_ASSISTANT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""},
                   {"role": "user", "content": "again"}]
# An empty user text is written as an empty text block: refused, and left to --strict.
EMPTY_USER = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"},
              {"role": "user", "content": ""}, {"role": "assistant", "content": "x"},
              {"role": "user", "content": "y"}]
BLOCK_TARGETS = ("anthropic", "bedrock", "gemini")


@pytest.mark.parametrize("target", BLOCK_TARGETS)
def test_an_empty_assistant_turn_is_left_out_of_a_conversion_with_an_event(target):
    out = run(orjson.dumps(EMPTY_ASSISTANT), "e.json", to=target)
    container, key = ("contents", "parts") if target == "gemini" else ("messages", "content")
    written = out.exported[container]
    assert all(m[key] for m in written) and len(written) == 1            # the two user rows, one message
    assert [b.get("text") for b in written[0][key]] == ["hi", "again"]
    omitted = [e for e in out.export_events if e.kind == "empty-turn-omitted"]
    assert [e.origin for e in omitted] == [1] and f"{target} refuses a message with empty content" in omitted[0].message
    assert "export-merged" in {e.kind for e in out.export_events}
    back = run(orjson.dumps(out.exported), "w.json", target)            # what the provider receives
    assert not targets.failed(targets.check(back, target))


@pytest.mark.parametrize("history", [EMPTY_ASSISTANT, EMPTY_USER], ids=["empty-assistant", "empty-user"])
@pytest.mark.parametrize("target", [*BLOCK_TARGETS, "openai-chat", "openai-responses"])
def test_check_target_judges_what_normalize_to_writes(tmp_path, capsys, history, target):
    path = tmp_path / "h.json"
    path.write_bytes(orjson.dumps(history))
    written = tmp_path / f"w-{target}.json"
    assert cli.main(["normalize", str(path), "--to", target, "-o", str(written)]) in (0, 1)
    capsys.readouterr()
    said = cli.main(["check", "--json", "--target", target, str(path)])
    given = orjson.loads(capsys.readouterr().out)["after_normalizing"]
    told = cli.main(["check", "--json", "--from", target, "--target", target, str(written)])
    again = orjson.loads(capsys.readouterr().out)["after_normalizing"]
    assert said == told and [(p["rule"], p["severity"]) for p in given] == [(p["rule"], p["severity"]) for p in again]


def test_an_empty_user_text_is_refused_by_check_target_as_in_the_written_body(tmp_path, capsys):
    """Converting writes the empty text block Anthropic refuses (only --strict gives it a
    placeholder): check --target says so, as check of the written body does."""
    path = tmp_path / "u.json"
    path.write_bytes(orjson.dumps(EMPTY_USER))
    assert cli.main(["check", "--target", "anthropic", str(path)]) == 1
    assert "[blank-text] (--strict repairs)" in capsys.readouterr().out
    assert cli.main(["check", "--strict", "--target", "anthropic", str(path)]) == 0     # the placeholder
    assert "anthropic would accept it after normalizing" in capsys.readouterr().out

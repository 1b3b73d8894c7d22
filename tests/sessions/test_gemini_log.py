"""Gemini CLI's append-only session logs (``chats/session-*.jsonl``): detected without
``--from``, read as Gemini CLI reads them, checked as its resume sends them (the simulator
in ``gemini_simulate.py``), repaired by appending as the CLI appends."""

from __future__ import annotations

import orjson
import pytest

from inspector.formats import gemini_cli, import_history, on_resume
from inspector.pipeline import load, run

from . import gemini_log_builder as b
from . import gemini_simulate as sim

SIGNATURE = "CsQBAdHtim9mWk3oXgqv1S2e7Q=="


def lines(data: bytes) -> list:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def test_a_log_is_detected_without_from_and_read_with_it():
    data = b.crash()
    assert gemini_cli.LOG_FORMAT.sniff(data) and not gemini_cli.FORMAT.sniff(data)
    for fmt in ("auto", "gemini-cli", "gemini-cli-log"):
        im = load(data, "session.jsonl", fmt)
        assert im.format == "gemini-cli-log"
        assert [m["role"] for m in im.messages] == ["user", "assistant", "tool", "user"]


def test_a_crashed_log_resumes_after_the_repair_and_only_gains_lines():
    data = b.crash()
    assert "response-count" in sim.problems(data)
    out = run(data, "session.jsonl")
    assert out.result.synthesized == 1
    assert out.data.startswith(data)                       # every line kept, byte for byte
    added = lines(out.data[len(data):])
    assert len(added) == 1 and added[0]["id"] == lines(data)[5]["id"]   # the reply, appended whole
    call = added[0]["toolCalls"][1]
    assert call["status"] == "cancelled"
    assert call["result"][0]["functionResponse"]["id"] == "run_shell_command-1757844300001-c3d4"
    assert added[0]["toolCalls"][0] == lines(data)[5]["toolCalls"][0]
    assert sim.problems(out.data) == []
    assert [e.kind for e in out.export_events] == ["record-appended"]
    again = run(out.data, "session.jsonl")
    assert not again.changed and not again.result.events


def test_provenance_names_the_line_and_the_field():
    im = load(b.crash(), "s.jsonl")
    assert [im.where(i) for i in range(len(im.messages))] == [
        "line 2, content[0]", "line 6", "line 6, toolCalls[0].result[0]", "line 8, content[0]"]
    assert im.calls[1][1].describe(None) == "line 6, toolCalls[1]"


def test_every_result_sent_twice_on_resume_is_said_and_the_second_copy_goes():
    data = b.tool_turn()
    assert "response-count" in sim.problems(data)          # google-gemini/gemini-cli#29365
    out = run(data, "s.jsonl")
    assert [e.kind for e in out.imported.events] == ["result-resent"]
    assert [e.kind for e in out.result.events] == ["result-duplicate"]
    assert out.data.startswith(data)
    [batch] = lines(out.data[len(data):])
    kept = batch["$set"]["messages"]
    responses = [m for m in lines(data) if m.get("type") == "user" and "functionResponse" in m["content"][0]]
    assert [m["id"] for m in kept] == [m["id"] for m in sim.records(data) if m["id"] != responses[0]["id"]]
    assert sim.problems(out.data) == []
    assert not run(out.data, "s.jsonl").changed


def test_a_clean_log_is_written_back_byte_identical():
    data = b.answered()
    out = run(data, "s.jsonl")
    assert not out.changed and out.data == data
    assert sim.problems(data) == []


def test_later_copies_batches_and_rewinds_are_read_as_gemini_cli_reads_them():
    log = b.Log()
    first = log.user("Drop the cache table.")
    log.gemini("Which database?")
    log.put({"$set": {"messages": [first, {**log.lines[-2], "content": [{"text": "Which one: dev or prod?"}]}]}})
    log.user("dev")                                  # a bare record after the batch
    later = log.user("no, wait")
    log.put({"$rewindTo": later["id"]})              # ... rewound away
    data = log.data()
    im = load(data, "s.jsonl")
    assert [m["content"] for m in im.messages] == ["Drop the cache table.", "Which one: dev or prod?", "dev"]
    assert im.where(1) == "line 6, $set.messages[1].content[0]"
    assert [c["parts"] for c in sim.client_history(data)] == [
        [{"text": "Drop the cache table."}], [{"text": "Which one: dev or prod?"}], [{"text": "dev"}]]


def _signed_batch() -> bytes:
    """A history sync (``$set.messages``) after a Gemini 3 tool turn: the model's record holds
    its own turn (a thought part, a signed call) and its tool call's result; the session was
    cut while the second call ran."""
    log = b.Log()
    ask = log.user("Is the nightly export fixed?")
    reply = log.gemini("", (("Checking", "The export log answers it."),), model="gemini-3-pro-preview")
    done = b.call("run_shell_command-1757844500000-a1", "tail logs/export.log", "OK 120 rows")
    lost = b.call("run_shell_command-1757844500001-b2", "cat out.csv | wc -l", None, "executing")
    turn = [{"text": "**Checking** The export log answers it.", "thought": True},
            {"functionCall": {"id": done["id"], "name": done["name"], "args": done["args"]},
             "thoughtSignature": SIGNATURE},
            {"functionCall": {"id": lost["id"], "name": lost["name"], "args": lost["args"]}}]
    log.put({"$set": {"messages": [ask, {**reply, "content": turn, "toolCalls": [done]}]}})
    log.user("Go on.")
    return log.data()


def test_the_models_own_turn_keeps_its_signed_reasoning_and_the_repair_leaves_it_in_place():
    data = _signed_batch()
    im = load(data, "s.jsonl")
    kinds = [(r.kind, r.signed, r.model) for r in im.reasoning]
    assert kinds == [("thought", False, "gemini-3-pro-preview"), ("thoughtSignature", True, "gemini-3-pro-preview")]
    assert im.reasoning[1].loc.describe() == "line 6, $set.messages[1].content[1]"
    assert "response-count" in sim.problems(data)
    out = run(data, "s.jsonl")
    [added] = lines(out.data[len(data):])
    assert added["content"] == lines(data)[5]["$set"]["messages"][1]["content"]      # signed parts untouched
    assert [tc["id"] for tc in added["toolCalls"]] == ["run_shell_command-1757844500000-a1",
                                                       "run_shell_command-1757844500001-b2"]
    assert added["toolCalls"][1]["status"] == "cancelled"
    assert sim.problems(out.data) == []


def test_reasoning_strip_leaves_no_thought_and_no_signature_but_the_sentinel():
    data = _signed_batch()
    out = run(data, "s.jsonl", reasoning="strip")
    sent = sim.client_history(out.data)
    parts = [p for c in sent for p in c["parts"]]
    assert not any(p.get("thought") for p in parts)
    assert [p.get("thoughtSignature") for p in parts if "functionCall" in p] == [
        "skip_thought_signature_validator", None]
    stripped = [e for e in out.export_events if e.kind == "reasoning-stripped"]
    assert len(stripped) == 3          # the summary, the thought part, the call's signature
    assert sim.problems(out.data) == []


def test_thought_summaries_of_an_older_record_are_unsigned_reasoning():
    im = load(b.crash(), "s.jsonl")
    [r] = im.reasoning
    assert (r.kind, r.signed, r.row, r.loc.describe()) == ("thought", False, 1, "line 6, thoughts[0]")
    assert "Checking the export" in r.text


def test_a_compression_marker_stands_for_everything_before_it():
    """google-gemini/gemini-cli PR #21334's marker: its compressedHistory is sent first."""
    log = b.Log()
    log.user("Old question.")
    log.gemini("Old answer.")
    log.put({"id": "c0mp-1", "timestamp": "2026-09-14T11:00:00.000Z", "type": "compression_marker",
             "content": "Context was compressed.", "compressedHistory": [
                 {"role": "user", "parts": [{"text": "<state_snapshot>a summary</state_snapshot>"}]},
                 {"role": "model", "parts": [{"functionCall": {"id": "c9", "name": "read_file", "args": {}}}]}]})
    log.user("Carry on.")
    data = log.data()
    im = load(data, "s.jsonl")
    assert [m["role"] for m in im.messages] == ["user", "assistant", "user"]
    assert im.where(1) == "line 6, compressedHistory[1].parts[0]"
    out = run(data, "s.jsonl")
    assert out.result.synthesized == 1
    [added] = lines(out.data[len(data):])
    assert added["compressedHistory"][2]["parts"][0]["functionResponse"]["id"] == "c9"
    assert sim.problems(data) and sim.problems(out.data) == []


def test_a_line_cut_by_a_crash_is_skipped_and_kept():
    data = b.crash() + b'{"id":"5b0e0099","timestamp":"2026-09-14T10:09:00.000Z","type":"us'
    out = run(data, "s.jsonl")
    assert "entry-skipped" in [e.kind for e in out.imported.events]
    assert out.data.startswith(data + b"\n")
    assert sim.problems(out.data) == []


def test_gemini_cli_pairs_calls_without_ids_itself():
    log = b.Log()
    log.user("List the tests.")
    reply = log.gemini("")
    done = b.call("x", "ls", "test_cart.py")
    del done["id"]
    del done["result"][0]["functionResponse"]["id"]
    log.tools(reply, done)
    data = log.data()
    im = load(data, "s.jsonl")
    said = on_resume(im).sentences()
    assert said and said[0].startswith("Gemini CLI pairs a call and a response that carry no id")
    assert [e.message.split(" has no id")[0] for e in im.events] == [
        "Call 'run_shell_command' at line 6, toolCalls[0]", "Response 'run_shell_command' at line 6, toolCalls[0].result[0]"]


@pytest.mark.parametrize("builder", [b.crash, b.tool_turn])
def test_check_and_doctor_find_logs_in_a_folder(tmp_path, capsys, builder):
    from inspector.cli import main

    chats = tmp_path / ".gemini" / "tmp" / "shop" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2026-09-14T10-00-3c1f9e2a.jsonl"
    path.write_bytes(builder())
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "session-2026-09-14T10-00" in out[0] and "gemini refuses it (response-count" in out[0]
    assert main(["doctor", str(tmp_path)]) == 1
    assert "fails         gemini-cli" in capsys.readouterr().out
    fixed = tmp_path.parent / (tmp_path.name + "-fixed")
    assert main(["doctor", str(tmp_path), "--fix", str(fixed)]) == 1
    copy = next(fixed.rglob("*.jsonl"))
    assert copy.read_bytes().startswith(path.read_bytes()) and sim.problems(copy.read_bytes()) == []


def test_a_json_record_and_its_log_read_the_same():
    """Gemini CLI migrates a .json record to a .jsonl log on resume (metadata, then each record)."""
    from . import gemini_builder

    record = orjson.loads(gemini_builder.crash_lost_response())
    meta = {k: v for k, v in record.items() if k != "messages"}
    log = b"".join(orjson.dumps(e) + b"\n" for e in [meta, *record["messages"]])
    a = import_history(gemini_cli.parse(gemini_builder.crash_lost_response()), "a")
    c = import_history(gemini_cli.parse(log), "c")
    assert a.messages == c.messages
    assert [im.where(i) for im in (a,) for i in range(4)][2] == "messages[1].toolCalls[0].result[0]"
    assert c.where(2) == "line 3, toolCalls[0].result[0]"


def test_a_current_json_record_with_parts_is_detected_and_written_back_as_its_bytes():
    """Current CLIs write a user record's content as parts, which Bedrock's sniffer also reads."""
    from . import gemini_builder

    r = gemini_builder.Record()
    r.messages.append({"id": "u1", "timestamp": "2026-01-05T09:00:00.000Z", "type": "user",
                       "content": [{"text": "What changed in the cart?"}]})
    r.gemini("Nothing since yesterday.")
    data = r.data()                              # JSON.stringify(record, null, 2): no final newline
    out = run(data, "session.json")
    assert out.imported.format == "gemini-cli" and not out.changed and out.data == data


def test_in_place_keeps_a_backup_and_batch_mirrors_a_folder_of_logs(tmp_path, capsys):
    from inspector.cli import main

    chats = tmp_path / "in" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2026-09-14T10-00-3c1f9e2a.jsonl"
    data = b.crash()
    path.write_bytes(data)
    (chats / "session-2026-09-14T11-00-3c1f9e2b.jsonl").write_bytes(b.answered())
    out = tmp_path / "out"
    assert main(["batch", str(tmp_path / "in"), "-o", str(out) + "/"]) == 0
    mirrored = out / "chats" / path.name
    assert mirrored.read_bytes().startswith(data) and sim.problems(mirrored.read_bytes()) == []
    assert (out / "chats" / "session-2026-09-14T11-00-3c1f9e2b.jsonl").read_bytes() == b.answered()
    assert main(["normalize", "-q", "--in-place", str(path)]) == 0
    assert (chats / (path.name + ".bak")).read_bytes() == data
    assert path.read_bytes() == mirrored.read_bytes()


def test_another_formats_history_becomes_a_log_that_resumes_as_it_was_written():
    from inspector.bundled import samples_dir

    data = (samples_dir() / "13-anthropic-retry-and-parallel-call.json").read_bytes()
    out = run(data, "a.json", to="gemini-cli-log")
    meta = lines(out.data)[0]
    assert meta["sessionId"] and meta["projectHash"]          # Gemini CLI reads no log without both
    again = run(out.data, "s.jsonl")
    assert again.imported.format == "gemini-cli-log" and not again.changed
    assert sim.problems(out.data) == []
    assert [c["role"] for c in sim.client_history(out.data)] == [
        c["role"] for c in orjson.loads(run(data, "a.json", to="gemini-cli").data)["history"]]

"""The one pipeline every view takes: events in order, the format, and what "changed" means."""

from __future__ import annotations

import dataclasses

import orjson
import pytest

from inspector import cli
from inspector.bundled import samples_dir
from inspector.engine import KINDS
from inspector.formats import FORMATS, REGISTRY, export_history
from inspector.pipeline import run, run_file

from .fixtures import CLEAN, clone

SAMPLES = sorted(p for p in samples_dir().glob("*.json") if p.name != "index.json")


def test_outcome_names_the_format_and_orders_events():
    im_doc = clone(CLEAN["gemini"])
    for content in im_doc["contents"]:       # calls and responses without ids: import notes
        for part in content["parts"]:
            for key in ("functionCall", "functionResponse"):
                if key in part:
                    part[key].pop("id", None)
    outcome = run(im_doc, "g.json", strict=True)
    stages = [e.stage for e in outcome.events]
    assert outcome.format == "gemini" and stages[0] == "import"
    assert stages == sorted(stages, key=["import", "coerce", "hoist", "repair", "strip", "strict", "export"].index)
    assert outcome.events[:len(outcome.imported.events)] == outcome.imported.events


def test_bytes_and_documents_give_the_same_outcome():
    doc = CLEAN["anthropic"]
    a, b = run(orjson.dumps(doc), "a.json"), run(clone(doc), "a.json")
    assert a.data == b.data and a.format == b.format == "anthropic" and not a.changed


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("strict", [False, True])
def test_owned_documents_give_the_same_bytes_and_events(path, strict):
    """The zero-copy run (a document handed over, as bytes parsed here always are) writes the
    same bytes and tells the same story as the run that copies."""
    data = path.read_bytes()
    parsed = run(data, path.name, strict=strict)
    fmt = parsed.format   # a Cline task history is told by its file name, which a parsed list lacks
    owned = run(orjson.loads(data), path.name, fmt, strict=strict, owned=True)
    copied = run(orjson.loads(data), path.name, fmt, strict=strict)
    assert owned.data == copied.data == parsed.data
    assert owned.events == copied.events == parsed.events
    assert owned.changed == copied.changed == parsed.changed


def _noting(monkeypatch, kind="export-merged"):
    """Make the openai-chat exporter record one export event, as a merging exporter would."""
    original = REGISTRY["openai-chat"].export_same

    def noting(im, result, notes):
        notes.note(kind, "Two user messages were written as one.", origin=3, cause=2)
        return original(im, result, notes)

    monkeypatch.setitem(REGISTRY, "openai-chat", dataclasses.replace(REGISTRY["openai-chat"], export_same=noting))


def test_export_events_count_as_changes_and_belong_to_their_export(monkeypatch):
    assert not run(clone(CLEAN["openai-chat"]), "o.json").changed
    _noting(monkeypatch)
    outcome = run(clone(CLEAN["openai-chat"]), "o.json")
    assert outcome.exported == CLEAN["openai-chat"] and outcome.changed
    event = outcome.events[-1]
    assert (event.stage, event.clause, event.kind, event.origin, event.cause) == ("export", "export", "export-merged", 3, 2)
    flat = export_history(outcome.imported, outcome.result, "flat")    # another export starts afresh
    assert flat.events == [] and flat.document["messages"] and len(outcome.export_events) == 1
    assert not hasattr(outcome.imported, "export_events")      # the export never writes into the import


def test_explain_shows_export_events_in_text_and_json(tmp_path, capsys, monkeypatch):
    _noting(monkeypatch, "export-omitted")
    path = tmp_path / "o.json"
    path.write_bytes(orjson.dumps(CLEAN["openai-chat"]))
    assert cli.main(["explain", str(path)]) == 0
    text = capsys.readouterr().out
    assert "export (openai-chat): 1 event" in text and "export-omitted" in text and "[omitted on export]" in text
    assert cli.main(["explain", "--json", str(path)]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert [e["kind"] for e in report["export"]["events"]] == ["export-omitted"] and report["changed"]
    assert cli.main(["check", str(path)]) == 1


@pytest.mark.parametrize("strict", [False, True], ids=["mem5", "strict"])
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem[:2])
def test_check_accepts_normalize_output(path, strict, tmp_path, capsys):
    """What normalize writes is what check calls clean, in every format, with and without
    --strict (import notes such as derived Gemini ids are not changes)."""
    flags = ["--strict"] if strict else []
    first = run_file(path, strict=strict)
    out = tmp_path / path.name
    out.write_bytes(first.data)
    second = run_file(out, fmt=first.format, strict=strict)
    assert not second.changed, [e.kind for e in second.events]
    assert cli.main(["check", *flags, "--from", first.format, str(out)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("fmt", FORMATS)
def test_clean_documents_are_unchanged_in_every_format(fmt):
    outcome = run(clone(CLEAN[fmt]), f"{fmt}.json")
    assert outcome.format == fmt and not outcome.changed and outcome.exported == CLEAN[fmt]


def test_a_request_body_read_flat_keeps_every_field():
    body = {"model": "m", "tools": [{"name": "f"}], "messages": [
        {"role": "user", "content": "hi"}, {"role": "tool", "content": "x", "tool_call_id": "gone"}]}
    outcome = run(clone(body), "b.json")
    assert outcome.format == "flat" and outcome.changed
    assert outcome.exported == {"model": "m", "tools": [{"name": "f"}], "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("fmt", ["auto", "openai-chat", "anthropic"])
def test_shared_text_parts_round_trip_unchanged(fmt):
    body = {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "there"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}]}
    outcome = run(clone(body), "b.json", fmt)
    assert outcome.exported == body and not outcome.changed
    assert [e.kind for e in outcome.events] == []


def test_flat_export_of_a_body_keeps_its_other_fields():
    outcome = run(clone(CLEAN["anthropic"]), "a.json", to="flat")
    assert outcome.exported["model"] == CLEAN["anthropic"]["model"]
    assert "system" not in outcome.exported          # read into the flat system message
    assert outcome.exported["messages"][0]["role"] == "system"


def test_every_kind_an_event_names_is_in_the_table():
    for path in SAMPLES:
        for e in run_file(path, strict=True).events:
            assert e.kind in KINDS, e


def test_formats_sniff_only_the_head_of_large_input(monkeypatch):
    """A compact JSON body of many megabytes is one line: sniffing all of it would parse it
    once per JSON Lines format before the real parse."""
    import dataclasses

    from inspector import pipeline
    from inspector.formats import REGISTRY

    seen: list[int] = []
    name = next(iter(REGISTRY))
    monkeypatch.setitem(REGISTRY, name, dataclasses.replace(
        REGISTRY[name], sniff=lambda data, where: seen.append(len(data)) or False))
    body = b'{"messages":[' + b",".join([b'{"role":"user","content":"' + b"x" * 1000 + b'"}'] * 3000) + b"]}"
    assert len(body) > pipeline.SNIFF_BYTES
    assert pipeline.parse(body, "big.json")["messages"][0]["role"] == "user"
    assert seen == [pipeline.SNIFF_BYTES]


def test_openai_chat_reads_a_plain_message_as_it_is():
    """A Chat message that is already flat (role and text content, nothing else) is read as
    the very object it is; the flat reading of every other message is built."""
    doc = {"model": "m", "messages": [{"role": "user", "content": "hi"}, {"content": "yo", "role": "user"},
                                       {"role": "assistant", "content": "ok"}, {"role": "user", "content": "x", "name": "b"}]}
    imported = REGISTRY["openai-chat"].import_(doc, "a.json")
    assert [m is o for m, o in zip(imported.messages, doc["messages"])] == [True, False, True, False]
    # A result without an id is rebuilt, whatever the order of its keys: its flat form says so.
    for result in ({"role": "tool", "content": "r"}, {"content": "r", "role": "tool"}):
        flat = REGISTRY["openai-chat"].import_([result], "b.json").messages[0]
        assert flat == {"role": "tool", "content": "r", "tool_call_id": None} and flat is not result
    assert imported.messages[1] == {"role": "user", "content": "yo"} and list(imported.messages[1]) == ["role", "content"]
    outcome = run(clone(doc), "a.json", fmt="openai-chat")
    assert not outcome.changed and outcome.exported == doc and orjson.loads(outcome.data) == doc

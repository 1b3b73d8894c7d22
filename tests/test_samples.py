"""The bundled samples: each loads, normalizes as its index entry says, and the README
table, ``index.json`` and the files on disk list the same samples."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from inspector.bundled import samples_dir
from inspector.engine import normalize
from inspector.formats import FORMATS, REGISTRY, export_history, import_history
from inspector.pipeline import parse as parse_bytes
from inspector.io import read_bytes

SAMPLES = samples_dir()
INDEX = orjson.loads((SAMPLES / "index.json").read_bytes())
FILES = sorted(p.name for p in SAMPLES.iterdir() if p.suffix in (".json", ".jsonl", ".db", ".sqlite", ".zst")
               and p.name != "index.json")


def load_json(path):
    """A sample as a document: JSON, or a session file read by its own format."""
    return parse_bytes(read_bytes(path), path.name)


RAW = ("flat", "openai-chat")   # formats whose messages the engine can read as they are
SESSION_FORMATS = tuple(n for n, f in REGISTRY.items() if f.is_session)


def _messages(document):
    """The engine's own view of a sample: a bare array, or a request body's messages."""
    return document if isinstance(document, list) else document["messages"]


def _counts(result):
    return {"dropped": result.dropped, "synthesized": result.synthesized, "moved": result.moved}


def test_samples_dir_is_the_project_samples_folder():
    assert SAMPLES.is_dir()
    assert (SAMPLES / "README.md").is_file()


def test_at_least_eight_samples_in_numbered_order():
    assert len(FILES) >= 8
    assert all(re.fullmatch(r"\d\d-[a-z0-9-]+(\.api_conversation_history)?\.(json|jsonl|db|sqlite|jsonl\.zst)", name) for name in FILES)
    assert len({name[:2] for name in FILES}) == len(FILES)


def test_index_lists_exactly_the_files_on_disk_in_order():
    assert [entry["file"] for entry in INDEX] == FILES
    for entry in INDEX:
        assert set(entry) >= {"file", "title", "description", "format", "expect"}
        assert entry["format"] in FORMATS + SESSION_FORMATS
        assert entry["title"].strip() and entry["description"].strip()
        assert "\n" not in entry["description"]


def _readme_rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in (SAMPLES / "README.md").read_text("utf-8").splitlines():
        match = re.fullmatch(r"\| `([^`]+)` \| (.+?) \| (.+) \|", line)
        if match:
            rows.append(tuple(cell.replace("\\|", "|") for cell in match.groups()))
    return rows


def test_readme_table_agrees_with_index():
    assert _readme_rows() == [(e["file"], e["description"], e["does"]) for e in INDEX]


@pytest.mark.parametrize("entry", INDEX, ids=[e["file"] for e in INDEX])
def test_sample_is_detected_as_its_format(entry):
    imported = import_history(load_json(SAMPLES / entry["file"]), entry["file"])
    assert imported.format == entry["format"]


@pytest.mark.parametrize("entry", INDEX, ids=[e["file"] for e in INDEX])
def test_sample_normalizes_as_described(entry):
    document = load_json(SAMPLES / entry["file"])
    imported = import_history(document, entry["file"])
    assert imported.messages
    # As the CLI and the TUI see it, after format detection.
    result = normalize(imported.messages)
    assert _counts(result) == entry["expect"]
    # Each sample teaches something, except the ones that show "nothing to change".
    changes = result.messages != imported.messages or bool(result.events)
    assert changes == ("Changes nothing" not in entry["does"])
    again = normalize(result.messages)
    assert again.messages == result.messages and again.dropped == 0
    if entry["format"] in RAW and not imported.identity:
        # The engine reading the file's messages directly agrees on the counts (unless the format's
        # pairing gave a reused id an identity of its own: issue 30, the flat list reads it literally).
        assert _counts(normalize(_messages(document))) == entry["expect"]


@pytest.mark.parametrize("entry", [e for e in INDEX if e["format"] not in RAW],
                         ids=lambda e: e["file"])
def test_provider_sample_is_repaired_in_its_own_format(entry):
    """Written back in its own format, the repaired document reads as that format again
    and needs no further repair; it differs from the input exactly where repairs were made."""
    document = load_json(SAMPLES / entry["file"])
    imported = import_history(document, entry["file"])
    result = normalize(imported.messages)
    assert result.events, "a provider sample should show real repairs"
    written = export_history(imported, result).document
    assert written != document
    back = import_history(written, entry["file"])
    assert back.format == entry["format"]
    assert _counts(normalize(back.messages)) == {"dropped": 0, "synthesized": 0, "moved": 0}
    # Nothing the engine kept was lost: the count of flat messages adds up (a dropped call
    # is a drop, not a message).
    rows_dropped = sum(1 for e in result.events if e.drop and e.call is None)
    assert len(back.messages) == len(imported.messages) - rows_dropped + result.synthesized


def test_samples_cover_the_issue_list():
    """The failures the issue names each have a sample showing them."""
    kinds = {}
    for entry in INDEX:
        document = load_json(SAMPLES / entry["file"])
        messages = _messages(document) if entry["format"] in RAW else import_history(document).messages
        kinds[entry["file"]] = {e.kind for e in normalize(messages).events}
    every = set().union(*kinds.values())
    for kind in ("call-unusable-id", "leading-tool", "result-synthesized", "result-duplicate",
                 "result-orphan", "system-hoisted", "metadata-lifted", "call-redeclared",
                 "not-a-map", "content-serialized"):
        assert kind in every, kind
    openai = load_json(SAMPLES / "08-openai-chat-export.json")
    msgs = openai["messages"]
    assert any(m.get("content") is None and m.get("tool_calls") for m in msgs)
    assert any(isinstance(m.get("content"), list) for m in msgs)
    assert all("id" in c and "tool_call_id" not in c for m in msgs for c in m.get("tool_calls", []))
    buffer = load_json(SAMPLES / "07-buffer-rows-metadata.json")
    assert all("metadata" in row and "timestamp" in row for row in buffer)


def test_provider_samples_have_the_shapes_they_claim():
    """One sample per provider format, each using that provider's own spelling."""
    by_format = {e["format"]: load_json(SAMPLES / e["file"]) for e in INDEX
                 if e["format"] not in RAW and e["format"] not in SESSION_FORMATS}
    assert set(by_format) == {"anthropic", "openai-responses", "gemini", "bedrock"}
    anthropic = by_format["anthropic"]
    assert isinstance(anthropic["system"], str)
    blocks = [b for m in anthropic["messages"] if isinstance(m["content"], list) for b in m["content"]]
    results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
    assert len(results) != len(set(results))                      # a result written twice
    assert {b["id"] for b in blocks if b["type"] == "tool_use"} - set(results)   # one never answered
    items = by_format["openai-responses"]["input"]
    assert {i["type"] for i in items} >= {"message", "function_call", "function_call_output", "reasoning"}
    assert all("call_id" in i for i in items if i["type"].startswith("function_call"))
    gemini = by_format["gemini"]
    assert "systemInstruction" in gemini and {c["role"] for c in gemini["contents"]} == {"user", "model"}
    calls = [p["functionCall"] for c in gemini["contents"] for p in c["parts"] if "functionCall" in p]
    assert any("id" not in c for c in calls) and any("id" in c for c in calls)
    bedrock = by_format["bedrock"]
    assert all("text" in b for b in bedrock["system"])
    keys = {k for m in bedrock["messages"] for b in m["content"] for k in b}
    assert keys >= {"toolUse", "toolResult"}


def test_project_readme_lists_every_sample():
    readme = Path(__file__).resolve().parents[1] / "docs" / "samples.md"   # moved from the README (issue 35)
    if not readme.is_file():
        pytest.skip("not a checkout")
    text = readme.read_text("utf-8")
    section = text[text.index("<!-- section:samples -->"):text.index("<!-- /section:samples -->")]
    listed = re.findall(r"^\| `([^`]+)` \| (.+) \|$", section, flags=re.M)
    assert listed == [(e["file"], e["title"]) for e in INDEX]

"""The bundled samples: each loads, normalizes as its index entry says, and the README
table, ``index.json`` and the files on disk list the same samples."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from inspector.bundled import samples_dir
from inspector.engine import normalize
from inspector.formats import import_history
from inspector.io import load_json

SAMPLES = samples_dir()
INDEX = orjson.loads((SAMPLES / "index.json").read_bytes())
FILES = sorted(p.name for p in SAMPLES.glob("*.json") if p.name != "index.json")


def _messages(document):
    """The engine's own view of a sample: a bare array, or a request body's messages."""
    return document if isinstance(document, list) else document["messages"]


def test_samples_dir_is_the_project_samples_folder():
    assert SAMPLES.is_dir()
    assert (SAMPLES / "README.md").is_file()


def test_at_least_eight_samples_in_numbered_order():
    assert len(FILES) >= 8
    assert all(re.fullmatch(r"\d\d-[a-z0-9-]+\.json", name) for name in FILES)
    assert len({name[:2] for name in FILES}) == len(FILES)


def test_index_lists_exactly_the_files_on_disk_in_order():
    assert [entry["file"] for entry in INDEX] == FILES
    for entry in INDEX:
        assert set(entry) >= {"file", "title", "description"}
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
def test_sample_normalizes_as_described(entry):
    document = load_json(SAMPLES / entry["file"])
    imported = import_history(document, entry["file"])
    assert imported.messages
    result = normalize(_messages(document))
    got = {"dropped": result.dropped, "synthesized": result.synthesized, "moved": result.moved}
    assert got == entry["expect"]
    # Each sample teaches something, except the ones that show "nothing to change".
    changes = result.messages != _messages(document) or bool(result.events)
    assert changes == ("Changes nothing" not in entry["does"])
    again = normalize(result.messages)
    assert again.messages == result.messages and again.dropped == 0
    # As the CLI and the TUI see it, after format detection: the same counts.
    seen = normalize(imported.messages)
    assert {"dropped": seen.dropped, "synthesized": seen.synthesized, "moved": seen.moved} == entry["expect"]


def test_samples_cover_the_issue_list():
    """The failures the issue names each have a sample showing them."""
    kinds = {}
    for name in FILES:
        result = normalize(_messages(load_json(SAMPLES / name)))
        kinds[name] = {e.kind for e in result.events}
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


def test_project_readme_lists_every_sample():
    readme = Path(__file__).resolve().parents[1] / "README.md"
    if not readme.is_file():
        pytest.skip("not a checkout")
    text = readme.read_text("utf-8")
    section = text[text.index("<!-- section:samples -->"):text.index("<!-- /section:samples -->")]
    listed = re.findall(r"^\| `([^`]+)` \| (.+) \|$", section, flags=re.M)
    assert listed == [(e["file"], e["title"]) for e in INDEX]

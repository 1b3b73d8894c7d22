"""The TUI exports from the history it has open: the pipeline's export step on the loaded
import and repair, not a second run of the pipeline. The bytes are the CLI's, and exporting
(in any format, any number of times) changes nothing the screen shows."""

from __future__ import annotations

import pickle
from pathlib import Path

import orjson
import pytest

from inspector.formats import EXPORT_CHOICES
from inspector.pipeline import run_file
from inspector.tui.loader import Source, export, load_document

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
OPENED = ["03-crash-parallel-calls.json", "13-anthropic-retry-and-parallel-call.json",
          "14-openai-responses-lost-output.json", "21-claude-code-session.jsonl", "24-agents-sdk-session.db"]
SESSION_STORES = {"claude-code", "codex-rollout", "gemini-cli", "agents-sqlite"}


def _shown(doc) -> bytes:
    """Everything of an open document the views read."""
    return pickle.dumps((doc.raw, doc.imported.history, doc.imported.sources, doc.imported.events,
                         doc.result.messages, [(s.messages, s.origins, s.events) for s in doc.result.stages]))


@pytest.mark.parametrize("name", OPENED)
@pytest.mark.parametrize("strict", [False, True])
def test_export_writes_the_cli_bytes_and_leaves_the_open_history_as_it_was(name, strict):
    doc = load_document(Source.file(SAMPLES / name), strict=strict)
    before = _shown(doc)
    for to in EXPORT_CHOICES:
        if to in SESSION_STORES and to != doc.imported.format:
            continue   # a session store is written from its own session only
        written = export(doc, to)
        cli = run_file(SAMPLES / name, to=to, strict=strict)
        assert written.data == cli.data, to
        assert written.format == cli.output_format and written.events == cli.export_events, to
        assert _shown(doc) == before, to


def test_the_entry_count_is_of_the_written_format():
    doc = load_document(Source.file(SAMPLES / "13-anthropic-retry-and-parallel-call.json"))
    written = export(doc)
    assert written.entries == len(orjson.loads(written.data)["messages"]) != len(doc.result.messages)

"""Agent session files (JSONL, SQLite) open in the TUI like any history: the loader reads
bytes through the pipeline's parser, so each format reads its own file, and export proposes
the same name `inspector normalize` writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.tui.loader import Source, load_document
from inspector.tui.screens.export import default_export_path

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.mark.parametrize("name, fmt", [("21-claude-code-session.jsonl", "claude-code"),
                                       ("22-codex-rollout.jsonl", "codex-rollout"),
                                       ("24-agents-sdk-session.db", "agents-sqlite")])
def test_a_session_file_opens_in_its_own_format(name, fmt):
    doc = load_document(Source.file(SAMPLES / name))
    assert doc.imported.format == fmt
    assert doc.imported.messages and doc.result.events


def test_export_of_a_session_proposes_the_repaired_name():
    assert default_export_path("/x/s.jsonl") == "/x/s.repaired.jsonl"
    assert default_export_path("/x/a.db") == "/x/a.repaired.db"
    assert default_export_path("/x/h.json") == "/x/h.normalized.json"
    assert default_export_path("/x/s.jsonl", "anthropic") == "/x/s.jsonl.normalized.anthropic.json"

"""The TUI's open history is the pipeline's Outcome (issue 29): one result type, its export
made once when first asked for, shared by the verdict's check of the moment it stands for
and by an export in the input's format; nothing is worked out a second time."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector import pipeline
from inspector.tui import loader
from inspector.tui.loader import Source, load_document, renormalize
from inspector.tui.verdict import MEM5, STRICT, check_all

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture
def exports(monkeypatch):
    """Every export the pipeline makes, counted."""
    made = []
    real = pipeline.export

    def counted(*args, **kwargs):
        made.append(args[2] if len(args) > 2 else kwargs.get("to", "same"))
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "export", counted)
    return made


@pytest.mark.parametrize("strict", [False, True])
def test_the_open_history_is_an_outcome_exported_once(exports, strict):
    doc = load_document(Source.file(SAMPLES / "13-anthropic-retry-and-parallel-call.json"), strict=strict)
    assert isinstance(doc, pipeline.Outcome)
    assert not doc.exported_yet and exports == []      # no reasoning: the load never exports
    written = pipeline.run_file(SAMPLES / "13-anthropic-retry-and-parallel-call.json", strict=strict)
    exports.clear()
    assert doc.data == written.data and doc.changed == written.changed
    assert [e.kind for e in doc.events] == [e.kind for e in written.events]
    assert len(exports) == 1
    assert loader.export(doc) is doc.export and len(exports) == 1     # the export dialog's "same"
    checks = check_all(doc.imported, doc.result, strict, doc.name, names=["anthropic"], outcome=doc)
    # the moment the open history stands for is checked on its own export: none made for it
    assert checks.at(STRICT if strict else MEM5, "anthropic") is not None
    assert len(exports) == (2 if strict else 1)      # strict: MEM-5's own moment is another history


def test_under_strip_the_load_exports_in_the_worker_and_once(exports):
    """Under --reasoning strip the screen shows what the export says of the reasoning: the
    load (a worker) makes the export, and everything after reads that one."""
    doc = load_document(Source.file(SAMPLES / "21-claude-code-session.jsonl"), reasoning="strip")
    assert doc.exported_yet and len(exports) == 1
    doc.reasoning_events
    doc.data
    loader.export(doc)
    check_all(doc.imported, doc.result, False, doc.name, names=["anthropic"], reasoning="strip", outcome=doc)
    assert len(exports) == 1


def test_the_strict_toggle_keeps_the_import_and_makes_a_new_outcome(exports):
    doc = load_document(Source.file(SAMPLES / "13-anthropic-retry-and-parallel-call.json"))
    again = renormalize(doc, True)
    assert again.imported is doc.imported and again.strict and isinstance(again, pipeline.Outcome)
    assert again.result is not doc.result and not again.exported_yet

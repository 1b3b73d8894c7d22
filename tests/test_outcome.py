"""pipeline.Outcome's export is made when first asked for, and kept (issue 29): a view that
never writes never pays for it, one that writes pays once."""

from __future__ import annotations

from pathlib import Path

from inspector import pipeline

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "05-compaction-cut-call.json"


def test_an_outcome_without_its_export_makes_it_on_first_use(monkeypatch):
    imported = pipeline.load_file(SAMPLE)
    result = pipeline.repair(imported)
    made = []
    real = pipeline.export
    monkeypatch.setattr(pipeline, "export", lambda *a, **k: made.append(a) or real(*a, **k))
    lazy = pipeline.Outcome("x", imported, result, to="openai-chat")
    assert not lazy.exported_yet and lazy.output_format == "openai-chat" and made == []
    eager = pipeline.run_file(SAMPLE, to="openai-chat")
    assert lazy.data == eager.data and lazy.changed == eager.changed
    assert lazy.export is lazy.export and len(made) == 2          # once for lazy, once for run_file

"""Agent session files (JSONL, SQLite) open in the TUI like any history: the loader reads
bytes through the pipeline's parser, so each format reads its own file, and export proposes
the same name `inspector normalize` writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.tui.loader import Source, load_document
from inspector.tui.screens.error import ErrorDialog
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


# -- one session of a database that holds several (--session ID) ---------------------------
@pytest.fixture
def two_sessions(tmp_path):
    from sessions import agents_builder as ab

    return ab.make(tmp_path / "agents.db", {"support-42": ab.orphan_output(), "faro": ab.clean()})


def _launch(argv, monkeypatch, until=ErrorDialog):
    """``inspector ARGV`` through the CLI, the app run headless: what it showed once loaded."""
    from inspector.cli import main
    from inspector.tui.app import InspectorApp

    seen = {}
    real = InspectorApp.run

    async def look(pilot):
        app = pilot.app
        for _ in range(400):
            await pilot.pause(0.02)
            if app.main.doc is not None or isinstance(app.screen, until):
                break
        seen["doc"] = app.main.doc
        seen["screen"] = app.screen
        app.exit(0)

    monkeypatch.setattr(InspectorApp, "run", lambda self, **kw: real(self, headless=True, size=(120, 40),
                                                                      auto_pilot=look))
    try:
        assert main(argv) == 0
    finally:
        monkeypatch.undo()
    return seen


def test_the_tui_opens_the_session_given_with_session(two_sessions, monkeypatch):
    from inspector.pipeline import run_file

    for session in ("support-42", "faro"):
        seen = _launch([str(two_sessions), "--session", session], monkeypatch)
        doc = seen["doc"]
        assert doc is not None and not isinstance(seen["screen"], ErrorDialog)
        assert doc.imported.document.session == session
        cli = run_file(two_sessions, session=session)   # what `inspector check --session` reads
        assert doc.raw == cli.imported.messages and len(doc.result.events) == len(cli.result.events)
    assert run_file(two_sessions, session="support-42").result.events   # the two differ
    assert not run_file(two_sessions, session="faro").result.events


def test_without_session_the_tui_offers_every_session(two_sessions, monkeypatch):
    from inspector.tui.screens.sessions import SessionPicker

    seen = _launch([str(two_sessions)], monkeypatch, until=SessionPicker)
    assert seen["doc"] is None and isinstance(seen["screen"], SessionPicker)
    assert [s.id for s in seen["screen"].sessions] == ["support-42", "faro"]


def test_an_unknown_session_opens_the_picker_of_the_files_sessions(two_sessions, monkeypatch):
    """Issue 35 item 9: --session nope opened an error dialog; the picker is what the user
    needs (a toast names the id not found: tests/tui/test_newcomer_tui.py)."""
    from inspector.tui.screens.sessions import SessionPicker

    seen = _launch([str(two_sessions), "--session", "nope"], monkeypatch, until=SessionPicker)
    assert seen["doc"] is None and isinstance(seen["screen"], SessionPicker)
    assert [s.id for s in seen["screen"].sessions] == ["support-42", "faro"]

"""The TUI judges a session for the model it ran on, as ``check`` does, and ``--model``
(``inspector FILE --model M``) overrides it; the verdict line names the model (issue 29)."""

from __future__ import annotations

import sqlite3

from inspector.cli import tui_parser
from inspector.pipeline import run_file
from inspector.tui.screenshots import settle
from inspector.verdict import resume_verdict

from sessions import crush_builder
from .helpers import opened, widget_text


def _switched(path):
    """A Crush session: signed reasoning by claude-sonnet-4-5, its last answer by claude-opus-4-1."""
    crush_builder.write_db(path, {"ses-switch": crush_builder.clean()})
    conn = sqlite3.connect(path)
    last = conn.execute("SELECT id FROM messages WHERE role = 'assistant' ORDER BY created_at DESC, rowid DESC").fetchone()
    conn.execute("UPDATE messages SET model = 'claude-opus-4-1' WHERE id = ?", last)
    conn.commit()
    conn.close()
    return path


async def test_the_verdict_line_names_the_model_and_says_what_check_says(tmp_path):
    path = _switched(tmp_path / "crush.db")
    v = resume_verdict(run_file(path))
    async with opened(path) as (app, pilot):
        await settle(app, pilot)
        bar = widget_text(app, "#verdict")
        assert app.main.target == v.provider == "anthropic"
        assert "anthropic (claude-opus-4-1) would reject this history as given" in bar, bar
        assert "signature-other-model" in bar and [r.rule for r in v.refusals] == ["signature-other-model"]


async def test_model_sends_it_to_another_model(tmp_path):
    path = _switched(tmp_path / "crush.db")
    args = tui_parser().parse_args([str(path), "--model", "claude-sonnet-4-5"])
    assert args.model == "claude-sonnet-4-5"
    async with opened(path, model=args.model) as (app, pilot):
        await settle(app, pilot)
        bar = widget_text(app, "#verdict")
        assert "anthropic (claude-sonnet-4-5) would accept this history as given" in bar, bar
    assert not resume_verdict(run_file(path), model="claude-sonnet-4-5").refusals

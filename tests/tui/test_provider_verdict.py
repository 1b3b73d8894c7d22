"""The provider's verdict in the TUI, through make_app: the bar says in words whether the
chosen provider would accept the history now, the Provider pane lists what `inspector check
--target` lists, the rows are marked, x goes to them, and strict's repairs show."""

from __future__ import annotations

from pathlib import Path

from inspector.pipeline import run_file
from inspector.targets import TARGETS, check
from inspector.tui.screens.providers import ProviderPicker
from inspector.tui.screenshots import settle
from inspector.tui.widgets.diff_table import DiffTable

from .helpers import opened, widget_text

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SAMPLE_11 = SAMPLES / "11-known-limit-separated-result.json"


async def test_a_chosen_target_names_its_rules_and_marks_their_rows():
    async with opened(SAMPLE_11, target="openai-chat") as (app, pilot):
        await settle(app, pilot)
        bar = widget_text(app, "#verdict")
        assert "openai-chat would reject" in bar
        problems = check(run_file(SAMPLE_11), "openai-chat")   # what `check --target` reports
        assert {p.rule for p in problems} == {"tool-calls-unanswered", "tool-without-calls"}
        pane = app.main.query_one("#problems").render()
        for p in problems:
            assert p.rule in str(pane) and p.error[:40] in str(pane) and p.source in str(pane)
        table = app.main.query_one(DiffTable)
        assert set(table.flags) == {p.index for p in problems}   # the input view: rows are entries
        await pilot.press("x")
        assert table.current.origin == min(p.index for p in problems)
        await pilot.press("x")
        assert table.current.origin == max(p.index for p in problems)


async def test_without_a_target_a_flat_history_shows_every_targets_verdict():
    async with opened(SAMPLE_11) as (app, pilot):
        await settle(app, pilot)
        bar = widget_text(app, "#verdict")
        for name in TARGETS:
            assert name in bar
        assert app.main.target is None and not app.main.query_one(DiffTable).flags
        await pilot.press("v")
        await settle(app, pilot)
        assert isinstance(app.screen, ProviderPicker)
        await pilot.press("enter")      # the first target: openai-chat
        await settle(app, pilot)
        assert app.main.target == TARGETS[0]
        assert app.main.query_one(DiffTable).flags


async def test_strict_shows_what_it_repairs_and_the_verdict_follows_the_stage():
    async with opened(SAMPLE_11, target="openai-chat") as (app, pilot):
        await settle(app, pilot)
        await pilot.press("4")
        assert "after MEM-5" in widget_text(app, "#verdict") and "would reject" in widget_text(app, "#verdict")
        await pilot.press("t")
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        assert "would accept" in widget_text(app, "#verdict")
        assert "strict stage repaired 2" in str(app.main.query_one("#problems").render())
        strict = run_file(SAMPLE_11, strict=True)
        assert not check(strict, "openai-chat")


async def test_a_format_speaks_its_provider_by_default():
    async with opened(SAMPLES / "21-claude-code-session.jsonl") as (app, pilot):
        await settle(app, pilot)
        assert app.main.target == "anthropic"
        assert "anthropic would" in widget_text(app, "#verdict")


def test_the_chosen_target_is_reported_before_the_others():
    from inspector import pipeline
    from inspector.tui.verdict import INPUT, MEM5, check_all

    imported = pipeline.load_file(SAMPLE_11)
    result = pipeline.repair(imported)
    seen = []
    check_all(imported, result, False, first="anthropic",
              report=lambda v: seen.append(({s: sorted(by) for s, by in v.by_stage.items()}, v.complete)))
    (early, done_early), (late, done) = seen
    assert early == {INPUT: ["anthropic"], MEM5: ["anthropic"]} and not done_early
    assert done and all(sorted(late[s]) == sorted(TARGETS) for s in (INPUT, MEM5))


async def test_the_picker_names_the_provider_the_verdict_line_judges():
    """The picker's last line read "every provider's verdict, none chosen" while the verdict
    line judged the file's own provider: it now says what is chosen and what the line does."""
    from textual.widgets import OptionList

    from .helpers import settled

    async with opened(SAMPLES / "13-anthropic-retry-and-parallel-call.json") as (app, pilot):
        await settle(app, pilot)

        def checked():
            assert app.main.verdict_bar.settled

        await settled(pilot, checked)
        assert "anthropic" in widget_text(app, "#verdict")
        await pilot.press("v")

        def shown():
            assert isinstance(app.screen, ProviderPicker)

        await settled(pilot, shown)
        assert "now checking against anthropic" in widget_text(app, "#dialog-title")
        options = app.screen.query_one(OptionList)
        last = str(options.get_option_at_index(options.option_count - 1).prompt)
        assert "none chosen" not in last and "instead of anthropic's" in last
        assert options.highlighted == [o.id for o in options._options].index("anthropic")


async def test_a_session_that_ran_on_an_unknown_provider_says_so_on_the_verdict_line(tmp_path):
    """check and the doctor say "provider unknown, not judged: ran on ollama"; the TUI showed
    every provider's verdict instead. Picking "none" still shows them, on request."""
    from .helpers import settled

    path = tmp_path / "oc-ollama.json"
    text = (SAMPLES / "27-opencode-export.json").read_text(encoding="utf-8")
    path.write_text(text.replace('"providerID": "anthropic"', '"providerID": "ollama"'), encoding="utf-8")
    async with opened(path, size=(160, 50)) as (app, pilot):
        await settle(app, pilot)

        def said() -> None:
            line = " ".join(widget_text(app, "#verdict").split())
            assert "provider unknown, not judged: ran on ollama" in line and "openai-chat" not in line

        await settled(pilot, said)


async def test_the_last_stage_judges_what_normalize_to_the_target_writes(tmp_path):
    """check --target anthropic judges the document normalize --to anthropic writes (an empty
    user text is Anthropic's blank-text); the TUI's view 4 said "anthropic would accept". It
    now says what check says, and x says why no row is marked."""
    from .helpers import settled

    path = tmp_path / "h.json"
    path.write_text('[{"role":"user","content":""},{"role":"assistant","content":"x"},{"role":"user","content":"y"}]')
    assert {p.rule for p in check(pipeline_as_written(path), "anthropic")} == {"blank-text"}
    async with opened(path, target="anthropic", size=(160, 50)) as (app, pilot):
        await settle(app, pilot)
        await pilot.press("4")

        def judged() -> None:
            assert "would reject this history after MEM-5's repair: 1 error (blank-text)" in widget_text(app, "#verdict")

        await settled(pilot, judged)
        await pilot.press("x")
        assert any("converted to its own format" in str(n.message) for n in app._notifications)


def pipeline_as_written(path):
    from inspector.pipeline import as_written_for

    return as_written_for(run_file(path), "anthropic")


async def test_an_unjudged_session_names_the_agents_own_repairs_as_check_does(tmp_path, capsys):
    """A Codex rollout that ran on ollama: check's line says "provider unknown, not judged" and
    then Codex's own repairs on resume; the TUI's line said only the first part."""
    from inspector.cli import main

    from .helpers import settled

    path = tmp_path / "rollout.jsonl"
    text = (SAMPLES / "22-codex-rollout.jsonl").read_text(encoding="utf-8")
    path.write_text(text.replace('"model_provider":"openai"', '"model_provider":"ollama"', 1), encoding="utf-8")
    main(["check", str(path)])
    claim = 'Codex answers a call left without output with "aborted" itself on resume'
    assert claim in capsys.readouterr().out
    async with opened(path, size=(160, 50)) as (app, pilot):
        await settle(app, pilot)

        def said() -> None:
            line = " ".join(widget_text(app, "#verdict").split())
            assert "provider unknown, not judged: ran on ollama" in line and claim in line

        await settled(pilot, said)

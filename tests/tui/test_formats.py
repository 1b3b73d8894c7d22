"""Provider formats in the TUI: the import step, exports in any format (the same bytes as
`inspector normalize --to`), and the strict stage shown as an extension beyond MEM-5."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Button, Input, OptionList, Select

from inspector import cli
from inspector.cli import main as cli_main
from inspector.engine import normalize
from inspector.engine import STRICT_CLAUSES
from inspector.formats import EXPORT_CHOICES, import_history
from inspector.tui.rows import ADD, MOVE, Model
from inspector.tui.screens.export import ExportDialog, exporters
from inspector.tui.widgets.diff_table import DiffTable
from inspector.tui.widgets.stage_bar import StageBar

from .helpers import finish_export, notifications, opened, row_lines, text_when, widget_text

# An Anthropic Messages request as the API documents it: a top-level system, tool_use blocks
# in assistant turns, tool_result blocks in user turns. Broken the usual ways: a retried
# (duplicate) result, a result for a call no turn makes (orphan), an unanswered call, and a
# result separated from its call by a user message (left by MEM-5, moved by strict).
REQUEST = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": "You are a travel assistant. Use the tools to check the weather and book trains.",
    "tools": [
        {"name": "get_weather", "description": "Current weather for a city",
         "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        {"name": "book_train", "description": "Book a train ticket",
         "input_schema": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}}},
    ],
    "messages": [
        {"role": "user", "content": "What's the weather in Lyon and Paris? Then book me a train Lyon to Paris."},
        {"role": "assistant", "content": [
            {"type": "text", "text": "I'll check both cities."},
            {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Lyon"}},
            {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Paris"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "Lyon: 14°C, light rain"},
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "Lyon: 14°C, light rain (retry)"},
            {"type": "tool_result", "tool_use_id": "toolu_01B",
             "content": [{"type": "text", "text": "Paris: 11°C, cloudy"}]},
            {"type": "tool_result", "tool_use_id": "toolu_99Z", "content": "stale result from a compacted turn"},
        ]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Rainy in Lyon, cloudy in Paris. Booking your train now."},
            {"type": "tool_use", "id": "toolu_02C", "name": "book_train", "input": {"from": "Lyon", "to": "Paris"}},
            {"type": "tool_use", "id": "toolu_02D", "name": "get_weather", "input": {"city": "Marseille"}},
        ]},
        {"role": "user", "content": "Actually, make it first class."},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_02D", "content": "Marseille: 19°C, sunny"}]},
    ],
}


@pytest.fixture
def request_file(tmp_path: Path) -> Path:
    path = tmp_path / "claude.json"
    path.write_text(json.dumps(REQUEST, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


async def _past_the_warning(app, pilot, said: str) -> None:
    """The dialog warned before writing a history its provider refuses: enter writes it anyway."""
    assert isinstance(app.screen, ExportDialog) and said in widget_text(app, "#export-note")
    assert str(app.screen.query_one("#export", Button).label) == "Write anyway"
    await pilot.press("enter")
    await finish_export(app, pilot)


def _cli_bytes(tmp_path: Path, *args: str) -> bytes:
    out = tmp_path / f"cli-{len(list(tmp_path.iterdir()))}.json"
    assert cli_main(["normalize", *args, "-o", str(out), "-q"]) == 0
    return out.read_bytes()


def _rule(app) -> str:
    """The rule panel's whole text, unwrapped."""
    return " ".join(widget_text(app, "#rule-body").split())


async def _wait(pilot, check, what: str) -> None:
    for _ in range(300):
        await pilot.pause(0.02)
        if check():
            await pilot.pause()
            return
    raise AssertionError(f"never happened: {what}")


async def test_import_step_shows_each_flat_message_with_where_it_came_from(request_file):
    imported = import_history(REQUEST, "claude.json")
    result = normalize(imported.messages)
    async with opened(request_file) as (app, pilot):
        main = app.main
        assert main.views[0] == "import" and main.view == 0
        assert main.query_one(StageBar).labels()[0] == f"0 import {len(imported.messages)}"
        assert "anthropic" in str(main.query_one("#table").border_title)
        lines = row_lines(app)
        assert "from" in lines[0] and "original" in lines[0]
        for i in range(len(imported.messages)):
            line = next((ln for ln in lines[1:] if ln[2:].split()[:1] == [f"#{i}"]), None)
            assert line is not None, f"#{i} missing"
            assert imported.where(i) in line
        # Each drop the engine made is tagged on the row it came from, by provenance.
        drops = [e for e in result.events if e.drop and e.call is None]
        assert {e.kind for e in drops} == {"result-duplicate", "result-orphan"}
        for e in drops:
            line = next(ln for ln in lines[1:] if ln[2:].split()[:1] == [f"#{e.origin}"])
            assert e.kind in line and imported.where(e.origin) in line
        # The original block's id shows in the preview (not the flat form's braces).
        orphan = next(e.origin for e in drops if e.kind == "result-orphan")
        assert "toolu_99Z" in next(ln for ln in lines[1:] if ln[2:].split()[:1] == [f"#{orphan}"])
        rule = _rule(app)
        assert "Anthropic Messages request" in rule and f"{len(imported.messages)} flat" in rule

        # Details: where, then the original above its flat form.
        table = main.query_one(DiffTable)
        table.cursor = next(p for p in range(table.row_count) if table.row_at(p).origin == orphan)
        await pilot.press("enter")
        await pilot.pause(0.2)
        details = " ".join(widget_text(app, "#details-body").split())
        assert f"From {imported.where(orphan)} (anthropic)" in details
        head = f"Original (anthropic, {imported.where(orphan)})"
        assert details.index(head) < details.index("Flat form") < details.index("The whole original message")
        block = details[details.index(head):details.index("Flat form")]
        assert '"tool_use_id": "toolu_99Z"' in block and "toolu_01A" not in block  # just its block
        assert '"tool_call_id": "toolu_99Z"' in details  # the flat form's
        assert '"tool_use_id": "toolu_01A"' in details[details.index("The whole original message"):]

        # The import is its own step before coerce: p from coerce goes back to it.
        await pilot.press("escape", "1")
        assert main.view == 1 and main.query_one(DiffTable).rows.name == "coerce"
        await pilot.press("p")
        assert main.view == 0 and main.query_one(DiffTable).rows.name == "import"


async def test_flat_input_keeps_the_plain_input_view(tmp_path):
    path = tmp_path / "flat.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    async with opened(path) as (app, pilot):
        assert app.main.views[0] == "input"
        assert "from" not in row_lines(app)[0].split()
        assert "import" not in str(app.main.query_one("#rule").border_title)


async def test_export_same_writes_what_the_cli_writes(request_file, tmp_path):
    before = request_file.read_bytes()
    expected = _cli_bytes(tmp_path, str(request_file))
    async with opened(request_file) as (app, pilot):
        await pilot.press("e")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        assert dialog.query_one(Select).value == "same"
        assert dialog.query_one(Input).value == str(request_file.with_name("claude.normalized.json"))
        await pilot.press("enter")
        await finish_export(app, pilot)
        await _past_the_warning(app, pilot, "anthropic would refuse what this writes")
        assert not isinstance(app.screen, ExportDialog)
        written = request_file.with_name("claude.normalized.json").read_bytes()
        # The toast counts what the file holds: Anthropic messages, not the flat rows.
        entries = len(json.loads(written)["messages"])
        assert entries != len(app.main.doc.result.messages)
        assert any(f"Wrote {entries} messages as anthropic" in n.message for n in notifications(app))
    assert written == expected
    assert "system" in json.loads(written) and "tool_use" in written.decode()  # still a request body
    assert request_file.read_bytes() == before


@pytest.mark.parametrize("to", ["openai-chat", "gemini"])
async def test_export_to_another_format_writes_what_the_cli_writes(request_file, tmp_path, to):
    expected = _cli_bytes(tmp_path, str(request_file), "--to", to)
    async with opened(request_file) as (app, pilot):
        await pilot.press("e")
        dialog = app.screen
        dialog.query_one(Select).value = to
        await pilot.pause()
        target = request_file.with_name(f"claude.normalized.{to}.json")
        assert dialog.query_one(Input).value == str(target)  # the default name follows the format
        what = " ".join(widget_text(app, "#export-what").split())
        assert exporters()[to] in what
        dialog.query_one(Input).focus()
        await pilot.press("enter")
        await finish_export(app, pilot)
        if to == "openai-chat":     # MEM-5's output still has a result away from its call
            await _past_the_warning(app, pilot, "openai-chat would refuse what this writes")
        assert not isinstance(app.screen, ExportDialog)
    assert target.read_bytes() == expected
    assert expected != _cli_bytes(tmp_path, str(request_file))


async def test_export_format_change_keeps_a_path_the_user_typed(request_file, tmp_path):
    mine = tmp_path / "mine.json"
    async with opened(request_file) as (app, pilot):
        await pilot.press("e")
        dialog = app.screen
        dialog.query_one(Input).value = str(mine)
        dialog.query_one(Select).value = "bedrock"
        await pilot.pause()
        assert dialog.query_one(Input).value == str(mine)
        offered = dialog.query_one(Select).query_one(OptionList).options   # the list the user opens
        assert [str(option.prompt).split(":")[0] for option in offered] == list(EXPORT_CHOICES)


async def test_strict_toggle_adds_the_strict_stage_as_an_extension(request_file, tmp_path):
    imported = import_history(REQUEST, "claude.json")
    strict = normalize(imported.messages, extensions=("strict",))
    moved = [e for e in strict.stage("strict").events if e.kind == "strict-moved"]
    assert len(moved) == 1
    async with opened(request_file) as (app, pilot):
        main = app.main
        assert "strict" not in main.views
        await pilot.press("5")  # off: no such stage, says how to turn it on
        assert main.view == 0
        await pilot.press("t")
        await _wait(pilot, lambda: main.doc.strict and main.loading_source is None, "strict on")
        assert main.views[-1] == "strict" and main.view == 5
        labels = main.query_one(StageBar).labels()
        assert labels[5].startswith("5 strict (ext.)") and "↑1" in labels[5]
        rule = _rule(app)
        assert "beyond MEM-5" in str(main.query_one("#rule").border_title)
        assert "extension, beyond MEM-5" in rule
        for clause in STRICT_CLAUSES:
            assert clause in rule
        # The moved row, by provenance, marked and tagged from the strict event.
        table = main.query_one(DiffTable)
        rows = [table.row_at(p) for p in range(table.row_count)]
        row = next(r for r in rows if r.origin == moved[0].origin)
        assert row.mark == MOVE and [e.kind for e in row.events] == ["strict-moved"]
        line = next(ln for ln in row_lines(app)[1:] if ln.split()[:2] == [MOVE, f"#{row.origin}"])
        assert f"({moved[0].clause}) strict-moved" in line   # the clause the rule panel names, and the kind
        assert "strict on" in widget_text(app, "#status")
        # Export now equals `normalize --strict`.
        expected = _cli_bytes(tmp_path, str(request_file), "--strict")
        await pilot.press("e")
        await pilot.press("enter")
        await finish_export(app, pilot)
        assert request_file.with_name("claude.normalized.json").read_bytes() == expected
        # And off again: back to the four stages, on the last one.
        await pilot.press("t")
        await _wait(pilot, lambda: not main.doc.strict and main.loading_source is None, "strict off")
        assert "strict" not in main.views and main.view == 4
        assert len(main.query_one(StageBar).labels()) == 5


async def test_strict_from_the_command_line_and_the_palette(request_file):
    async with opened(request_file, strict=True) as (app, pilot):
        assert app.main.doc.strict and app.main.views[-1] == "strict"
        from inspector.tui.commands import entries

        commands = [e.title for e in entries(app.main)]
        assert "strict: toggle" in commands and "stage: strict" in commands


def test_rows_of_a_restored_result():
    """Strict brings back a result repair dropped as a duplicate: a row with its origin, marked +."""
    history = [
        {"role": "user", "content": "go"},
        {"role": "tool", "content": "early", "tool_call_id": "c1"},
        {"role": "assistant", "content": "", "tool_calls": [{"tool_call_id": "c1", "name": "f"}]},
        {"role": "tool", "content": "late", "tool_call_id": "c1"},
    ]
    result = normalize(history, extensions=("strict",))
    restored = [e for e in result.events if e.kind == "strict-restored"]
    assert [e.origin for e in restored] == [3]
    model = Model(history, result)
    assert model.views[-1] == "strict"
    rows = model.rows(5)
    r = next(r for r in range(len(rows)) if rows.origins[r] == 3)
    assert rows.mark(r) == ADD and [e.kind for e in rows.row(r).events] == ["strict-restored"]
    assert [s.status for s in model.journey(3)] == ["unchanged", "unchanged", "dropped", "gone", "restored"]
    assert model.stage_counts(5)["dropped"] == 1


def test_tui_command_line_passes_format_and_strict(monkeypatch):
    seen = {}

    def fake_run(path, fmt="auto", strict=False, session=None, target="auto", reasoning="keep", model=None):
        seen.update(path=path, fmt=fmt, strict=strict, session=session, target=target, reasoning=reasoning,
                    model=model)
        return 0

    import inspector.tui.app as tui_app

    monkeypatch.setattr(tui_app, "run", fake_run)
    assert cli.main(["--from", "anthropic", "--strict", "x.json"]) == 0
    assert seen == {"path": "x.json", "fmt": "anthropic", "strict": True, "session": None, "target": "auto",
                    "reasoning": "keep", "model": None}
    assert cli.main(["y.json", "--session", "s1", "--target", "groq", "--reasoning", "strip",
                     "--model", "llama-3.3-70b"]) == 0
    assert seen == {"path": "y.json", "fmt": "auto", "strict": False, "session": "s1", "target": "groq",
                    "reasoning": "strip", "model": "llama-3.3-70b"}


async def test_help_explains_the_import_step_and_the_strict_extension(request_file):
    from inspector.engine import KINDS
    from inspector.tui.screens.help import HelpScreen

    async with opened(request_file) as (app, pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.markdown
        assert "**import** step" in text and "--to NAME" in text
        assert "an extension beyond MEM-5" in text
        for clause in STRICT_CLAUSES:
            assert f"`{clause}`" in text
        for kind in (k for k, v in KINDS.items() if v.clause in STRICT_CLAUSES):
            assert f"`{kind}`" in text
        assert "| `t` |" in text and "| `5` |" in text


async def test_search_and_journey_know_where_a_row_came_from(request_file):
    imported = import_history(REQUEST, "claude.json")
    async with opened(request_file) as (app, pilot):
        main = app.main
        main.search("content[3]")
        await pilot.pause()
        table = main.query_one(DiffTable)
        shown = [table.row_at(p).origin for p in range(table.row_count)]
        assert shown == [i for i in range(len(imported.messages)) if "content[3]" in imported.where(i)]
        assert shown  # the orphan's block
        await pilot.press("j")
        journey = " ".join((await text_when(app, pilot, "#journey-body", lambda t: "imported from" in t)).split())
        assert f"imported from {imported.where(shown[0])} (anthropic)" in journey
        assert "dropped" in journey and "(3) result-orphan" in journey


async def test_hostile_text_in_a_provider_file_renders_literally(tmp_path):
    hostile = "[bold red]x[/] \x1b[2J \u202eevil"
    request = {"system": "s", "messages": [
        {"role": "user", "content": [{"type": "text", "text": hostile}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "[/]", "name": "[b]f", "input": {}}]},
    ]}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(request))
    async with opened(path) as (app, pilot):
        assert app.main.views[0] == "import"
        lines = "\n".join(row_lines(app))
        assert "text [bold red]x[/] \\x1b[2J \\u202" in lines
        assert "tool_use [/] [b]f" in lines
        app.main.query_one(DiffTable).cursor = 1
        await pilot.press("enter")
        await pilot.pause(0.2)
        details = widget_text(app, "#details-body")
        assert "[bold red]x[/]" in details and "\x1b" not in details and "\u202e" not in details


@pytest.mark.parametrize("sample", ["13-anthropic-retry-and-parallel-call.json", "14-openai-responses-lost-output.json",
                                    "15-gemini-calls-without-ids.json", "16-bedrock-sliding-window.json",
                                    "17-long-parallel-call-ids.json"])
def test_original_previews_are_the_formats_own_reading(sample):
    """The import view reads each original block as its format describes it (the registry's
    describe_block); the TUI keeps no reading of its own."""
    from inspector.bundled import samples_dir
    from inspector.formats import REGISTRY
    from inspector.tui.adapter import describe_block
    from inspector.tui.rows import original_part

    imported = import_history(json.loads((samples_dir() / sample).read_text("utf-8")), sample)
    describe = REGISTRY[imported.format].describe_block
    for i in range(len(imported.messages)):
        part = original_part(imported, i)
        shown = describe_block(imported.format, part)
        blocks = part if isinstance(part, list) else [part]
        if isinstance(part, dict) and "type" not in part:
            lists = [v for v in part.values() if isinstance(v, list) and v and all(isinstance(b, dict) for b in v)]
            if not lists and len(part) != 1:  # a role and a text: the row shows the flat form's text
                assert shown is None
                continue
            blocks = lists[0] if lists else blocks
        assert shown == " · ".join(describe(b) for b in blocks[:20])


async def test_gemini_calls_without_ids_show_how_they_were_paired(tmp_path):
    document = {
        "systemInstruction": {"parts": [{"text": "You are a helpful assistant."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Rome and Oslo?"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
                {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp": 21}}}]},
        ],
    }
    path = tmp_path / "gemini.json"
    path.write_text(json.dumps(document))
    imported = import_history(document, "gemini.json")
    assert imported.events and imported.notes
    async with opened(path) as (app, pilot):
        lines = row_lines(app)
        with_events = {e.origin for e in imported.events}
        for i in range(len(imported.messages)):
            line = next(ln for ln in lines[1:] if ln[2:].split()[:1] == [f"#{i}"])
            assert ("import: id-derived" in line) == (i in with_events)
        rule = _rule(app)
        assert imported.notes[0] in rule
        assert f"{len(imported.events)} import events" in rule
        assert all(e.message in rule for e in imported.events)
        assert any(imported.notes[0] in n.message for n in notifications(app))


async def test_summary_lists_strict_kinds_with_their_own_clauses(request_file):
    from inspector.tui.widgets.summary import Summary

    async with opened(request_file, strict=True) as (app, pilot):
        summary = app.main.query_one(Summary)
        labels = [" ".join(str(r) for r in getattr(p, "renderables", [p]))
                  for p in (summary.get_option_at_index(i).prompt for i in range(summary.option_count))]
        moved = next(label for label in labels if "strict-moved" in label)
        assert "(strict:adjacent) strict-moved" in moved and "result moved" in moved
        assert labels.index(moved) == len(labels) - 1  # after every MEM-5 kind

"""The levels of ``inspector learn``: the list with the learner's progress, and one level played.

:class:`LevelsScreen` lists the built-in levels (``inspector/lessons/``) or the one
``inspector learn FILE`` names, each with its best score (kept in the user's state folder).
A stage level opens the lesson screen (:mod:`.learn`) on that sample; the others open
:class:`LevelScreen`:

- a goal level sends the learner to the playground with the start history (enter), and
  ``L`` there comes back here, where the goal is judged live on the edited history by the
  project's checker (:mod:`inspector.tui.lessons.judge`), with the edits used against the
  reference solution's; ``h`` shows the hints one at a time, then ``s`` the solution;
- a providers level asks which providers refuse the history, marked per row (space), and
  enter reveals the checker's answer with each miss named;
- a failure-injection level shows a valid history, asks the same question of the history
  the failure will leave, and enter applies the failure (one of the playground's edits) and
  shows every verdict change; enter again opens the broken history in the playground.

``L`` on these screens writes the playground's current history as a goal level file.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ... import formats, pipeline
from ...io import InputError, atomic_write, parse_json
from .. import confine, edits
from ..lessons import levels as lv
from ..lessons.inject import INJECTIONS, inject
from ..lessons.judge import GoalResult, Prediction, changes, judge_goal, judge_prediction, verdicts
from ..loader import Source
from ..text import inert


@dataclass(slots=True)
class LevelsState:
    """Where the learner is, kept while the levels are closed (``L`` comes back to it)."""

    levels: list[lv.Level] = field(default_factory=list)
    current: int | None = None            # the level being played
    hints: dict[str, int] = field(default_factory=dict)        # level id -> hints shown
    solution: set[str] = field(default_factory=set)            # levels whose solution was shown
    guesses: dict[str, set[str]] = field(default_factory=dict)  # level id -> providers said to refuse
    revealed: set[str] = field(default_factory=set)
    progress: dict[str, dict[str, Any]] = field(default_factory=dict)
    progress_path: Path | None = None     # None: the user's state folder

    @property
    def level(self) -> lv.Level | None:
        return self.levels[self.current] if self.current is not None else None

    def record(self, level: lv.Level, got: int, of: int) -> None:
        self.progress = lv.record(level.ident, got, of, self.progress_path)


def best(state: LevelsState, level: lv.Level) -> str:
    done = state.progress.get(level.ident)
    if not done:
        return "·"
    mark = "✓" if done.get("got") == done.get("of") else " "
    return f"{mark} {done.get('got')}/{done.get('of')}"


KIND_WORDS = {"stage": "predict a stage", "goal": "reach a goal", "providers": "predict providers",
              "inject": "inject a failure"}


class LevelsScreen(Screen[None]):
    """Every level, with the learner's best score; enter plays the selected one."""

    DEFAULT_CSS = """
    LevelsScreen #levels-head { height: auto; background: $panel; text-style: bold; padding: 0 1; }
    LevelsScreen #levels-table { height: 1fr; }
    LevelsScreen #levels-about { height: auto; max-height: 4; padding: 0 1; }
    """
    BINDINGS = [
        Binding("enter", "play", "Play", priority=True, id="levels.play", tooltip="Play the selected level"),
        Binding("L", "export_level", "Export", id="levels.export",
                tooltip="Write the playground's current history as a goal level file"),
        Binding("escape", "close", "Close", id="levels.close", tooltip="Back to the main screen (L comes back)"),
        Binding("q", "app.quit", "Quit", id="levels.quit", tooltip="Quit Inspector"),
    ]

    def __init__(self, state: LevelsState) -> None:
        super().__init__()
        self.state = state

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="levels-head")
            yield DataTable(id="levels-table", cursor_type="row", zebra_stripes=False)
            yield Static(id="levels-about")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        state = self.state
        if not state.progress:
            state.progress = lv.load_progress(state.progress_path)
        table = self.query_one(DataTable)
        self._best = table.add_columns("#", "best", "kind", "level")[1]
        for k, level in enumerate(state.levels):
            table.add_row(Text(str(k + 1)), Text(best(state, level)), Text(KIND_WORDS[level.kind]),
                          Text(inert(level.title)), key=str(k))
        if state.current is not None and table.row_count:
            table.move_cursor(row=min(state.current, table.row_count - 1))
        table.focus()
        self._head()
        self._about()

    def on_screen_resume(self) -> None:
        """Back from a level: its score shows (the cells change, the table stays)."""
        table = self.query_one(DataTable)
        for k, level in enumerate(self.state.levels):
            if table.row_count > k:
                table.update_cell(str(k), self._best, Text(best(self.state, level)), update_width=True)
        self._head()

    def _head(self) -> None:
        state = self.state
        done = sum(1 for level in state.levels if best(state, level).startswith("✓"))
        self.query_one("#levels-head", Static).update(Text(
            f"Levels: {done} of {len(state.levels)} with full marks · progress in "
            f"{_home_tilde(lv.progress_path() if state.progress_path is None else state.progress_path)}"))

    def on_data_table_row_highlighted(self, _: Any) -> None:
        self._about()

    def _about(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            self.query_one("#levels-about", Static).update(Text(inert(self.state.levels[table.cursor_row].about)))

    def action_play(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            play(self.app, self.state, table.cursor_row)

    def action_export_level(self) -> None:
        export_level(self.app)

    def action_close(self) -> None:
        self.app.pop_screen()


def _home_tilde(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if home not in ("", "/") and text.startswith(home + "/") else text


def play(app: Any, state: LevelsState, index: int) -> None:
    """Open level ``index``: the lesson screen for a stage level, else the level screen."""
    state.current = index
    level = state.levels[index]
    if level.kind == "stage":
        from .learn import LearnScreen, LessonState

        app.push_screen(LearnScreen(level, state, LessonState()))
    else:
        app.push_screen(LevelScreen(state))


class LevelScreen(Screen[None]):
    """One goal, providers or failure-injection level."""

    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]
    DEFAULT_CSS = """
    LevelScreen #level-head { height: auto; background: $panel; text-style: bold; padding: 0 1; }
    LevelScreen #level-text { height: 1fr; min-height: 4; padding: 0 1; border: round $primary 50%; }
    LevelScreen #level-table { height: auto; max-height: 9; }
    LevelScreen #level-prompt { height: auto; padding: 0 1; color: $text-warning; }
    """
    BINDINGS = [
        Binding("enter", "go", "Go", priority=True, id="level.go",
                tooltip="Goal: to the playground; predict: reveal; then: the broken history in the playground"),
        Binding("space", "toggle", "Refuses?", priority=True, id="level.toggle",
                tooltip="Predict: the selected provider refuses the history (again: accepts)"),
        Binding("h", "hint", "Hint", id="level.hint", tooltip="Show the next hint"),
        Binding("s", "solution", "Solution", id="level.solution", tooltip="Show the reference solution (hints first)"),
        Binding("r", "restart", "Restart", show=False, id="level.restart", tooltip="Start the level again"),
        Binding("L", "export_level", "Export", show=False, id="level.export",
                tooltip="Write the playground's current history as a goal level file"),
        Binding("escape", "close", "Levels", id="level.close", tooltip="Back to the list of levels"),
        Binding("q", "app.quit", "Quit", id="level.quit", tooltip="Quit Inspector"),
    ]

    def __init__(self, state: LevelsState) -> None:
        super().__init__()
        self.state = state
        self.result: GoalResult | Prediction | None = None
        self.broken: bytes | None = None   # an injection level's history once the failure is applied
        self.before: Any = None            # the checker's answer on the valid history, before it

    @property
    def level(self) -> lv.Level:
        level = self.state.level
        assert level is not None
        return level

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="level-head")
            with VerticalScroll(id="level-text"):
                yield Static(id="level-body")
            yield DataTable(id="level-table", cursor_type="row", zebra_stripes=False)
            yield Static(id="level-prompt")
        yield Footer(compact=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle":
            return self.level.kind in ("providers", "inject")
        return True

    def on_mount(self) -> None:
        self.show()

    # -- what the screen shows ---------------------------------------------------------------
    def show(self) -> None:
        level, state = self.level, self.state
        k = (state.current or 0) + 1
        self.query_one("#level-head", Static).update(Text(inert(
            f"Level {k} of {len(state.levels)}: {level.title} · {KIND_WORDS[level.kind]}")))
        body: list[Text] = [Text(inert(level.about), style="bold")]
        if level.kind == "goal":
            body += self._goal_lines()
        else:
            body += self._predict_lines()
        shown = state.hints.get(level.ident, 0)
        for n, hint in enumerate(level.hints[:shown], 1):
            body.append(Text(inert(f"Hint {n} of {len(level.hints)}: {hint}"), style="italic"))
        if level.ident in state.solution:
            body += self._solution_lines()
        source = level.source
        if source:
            body.append(Text(inert("Source: " + str(source.get("text", "")) +
                                   (f" {source['link']}" if source.get("link") else "")), style="dim"))
        self.query_one("#level-body", Static).update(Text("\n").join(body))
        self._table()

    def _goal_lines(self) -> list[Text]:
        level, goal = self.level, self.level.goal
        when = goal.get("when", lv.AFTER_MEM5)
        wanted = []
        if goal.get("accept"):
            wanted.append(f"{', '.join(goal['accept'])} accept the history {when}")
        if goal.get("events"):
            wanted.append(f"the engine shows {', '.join(goal['events'])}")
        if goal.get("keep_results"):
            wanted.append("no real result lost")
        lines = [Text(inert("Goal: " + "; ".join(wanted) + f"; reference: {len(level.solution or ())} edit(s)."))]
        current = playground_history(self.app, level)
        if current is None:
            self.query_one("#level-prompt", Static).update(Text(
                "Enter opens the start history in the playground (E edit, del delete, a add, alt+↑↓ move); "
                "L there comes back here."))
            return lines
        data, count = current
        try:
            result = judge_goal(level, data, count)
        except InputError as exc:
            return [*lines, Text(inert(f"Your history cannot be read: {exc}"), style="bold")]
        self.result = result
        got, of = result.points
        if result.met:
            self.state.record(level, got, of)
        head = (f"Goal met in {result.edits} edit(s) ({got} of {of}: "
                + ("as few as the reference)." if got == of else f"the reference takes {result.reference}).")
                if result.met else f"Not yet, after {result.edits} edit(s):")
        lines.append(Text(head, style="bold"))
        lines += [Text(inert(f"✗ {miss}")) for miss in result.misses if not (result.met and "reference" in miss)]
        self.query_one("#level-prompt", Static).update(Text(
            "Enter goes back to your history; r starts again; h a hint; s the solution."))
        return lines

    def _predict_lines(self) -> list[Text]:
        level, state = self.level, self.state
        when = level.ask.get("when", lv.AS_GIVEN)
        lines = []
        if level.kind == "inject":
            lines.append(Text(inert(f"The failure: {INJECTIONS[level.inject or ''][0]} (enter applies it).")))
        lines.append(Text(inert(f"Mark each provider that refuses the history {when} (space), then enter.")))
        if level.ident in state.revealed and isinstance(self.result, Prediction):
            result = self.result
            lines.append(Text(f"{result.right} of {result.total} right.", style="bold"))
            lines += [Text(inert(f"✗ {miss}")) for miss in result.misses]
            if level.kind == "inject" and self.before is not None:
                lines.append(Text("What changed:", style="bold"))
                lines += [Text(inert(f"  {line}")) for line in changes(self.before, result.judged)]
                kinds = sorted(result.judged.kinds)
                lines.append(Text(inert("MEM-5 on the broken history: " + (", ".join(kinds) if kinds else
                                                                              "no event"))))
            self.query_one("#level-prompt", Static).update(Text(
                "Enter opens this history in the playground; esc the levels." if level.kind == "inject"
                else "Esc: the levels; r: again."))
        else:
            self.query_one("#level-prompt", Static).update(Text(
                "space: the selected provider refuses · enter reveals" +
                (" (and applies the failure)" if level.kind == "inject" else "")))
        return lines

    def _solution_lines(self) -> list[Text]:
        level = self.level
        if level.kind == "goal":
            steps = [describe_op(op) for op in level.solution or ()]
            return [Text("Solution: " + "; then ".join(inert(s) for s in steps) + ".", style="bold")]
        return [Text(inert("Solution: " + (", ".join(level.solution["refuse"]) or "no provider") + " refuse(s)."),
                     style="bold")]

    def _table(self) -> None:
        level, state = self.level, self.state
        table = self.query_one(DataTable)
        cursor = table.cursor_row if table.row_count else 0
        table.clear(columns=True)
        if level.kind == "goal":
            table.display = self.result is not None and isinstance(self.result, GoalResult)
            if table.display:
                table.add_columns("provider", "checker says")
                for said in self.result.judged.said.values():  # type: ignore[union-attr]
                    table.add_row(Text(said.target), Text(inert(said.short())))
            return
        table.display = True
        guess = state.guesses.get(level.ident, set())
        revealed = level.ident in state.revealed and isinstance(self.result, Prediction)
        table.add_columns("provider", "you say", *(("checker says", "") if revealed else ()))
        for t in level.ask["targets"]:
            row = [Text(t), Text("refuses" if t in guess else "accepts")]
            if revealed:
                said = self.result.judged.said[t]  # type: ignore[union-attr]
                row += [Text(inert(said.short())), Text("✓" if said.refuses == (t in guess) else "✗")]
            table.add_row(*row)
        table.move_cursor(row=min(cursor, table.row_count - 1))
        table.focus()

    # -- keys ------------------------------------------------------------------------------------
    def action_toggle(self) -> None:
        level, state = self.level, self.state
        if level.ident in state.revealed:
            return
        table = self.query_one(DataTable)
        target = level.ask["targets"][table.cursor_row]
        state.guesses.setdefault(level.ident, set()).symmetric_difference_update({target})
        self._table()

    def action_go(self) -> None:
        level, state = self.level, self.state
        if level.kind == "goal":
            open_in_playground(self.app, level, restart=playground_history(self.app, level) is None)
            return
        if level.ident not in state.revealed:
            self.reveal()
            return
        if level.kind == "inject" and self.broken is not None:
            name = f"{Path(level.name).stem}-{level.inject}{Path(level.name).suffix or '.json'}"
            main = self.app.get_screen("main")
            main.load(Source(name, None, self.broken, sample=True))
            while len(self.app.screen_stack) > 1 and self.app.screen is not main:
                self.app.pop_screen()

    def reveal(self) -> None:
        level, state = self.level, self.state
        data = level.start_bytes()
        if level.kind == "inject":
            self.before = verdicts(data, level.name, level.ask.get("when", lv.AS_GIVEN), level.ask["targets"])
            data = self.broken = injected(level)
        self.result = judge_prediction(level, data, state.guesses.get(level.ident, set()))
        state.revealed.add(level.ident)
        state.record(level, self.result.right, self.result.total)
        self.show()

    def action_hint(self) -> None:
        level, state = self.level, self.state
        shown = state.hints.get(level.ident, 0)
        if shown >= len(level.hints):
            self.notify("No more hints: s shows the solution.", title="Hint")
            return
        state.hints[level.ident] = shown + 1
        self.show()

    def action_solution(self) -> None:
        level, state = self.level, self.state
        if state.hints.get(level.ident, 0) < len(level.hints):
            self.notify("The hints come first: h shows the next one.", title="Solution")
            return
        state.solution.add(level.ident)
        self.show()

    def action_restart(self) -> None:
        level, state = self.level, self.state
        state.revealed.discard(level.ident)
        state.guesses.pop(level.ident, None)
        self.result, self.broken, self.before = None, None, None
        if level.kind == "goal":
            open_in_playground(self.app, level, restart=True)
            return
        self.show()

    def action_export_level(self) -> None:
        export_level(self.app)

    def action_close(self) -> None:
        self.app.pop_screen()


def open_levels(main: Any) -> None:
    """``L`` (and ``inspector learn``): the levels, where the learner left them. A goal level
    whose history the playground holds opens on its live verdict; ``inspector learn FILE``
    opens on that one level."""
    app = main.app
    first = not isinstance(main.lessons, LevelsState)
    if first:
        one = getattr(app, "learn_level", None)
        main.lessons = LevelsState([one] if one is not None else lv.builtins())
    state = main.lessons
    app.push_screen(LevelsScreen(state))
    level = state.level
    if first and getattr(app, "learn_level", None) is not None:
        play(app, state, 0)
    elif level is not None and level.kind == "goal" and playground_history(app, level) is not None:
        app.push_screen(LevelScreen(state))


# -- the playground's side ---------------------------------------------------------------------
def injected(level: lv.Level) -> bytes:
    """The start history with the level's failure applied (the playground's edit on its entries)."""
    imported = pipeline.load(level.start_bytes(), level.name)
    native = edits.Native.of(imported.document, imported.history, imported.container)
    broken = inject(native, level.inject or "").apply(native)
    return broken.data(_dumper(imported.format))


def _dumper(fmt: str) -> Any:
    return lambda d: formats.REGISTRY[fmt].dump(d, False)


def playground_history(app: Any, level: lv.Level) -> tuple[bytes, int] | None:
    """The playground's history when it holds this level's start (edited or not): its bytes
    and the count of edits made, else None."""
    try:
        main = app.get_screen("main")
    except KeyError:
        return None
    doc = getattr(main, "doc", None)
    if doc is None or doc.source.name != level.name or doc.source.path is not None:
        return None
    history = getattr(main, "edits", None)
    if history is None or not history.position:
        return level.start_bytes(), 0
    return history.current.data(_dumper(doc.imported.format)), history.position


def open_in_playground(app: Any, level: lv.Level, restart: bool) -> None:
    main = app.get_screen("main")
    if restart or playground_history(app, level) is None:
        main.editing.history = None  # a level starts again from its start history
        main.load(Source(level.name, None, level.start_bytes(), sample=True))  # bundled: named as is, served too
    while len(app.screen_stack) > 1 and app.screen is not main:
        app.pop_screen()
    main.notify("Edit on view 0 (E edit, del delete, a add, alt+↑↓ move, ctrl+z undo); L checks the goal.",
                title=level.title)


def describe_op(op: dict[str, Any]) -> str:
    """A solution step in words (history entries counted from 0, as the playground's editor does)."""
    kind = op["op"]
    block = op.get("block")
    where = f"entry {op.get('at')}" + (f", block {block[1]} of {block[0]}" if block else "")
    if kind == "insert":
        after = op.get("after")
        place = "at the end" if after is None else f"after entry {after}"
        return f"insert {len(op['values'])} entr{'y' if len(op['values']) == 1 else 'ies'} {place} " \
               f"({', '.join(str(v.get('role', '?')) for v in op['values'] if isinstance(v, dict))})"
    if kind == "move":
        return f"move {where} {'up' if int(op.get('by', -1)) < 0 else 'down'}"
    return f"{kind} {where}"


def export_level(app: Any) -> Path | None:
    """The playground's current history written as a goal level file in the state folder
    (its goal: what the engine did to it, for the learner who opens it to reproduce); says where."""
    try:
        main = app.get_screen("main")
    except KeyError:
        return None
    doc = getattr(main, "doc", None)
    if doc is None:
        app.notify("Open a history first: the level starts from the playground's history.", title="Export level",
                   severity="warning")
        return None
    try:
        level = level_of_playground(main)
    except InputError as exc:
        app.notify(f"Levels hold one JSON document: {exc}", title="Export level", severity="warning")
        return None
    folder = lv.state_dir() / "levels"
    path = folder / f"{Path(doc.source.name).stem}-level.json"
    if confine.of(app) is not None:  # served: the learner's browser gets the file, not the server's disk
        app.deliver_binary(io.BytesIO(level.to_bytes()), save_filename=path.name, mime_type="application/json")
        app.notify(f"Sent {path.name} to the browser as a download; inspector learn FILE plays it.",
                   title="Export level")
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(path, level.to_bytes())
    except OSError as exc:
        app.notify(f"Not written: {exc}", title="Export level", severity="error")
        return None
    app.notify(f"Wrote {path}; inspector learn {path} plays it.", title="Export level")
    return path


ASK = ("anthropic", "openai-chat", "gemini", "bedrock", "mistral")  # the providers an exported level asks about


def level_of_playground(main: Any) -> lv.Level:
    """A predict-the-provider level from the playground: its current history (edited or not)
    is the start, the question which of :data:`ASK` refuse it as given, and the checker's
    answer of now the solution (:class:`InputError` for a history that is not one JSON document)."""
    doc = main.doc
    history = getattr(main, "edits", None)
    fmt = doc.imported.format
    if history is not None and history.position:
        data = history.current.data(_dumper(fmt))
    elif doc.source.data is not None:
        data = doc.source.data
    else:
        from ...io import read_bytes

        data = read_bytes(doc.source.path)
    document = parse_json(data, doc.source.name)  # a session file (JSON Lines) or a database is refused here
    stem = Path(doc.source.name).stem
    name = f"{stem}{Path(doc.source.name).suffix or '.json'}"
    refuse = [t for t, said in verdicts(data, name, lv.AS_GIVEN, ASK).said.items() if said.refuses]
    return lv.Level(f"{stem}-level", f"Who refuses {doc.source.name}?", "providers",
                    "Written from a playground history: say which providers refuse it as given.",
                    {"name": name, "document": document}, ask={"targets": list(ASK), "when": lv.AS_GIVEN},
                    hints=("Open the history on the main screen: v shows every provider's verdict.",),
                    solution={"refuse": refuse}, source={"text": f"exported from the playground ({doc.source.name})"})


__all__ = ["LevelScreen", "LevelsScreen", "LevelsState", "describe_op", "export_level", "injected",
           "level_of_playground", "open_in_playground", "open_levels", "play", "playground_history"]

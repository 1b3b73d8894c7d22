"""A stage level of ``inspector learn`` (the list is :mod:`.levels`): predict, then see.

Before each stage the screen shows the clause in this project's words (the text
``inspector explain --rule`` prints, from the engine's clause table) and the messages
entering the stage; the learner marks what the clause will drop, move or change, and where
it adds a row, and only then does enter reveal the engine's answer beside the marks, with
one line for each difference (:mod:`inspector.tui.lessons.score`). The level ends with its
score, kept with the learner's progress; ``h`` shows the level's hints one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ... import pipeline
from ...engine import CLAUSES
from ..lessons import Lesson
from ..lessons.score import Guess, RowMark, entering, judge, score
from ..rows import CHANGE, DROP, MOVE, SAME, Model, call_ids, role_of
from ..text import inert, preview

GUESS_KEYS = {"d": DROP, "m": MOVE, "c": CHANGE}


@dataclass(slots=True)
class LessonState:
    """Where the learner is in the level."""

    lesson: int = 0
    stage: int = 0
    guesses: dict[int, Guess] = field(default_factory=dict)
    revealed: bool = False
    points: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # lesson -> (right, total) per stage


def _stage_clause(name: str) -> Any:
    return next(c for c in CLAUSES.values() if c.stage == name)


def _content(message: Any) -> str:
    """The content as the table shows it (an entry that is not an object: the entry, as JSON)."""
    return preview(message.get("content") if isinstance(message, dict) else message, 60)


class LearnScreen(Screen[None]):
    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]
    DEFAULT_CSS = """
    LearnScreen #learn-head { height: auto; background: $panel; text-style: bold; padding: 0 1; }
    LearnScreen #learn-clause { height: auto; max-height: 9; padding: 0 1; border: round $primary 50%; }
    LearnScreen.-short #learn-clause { max-height: 6; }
    LearnScreen.-short #learn-why { max-height: 6; }
    LearnScreen #learn-prompt { height: auto; padding: 0 1; color: $text-warning; }
    LearnScreen #learn-table { height: 1fr; min-height: 5; }
    LearnScreen #learn-why { height: auto; max-height: 10; padding: 0 1; }
    """

    BINDINGS = [
        Binding("d", "guess('d')", "Drop", id="learn.drop", tooltip="Predict: the clause drops this message"),
        Binding("m", "guess('m')", "Move", id="learn.move", tooltip="Predict: the clause moves this message"),
        Binding("c", "guess('c')", "Change", id="learn.change", tooltip="Predict: the clause changes this message"),
        Binding("plus,a", "guess_add", "Adds", key_display="+", id="learn.add",
                tooltip="Predict: the clause adds a row right after this message"),
        Binding("space", "guess_clear", "Keep", priority=True, id="learn.keep",
                tooltip="Predict: the message goes through unchanged (clears the marks)"),
        Binding("enter", "go", "Reveal", priority=True, id="learn.go",
                tooltip="Reveal what the engine did; again: the next stage or lesson"),
        Binding("h", "hint", "Hint", show=False, id="learn.hint", tooltip="A hint for this level"),
        Binding("escape", "close", "Close", id="learn.close", tooltip="Back (L on the main screen comes back here)"),
        Binding("q", "app.quit", "Quit", id="learn.quit", tooltip="Quit Inspector"),
    ]

    def __init__(self, level: Any, levels: Any = None, state: LessonState | None = None) -> None:
        super().__init__()
        self.state = state or LessonState()
        self.level = level  # the stage level (inspector.tui.lessons.levels.Level)
        self.levels = levels  # the levels' state (screens/levels.py), where the score is kept
        self.hints = 0
        self.model: Model | None = None
        self.verdicts: list[RowMark] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="learn-head")
            with VerticalScroll(id="learn-clause"):
                yield Static(id="learn-clause-text")
            yield Static(id="learn-prompt")
            yield DataTable(id="learn-table", cursor_type="row", zebra_stripes=False)
            with VerticalScroll(id="learn-why"):
                yield Static(id="learn-why-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show()

    # -- the lesson shown -------------------------------------------------------------------
    @property
    def lesson(self) -> Lesson:
        level = self.level
        return Lesson(level.name, level.title, level.about, level.stages)

    def _model(self) -> Model:
        if self.model is None:
            imported = pipeline.load(self.level.start_bytes(), self.level.name)
            result = pipeline.repair(imported)
            self.model = Model(imported.messages, result, imported)
        return self.model

    def show(self) -> None:
        lesson, state = self.lesson, self.state
        name = lesson.stages[state.stage]
        clause = _stage_clause(name)
        model = self._model()
        rows = model.rows(model.views.index(name))
        self.query_one("#learn-head", Static).update(Text(inert(
            f"{self._heading()}: {lesson.title} ({lesson.sample}) · stage {name} "
            f"({state.stage + 1} of {len(lesson.stages)})")))
        hints = self.level.hints[:self.hints]
        self.query_one("#learn-clause-text", Static).update(Text.assemble(
            (f"Clause {clause.number} ({clause.stage}): {clause.title}\n", "bold"), inert(clause.summary, False),
            ("\n" + inert(lesson.about), "italic"),
            *(("\n" + inert(f"Hint {n}: {hint}"), "italic") for n, hint in enumerate(hints, 1))))
        table = self.query_one(DataTable)
        cursor = table.cursor_row if table.row_count else 0
        table.clear(columns=True)
        if state.revealed:
            self.verdicts = judge(rows, state.guesses)
            right, count = score(self.verdicts)
            table.add_columns("you", "engine", "", "#in", "role", "content", "call ids")
            for v in self.verdicts:
                e = v.entering
                table.add_row(self._marks(v.guess.mark, v.guess.adds_after),
                              self._marks(e.mark, e.adds_after), Text("✓" if v.right else "✗",
                                                                      style="bold" if not v.right else ""),
                              *self._cells(e))
            lines = [Text(f"{right} of {count} right at {name}.", style="bold")]
            lines += [Text(inert(f"✗ {reason}")) for v in self.verdicts for reason in v.reasons]
            last = state.stage == len(lesson.stages) - 1
            if last:
                got = sum(r for r, _ in state.points.get(state.lesson, [])), sum(t for _, t in state.points.get(state.lesson, []))
                lines.append(Text(f"Level score: {got[0]} of {got[1]}. Enter: the levels.", style="bold"))
            else:
                lines.append(Text("Enter: the next stage.", style="italic"))
            self.query_one("#learn-why-text", Static).update(Text("\n").join(lines))
            self.query_one("#learn-prompt", Static).update(Text(
                "Revealed: your marks beside the engine's (- dropped, ↑ moved, ~ changed, + a row added after)"))
        else:
            table.add_columns("you", "#in", "role", "content", "call ids")
            for item in entering(rows):
                guess = state.guesses.get(item.position, Guess())
                table.add_row(self._marks(guess.mark, guess.adds_after), *self._cells(item))
            self.query_one("#learn-prompt", Static).update(Text(
                "Predict first: d drop · m move · c change · + a row added after it · space clears · enter reveals"))
            self.query_one("#learn-why-text", Static).update(Text(""))
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        table.focus()

    @staticmethod
    def _marks(mark: str, adds_after: bool) -> Text:
        word = {SAME: "", DROP: "- drop", MOVE: "↑ move", CHANGE: "~ change"}[mark]
        return Text(" ".join(w for w in (word, "+ after" if adds_after else "") if w))

    @staticmethod
    def _cells(item: Any) -> list[Text]:
        ids = " ".join(ident for ident, _ in call_ids(item.message))
        origin = f"#{item.origin}" if item.origin is not None else "new"
        return [Text(origin), Text(inert(role_of(item.message))), Text(_content(item.message)), Text(inert(ids))]

    # -- keys ------------------------------------------------------------------------------
    def _position(self) -> int | None:
        table = self.query_one(DataTable)
        return table.cursor_row if table.row_count else None

    def action_guess(self, key: str) -> None:
        position = self._position()
        if position is None or self.state.revealed:
            return
        old = self.state.guesses.get(position, Guess())
        mark = GUESS_KEYS[key]
        self.state.guesses[position] = Guess(SAME if old.mark == mark else mark, old.adds_after)
        self._advance()

    def action_guess_add(self) -> None:
        position = self._position()
        if position is None or self.state.revealed:
            return
        old = self.state.guesses.get(position, Guess())
        self.state.guesses[position] = Guess(old.mark, not old.adds_after)
        self._advance()

    def action_guess_clear(self) -> None:
        position = self._position()
        if position is not None and not self.state.revealed:
            self.state.guesses.pop(position, None)
            self._advance()

    def _advance(self) -> None:
        self.show()

    def action_go(self) -> None:
        state = self.state
        if not state.revealed:
            model = self._model()
            rows = model.rows(model.views.index(self.lesson.stages[state.stage]))
            state.points.setdefault(state.lesson, []).append(score(judge(rows, state.guesses)))
            state.revealed = True
            self.show()
            return
        state.revealed = False
        state.guesses = {}
        if state.stage + 1 < len(self.lesson.stages):
            state.stage += 1
        else:
            points = state.points.get(state.lesson, [])
            if self.levels is not None:  # the score is kept, then the list
                self.levels.record(self.level, sum(r for r, _ in points), sum(t for _, t in points))
            self.app.pop_screen()
            return
        self.show()

    def _heading(self) -> str:
        if self.levels is not None:
            return f"Level {(self.levels.current or 0) + 1} of {len(self.levels.levels)}"
        return "Level"

    def action_hint(self) -> None:
        if self.hints >= len(self.level.hints):
            self.notify("No more hints for this level.", title="Hint")
            return
        self.hints += 1
        self.show()

    def action_close(self) -> None:
        self.app.pop_screen()


__all__ = ["LearnScreen", "LessonState"]

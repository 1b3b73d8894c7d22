"""Lessons (``inspector learn``, or ``L`` in the app, served too): predict, then see.

Before each stage the screen shows the clause in this project's words (the text
``inspector explain --rule`` prints, from the engine's clause table) and the messages
entering the stage; the learner marks what the clause will drop, move or change, and where
it adds a row, and only then does enter reveal the engine's answer beside the marks, with
one line for each difference (:mod:`inspector.tui.lessons.score`). Each lesson ends with
its score. The last lesson is a blank history the learner builds with the playground's
editor on the main screen; coming back (``L``) checks it against its goal.
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
from ...bundled import samples_dir
from ...engine import CLAUSES
from ..lessons import BLANK_GOAL, BLANK_KINDS, LESSONS, Lesson
from ..lessons.score import Guess, Verdict, entering, judge, score
from ..loader import Source
from ..rows import CHANGE, DROP, MOVE, SAME, Model, call_ids, role_of
from ..text import inert, preview

BLANK_NAME = "lesson-blank.json"
GUESS_KEYS = {"d": DROP, "m": MOVE, "c": CHANGE}


@dataclass(slots=True)
class LessonState:
    """Where the learner is, kept by the main screen while the lessons are closed."""

    lesson: int = 0
    stage: int = 0
    guesses: dict[int, Guess] = field(default_factory=dict)
    revealed: bool = False
    points: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # lesson -> (right, total) per stage
    blank_started: bool = False


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
    LearnScreen.-blank #learn-table { display: none; }
    LearnScreen.-blank #learn-why { height: 1fr; max-height: 100%; }
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

    def __init__(self, state: LessonState | None = None, level: Any = None, levels: Any = None) -> None:
        super().__init__()
        self.state = state or LessonState()
        self.level = level  # a stage level (screens/levels.py) played alone; None: the lessons in order
        self.levels = levels  # the levels' state, where a level's score is kept
        self.hints = 0
        self.model: Model | None = None
        self.verdicts: list[Verdict] = []

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
    def lesson(self) -> Any:
        if self.level is not None:
            level = self.level
            return Lesson(level.start["sample"], level.title, level.about, level.stages) if self.state.lesson == 0 \
                else None
        return LESSONS[self.state.lesson] if self.state.lesson < len(LESSONS) else None

    @property
    def total(self) -> int:
        return 1 if self.level is not None else len(LESSONS) + 1  # the blank one last

    def _model(self) -> Model:
        if self.model is None:
            data = (samples_dir() / self.lesson.sample).read_bytes()
            imported = pipeline.load(data, self.lesson.sample)
            result = pipeline.repair(imported)
            self.model = Model(imported.messages, result, imported)
        return self.model

    def show(self) -> None:
        self.set_class(self.lesson is None, "-blank")
        if self.lesson is None:
            self._show_blank()
            return
        lesson, state = self.lesson, self.state
        name = lesson.stages[state.stage]
        clause = _stage_clause(name)
        model = self._model()
        rows = model.rows(model.views.index(name))
        self.query_one("#learn-head", Static).update(Text(inert(
            f"{self._heading()}: {lesson.title} ({lesson.sample}) · stage {name} "
            f"({state.stage + 1} of {len(lesson.stages)})")))
        hints = self.level.hints[:self.hints] if self.level is not None else ()
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
                after = "the levels" if self.level is not None else "the next lesson"
                lines.append(Text(f"Lesson score: {got[0]} of {got[1]}. Enter: {after}.", style="bold"))
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

    # -- the blank lesson ----------------------------------------------------------------------
    def _show_blank(self) -> None:
        state = self.state
        table = self.query_one(DataTable)
        table.clear(columns=True)
        self.query_one("#learn-head", Static).update(Text(
            f"Lesson {self.total} of {self.total}: a history of your own"))
        self.query_one("#learn-clause-text", Static).update(Text(inert(BLANK_GOAL)))
        lines = []
        if state.blank_started:  # first: the line a learner comes back for stays in sight on a short screen
            done = self._blank_kinds()
            lines.append(Text(f"Your history: {len(done)} of {len(BLANK_KINDS)} goals: " + ", ".join(
                f"{'✓' if k in done else '✗'} {k}" for k in BLANK_KINDS), style="bold"))
            self.query_one("#learn-prompt", Static).update(Text(
                "Enter goes back to your history to keep editing; escape closes the lessons."))
        else:
            self.query_one("#learn-prompt", Static).update(Text(
                "Enter opens a blank history on the main screen; L comes back here to check it."))
        lines += [Text(f"Lesson {i + 1}: {sum(r for r, _ in p)} of {sum(t for _, t in p)}")
                  for i, p in sorted(state.points.items())]
        self.query_one("#learn-why-text", Static).update(Text("\n").join(lines) if lines else Text(""))

    def _blank_kinds(self) -> set[str]:
        main = self.app.get_screen("main")
        doc = getattr(main, "doc", None)
        if doc is None or doc.source.name != BLANK_NAME:
            return set()
        return {e.kind for e in doc.result.events} & set(BLANK_KINDS)

    # -- keys ------------------------------------------------------------------------------
    def _position(self) -> int | None:
        table = self.query_one(DataTable)
        return table.cursor_row if table.row_count and self.lesson is not None else None

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
        if self.lesson is None:
            self._build_blank()
            return
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
            if self.level is not None and self.levels is not None:  # a level played alone: kept, then the list
                points = state.points.get(state.lesson, [])
                self.levels.record(self.level, sum(r for r, _ in points), sum(t for _, t in points))
                self.app.pop_screen()
                return
            state.lesson += 1
            state.stage = 0
            self.model = None
        self.show()

    def _heading(self) -> str:
        if self.level is not None and self.levels is not None:
            return f"Level {(self.levels.current or 0) + 1} of {len(self.levels.levels)}"
        return f"Lesson {self.state.lesson + 1} of {self.total}"

    def action_hint(self) -> None:
        if self.level is None or self.hints >= len(self.level.hints):
            self.notify("No more hints for this level." if self.level is not None else "Lessons have no hints; "
                        "the levels (L) do.", title="Hint")
            return
        self.hints += 1
        self.show()

    def _build_blank(self) -> None:
        main = self.app.get_screen("main")
        if not self.state.blank_started or getattr(main, "doc", None) is None \
                or main.doc.source.name != BLANK_NAME:
            self.state.blank_started = True
            main.load(Source(BLANK_NAME, None, b"[]"))
        self.app.pop_screen()
        main.notify("A blank history: a adds an entry (a template), E edits it, delete removes it; L checks the lesson's "
                    "goal.", title="Lesson")

    def action_close(self) -> None:
        self.app.pop_screen()


__all__ = ["BLANK_NAME", "LearnScreen", "LessonState"]

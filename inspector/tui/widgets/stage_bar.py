"""The views as one line of chips with their counts; the current one highlighted.

View 0 is the input (``import`` when the file was in a provider format), 1-4 the MEM-5
stages, and 5 the ``strict`` stage when it is on, marked as an extension beyond MEM-5."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from ..adapter import is_extension
from ..rows import VIEWS
from ..styles import component_style


def chip_label(view: int, counts: dict[str, int], name: str | None = None, compact: bool = False) -> str:
    """`3 repair −2 +1` : drops, insertions, moves and other changes of one stage."""
    name = name or VIEWS[view]
    if view == 0:
        return f"0 {name} {counts.get('messages', 0):,}"
    if view and is_extension(name):  # not a MEM-5 stage: say so on the chip itself
        name += " (ext.)"
    parts = []
    if counts.get("dropped"):
        parts.append(f"−{counts['dropped']:,}")
    if counts.get("synthesized"):
        parts.append(f"+{counts['synthesized']:,}")
    if counts.get("moved"):
        parts.append(f"↑{counts['moved']:,}")
    if counts.get("other"):
        parts.append(f"~{counts['other']:,}")
    if not parts:
        return f"{view} {name}" if compact else f"{view} {name} ·"
    return f"{view} {name} " + " ".join(parts)


class StageBar(Widget):
    """Click a chip, or use n/p/0-5, to change stage."""

    COMPONENT_CLASSES = {"stage-bar--current", "stage-bar--chip", "stage-bar--active"}
    DEFAULT_CSS = "StageBar { height: 1; }"

    current: reactive[int] = reactive(0)

    class Picked(Message):
        def __init__(self, view: int) -> None:
            super().__init__()
            self.view = view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.counts: list[dict[str, int]] = []
        self.names: tuple[str, ...] = VIEWS
        self._spans: list[tuple[int, int, int]] = []

    def set_counts(self, counts: list[dict[str, int]], names: tuple[str, ...] = VIEWS) -> None:
        self.counts = counts
        self.names = names
        self.refresh()

    def labels(self, compact: bool = False) -> list[str]:
        return [chip_label(v, self.counts[v], self.names[v], compact) for v in range(len(self.counts))]

    def render(self) -> Text:
        """Full chips when they fit; on a narrow screen, no `·` and no gaps, so every chip
        (and the strict chip's `(ext.)`) stays visible."""
        text = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        labels = self.labels()
        compact = sum(len(label) + 3 for label in labels) - 1 > self.size.width
        if compact:
            labels = self.labels(compact=True)
        for view, label in enumerate(labels):
            if view and not compact:
                text.append(" ")
            start = text.cell_len
            if view == self.current:
                style = component_style(self, "stage-bar--current")
            elif view and any(self.counts[view].get(k) for k in ("dropped", "synthesized", "moved", "other")):
                style = component_style(self, "stage-bar--active")
            else:
                style = component_style(self, "stage-bar--chip")
            text.append(f" {label} ", style)
            self._spans.append((start, text.cell_len, view))
        return text

    def view_at(self, x: int) -> int | None:
        """The view whose chip covers column ``x`` of the bar (None: between chips)."""
        for start, end, view in self._spans:
            if start <= x < end:
                return view
        return None

    def chip_of(self, view: int) -> tuple[int, int] | None:
        """The columns (start, end) of ``view``'s chip, as last rendered."""
        return next(((start, end) for start, end, v in self._spans if v == view), None)

    def on_click(self, event: events.Click) -> None:
        view = self.view_at(event.x)
        if view is not None:
            self.post_message(self.Picked(view))

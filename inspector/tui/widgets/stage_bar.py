"""The five views as one line of chips with their counts; the current one highlighted."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from ..rows import VIEWS


def chip_label(view: int, counts: dict[str, int]) -> str:
    """`3 repair −2 +1` : drops, insertions, moves and other changes of one stage."""
    name = VIEWS[view]
    if view == 0:
        return f"0 input {counts.get('messages', 0):,}"
    parts = []
    if counts.get("dropped"):
        parts.append(f"−{counts['dropped']:,}")
    if counts.get("synthesized"):
        parts.append(f"+{counts['synthesized']:,}")
    if counts.get("moved"):
        parts.append(f"↑{counts['moved']:,}")
    if counts.get("other"):
        parts.append(f"~{counts['other']:,}")
    return f"{view} {name} " + (" ".join(parts) if parts else "·")


class StageBar(Widget):
    """Click a chip, or use n/p/0-4, to change stage."""

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
        self._spans: list[tuple[int, int, int]] = []

    def set_counts(self, counts: list[dict[str, int]]) -> None:
        self.counts = counts
        self.refresh()

    def labels(self) -> list[str]:
        return [chip_label(v, self.counts[v]) for v in range(len(self.counts))]

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        for view, label in enumerate(self.labels()):
            if view:
                text.append(" ")
            start = text.cell_len
            if view == self.current:
                style = self.get_component_rich_style("stage-bar--current", partial=True)
            elif view and any(self.counts[view].get(k) for k in ("dropped", "synthesized", "moved", "other")):
                style = self.get_component_rich_style("stage-bar--active", partial=True)
            else:
                style = self.get_component_rich_style("stage-bar--chip", partial=True)
            text.append(f" {label} ", style)
            self._spans.append((start, text.cell_len, view))
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, view in self._spans:
            if start <= event.x < end:
                self.post_message(self.Picked(view))
                return

"""File name and the run's summary line: `12 in → 11 out · dropped 2 · synthesized 1 · moved 1`."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

from ...engine import Result
from ..text import inert


def title_summary(count_in: int, result: Result) -> str:
    """Counts in and out, then the engine's counts of what changed. Drops are counted as the
    engine counts them, one per drop event (a dropped call is one, as a dropped message is),
    so the title says events: `3 in → 1 out · 3 drops (events)` is not read as 3 messages."""
    drops = result.dropped
    return (f"{count_in:,} in → {len(result.messages):,} out · {drops:,} drop{'' if drops == 1 else 's'} "
            f"(event{'' if drops == 1 else 's'}) · synthesized {result.synthesized:,} · moved {result.moved:,}")


class TitleBar(Widget):
    """The summary always fits; the file name gives way first when the screen is narrow."""

    DEFAULT_CSS = "TitleBar { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.name_text: str | None = None
        self.summary = ""

    def show(self, name: str | None, count_in: int = 0, result: Result | None = None, note: str = "") -> None:
        """``note`` ends the summary: the --reasoning policy, for a history that holds reasoning."""
        self.name_text = inert(name) if name is not None else None  # a file name is data too
        self.summary = title_summary(count_in, result) if result is not None else ""
        if note and self.summary:
            self.summary += f" · {note}"
        self.refresh()

    def render(self) -> Text:
        width = self.size.width
        text = Text(no_wrap=True, overflow="ellipsis")
        brand = " Inspector " if width >= 100 else ""
        if brand:
            text.append(brand, "bold reverse")
            text.append(" ")
        if self.name_text is None:
            text.append("no history open", "italic")
            return text
        room = width - cell_len(brand) - (cell_len(brand) > 0) - cell_len(self.summary) - 2
        name = self.name_text
        if cell_len(name) > room:
            name = "…" + name[-max(room - 1, 0):] if room > 1 else ""
        text.append(name, "bold")
        if self.summary:
            text.append("  " + self.summary)
        return text

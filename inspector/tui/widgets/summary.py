"""Counts by event kind for the whole run, each with what the kind means; choosing one
filters the rows to what it touched."""

from __future__ import annotations

from collections import Counter

from rich.console import Group
from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...engine import KINDS
from ..text import indented


class Summary(OptionList):
    class KindChosen(Message):
        def __init__(self, kind: str) -> None:
            super().__init__()
            self.kind = kind

    def show(self, counts: Counter) -> None:
        self.clear_options()
        order = {name: n for n, name in enumerate(KINDS)}
        kinds = sorted(counts, key=lambda k: order.get(k, len(order)))
        if not kinds:
            self.add_option(Option(Text("Nothing to change: every entry is already sendable.", "dim"),
                                   disabled=True))
            return
        for kind in kinds:
            info = KINDS.get(kind)  # strict kinds name their own clauses (an extension beyond MEM-5)
            label = Text()
            label.append(f"{counts[kind]:>7,} ", "bold")
            label.append(f"({info.clause if info else '?'}) {kind}")
            prompt: Text | Group = label
            if info is not None:
                label.append(f"  {'drop' if info.drop else info.label}", "dim")
                prompt = Group(label, indented(Text(info.meaning, "dim italic"), 8))
            self.add_option(Option(prompt, id=kind))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.KindChosen(event.option.id))

"""Pick the provider to check against: every target with its verdict at the moment shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..verdict import WHEN, ProviderChecks
from ..widgets.verdict import BAD, OK, WARN, Text

NONE = ""   # the option that shows every provider's verdict instead of one's problems


class ProviderPicker(ModalScreen[str | None]):
    """Dismisses with a target name, :data:`NONE` for the matrix, or None (escape)."""

    BINDINGS = [Binding("escape", "cancel", "Close", id="providers.cancel", tooltip="Close without choosing")]

    def __init__(self, verdicts: ProviderChecks, stage: str, chosen: str | None) -> None:
        super().__init__()
        self.verdicts = verdicts
        self.stage = stage
        self.chosen = chosen

    def compose(self) -> ComposeResult:
        options = []
        for v in self.verdicts.matrix(self.stage):
            line = Text()
            line.append("✓ " if v.accepts else "✗ ", OK if v.accepts else BAD)
            line.append(f"{v.target:<18}", "bold" if v.target == self.chosen else "")
            line.append(v.short(), OK if v.accepts and not v.warnings else (BAD if v.errors else WARN))
            if v.problems:
                line.append("  " + ", ".join(dict.fromkeys(p.rule for p in v.problems)), "$text-muted")
            options.append(Option(line.content(), id=v.target))
        # The last option is an action (show the matrix instead); the title says what is chosen now,
        # so the picker never reads "none chosen" while the verdict line judges a provider.
        none = (f"none: every provider's verdict at a glance instead of {self.chosen}'s" if self.chosen
                else "none: every provider's verdict at a glance (shown now)")
        options.append(Option(Text().append(none, "$text-muted").content(), id="-none-"))
        now = f"now checking against {self.chosen}" if self.chosen else "none chosen now"
        with Vertical(id="dialog", classes="dialog wide providers"):
            yield Static(f"Which provider? Their verdicts {WHEN[self.stage]} · {now}", id="dialog-title", markup=False)
            yield OptionList(*options, id="providers-list")
            yield Static("enter checks against it · esc closes", classes="dialog-hint")
        yield Footer()

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.focus()
        ids = [v.target for v in self.verdicts.matrix(self.stage)]
        listing.highlighted = ids.index(self.chosen) if self.chosen in ids else 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(NONE if event.option.id == "-none-" else event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def pick_provider(screen: Any, opened: Callable[[str], object]) -> None:
    """v on the main screen: every provider's verdict for the view shown, in the picker; the
    one picked becomes the verdict bar's target (``opened(name)`` then shows its problems)."""
    bar = screen.verdict_bar
    if screen.doc is None or not bar.settled:
        screen.notify("Open a history first; its providers' verdicts follow in a moment."
                      if screen.doc is None or bar.verdicts is None else
                      "Still checking the other providers: v again in a moment.", severity="warning")
        return

    def picked(name: str | None) -> None:
        if name is None:
            return
        bar.target = name or None
        if not name:
            bar.unjudged = ""      # every provider's verdict, asked for over "provider unknown"
        screen.show_verdict()
        if name:
            opened(name)

    screen.app.push_screen(ProviderPicker(bar.verdicts, bar.stage_of(screen.views, screen.view), bar.target), picked)

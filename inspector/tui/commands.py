"""The command palette's Inspector entries (posting's `export: …` style), drawn from the
screen's action table (:mod:`inspector.tui.actions`: each binding's id, tooltip and key),
ranked so that a stage's name finds its `stage:` entry first: `repair` means the stage, not
the export."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from textual.actions import parse
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..engine import KINDS
from .actions import PALETTE, key_of
from .adapter import is_extension

if TYPE_CHECKING:
    from .screens.main import MainScreen


class Entry(NamedTuple):
    title: str
    help: str
    run: Callable[[], object]


def _runner(main: MainScreen, binding: Binding) -> Callable[[], object]:
    """Run a binding's action on the screen (or the app), at once: the palette and a test call it."""
    target, name, params = parse(binding.action)
    owner = main.app if target == "app" else main
    method = getattr(owner, f"action_{name}")
    return lambda: method(*params)


def entries(main: MainScreen) -> list[Entry]:
    """The palette's entries: every binding of the screen's action table that has a palette
    title (its tooltip and key as help), a stage entry per view shown, the reasoning switch
    (its title says what it switches to), and a filter per event kind of the open history."""
    bindings = {b.id: b for b in main.BINDINGS if b.id}
    out = []

    def add(binding_id: str) -> None:
        binding = bindings.get(binding_id)
        if binding is not None and binding_id in PALETTE and main.check_action(
                parse(binding.action)[1], parse(binding.action)[2]) is not False:
            out.append(Entry(PALETTE[binding_id], f"{binding.tooltip} ({key_of(binding)})", _runner(main, binding)))

    add("file.export")
    for view, name in enumerate(main.views):
        kind = " (Inspector's extension beyond MEM-5)" if view and is_extension(name) else ""
        out.append(Entry(f"stage: {name}", f"Show stage {view} ({name}){kind} as a diff ({view})",
                         lambda v=view: main.action_stage(v)))
    add("view.strict")
    reasoning = bindings.get("view.reasoning")
    if reasoning is not None:
        out.append(Entry(f"reasoning: {'strip' if main.reasoning == 'keep' else 'keep'} (now {main.reasoning})",
                         f"{reasoning.tooltip} (R)", main.action_reasoning))
    for binding_id in ("view.split", "filter.changed", "filter.search"):
        add(binding_id)
    out.append(Entry(PALETTE["view.back"], "Show every row again (esc)", main.clear_filters))
    for binding_id in ("search.next", "search.previous", "row.next_change", "row.previous_change"):
        if binding_id.startswith("search.") and bindings.get(binding_id) is not None:
            b = bindings[binding_id]
            out.append(Entry(PALETTE[binding_id], f"{b.tooltip} ({key_of(b)})", _runner(main, b)))
        else:
            add(binding_id)
    if main.doc is not None:
        for kind in main.doc.model.kind_counts:
            info = KINDS.get(kind)
            out.append(Entry(f"filter: kind {kind}", f"Only the messages it touched ({info.label if info else kind})",
                             lambda k=kind: main.filter_kind(k)))
    done = {e.title for e in out}
    for binding_id, title in PALETTE.items():  # the rest, in the table's order
        if title not in done and binding_id != "view.back":
            add(binding_id)
    return out


def score(matcher_score: float, title: str, query: str) -> float:
    """A query that is (the start of) a stage's name puts that stage above every other hit."""
    if title.startswith("stage: "):
        name = title[len("stage: "):]
        words = query.strip().casefold().removeprefix("stage:").strip()
        if words and name.casefold().startswith(words):
            return 2.0 + matcher_score
    return matcher_score


class InspectorCommands(Provider):
    def _main(self) -> MainScreen | None:
        from .screens.main import MainScreen

        screen = self.screen
        return screen if isinstance(screen, MainScreen) else None

    async def discover(self) -> Hits:
        main = self._main()
        if main is None:
            return
        for entry in entries(main):
            yield DiscoveryHit(entry.title, entry.run, help=entry.help)

    async def search(self, query: str) -> Hits:
        main = self._main()
        if main is None:
            return
        matcher = self.matcher(query)
        for entry in entries(main):
            found = matcher.match(entry.title)
            if found > 0:
                yield Hit(score(found, entry.title, query), matcher.highlight(entry.title), entry.run,
                          help=entry.help)

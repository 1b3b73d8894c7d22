"""The command palette's Inspector entries (posting's `export: …` style), ranked so that a
stage's name finds its `stage:` entry first: `repair` means the stage, not the export."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..engine import KINDS
from .adapter import extension_clauses, is_extension

if TYPE_CHECKING:
    from .screens.main import MainScreen


class Entry(NamedTuple):
    title: str
    help: str
    run: Callable[[], object]


def entries(main: MainScreen) -> list[Entry]:
    out = [Entry("export: repaired history", "Write the repaired history atomically, in the input's format or "
                 "another provider's (e)", main.action_export)]
    for view, name in enumerate(main.views):
        kind = " (Inspector's extension beyond MEM-5)" if view and is_extension(name) else ""
        out.append(Entry(f"stage: {name}", f"Show stage {view} ({name}){kind} as a diff ({view})",
                         lambda v=view: main.action_stage(v)))
    out += [
        Entry("strict: toggle", "Add or remove the strict stage, Inspector's extension beyond MEM-5: "
              + ", ".join(extension_clauses()) + " (t)", main.action_strict),
        Entry(f"reasoning: {'strip' if main.reasoning == 'keep' else 'keep'} (now {main.reasoning})",
              "--reasoning keep or strip: strip removes every reasoning block, signature and encrypted item on "
              "export, so the history can go to another model; runs the pipeline again (R)", main.action_reasoning),
        Entry("view: split / unified", "Side by side before | after, or one column (s)", main.action_split),
        Entry("filter: only changed rows", "Toggle hiding unchanged rows (d)", main.action_changed_only),
        Entry("filter: search", "Search text or a tool call id (/)", main.action_search),
        Entry("filter: clear", "Show every row again (esc)", main.clear_filters),
        Entry("search: next match", "The next row the search matches; none here: the nearest stage with one (n)",
              lambda: main.action_match(1)),
        Entry("search: previous match", "The previous row the search matches (N)", lambda: main.action_match(-1)),
        Entry("row: next change", "The next changed row, every row still shown (])", lambda: main.action_change(1)),
        Entry("row: previous change", "The previous changed row, every row still shown ([)",
              lambda: main.action_change(-1)),
    ]
    if main.doc is not None:
        for kind in main.doc.model.kind_counts:
            info = KINDS.get(kind)
            out.append(Entry(f"filter: kind {kind}", f"Only the messages it touched ({info.label if info else kind})",
                             lambda k=kind: main.filter_kind(k)))
    out += [
        Entry("row: details", "Before, after and events of the selected row (enter)", main.action_details),
        Entry("row: journey", "The selected message through every stage (j)", main.action_journey),
        Entry("row: go to cause", "Jump to the message that made the selected row's event necessary (f)",
              main.action_cause),
        Entry("row: copy as JSON", "Copy the selected message to the clipboard (c)", main.action_copy),
        Entry("summary: counts by kind", "Every event kind of the run; enter filters by one (u)",
              main.action_summary),
        Entry("provider: choose", "Every provider's verdict on the view shown; enter checks against one (v)",
              main.action_providers),
        Entry("provider: next problem", "The next row the chosen provider would reject, marked ! (x)",
              main.action_next_problem),
        Entry("open: folder browser", "The folder's history and session files, each with its verdict (b)",
              main.action_browse),
        Entry("open: file", "Open another history (o)", main.action_open),
        Entry("open: samples gallery", "The bundled samples (g)", main.action_gallery),
        Entry("file: reload", "Read the file again from disk (r)", main.action_reload),
        Entry("help: keys and MEM-5", "Every key and the rule, clause by clause (?)", main.action_help),
    ]
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

"""The main screen's one action table: every key binding with its id and tooltip, from which the
screen's ``BINDINGS``, the help screen and the command palette's entries are all drawn
(harlequin keeps its actions as data the same way, ``src/harlequin/actions.py``).

The stage bindings come from the engine's stage table (``inspector.engine.STAGES``): a key per
view, the input first, then each stage in order, the extension (strict) among them. A
binding's palette entry is its ``PALETTE`` title and its tooltip, with its key.
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import ActiveBinding, Binding

from ..engine import STAGES, STRICT_STAGE
from . import layout

VIEW_NAMES = ("input", *(s.name for s in STAGES))  # view 0, then every stage the engine runs, in order


def _stage_binding(view: int, name: str) -> Binding:
    spec = next((s for s in STAGES if s.name == name), None)
    if view == 0:
        tip = "Jump to stage 0: input (the input as given; the import step when the file is in a provider format)"
    elif spec is not None and spec.extension:
        tip = (f"Jump to stage {view}: {name} (Inspector's extension beyond MEM-5; on with t)" if name == STRICT_STAGE
               else f"Jump to stage {view}: {name} (Inspector's extension beyond MEM-5)")
    else:
        tip = f"Jump to stage {view}: {name}"
    return Binding(str(view), f"stage({view})", name,
                   show=False, id=f"stage.{name}", tooltip=tip)


STAGE_BINDINGS = [_stage_binding(view, name) for view, name in enumerate(VIEW_NAMES)]

MAIN_BINDINGS = [
    # While a search is on, n and N go to its next and previous match (else n is the next stage).
    Binding("n", "match(1)", "Match", show=False, id="search.next",
            tooltip="Next match of the search (wrapping); with none in this stage, the nearest stage with one"),
    Binding("N", "match(-1)", "Prev match", show=False, id="search.previous",
            tooltip="Previous match of the search (wrapping)"),
    Binding("right_square_bracket", "change(1)", "Next change", key_display="]", show=False,
            id="row.next_change", tooltip="Next changed row, without filtering the others out"),
    Binding("left_square_bracket", "change(-1)", "Prev change", key_display="[", show=False,
            id="row.previous_change", tooltip="Previous changed row, without filtering the others out"),
    Binding("n,right", "step(1)", "Next", key_display="n/→", id="stage.next", tooltip="Next stage"),
    Binding("p,left", "step(-1)", "Prev", key_display="p/←", id="stage.previous", tooltip="Previous stage"),
    *STAGE_BINDINGS,
    Binding("R", "reasoning", "Reasoning", show=False, id="view.reasoning",
            tooltip="--reasoning keep or strip: strip removes every reasoning block, signature and encrypted "
                    "item on export, so the history can go to another model (runs the pipeline again)"),
    Binding("t", "strict", "Strict", show=False, id="view.strict",
            tooltip="Strict on/off: add the strict stage, an extension beyond MEM-5 (normalizes again)"),
    Binding("enter", "details", "Details", id="row.details",
            tooltip="Details of the selected row: before, after, every event"),
    Binding("f", "cause", "Cause", show=False, id="row.cause",
            tooltip="Go to the cause: the message that made the selected row's event necessary (→ #N)"),
    Binding("u", "summary", "Summary", show=False, id="view.summary",
            tooltip="Counts by event kind for the whole run; enter on one shows only what it touched"),
    Binding("d", "changed_only", "Changed", id="filter.changed", tooltip="Show only changed rows (toggle)"),
    Binding("s", "split", "Split", id="view.split", tooltip="Side by side (before | after) or unified"),
    Binding("z", "zoom", "Zoom", id="view.zoom",
            tooltip="Zoom: the table takes the whole screen, the side panels hide (z again shows them)"),
    Binding("slash", "search", "Search", key_display="/", id="filter.search",
            tooltip="Search message text or a tool call id"),
    Binding("j", "journey", "Journey", id="row.journey",
            tooltip="The selected message's path through all four stages"),
    Binding("e", "export", "Export", id="file.export", tooltip="Export the repaired history (ctrl+s too)"),
    Binding("v", "providers", "Provider", id="provider.pick",
            tooltip="Which provider to check against: every provider's verdict, enter picks one"),
    Binding("x", "next_problem", "Problem", show=False, id="provider.next",
            tooltip="Go to the next row the chosen provider would reject (marked ! in the table)"),
    Binding("b", "browse", "Folder", show=False, id="file.browse",
            tooltip="The folder's history and session files, with a verdict for each"),
    Binding("o", "open", "Open", show=False, id="file.open", tooltip="Open another file"),
    Binding("g", "gallery", "Samples", show=False, id="file.gallery", tooltip="The bundled samples gallery"),
    Binding("r", "reload", "Reload", show=False, id="file.reload", tooltip="Reload the file from disk"),
    Binding("c", "copy", "Copy", show=False, id="row.copy", tooltip="Copy the selected message as JSON"),
    Binding("w", "why", "Why", show=False, id="why.explain",
            tooltip="Explain an error text (or paste one on the screen): its rule, meaning and fix, and the entry "
                    "it names in the open history"),
    Binding("y", "copy_resume", "Resume cmd", show=False, id="resume.copy",
            tooltip="Copy the agent's command that resumes the open session to the clipboard"),
    Binding("question_mark,f1", "help", "Help", key_display="?", id="app.help",
            tooltip="Keys and the full MEM-5 summary"),
    Binding("q", "app.quit", "Quit", id="app.quit", tooltip="Quit Inspector"),
    Binding("escape", "back", "Back", show=False, id="view.back",
            tooltip="Back to the table; clear search and filters"),
]

EDIT_BINDINGS = [
    Binding("E", "edit_entry", "Edit", show=False, id="edit.entry",
            tooltip="Edit the selected entry's JSON (view 0): the stages follow; the file is not written"),
    # Not x: x is the next problem the provider would reject, on view 0 too (where it shows
    # what to edit next); adding "x" here makes it delete on view 0 (check_action lets it fall through elsewhere).
    Binding("delete,backspace", "delete_entry", "Delete", show=False, key_display="del", id="edit.delete",
            tooltip="Delete the selected entry (view 0)"),
    Binding("a", "insert_entry", "Add", show=False, id="edit.insert",
            tooltip="Insert a new entry after the selected one, from a template (view 0)"),
    Binding("alt+up", "move_entry(-1)", "Move up", show=False, id="edit.up",
            tooltip="Move the selected entry up (view 0)"),
    Binding("alt+down", "move_entry(1)", "Move down", show=False, id="edit.down",
            tooltip="Move the selected entry down (view 0)"),
    Binding("ctrl+z", "undo_edit", "Undo", show=False, id="edit.undo", tooltip="Undo the last edit"),
    Binding("ctrl+y", "redo_edit", "Redo", show=False, id="edit.redo", tooltip="Redo the edit undone"),
    Binding("L", "learn", "Levels", show=False, id="app.learn",
            tooltip="Levels: predict what a stage or a provider does, reach a goal, break a session and see"),
]

# The palette's title for a binding (posting's `export: …` style); a binding named here is a
# palette entry, its help its tooltip and key. Stage entries are made per view shown.
PALETTE = {
    "file.export": "export: repaired history",
    "view.strict": "strict: toggle",
    "view.split": "view: split / unified",
    "filter.changed": "filter: only changed rows",
    "filter.search": "filter: search",
    "view.back": "filter: clear",
    "search.next": "search: next match",
    "search.previous": "search: previous match",
    "row.next_change": "row: next change",
    "row.previous_change": "row: previous change",
    "row.details": "row: details",
    "row.journey": "row: journey",
    "row.cause": "row: go to cause",
    "row.copy": "row: copy as JSON",
    "why.explain": "why: explain an error text…",
    "resume.copy": "resume: copy the agent's resume command",
    "view.summary": "summary: counts by kind",
    "provider.pick": "provider: choose",
    "provider.next": "provider: next problem",
    "file.browse": "open: folder browser",
    "file.open": "open: file",
    "file.gallery": "open: samples gallery",
    "file.reload": "file: reload",
    "app.help": "help: keys and MEM-5",
    "view.zoom": "view: zoom",
    "edit.entry": "edit: the selected entry",
    "edit.delete": "edit: delete the selected entry",
    "edit.insert": "edit: add an entry",
    "edit.undo": "edit: undo",
    "edit.redo": "edit: redo",
    "app.learn": "learn: levels",
}


def key_of(binding: Binding) -> str:
    """The key as the footer and the help show it."""
    return binding.key_display or binding.key.split(",")[0]


# Footer entries left out below layout.FULL_FOOTER columns, so that Help and Quit always show (every key is
# still bound, and listed in the help and the palette).
MAXIMIZED_HIDDEN = frozenset({"row.details", "view.zoom"})  # a pane covers the table: esc Back instead
NARROW_HIDDEN = frozenset({"filter.changed", "view.split", "filter.search", "row.journey", "stage.previous"})


def _hidden(active: ActiveBinding) -> ActiveBinding:
    return active._replace(binding=replace(active.binding, show=False))


def footer_bindings(bindings: dict[str, ActiveBinding], maximized: bool, width: int) -> dict[str, ActiveBinding]:
    """The main screen's footer: while a pane covers the table (``maximized``), esc Back in the
    room of keys for the table; below a full footer's width, the keys that matter most."""
    if maximized and "escape" in bindings:
        bindings = {key: _hidden(a) if a.binding.id in MAXIMIZED_HIDDEN else a for key, a in bindings.items()}
        back = bindings["escape"]
        bindings["escape"] = back._replace(binding=replace(back.binding, show=True))
    if layout.full_footer(width):
        return bindings
    return {key: _hidden(a) if a.binding.id in NARROW_HIDDEN else a for key, a in bindings.items()}

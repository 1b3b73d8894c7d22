"""Export the repaired history: a format, a path, a confirmation before replacing, never the input.

The bytes are exactly what `inspector normalize FILE --to NAME` writes: both come from the
pipeline's export step (:func:`inspector.pipeline.export`), here on the open history's own
import and repair. ``exporters()`` lists the output formats (``same`` first, the default)
with the format registry's label for each.

Serializing and writing a large history takes seconds, so it runs in a thread worker; the
dialog stays up, greyed out, until the file is in place, and a failure opens an error dialog.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual import work
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Static
from textual.worker import Worker, WorkerState

from ... import pipeline
from ...engine import KINDS, Event, Result
from ...formats import Imported, whole_file_suffixes
from ...io import InputError, atomic_write, describe_error
from ...sessions import repaired_name
from ...verdict import written_refusals
from .. import adapter, confine, destination, facts
from ..text import inert
from .error import ErrorDialog


def exporters() -> dict[str, str]:
    """Every output format with its label, ``same`` (the input's own format) first."""
    return adapter.export_labels()


PREVIEW_LINES = 20  # export events shown per kind before "and N more"
export_outcome = pipeline.export  # (imported, result, to) -> Exported: document, events, bytes, entries


def default_export_path(source: str | None, to: str = "same") -> str:
    """Beside the input as NAME.normalized.json (NAME.normalized.FORMAT.json in another
    format; NAME.repaired.jsonl for an agent's session file); stdin and samples go to the
    current folder."""
    suffix = "normalized.json" if to == "same" else f"normalized.{to}.json"
    if source is None:
        return f"stdin.{suffix}"
    path = Path(source)
    if to == "same" and path.name.endswith(whole_file_suffixes()):
        return repaired_name(path)   # a session file: the same name as `inspector normalize` writes
    stem = path.name[:-5] if path.name.endswith(".json") else path.name
    return str(path.with_name(f"{stem}.{suffix}"))


class ExportDialog(ModalScreen[str | None]):
    """Dismisses with a confirmation sentence once the file is written, or None."""

    BINDINGS = [Binding("escape", "cancel", "Close", id="export.cancel", tooltip="Close without writing")]

    def __init__(self, result: Result, default: str, inputs: tuple[str, ...], to: str = "same", *,
                 imported: Imported, strict: bool = False, source: str | None = None,
                 reasoning: str = "keep") -> None:
        """``default`` is the path for ``same``; ``source`` is what it derives from (None for
        standard input), so the path follows the chosen format until the user edits it."""
        super().__init__()
        self.result = result
        self.default = default
        self.inputs = inputs
        self.to = to
        self.imported = imported
        self.strict = strict
        self.source = source
        self.reasoning = reasoning  # --reasoning: keep, or strip every reasoning block on export
        self._confirm: str | None = None  # the existing path the user was asked about
        # What the written document's provider refuses, per format (None: not known yet), and
        # the (path, format) the user was warned about before writing it anyway.
        self.refused: dict[str, str] = {}
        self._warned: tuple[str, str] | None = None
        self.writing: str | None = None   # the path a worker is writing, while it runs

    def _describe(self) -> Text:
        fmt = self.imported.format
        label = exporters()[self.to] + (f" ({fmt})" if self.to == "same" else "")
        text = Text(f"The repaired history ({len(self.result.messages):,} flat messages), as {label}", "dim")
        if self.strict:
            text.append(", with the strict stage (beyond MEM-5)", "dim")
        if self.reasoning != "keep":
            text.append(f", --reasoning {self.reasoning}", "dim")
        text.append(".", "dim")
        return text

    def _title(self) -> Text:
        """Named by what the chosen format writes (its file suffix), not always JSON."""
        fmt = self.imported.format if self.to == "same" else self.to
        return Text(f"Export the repaired history as {facts.written_suffix(fmt)}")

    def compose(self) -> ComposeResult:
        served = confine.of(self.app) is not None
        with Vertical(id="dialog", classes="dialog"):
            yield Static(self._title(), id="dialog-title")
            yield Label("Format", classes="field-label")
            yield Select([(f"{name}: {label}", name) for name, label in exporters().items()], value=self.to,
                         allow_blank=False, id="export-format")
            yield Static(self._describe(), id="export-what")
            yield Static(Text("Working out what the export changes…", "dim"), id="export-preview")
            yield Label("Download as (saved by the browser, not on the server)" if served
                        else "Write to (a new file; the input is never replaced)", classes="field-label")
            yield Input(self._path_for(self.to), id="export-path",
                        placeholder="file name of the download" if served else "path to write")
            yield Static("", id="export-note")
            with Horizontal(classes="buttons"):
                yield Button("Export", variant="primary", id="export")
                yield Button("Cancel", id="cancel")
            yield Static("enter writes · tab moves between fields · esc closes", classes="dialog-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.preview()

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False, description="export preview")
    def preview(self) -> None:
        """Off the UI thread: the export's own events for the chosen format, before writing."""
        to = self.to
        try:
            exported = export_outcome(self.imported, self.result, to, reasoning=self.reasoning)
            events = exported.events
            refused = refusal_text(self.imported, self.result, exported, to, self.reasoning)
        except Exception as exc:  # noqa: BLE001 - the write will say it again, in its error dialog
            text = Text(inert(describe_error(exc, "export")), "bold")
        else:
            text = preview_text(events, to if to != "same" else self.imported.format, self.imported)
            if refused:
                self.refused[to] = refused
                text = Text.assemble(Text(f"⚠ {inert(refused)}\n", "bold"), text)
        self.app.call_from_thread(self._show_preview, to, text)

    def _show_preview(self, to: str, text: Text) -> None:
        if to == self.to and self.is_mounted:
            self.query_one("#export-preview", Static).update(text)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value is Select.BLANK or event.value == self.to:
            return
        field = self.query_one(Input)
        follow = field.value == self._path_for(self.to)  # the user has not typed a path of their own
        self.to = str(event.value)
        self.query_one("#export-what", Static).update(self._describe())
        self.query_one("#dialog-title", Static).update(self._title())
        self.query_one("#export-preview", Static).update(Text("Working out what the export changes…", "dim"))
        self.preview()
        if follow:
            field.value = self._path_for(self.to)

    def _path_for(self, to: str) -> str:
        """The path proposed for format ``to``; in served mode the download's file name only
        (a folder of the server means nothing to the browser)."""
        path = self.default if to == "same" else default_export_path(self.source, to)
        return Path(path).name if confine.of(self.app) is not None else path

    def _note(self, message: str, error: bool = True) -> None:
        note = self.query_one("#export-note", Static)
        note.set_class(error, "-error")
        note.update(Text(inert(message)))

    def on_input_changed(self, event: Input.Changed) -> None:
        if self._warned is not None and event.value != self._warned[0]:
            self._warned = None
            self.query_one("#export", Button).label = "Export"
            self._note("", error=False)
        if self._confirm is not None and event.value != self._confirm:
            self._confirm = None
            self.query_one("#export", Button).label = "Export"
            self._note("", error=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.attempt()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export":
            self.attempt()
        else:
            self.action_cancel()

    def action_save(self) -> None:
        """ctrl+s (:mod:`inspector.tui.keys`): write, as enter does."""
        self.attempt()

    def attempt(self) -> None:
        if self.writing is not None:
            return
        path = os.path.expanduser(self.query_one(Input).value.strip())
        if not path:
            self._note("Give a path to write to.")
            return
        if confine.of(self.app) is not None:  # served mode: a download in the browser, nothing written here
            self._busy(path)
            self.write(path)
            return
        problem = destination.refusal(path, self.inputs)
        if problem:
            self._note(problem)
            return
        question = destination.replace_question(path, self._confirm)
        if question:
            self._confirm = path
            self.query_one("#export", Button).label = "Replace"
            self._note(question)
            return
        self._busy(path)
        self.write(path)

    def _busy(self, path: str | None) -> None:
        """Lock the form while a write runs: a second export or a cancel would race it."""
        self.writing = path
        for widget in (self.query_one(Input), self.query_one(Select), *self.query(Button)):
            widget.disabled = path is not None
        if path is not None:
            self._note(f"Writing {path}…", error=False)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False, description="export")
    def write(self, path: str) -> str | Refused:
        """Off the UI thread: build the document, serialize it, write it atomically."""
        exported = export_outcome(self.imported, self.result, self.to, reasoning=self.reasoning)
        if self._warned != (path, self.to):
            # the provider refuses what this writes: said before anything is written, and
            # written only when asked again (the check runs here, so it never races the preview)
            refused = refusal_text(self.imported, self.result, exported, self.to, self.reasoning)
            if refused:
                return Refused(path, refused)
        data, fmt, count = exported.data, exported.format, exported.entries
        changes = len(exported.events)
        try:
            if (sent := confine.deliver(self.app, path, data)) is not None:
                return sent
            atomic_write(path, data, inputs=self.inputs, proposed=True, mode_of=next(iter(self.inputs), None))
        except OSError as exc:
            raise InputError(path, exc.strerror or str(exc)) from None
        session = facts.chosen_session(self.imported.document)
        return (f"Wrote {count:,} {'message' if count == 1 else 'messages'} as {fmt} to {path}"
                f"{f' (session {session})' if session is not None else ''} "
                f"({self.result.summary()}{', strict' if self.strict else ''}; "
                f"{changes} export event{'' if changes == 1 else 's'}).")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "export":
            return
        event.stop()
        if event.state == WorkerState.SUCCESS:
            result = event.worker.result
            if isinstance(result, Refused):
                self._busy(None)
                self._warned = (result.path, self.to)
                self.query_one("#export", Button).label = "Write anyway"
                self._note(f"{result.sentence}. Press enter again to write it anyway.")
                self.query_one(Input).focus()
                return
            self.writing = None
            self.dismiss(result)
        elif event.state in (WorkerState.ERROR, WorkerState.CANCELLED):
            path = self.writing
            self._busy(None)
            self._confirm = None
            self.query_one("#export", Button).label = "Export"
            error = event.worker.error
            if isinstance(error, InputError):
                message = str(error)
            elif error is not None:  # what the user can act on; a bug is named as one
                message = describe_error(error, path)
            else:
                message = f"{path}: the export was cancelled"
            self._note(message)
            self.query_one(Input).focus()
            self.app.push_screen(ErrorDialog("Export failed", message))

    def action_cancel(self) -> None:
        if self.writing is None:  # a running write finishes first; then the dialog closes itself
            self.dismiss(None)


@dataclass(frozen=True, slots=True)
class Refused:
    """What the write worker returns instead of writing a history its provider refuses."""

    path: str
    sentence: str


def refusal_text(imported: Imported, result: Result, exported: Any, to: str, reasoning: str) -> str:
    """The warning for a written document its provider refuses (``inspector.verdict``), or ""."""
    provider, refused = written_refusals(pipeline.Outcome("<export>", imported, result, exported, to, reasoning))
    if not refused:
        return ""
    rules = ", ".join(dict.fromkeys(f"{r.rule} at {r.where}" for r in refused))
    return f"{provider} would refuse what this writes: {rules}"


def omitted_blocks(imported: Imported, fmt: str) -> list[str]:
    """`messages[1].content[0]: thinking 17*23 = 391`: each original block an export to
    another format leaves behind (the import's own record of them), named as the format
    names it."""
    out = []
    base = imported.container or "history"
    for i, key, k in imported.unconverted[:PREVIEW_LINES]:
        try:
            block = imported.history[i][key][k] if key is not None else imported.history[i]
        except (IndexError, KeyError, TypeError):
            continue
        where = f"{base}[{i}]" + (f".{key}[{k}]" if key is not None else "")
        out.append(f"{where}: {adapter.describe_block(imported.format, block)} not carried to {fmt}")
    return out


def preview_text(events: list[Event], fmt: str, imported: Imported | None = None) -> Text:
    """What the export changes on its own, before writing: each export event's sentence,
    grouped by kind (for a session file: the lines added, re-linked and removed)."""
    if not events:
        return Text(f"The export to {fmt} changes nothing on its own (0 export events).", "dim")
    text = Text()
    text.append(f"The export to {fmt} changes on its own ({len(events)} export "
                f"event{'' if len(events) == 1 else 's'}):", "bold")
    groups: dict[str, list[Event]] = {}
    for e in events:
        groups.setdefault(e.kind, []).append(e)
    for kind, group in groups.items():
        info = KINDS.get(kind)
        text.append(f"\n{kind}" + (f" ({info.label})" if info is not None else "") + f": {len(group)}", "bold")
        for e in group[:PREVIEW_LINES]:
            text.append("\n  " + inert(e.message))
        if kind == "export-omitted" and imported is not None:
            for line in omitted_blocks(imported, fmt):
                text.append("\n    " + inert(line))
        if len(group) > PREVIEW_LINES:
            text.append(f"\n  … and {len(group) - PREVIEW_LINES:,} more", "dim")
    return text


def export_inputs(source: Any) -> tuple[str, ...]:
    return (source,) if isinstance(source, str) and source != "-" else ()

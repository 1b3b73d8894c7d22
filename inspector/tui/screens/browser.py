"""``inspector DIR`` and ``inspector doctor --tui``: every history and session file under a
folder (or in every agent's home), with the verdict ``inspector doctor`` gives each, worked
out in the background one file at a time. The verdict is the doctor's own
(:func:`inspector.doctor.rows_of`, the step its scan takes per file); this screen renders it.

Under ``inspector doctor --tui`` the list also holds the doctor's rows that no session file
stands for (a thread Codex's index lists whose rollout is gone): enter on one opens nothing,
it says the doctor's sentence, or moves to the rollout found under another path.

Enter opens the selected file (a file that holds several sessions then offers them), escape
goes back; ``v`` sorts by verdict, ``m`` by time, ``n`` by name. The verdicts outlive the
screen (the caller keeps the cache), so coming back to the folder does not check it again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from ... import doctor
from ...doctor import Found
from ...io import describe_error, read_bytes
from ...sessions import PASSED_OVER
from ...verdict import STATUS_WORDS
from .. import confine, facts
from ..text import inert
from ..widgets.diff_table import shorten
from ..widgets.row_table import RowTable
from .why import copy_resume   # the one wording of the copy, shared with the main screen

# The doctor's statuses in the one vocabulary (inspector.verdict.STATUS_WORDS), worst first (the order v sorts by).
LABELS = {s: STATUS_WORDS[s] for s in doctor.STATUSES}
OK, CHANGE, UNREADABLE, FAILS = (LABELS[s] for s in (doctor.OK, doctor.CHANGES, doctor.UNREADABLE, doctor.FAILS))
PENDING = "…"
PASSED = "passed over"      # a file under the folder that holds no history, as check and doctor pass over it
ORDER = {**{LABELS[s]: i for i, s in enumerate(doctor.STATUSES)}, PASSED: len(doctor.STATUSES),
         PENDING: len(doctor.STATUSES) + 1}


@dataclass(frozen=True, slots=True)
class FileVerdict:
    """What ``inspector check`` says of one file: ok, would change (and why), unreadable."""

    status: str
    detail: str = ""
    command: str | None = None      # the agent's resume command (one session with one), for y


def check_file(path: str, read: Callable[[str], bytes] = read_bytes, item: Found | None = None) -> FileVerdict:
    """The doctor's verdict on one file (``item``: where it was found, under which agent's
    home; ``read``: how its bytes are read, in served mode through the confinement)."""
    name = os.path.basename(path)
    item = item or Found(Path(path), Path(path).parent, None, name)
    try:
        rows = doctor.rows_of(item, read)
        if not rows:            # walked, and no history: passed over (sessions.passed_over)
            return FileVerdict(PASSED, PASSED_OVER)
        return verdict_of(rows, whole=item.row is not None)
    except Exception as exc:  # noqa: BLE001 - one bad file is a row that says so, not a crash
        return FileVerdict(UNREADABLE, describe_error(exc, name).removeprefix(f"{name}: "))


def verdict_of(rows: list[doctor.Row], whole: bool = False) -> FileVerdict:
    """The doctor's rows of one file as one line: its verdict and sentence; a file holding
    several sessions, the worst of them and each session's. ``whole``: one row that stands on
    its own (no file behind it, so no sessions to list), said as the doctor says it."""
    if len(rows) == 1 and (rows[0].session is None or whole):
        row = rows[0]
        sentence = row.verdict.sentence.removeprefix("unreadable: ")
        return FileVerdict(LABELS[row.status], f"{row.format} · {sentence}" if row.format else sentence,
                           row.verdict.resume.command if row.verdict.resume is not None else None)
    worst = min((r.status for r in rows), key=doctor.STATUSES.index)
    return FileVerdict(LABELS[worst], f"{len(rows)} sessions (enter lists them): "
                       + "; ".join(f"{r.session} {LABELS[r.status]}" for r in rows))


class BrowserScreen(Screen[str | None]):
    """Dismisses with the path to open, or None (escape)."""

    BINDINGS = [
        Binding("escape", "close", "Back", id="browser.back", tooltip="Back to the open history"),
        Binding("v", "sort('verdict')", "By verdict", id="browser.sort_verdict", tooltip="Sort by verdict, worst first"),
        Binding("m", "sort('time')", "By time", id="browser.sort_time", tooltip="Sort by last change, newest first"),
        Binding("n", "sort('name')", "By name", id="browser.sort_name", tooltip="Sort by path"),
        Binding("q", "app.quit", "Quit", id="browser.quit", tooltip="Quit Inspector"),
        Binding("y", "copy_resume", "Resume cmd", show=False, id="browser.copy_resume",
                tooltip="Copy the selected session's resume command (the agent's own) to the clipboard"),
    ]

    class Checked(Message):
        def __init__(self, path: str, verdict: FileVerdict) -> None:
            super().__init__()
            self.path = path
            self.verdict = verdict

    def __init__(self, root: str | os.PathLike, cache: MutableMapping[tuple[str, float], FileVerdict],
                 found: list[Found] | None = None, heading: str | None = None, at: str | None = None) -> None:
        """``found`` (``inspector doctor --tui``): the files of the agents' homes, as the doctor
        found them, listed under ``heading``; otherwise every file under ``root``. ``at``: the
        file the cursor starts on (the one opened from here last: b comes back to it)."""
        super().__init__()
        self.at = at
        self.name_width = 20
        self.root = Path(root)
        self.cache = cache
        self.found = found
        self.heading = heading
        self.items: dict[str, Found] = {}
        self.files: list[str] = []
        self.mtimes: dict[str, float] = {}
        self.verdicts: dict[str, FileVerdict] = {}
        self.sorted_by = "name"

    def compose(self) -> ComposeResult:
        yield Static(id="browser-title")
        yield RowTable(id="browser-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="browser-detail")   # the selected row whole: its path and the doctor's sentence
        yield Footer()

    def on_mount(self) -> None:
        if self.found is None:
            items = [Found(Path(p), self.root, None, os.path.relpath(p, self.root), walked=True)
                     for p in facts.files_under(self.root)]
        else:
            items = list(self.found)
        self.items = {str(i.path): i for i in items if confine.refusal(self.app, str(i.path)) is None}
        found = list(self.items)  # served mode: nothing that leads out
        self.files = found
        for p in found:
            row = self.items[p].row
            try:
                self.mtimes[p] = row.mtime if row is not None else os.stat(p).st_mtime
            except OSError:
                self.mtimes[p] = 0.0
            cached = self.cache.get((p, self.mtimes[p]))
            self.verdicts[p] = cached if cached is not None else FileVerdict(PENDING)
        table = self.query_one(DataTable)
        widest = max((len(self.items[p].label) for p in found), default=10)
        name_width = self.name_width = min(widest, max(self.app.size.width // 3, 20))
        table.add_column("verdict", key="verdict", width=13)
        table.add_column("file", key="file", width=name_width)
        when = 16 if self.app.size.width >= 120 else 11
        table.add_column("changed", key="time", width=when)
        table.add_column("format · verdict", key="detail",
                         width=max(self.app.size.width - name_width - when - 23, 20))
        for p in found:
            table.add_row(*self._cells(p), key=p)
        self._title()
        table.focus()
        if self.at is not None and self.at in self.items:
            table.move_cursor(row=table.get_row_index(self.at))
        self._detail()
        if any(v.status == PENDING for v in self.verdicts.values()):
            self._check_all([p for p in found if self.verdicts[p].status == PENDING])

    def _title(self) -> None:
        done = sum(v.status != PENDING for v in self.verdicts.values())
        counts = {s: sum(v.status == s for v in self.verdicts.values()) for s in LABELS.values()}
        title = Text()
        if self.heading is not None:
            title.append(inert(self.heading), "bold")
            unfiled = sum(i.row is not None for i in self.items.values())
            title.append(f"  {len(self.files) - unfiled} session files"
                         + (f" and {unfiled} rows with no file to open" if unfiled else ""))
        else:
            title.append(f"{inert(confine.shown(self.app, self.root))}/", "bold")
            title.append(f"  {len(self.files)} history and session files (recursively)")
        if done < len(self.files):
            title.append(f" · checking {done} of {len(self.files)}…", "dim")
        title.append(" · " + " · ".join(f"{label} {counts[label]}" for label in LABELS.values()
                                        if counts[label] or label in (OK, UNREADABLE)))
        passed = sum(v.status == PASSED for v in self.verdicts.values())
        if passed:
            title.append(f" · {PASSED} {passed}", "dim")
        title.append(f"\nenter opens · v/m/n sort by verdict, time, name (now: {self.sorted_by}) · esc back",
                     "dim")
        if not self.files:
            title.append("\nNo history or session file here.", "bold")
        self.query_one("#browser-title", Static).update(title)

    def _cells(self, path: str) -> tuple[Text, Text, Text, Text]:
        v = self.verdicts[path]
        style = {OK: "", CHANGE: "bold", LABELS[doctor.AGENT_REPAIRS]: "", FAILS: "bold reverse",
                 UNREADABLE: "bold reverse"}.get(v.status, "dim")
        shape = "%Y-%m-%d %H:%M" if self.app.size.width >= 120 else "%m-%d %H:%M"
        when = time.strftime(shape, time.localtime(self.mtimes[path])) if self.mtimes[path] else ""
        label = shorten(inert(self.items[path].label), self.name_width)   # cut in the middle: the name shows
        return Text(v.status, style), Text(label), Text(when, "dim"), Text(inert(v.detail))

    def _detail(self) -> None:
        """The line under the table: the selected file's whole path and whole verdict."""
        table = self.query_one(DataTable)
        if not self.files or table.cursor_row < 0:
            self.query_one("#browser-detail", Static).update("")
            return
        path = str(table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value)
        v = self.verdicts[path]
        line = Text(inert(self.items[path].label), "bold")
        line.append(" · ")
        line.append(v.status, "bold")
        if v.detail:
            line.append(f": {inert(v.detail)}")
        self.query_one("#browser-detail", Static).update(line)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail()

    def _check_all(self, paths: list[str]) -> None:
        def run() -> None:
            worker = get_current_worker()
            confinement = confine.of(self.app)
            read = read_bytes if confinement is None else (lambda p: confine.read(confinement, p))
            with confine.reading(self.app):      # served mode: a store's sidecars read inside the root too
                for p in paths:
                    if worker.is_cancelled:
                        return
                    self.post_message(self.Checked(p, check_file(p, read, self.items[p])))

        self.run_worker(run, thread=True, exclusive=True, group="browse", description="check the folder's files")

    def on_browser_screen_checked(self, message: Checked) -> None:
        self.verdicts[message.path] = message.verdict
        self.cache[(message.path, self.mtimes.get(message.path, 0.0))] = message.verdict
        table = self.query_one(DataTable)
        status, _, _, detail = self._cells(message.path)
        table.update_cell(message.path, "verdict", status)
        table.update_cell(message.path, "detail", detail, update_width=False)
        self._title()
        self._detail()

    def action_sort(self, by: str) -> None:
        self.sorted_by = by
        table = self.query_one(DataTable)
        if by == "verdict":
            table.sort("verdict", "file", key=lambda cells: (ORDER.get(cells[0].plain, 9), cells[1].plain))
        elif by == "time":
            table.sort("time", key=lambda when: when.plain, reverse=True)
        else:
            table.sort("file", key=lambda name: name.plain)
        self._title()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        path = str(event.row_key.value)
        row = self.items[path].row if path in self.items else None
        if row is None:
            self.dismiss(path)
            return
        # The doctor's row with no session file: nothing to open at its path. The rollout found
        # under another path is a row of its own here; else the doctor's sentence says why.
        if row.moved_to is not None and row.moved_to in self.items:
            table = self.query_one(DataTable)
            table.move_cursor(row=table.get_row_index(row.moved_to))
            self.notify(f"Thread {row.session}: the index's path is stale; this is its rollout "
                        "(enter opens it).", title="Nothing to open", markup=False)
            return
        self.notify(row.verdict.sentence, title="Nothing to open", severity="warning", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy_resume(self) -> None:
        table = self.query_one(DataTable)
        path = str(table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value) if self.files else None
        v = self.verdicts.get(path) if path else None
        what = "the selected file" if v is None or v.status != PENDING else "the selected file (still being checked)"
        copy_resume(self, v.command if v is not None else None, what)

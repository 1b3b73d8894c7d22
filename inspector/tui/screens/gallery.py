"""The bundled samples, each teaching one way a history breaks; enter opens one."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ...bundled import samples_dir
from .. import confine


@dataclass(frozen=True, slots=True)
class Sample:
    path: Path
    title: str
    description: str
    does: str = ""


def list_samples(folder: Path | None = None) -> list[Sample]:
    """From samples/index.json when it is there, else every *.json file in the folder."""
    folder = folder or samples_dir()
    index = folder / "index.json"
    samples: list[Sample] = []
    try:
        entries = json.loads(index.read_text(encoding="utf-8"))
        for entry in entries:
            path = folder / entry["file"]
            if path.is_file():
                samples.append(Sample(path, entry.get("title") or path.stem,
                                      entry.get("description", ""), entry.get("does", "")))
    except (OSError, ValueError, TypeError, KeyError):
        samples = []
    if samples:
        return samples
    return [Sample(p, p.stem.replace("-", " "), "") for p in sorted(folder.glob("*.json"))
            if p.name != "index.json"]


class GalleryScreen(Screen[Path | None]):
    BINDINGS = [
        Binding("escape", "close", "Back", id="gallery.back", tooltip="Close the gallery"),
        Binding("q", "app.quit", "Quit", id="gallery.quit", tooltip="Quit Inspector"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.samples = confine.gallery(self.app, list_samples)  # served mode: the served folder's histories

    def compose(self) -> ComposeResult:
        with Vertical(id="gallery"):
            yield Static(confine.gallery_title(self.app) or Text.assemble(  # served: the folder's histories
                ("Inspector", "bold"), ": bundled samples. ",
                ("Each shows one way a history breaks; pick one with the arrows and enter.", "dim")),
                id="gallery-title")
            options: list[Option | None] = []
            for sample in self.samples:
                label = Text()
                label.append(sample.title, "bold")
                label.append(f"  {sample.path.name}", "dim")
                if sample.description:
                    label.append("\n" + sample.description)
                if sample.does:
                    label.append("\n→ " + sample.does, "dim italic")
                if options:
                    options.append(None)
                options.append(Option(label, id=str(sample.path)))
            if not options:
                options.append(Option(Text(f"No samples found in {samples_dir()}", "dim"), disabled=True))
            yield OptionList(*options, id="gallery-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.dismiss(Path(event.option.id))

    def action_close(self) -> None:
        self.dismiss(None)

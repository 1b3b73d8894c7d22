"""Served mode reads what it checked (R2-08): a link in the served folder swapped between
the check and the read must never lead the app out of the folder. The app is driven
headless, the swap lands exactly between the two steps; then a link flipped continuously
by a thread while files load, and the confined open on hostile paths."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from inspector.io import InputError
from inspector.tui import confine
from inspector.tui.app import make_app
from inspector.tui.loader import Source, load_document
from inspector.tui.screens.error import ErrorDialog

from .harness import RUNS

SUITE = "served-mode confinement (links swapped, hostile paths)"


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    served, outside = tmp_path / "served", tmp_path / "outside"
    served.mkdir()
    outside.mkdir()
    (outside / "secret.json").write_text(json.dumps([{"role": "user", "content": "SECRET-OUTSIDE"}]))
    (served / "inner.json").write_text(json.dumps([{"role": "user", "content": "inner"}]))
    (served / "swap.json").symlink_to(served / "inner.json")
    return {"served": served, "outside": outside, "secret": outside / "secret.json",
            "inner": served / "inner.json", "swap": served / "swap.json"}


def point(link: Path, target: Path) -> None:
    tmp = link.with_name(".flip")
    os.symlink(target, tmp)
    os.replace(tmp, link)


async def _until(pilot, condition, what: str) -> None:
    for _ in range(500):
        await pilot.pause(0.02)
        if condition():
            await pilot.pause()
            return
    raise AssertionError(f"never happened: {what}")


async def test_a_link_swapped_right_after_the_check_is_not_followed(folders, monkeypatch):
    checked = confine.refusal

    def check_then_swap(app, path):
        answer = checked(app, path)
        point(folders["swap"], folders["secret"])  # the worst moment: checked inside, now leads out
        return answer

    monkeypatch.setattr(confine, "refusal", check_then_swap)
    app = make_app(None)
    confine.attach(app, folders["served"])
    os.chdir(folders["served"])
    async with app.run_test(size=(120, 40)) as pilot:
        app.main.load(Source.file("swap.json"))
        RUNS[SUITE] += 1
        await _until(pilot, lambda: isinstance(app.screen, ErrorDialog) or app.main.doc is not None,
                     "the load to end")
        doc = app.main.doc
        assert doc is None or "SECRET-OUTSIDE" not in json.dumps(doc.raw), "read the file outside"
        assert isinstance(app.screen, ErrorDialog) and "outside the served folder" in app.screen.message


def test_a_link_flipped_continuously_never_leads_out(folders):
    app = type("App", (), {})()
    confine.attach(app, folders["served"])
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            for target in (folders["inner"], folders["secret"]):
                try:
                    point(folders["swap"], target)
                except OSError:
                    pass

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    opened = refused = 0
    deadline = time.monotonic() + 3
    try:
        for _ in range(2000):
            if time.monotonic() > deadline:
                break
            RUNS[SUITE] += 1
            try:
                doc = load_document(confine.opened(app, Source.file(folders["swap"])))
            except InputError:
                refused += 1
                continue
            opened += 1
            assert doc.raw[0]["content"] == "inner", "read the file outside"
    finally:
        stop.set()
        flipper.join(5)
    assert opened and refused, (opened, refused)  # both sides of the flip were met


def test_the_confined_open_on_hostile_paths(folders, tmp_path):
    served = folders["served"]
    (served / "sub").mkdir()
    (served / "sub" / "rel.json").symlink_to("../inner.json")           # inside, relative
    (served / "abs.json").symlink_to(served / "inner.json")             # inside, absolute
    (served / "up.json").symlink_to("../outside/secret.json")           # out, relative
    (served / "out.json").symlink_to(folders["secret"])                 # out, absolute
    (served / "linkdir").symlink_to(folders["outside"], target_is_directory=True)
    (served / "loop.json").symlink_to("loop.json")
    (served / "in-and-out.json").symlink_to("sub/../../outside/secret.json")
    os.mkfifo(served / "fifo.json")
    c = confine.Confinement(served)
    read = {}
    for name in ("inner.json", "sub/rel.json", "abs.json", str(served / "sub" / "rel.json")):
        RUNS[SUITE] += 1
        read[name] = json.loads(confine.read(c, name))[0]["content"]
    assert set(read.values()) == {"inner"}, read
    for name in ("up.json", "out.json", "linkdir/secret.json", "in-and-out.json", "../outside/secret.json",
                 str(folders["secret"]), "loop.json", "fifo.json", "sub", "missing.json"):
        RUNS[SUITE] += 1
        with pytest.raises(InputError) as caught:
            confine.read(c, name)
        text = str(caught.value)
        assert "SECRET" not in text
        if name in ("up.json", "out.json", "linkdir/secret.json", "in-and-out.json"):
            assert "outside the served folder" in text, (name, text)


def test_outside_served_mode_nothing_is_read_early(folders):
    app = type("App", (), {})()
    source = Source.file(folders["swap"])
    assert confine.opened(app, source) is source

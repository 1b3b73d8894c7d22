"""`inspector serve` in a real browser: the app loads, keys step the stages, export downloads
the bytes `inspector normalize` writes, and nothing outside the served folder opens."""

from __future__ import annotations

import os
import urllib.error
import urllib.request

from inspector.pipeline import run_file

from .conftest import WAIT

STAGES = ("0 input", "1 coerce", "2 hoist", "3 repair", "4 strip")


def open_sample(tab, folder) -> None:
    """The served folder's browser lists its history (first, by name; and not the symlinks
    out), with the verdict `inspector check` gives it; enter opens it."""
    tab.wait_text(folder["sample"].name)
    tab.wait_text("would change")
    assert "served/" in tab.words
    assert "link.json" not in tab.text and "outdir" not in tab.text and "secret" not in tab.text
    tab.press("Enter")
    tab.wait(lambda: stage_bar(tab) is not None, "the stage bar")


def stage_bar(tab) -> tuple[int, dict[str, int]] | None:
    """The stage bar's row and where each chip's label starts on it."""
    for row, line in enumerate(tab.lines):
        if all(chip in line for chip in STAGES):
            return row, {chip: line.index(chip) for chip in STAGES}
    return None


def chip_styles(tab) -> dict[str, tuple]:
    row, columns = stage_bar(tab)
    return {chip: tab.style(row, column) for chip, column in columns.items()}


def test_keys_step_through_the_stages(tab, server, folder):
    open_sample(tab, folder)
    first = chip_styles(tab)
    current = first["0 input"]
    assert list(first.values()).count(current) == 1, "one chip, the input, is highlighted"
    tab.press("3")
    tab.wait(lambda: chip_styles(tab)["3 repair"] == current, "the highlight on 3 repair")
    after = chip_styles(tab)
    assert after["0 input"] != current
    assert [chip for chip, style in after.items() if style == current] == ["3 repair"]
    if os.environ.get("INSPECTOR_SERVE_SCREENSHOT"):  # how docs/serve.png is made
        tab.page.wait_for_timeout(300)
        tab.page.screenshot(path=os.environ["INSPECTOR_SERVE_SCREENSHOT"])

    tab.press("n")
    tab.wait(lambda: chip_styles(tab)["4 strip"] == current, "the highlight on 4 strip after n")
    assert chip_styles(tab)["3 repair"] != current


def test_export_downloads_what_normalize_writes(tab, folder):
    open_sample(tab, folder)
    before = sorted(os.listdir(folder["root"]))
    tab.press("e")
    tab.wait_text("Export the repaired history as .json")
    tab.press("Enter")
    tab.wait(lambda: tab.downloads, "the download")
    download = tab.downloads[0]
    with open(download.path(), "rb") as fh:  # path() waits for the download to finish
        data = fh.read()
    assert data == run_file(folder["sample"]).data
    assert download.suggested_filename.endswith(".normalized.json")
    tab.wait_text("to the browser")
    assert sorted(os.listdir(folder["root"])) == before, "nothing is written on the server"


def test_paths_outside_the_folder_are_refused(tab, folder):
    tab.wait_text(folder["sample"].name)
    tab.press("Escape", "o")
    tab.wait_text("Open a history")
    tab.wait_text(folder["sample"].name[:20])  # the tree lists the folder...
    assert "link.json" not in tab.text and "outdir" not in tab.text  # ...but no symlink out of it

    for attempt in (str(folder["secret"]), "link.json", "../outside/secret.json", "-"):
        tab.page.keyboard.type(attempt)
        tab.press("Enter")
        tab.wait_text("Cannot open")
        assert "outside the served folder" in tab.words or "standard input is not read" in tab.words
        assert "SECRET-OUTSIDE" not in tab.words
        tab.press("Escape")  # closes the error; then open the dialog again
        tab.wait(lambda: "Cannot open" not in tab.text, "the error dialog to close")
        tab.press("o")
        tab.wait_text("Open a history")


def status(url: str, headers: dict[str, str]) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=WAIT) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_foreign_host_and_origin_are_refused(server):
    url, port = server["url"], server["port"]
    assert status(url, {}) == 200
    assert status(url, {"Host": f"attacker.example:{port}"}) == 403  # a rebound DNS name
    assert status(url, {"Origin": "http://attacker.example"}) == 403  # another site's page
    assert status(url, {"Origin": f"http://127.0.0.1:{port}"}) == 200

"""`inspector serve` as a first-time browser user meets it: keys work before any click, the
title and the dialogs speak of the served folder (never of where it is on the server, nor of
the server account's home), the export field is a download name, and the open dialog's
folder marks are characters the page's font has."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest

from .conftest import WAIT, Terminal
from .test_serve_browser import open_sample


@pytest.fixture
def fresh(browser, server):
    """A fresh page on the served URL, never clicked: what a user has right after loading it."""
    context = browser.new_context(viewport={"width": 1400, "height": 800})
    context.set_default_timeout(WAIT * 1000)
    context.route("**/*", lambda route: route.continue_()
                  if urlsplit(route.request.url).hostname == "127.0.0.1" else route.abort())
    page = context.new_page()
    terminal = Terminal(page)
    try:
        page.goto(server["url"])
        terminal.wait(lambda: terminal.text.strip() != "", "the app's first screen")
        yield terminal
    finally:
        context.close()


def test_keys_work_before_the_terminal_is_clicked(fresh, folder):
    fresh.wait_text(folder["sample"].name)
    fresh.wait_text("(now: name)")
    fresh.press("v")   # the folder browser sorts by verdict: the key reached the app without a click
    fresh.wait_text("(now: verdict)")


def test_the_title_names_the_file_from_the_served_folder(tab, folder):
    open_sample(tab, folder)
    tab.wait_text(f"served/{folder['sample'].name}")
    assert str(folder["root"]) not in tab.words


def test_a_home_path_is_refused_as_typed(tab, folder):
    tab.wait_text(folder["sample"].name)
    tab.press("Escape", "o")
    tab.wait_text("Open a history")
    tab.page.keyboard.type("~/.bashrc")
    tab.press("Enter")
    tab.wait_text("Cannot open")
    assert "~/.bashrc" in tab.words and "outside the served folder" in tab.words
    assert os.path.expanduser("~") not in tab.words


def test_the_open_dialog_marks_folders_with_characters_the_font_has(tab, folder):
    tab.wait_text(folder["sample"].name)
    tab.press("Escape", "o")
    tab.wait_text("Open a history")
    tab.wait_text("▸ sub")
    assert not any(ord(c) > 0xFFFF for c in tab.text), "no emoji marks (empty boxes without an emoji font)"


def test_the_export_field_is_a_download_name(tab, folder):
    open_sample(tab, folder)
    tab.press("e")
    tab.wait_text("Export the repaired history as .json")
    tab.wait_text("Download as")
    assert "the input is never replaced" not in tab.words
    assert str(folder["root"]) not in tab.words

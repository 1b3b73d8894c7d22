"""The README's TUI section shows screenshots that exist, and every screenshot the script
makes is shown there, so a renamed or dropped shot cannot leave a broken image behind."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _section(name: str) -> str:
    readme = ROOT / "README.md"
    if not readme.is_file():
        pytest.skip("not a checkout")
    text = readme.read_text("utf-8")
    return text[text.index(f"<!-- section:{name} -->"):text.index(f"<!-- /section:{name} -->")]


def _shots() -> list[str]:
    """The names in docs/make_screenshots.py's SHOTS, read without running the script."""
    tree = ast.parse((ROOT / "docs" / "make_screenshots.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SHOTS" for t in node.targets):
            return [ast.literal_eval(item)[0] for item in node.value.elts]
    raise AssertionError("no SHOTS list in docs/make_screenshots.py")


def test_tui_section_images_exist_and_cover_every_shot():
    images = re.findall(r"!\[[^\]]*\]\((docs/[^)\s]+)\)", _section("tui"))
    assert images
    missing = [image for image in images if not (ROOT / image).is_file()]
    assert not missing
    shown = {Path(image).stem for image in images}
    assert set(_shots()) <= shown, sorted(set(_shots()) - shown)


def test_screenshot_script_samples_exist():
    tree = ast.parse((ROOT / "docs" / "make_screenshots.py").read_text("utf-8"))
    samples = [ast.literal_eval(n)[1] for node in tree.body if isinstance(node, ast.Assign)
               and any(getattr(t, "id", None) == "SHOTS" for t in node.targets) for n in node.value.elts]
    assert samples
    for sample in filter(None, samples):
        assert (ROOT / "samples" / sample).is_file(), sample

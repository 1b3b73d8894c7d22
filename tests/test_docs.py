"""The TUI page (docs/tui.md, moved from the README) shows screenshots that exist, and every
screenshot the script makes is shown there, so a renamed or dropped shot cannot leave a
broken image behind; every relative link of the README and the docs pages resolves; and the
README stays short enough to read in five minutes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _section(name: str, page: str = "docs/tui.md") -> str:
    readme = ROOT / page
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
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+\.png)\)", _section("tui"))
    assert images
    missing = [image for image in images if not (ROOT / "docs" / image).is_file()]
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


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _pages() -> list[Path]:
    if not (ROOT / "README.md").is_file():
        pytest.skip("not a checkout")
    return [ROOT / "README.md", ROOT / "DEVELOPERS.md", *sorted((ROOT / "docs").glob("**/*.md"))]


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation out, spaces to hyphens."""
    heads = re.findall(r"^#+ (.+)$", page.read_text("utf-8"), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_every_relative_link_of_the_readme_and_the_docs_resolves():
    broken = []
    for page in _pages():
        for target in LINK.findall(page.read_text("utf-8")):
            if re.match(r"[a-z]+:", target):
                continue                                   # http(s), mailto: not checked offline
            path, _, anchor = target.partition("#")
            where = (page.parent / path).resolve() if path else page
            if not where.exists() or (anchor and where.suffix == ".md" and anchor not in _anchors(where)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_the_readme_is_short_and_links_every_docs_page():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme.splitlines()) < 300
    linked = {Path(t.partition("#")[0]).name for t in LINK.findall(readme)}
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages <= linked, sorted(pages - linked)
    assert {"verdict.md", "identity.md", "conformance.md"} <= linked


def test_the_readme_defines_each_term_of_the_tui_once():
    readme = (ROOT / "README.md").read_text("utf-8")
    tour = readme[readme.index("## A tour of the TUI"):readme.index("## The command line")]
    for term in ("**View 0**", "**Ghost rows**", "**`→ #N`**", "**Fate**", "**Verdict**", "**`2e`, `1w`**",
                 "**`«signed»`**", "**Playground**"):
        assert tour.count(term) == 1, term
    assert len(re.findall(r"!\[", tour)) == 1           # one picture

"""Regenerates the rules table of docs/formats.md (every target's rules: ``targets.rule_table``)
in place, and nothing else of the file: ``python tests/targets/make_rules_table.py``.
``tests/formats/test_targets.py`` checks every rule is listed with its severity and source."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from inspector.targets import rule_table

HEADER = "| target | rule | what it catches | severity | source |"
README = Path(__file__).resolve().parents[2] / "docs" / "formats.md"   # the rules table moved from the README (issue 35)


def link(url: str) -> str:
    found = re.match(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull)/(\d+)", url)
    if found:
        return f"[{found[1]}#{found[2]}]({url})"
    found = re.match(r"https://github\.com/([^/]+/[^/]+)/blob/[0-9a-f]+/(.+)$", url)
    if found:
        return f"[{found[1]} {found[2].rsplit('/', 1)[-1]}]({url})"
    host = re.match(r"https://([^/]+)", url)[1]
    return f"[{host} docs]({url})"


def rows() -> list[str]:
    return [f"| `{r['target']}` | `{r['rule']}` | {r['summary'].replace('|', '/')} | {r['severity']} | "
            f"{link(r['source'])} |" for r in rule_table()]


def regenerate(text: str) -> str:
    lines = text.split("\n")
    start = lines.index(HEADER)
    end = start + 2
    while end < len(lines) and lines[end].startswith("| `"):
        end += 1
    return "\n".join([*lines[:start + 2], *rows(), *lines[end:]])


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else README
    path.write_text(regenerate(path.read_text()))
    print(f"{path}: {len(rows())} rules")

"""Regenerates the table of ``docs/conformance.md`` from ``peers/*.json`` (between its
``<!-- peers -->`` markers): ``python tests/conformance/make_table.py``. A test checks the
page lists every case with its verdict."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "conformance.md"
PEERS = Path(__file__).with_name("peers")
START, END = "<!-- peers -->", "<!-- /peers -->"


def rows() -> list[str]:
    out = ["| peer test | verdict | why |", "|---|---|---|"]
    for f in sorted(PEERS.glob("*.json")):
        for c in json.loads(f.read_text()):
            src = c["source"]
            url = f"https://github.com/{src['repository']}/blob/{src['commit']}/{src['path']}"
            verdict = c["verdict"] + (" (after issue 30: identity)" if "identity" in c.get("tags", ()) else "")
            why = (c.get("why") or "").replace("|", "/")
            out.append(f"| [{src['repository']}]({url}) `{src['test']}` | {verdict} | {why} |")
    return out


def regenerate(text: str) -> str:
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return "\n".join([head + START, *rows(), END]) + tail


if __name__ == "__main__":
    PAGE.write_text(regenerate(PAGE.read_text()))
    print(f"{PAGE}: {len(rows()) - 2} cases")

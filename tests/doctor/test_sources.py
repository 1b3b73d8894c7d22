"""Where each store was read from is declared once, on its agent's record (``Agent.built_from``):
the README's and docs/stores.md's tables are that declaration, and each commit it names is one
the store's own modules, tests or documents already cite."""

from __future__ import annotations

import re
from pathlib import Path

from inspector.doctor import AGENTS
from inspector.doctor.agents import sources_markdown, sources_table

ROOT = Path(__file__).resolve().parents[2]
HEAD = "| agent | versions read | source (repo @ commit) |"


def _table(path: Path, head: str) -> list[str]:
    """The Markdown table of ``path`` whose header line starts with ``head``: its lines."""
    lines = path.read_text("utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(head)]
    assert len(starts) == 1, f"{path.name}: {len(starts)} tables start with {head!r}"
    out = []
    for line in lines[starts[0]:]:
        if not line.startswith("|"):
            break
        out.append(line)
    return out


def test_the_readme_table_is_the_declarations():
    want = sources_markdown().splitlines()
    assert _table(ROOT / "README.md", HEAD) == want, "README.md's table differs; it should read:\n" + sources_markdown()


def test_the_stores_doc_lists_every_source_declared():
    want = sources_markdown(full=True).splitlines()
    got = _table(ROOT / "docs" / "stores.md", HEAD[:-1])
    assert got == want, "docs/stores.md's table differs; it should read:\n" + sources_markdown(full=True)


def test_one_row_per_agent_the_doctor_knows():
    rows = sources_table()
    assert [r["agent"] for r in rows] == [a.title for a in AGENTS.values()]
    assert len(rows) == len({a.name for a in AGENTS.values()}) >= 11


def test_every_agent_says_what_it_read_and_at_which_commit():
    for agent in AGENTS.values():
        assert agent.versions, agent.name
        assert agent.built_from, agent.name
        assert any(s.commit for s in agent.built_from), f"{agent.name}: no commit read at all"
        for s in agent.built_from:
            assert "/" in s.repo, (agent.name, s)
            # A source without a commit says why; a commit is a hash.
            assert s.note if not s.commit else re.fullmatch(r"[0-9a-f]{7,40}", s.commit), (agent.name, s)


def _cited_elsewhere() -> str:
    """Every module, test and document of the project, without the declarations themselves
    (a ``Source("repo", "commit"`` call) and without the generated tables."""
    texts = []
    for path in [*ROOT.glob("inspector/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("docs/**/*.md")]:
        if path.name == Path(__file__).name:
            continue
        text = path.read_text("utf-8", errors="replace")
        text = re.sub(r'Source\(\s*"[^"]*",\s*"[0-9a-f]*"', "", text)
        if path.name == "stores.md":
            text = "\n".join(line for line in text.splitlines() if not line.startswith("|"))
        texts.append(text)
    return "\n".join(texts)


def test_each_commit_declared_is_one_the_store_already_cites():
    """Nothing invented: a commit in a declaration was read and cited where the store is described."""
    corpus = _cited_elsewhere()
    for agent in AGENTS.values():
        for s in agent.built_from:
            if s.commit:
                assert s.commit[:8] in corpus, f"{agent.name}: {s.repo} @ {s.commit} is cited nowhere else"

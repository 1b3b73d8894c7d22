"""Hostile session files of every store (issue 25): Claude Code and Codex JSON Lines, Gemini
CLI, Cline-family and OpenCode export documents, Agents SDK and OpenCode databases, with
loops and self-parents in their chains, ids used twice, cut last lines, CRLF, a BOM, bytes
that are not UTF-8, NULs, deep nesting, values of the wrong type and lines over a megabyte.
Each case goes through normalize, check and explain (``store_checks.check_case``), and each
store's fixed corpus through ``batch`` on its folder."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import TALLIES
from .store_checks import check_case, run
from .stores import CORPUS, STORES, make_db, make_file, ops_strategy

SUITE = "store files"
SCALE = max(1, int(os.environ.get("HOSTILE_SCALE", "1")))
SETTINGS = dict(deadline=None, derandomize=os.environ.get("HOSTILE_SEED") != "random", database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def write_case(folder: Path, store_name: str, ops, seed: int, huge: bool = False, tag: str = "") -> Path:
    store = STORES[store_name]
    path = folder / (tag + store.file)
    path.parent.mkdir(exist_ok=True)
    if store.kind == "db":
        make_db(store, path, list(ops), seed)
    else:
        path.write_bytes(make_file(store, list(ops), seed, huge))
    return path


@pytest.mark.parametrize("store, ops, huge", CORPUS, ids=lambda v: "-".join(v) if isinstance(v, tuple) else str(v))
def test_the_fixed_corpus(tmp_path, store, ops, huge):
    check_case(write_case(tmp_path, store, ops, 0, huge), f"{SUITE}: fixed corpus", STORES[store].kind)


@pytest.mark.parametrize("store", sorted(STORES))
def test_generated_cases(store):
    @settings(max_examples=8 * SCALE, **SETTINGS)
    @given(ops_strategy(STORES[store]), st.integers(0, 2**16))
    def case(ops, seed):
        with tempfile.TemporaryDirectory() as folder:
            check_case(write_case(Path(folder), store, ops, seed), f"{SUITE}: generated", STORES[store].kind)

    case()


@pytest.mark.parametrize("store", sorted(STORES))
def test_batch_on_a_folder_of_them(tmp_path, store):
    """``batch FOLDER``: one record per file; a file it cannot read is a failure naming it,
    never a skip; the mirror holds an output for every other one; nothing left behind."""
    src = tmp_path / "in"
    src.mkdir()
    cases = [(ops, huge) for s, ops, huge in CORPUS if s == store]
    for n, (ops, huge) in enumerate(cases):
        write_case(src, store, ops, n, huge, tag=f"{n:02d}/" if store == "cline" else f"{n:02d}-")
    out = tmp_path / "out"
    code, stdout, err = run(f"{SUITE}: batch", "batch", str(src), "-o", f"{out}/", "--workers", "1", "-q",
                            "--fail-on-error", "--errors", str(tmp_path / "errors.jsonl"))
    inputs = sorted(p.relative_to(src) for p in src.rglob("*") if p.is_file())
    written = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file()) if out.exists() else []
    failed = [line for line in (tmp_path / "errors.jsonl").read_text().splitlines()] \
        if (tmp_path / "errors.jsonl").exists() else []
    assert len(written) + len(failed) == len(inputs), (code, err, written, failed)
    assert code == (2 if failed else 0), (code, err)
    assert not [p for p in tmp_path.rglob("*") if re.match(r"\.(inspector|out|.*\.tmp)", p.name)]
    TALLIES[f"{SUITE}: batch records (one per file)"] += len(inputs)

"""What a format declares about itself (kind, suffixes, provider, whole files, sessions, the
kinds it emits) is what the rest of Inspector finds when it asks: the views keep no list."""

from __future__ import annotations

import shutil

import orjson
import pytest

from inspector import formats
from inspector.bundled import samples_dir
from inspector.engine import KINDS
from inspector.formats import REGISTRY
from inspector.io import InputError
from inspector.pipeline import parse, run_file
from inspector.targets import TARGETS

from sessions import agents_builder

SAMPLES = sorted(p for p in samples_dir().iterdir() if p.suffix in (".json", ".jsonl", ".db", ".sqlite") and p.name != "index.json")


def test_a_provider_is_a_target_and_a_session_resumes_against_one():
    for name, f in REGISTRY.items():
        assert f.provider is None or f.provider in TARGETS, name
        if f.is_session:
            assert f.provider is not None, name
    assert formats.provider("claude-code") == "anthropic" and formats.provider("flat") is None


def _one_document(data: bytes) -> bool:
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_is_read_under_a_declared_suffix_and_emits_only_declared_kinds(path):
    out = run_file(path)
    f = REGISTRY[out.imported.format]
    assert path.name.endswith(f.suffixes)
    assert formats.is_session_file(path) == f.is_session
    assert formats.writes_whole_file(f.name) == (not _one_document(out.data))   # JSONL or a database
    own = {k.name for k in f.kinds}
    for e in [*out.imported.events, *out.export_events]:
        assert e.kind in KINDS and e.kind in own, (e.kind, f.name)


def test_a_database_lists_its_sessions_and_one_is_chosen(tmp_path):
    db = agents_builder.make(tmp_path / "two.sqlite", {"a": agents_builder.orphan_output(), "b": agents_builder.clean()})
    document = parse(db.read_bytes(), "two.sqlite")
    listed = formats.sessions(document)
    assert [(s.id, s.items) for s in listed] == [("a", len(agents_builder.orphan_output())),
                                                 ("b", len(agents_builder.clean()))]
    assert all(s.first_user and s.last_activity for s in listed)
    assert formats.chosen_session(document) is None
    assert formats.chosen_session(formats.select_session(document, "b", "two.sqlite")) == "b"
    with pytest.raises(InputError, match="no session 'c'"):
        formats.select_session(document, "c", "two.sqlite")
    with pytest.raises(InputError, match="--session is for files that hold several sessions"):
        formats.select_session({"messages": []}, "a", "h.json")
    assert formats.sessions({"messages": []}) == []


def test_folder_session_files_follow_the_declared_suffixes(tmp_path):
    for p in SAMPLES:
        shutil.copyfile(p, tmp_path / p.name)
    shutil.copyfile(samples_dir() / "24-agents-sdk-session.db", tmp_path / "copy.sqlite3")
    found = {p.rsplit("/", 1)[-1] for p in formats.session_files(tmp_path)}
    sessions = {p.name for p in SAMPLES if REGISTRY[run_file(p).imported.format].is_session}
    assert found == sessions | {"copy.sqlite3"}


def test_an_unknown_format_is_one_error_naming_the_input():
    with pytest.raises(InputError, match=r"h\.json: unknown format 'nope'; known: flat, "):
        formats.import_history([], "h.json", "nope")
    with pytest.raises(InputError, match=r"unknown format 'nope'; known: same, flat, "):
        formats.known("nope", "--to", same=True)


def test_only_mem5s_own_list_has_no_import_step_to_show():
    """``explain`` and the TUI's view 0 show the import step for every format that maps a
    native document onto MEM-5's messages; the flat list is read one to one."""
    from inspector.formats import REGISTRY, has_import_step

    assert [n for n in REGISTRY if not has_import_step(n)] == ["flat"]

"""Codex's compressed rollouts (``rollout-*.jsonl.zst``, Codex 0.137+) and paginated ones.

The fixtures are rollouts built as codex-rs writes them (``tests/sessions/codex_builder.py``),
compressed as Codex's worker compresses them (zstd level 3, one frame;
openai/codex ``codex-rs/rollout/src/compression.rs`` at 3846901efe60, ``encode_zstd_to_writer``).
:func:`codex_reads` is an independent simulator of which file Codex opens and what it reads
(``existing_rollout_path``: the plain ``.jsonl`` when it exists, else the ``.jsonl.zst``,
decoded across frames as the Rust ``zstd`` decoder does); the resume itself is the simulator
of ``tests/sessions/test_codex_rollout.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector import cli
from inspector.io import InputError
from inspector.pipeline import load, run

from sessions import codex_builder
from sessions.test_codex_rollout import problems, resume

NAME = f"rollout-2025-10-12T09-14-03-{codex_builder.SESSION}.jsonl"


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"      # RFC 8878, 3.1.1


try:                                   # the zstd library itself, through its Python binding
    import zstandard

    def zst(data: bytes) -> bytes:
        """What Codex's worker writes: one zstd frame at level 3."""
        return zstandard.ZstdCompressor(level=3).compress(data)

    def unzst(data: bytes) -> bytes:
        return zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True).read()
except ImportError:                    # pragma: no cover - Python 3.14+, where the project does not pin it
    from compression import zstd       # type: ignore[import-not-found]

    def zst(data: bytes) -> bytes:
        return zstd.compress(data, 3)

    def unzst(data: bytes) -> bytes:
        return zstd.decompress(data)


def codex_reads(plain: Path) -> bytes | None:
    """The rollout Codex opens for ``plain`` (its .jsonl name): the plain file first, else the
    .zst beside it, decompressed whole; None when neither is there."""
    if plain.exists():
        return plain.read_bytes()
    packed = plain.with_name(plain.name + ".zst")
    if packed.exists():
        return unzst(packed.read_bytes())
    return None


def broken() -> bytes:
    """A rollout Codex cannot resume as it is: a retry wrote one call's output twice."""
    r = codex_builder.Rollout()
    r.user("Run the invoice tests.")
    r.call("call_Tx8wQ5", "pytest -q tests/test_invoices.py")
    r.output("call_Tx8wQ5", "command timed out", 124)
    r.output("call_Tx8wQ5", "14 passed")
    r.say("The tests pass.")
    return r.data()


def cli_run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- reading ------------------------------------------------------------------------------

def test_a_compressed_rollout_reads_as_the_plain_one():
    data = broken()
    plain, packed = load(data, NAME), load(zst(data), NAME + ".zst")
    assert packed.format == plain.format == "codex-rollout"
    assert packed.messages == plain.messages
    assert [e.kind for e in packed.events] == [e.kind for e in plain.events]
    assert [str(s.describe()) for s in packed.sources] == [str(s.describe()) for s in plain.sources]
    assert any("compressed rollout" in n for n in packed.notes)
    assert not any("compressed rollout" in n for n in plain.notes)


def test_a_rollout_in_several_zstd_frames_is_read_whole():
    """The Rust decoder Codex uses reads frame after frame; so does the reader."""
    data = broken()
    lines = data.splitlines(keepends=True)
    frames = b"".join(zst(b"".join(lines[i:i + 3])) for i in range(0, len(lines), 3))
    assert len(frames) > len(zst(data))
    assert load(frames, NAME + ".zst").messages == load(data, NAME).messages


def test_a_cut_compressed_rollout_is_a_clear_error_naming_the_file(tmp_path, capsys):
    path = tmp_path / (NAME + ".zst")
    whole = zst(broken())
    path.write_bytes(whole[: len(whole) // 2])
    code, _, err = cli_run(capsys, "check", str(path))
    assert code == 2
    assert str(path) in err and "zstd" in err and "Traceback" not in err


# -- writing ------------------------------------------------------------------------------

def test_normalize_writes_the_plain_form_codex_reads_first(tmp_path, capsys):
    data = broken()
    packed = tmp_path / (NAME + ".zst")
    packed.write_bytes(zst(data))
    plain_input = tmp_path / "plain" / NAME
    plain_input.parent.mkdir()
    plain_input.write_bytes(data)
    code, _, err = cli_run(capsys, "normalize", str(packed))
    assert code == 0
    written = tmp_path / NAME.replace(".jsonl", ".repaired.jsonl")
    assert written.is_file(), err
    assert not written.read_bytes().startswith(ZSTD_MAGIC)
    # the same repair as of the plain rollout, byte for byte
    assert written.read_bytes() == run(data, NAME).data
    assert problems(data) and not problems(written.read_bytes())
    # a fixed point: read again, nothing changes
    assert run(written.read_bytes(), NAME).data == written.read_bytes()
    assert packed.read_bytes() == zst(data)                  # the input is never written over


def test_in_place_leaves_one_form_on_disk_the_repair_codex_reads(tmp_path, capsys):
    data = broken()
    packed = tmp_path / (NAME + ".zst")
    packed.write_bytes(zst(data))
    plain = tmp_path / NAME
    assert codex_reads(plain) == data and problems(codex_reads(plain))
    code, _, err = cli_run(capsys, "normalize", "--in-place", str(packed))
    assert code == 0, err
    assert f"repaired as {plain}" in err and f"kept as {packed}.bak" in err
    # the plain repair is what Codex opens, and the .zst is gone: no two forms to disagree
    assert not packed.exists()
    assert codex_reads(plain) == run(data, NAME).data
    assert not problems(codex_reads(plain))
    backup = tmp_path / (NAME + ".zst.bak")
    assert backup.read_bytes() == zst(data)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([NAME, backup.name])


def test_in_place_on_a_zst_hidden_by_its_plain_sibling_writes_nothing(tmp_path, capsys):
    data = broken()
    packed = tmp_path / (NAME + ".zst")
    packed.write_bytes(zst(data))
    (tmp_path / NAME).write_bytes(data)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, _, err = cli_run(capsys, "normalize", "--in-place", str(packed))
    assert code == 2
    assert "Codex reads" in err and NAME in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_batch_mirrors_a_compressed_rollout_as_the_plain_file_codex_reads(tmp_path, capsys):
    data = broken()
    source = tmp_path / "in" / "2025" / (NAME + ".zst")
    source.parent.mkdir(parents=True)
    source.write_bytes(zst(data))
    code, _, err = cli_run(capsys, "batch", str(tmp_path / "in"), "-o", str(tmp_path / "out") + "/")
    assert code in (0, 1), err
    assert [p.name for p in (tmp_path / "out").rglob("*") if p.is_file()] == [NAME]
    assert (tmp_path / "out" / "2025" / NAME).read_bytes() == run(data, NAME).data


def test_batch_reads_the_plain_form_and_says_why_it_skips_the_zst_beside_it(tmp_path, capsys):
    data = broken()
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / (NAME + ".zst")).write_bytes(zst(data))
    (tmp_path / "in" / NAME).write_bytes(data)
    code, _, err = cli_run(capsys, "batch", str(tmp_path / "in"), "-o", str(tmp_path / "out") + "/")
    assert code in (0, 1), err
    assert [p.name for p in (tmp_path / "out").rglob("*") if p.is_file()] == [NAME]
    [line] = [l for l in err.splitlines() if l.startswith("batch: ") and ".zst" in l]
    assert "skipped" in line and "plain session file beside it" in line


def test_the_tui_proposes_the_plain_repaired_name_for_a_compressed_rollout():
    from inspector.tui.screens.export import default_export_path

    assert default_export_path(f"/h/{NAME}.zst") == f"/h/{NAME.replace('.jsonl', '.repaired.jsonl')}"


def test_share_makes_a_case_of_a_compressed_rollout(tmp_path, capsys):
    packed = tmp_path / (NAME + ".zst")
    packed.write_bytes(zst(broken()))
    code, _, err = cli_run(capsys, "share", str(packed), "-o", str(tmp_path / "case.jsonl"))
    assert code == 0, err
    case = (tmp_path / "case.jsonl").read_bytes()
    assert not case.startswith(ZSTD_MAGIC)
    assert [e.kind for e in run(case, "case.jsonl").events] == [e.kind for e in run(broken(), NAME).events]


def test_why_fix_writes_the_plain_repaired_copy(tmp_path, capsys):
    data = codex_builder.crash_missing_output()
    packed = tmp_path / (NAME + ".zst")
    packed.write_bytes(zst(data))
    code, out, err = cli_run(capsys, "why", "--fix", "No tool output found for function call call_Qz81Lm.", str(packed))
    written = tmp_path / NAME.replace(".jsonl", ".repaired.jsonl")
    assert written.is_file(), out + err
    assert written.read_bytes() == run(data, NAME).data


def test_in_place_writes_nothing_when_codex_touches_the_zst_meanwhile(tmp_path, capsys, monkeypatch):
    """Codex's worker or a resume may rewrite the .zst while the repair is written: the
    plain file is taken back, the .zst stays as Codex left it, and no backup is made."""
    import inspector.formats.codex_zst as where

    data = broken()
    packed = tmp_path / (NAME + ".zst")
    packed.write_bytes(zst(data))
    real = where.write_new

    def codex_writes(path, blob, mode=None):
        real(path, blob, mode)
        packed.write_bytes(zst(data + data[:0]) + zst(b""))      # another frame: Codex re-wrote it

    monkeypatch.setattr(where, "write_new", codex_writes)
    code, _, err = cli_run(capsys, "normalize", "--in-place", str(packed))
    assert code == 2 and "changed" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [packed.name]
    assert unzst(packed.read_bytes()) == data


# -- which form is read -------------------------------------------------------------------

def test_check_on_a_folder_lists_a_session_once_as_the_form_codex_reads(tmp_path, capsys):
    data = broken()
    (tmp_path / (NAME + ".zst")).write_bytes(zst(data))
    (tmp_path / NAME).write_bytes(data)
    other = NAME.replace("1a07", "1a08")
    (tmp_path / (other + ".zst")).write_bytes(zst(data))
    _, out, err = cli_run(capsys, "check", str(tmp_path))
    listed = [line.split(":")[0] for line in (out + err).splitlines() if line.startswith(str(tmp_path))]
    assert sorted(Path(p).name for p in listed) == sorted([NAME, other + ".zst"])


def test_each_form_says_which_one_codex_reads_when_both_are_there(tmp_path):
    data = broken()
    packed, plain = tmp_path / (NAME + ".zst"), tmp_path / NAME
    packed.write_bytes(zst(data))
    plain.write_bytes(data)
    read_plain = load(data, str(plain))
    read_packed = load(zst(data), str(packed))
    assert any("Codex reads this plain file" in n for n in read_plain.notes)
    assert any("Codex reads that plain file, not this one" in n for n in read_packed.notes)


# -- paginated rollouts -------------------------------------------------------------------

def paginated(meta: dict | None = None, items: bool = True) -> bytes:
    """A rollout of a paginated thread (Codex 0.153+): ``history_mode`` in the session_meta,
    records with their ``ordinal`` (codex-rs/rollout ``RolloutLine``)."""
    r = codex_builder.Rollout()
    r.lines[0]["payload"].update({"cli_version": "0.153.0", "history_mode": "paginated", **(meta or {})})
    if items:
        r.user("Run the invoice tests.")
        r.call("call_Tx8wQ5", "pytest -q")
        r.output("call_Tx8wQ5", "14 passed")
        r.output("call_Tx8wQ5", "14 passed")
    else:
        r._line("event_msg", {"type": "item_completed", "thread_id": codex_builder.SESSION, "turn_id": "turn-1",
                              "item": {"type": "UserMessage", "id": "item-1",
                                       "content": [{"type": "text", "text": "Run the invoice tests."}]}})
    for n, line in enumerate(r.lines):
        line["ordinal"] = n
    return r.data()


def test_a_paginated_rollout_that_starts_its_own_history_is_read_from_its_response_items():
    data = paginated()
    im = load(data, NAME)
    assert [m.get("role") for m in im.messages] == ["user", "assistant", "tool", "tool"]
    assert any("paginated" in n for n in im.notes)
    assert len(resume(data)) == 4                       # the simulator agrees on what is sent
    assert not problems(run(data, NAME).data)


def test_a_paginated_page_continuing_another_thread_is_refused_with_the_reason():
    base = {"thread_id": "0199d3f2-0000-7000-8000-000000000001", "end_ordinal_exclusive": 40, "end_byte_offset": 9000}
    with pytest.raises(InputError) as caught:
        load(paginated({"history_base": base}), NAME)
    text = str(caught.value)
    assert base["thread_id"] in text and "40" in text and "codex migrate-rollouts" in text


def test_a_paginated_rollout_of_turn_items_only_is_refused_with_the_reason():
    with pytest.raises(InputError) as caught:
        load(paginated(items=False), NAME)
    assert "item_completed" in str(caught.value) and "codex migrate-rollouts" in str(caught.value)


def test_the_bundled_sample_is_compressed_and_repairs_to_a_fixed_point():
    from inspector.bundled import samples_dir

    sample = samples_dir() / "33-codex-rollout-compressed.jsonl.zst"
    raw = sample.read_bytes()
    assert raw.startswith(ZSTD_MAGIC)
    assert load(raw, sample.name).format == "codex-rollout"
    out = run(raw, sample.name).data
    assert problems(unzst(raw))
    assert not problems(out)
    assert run(out, "again.jsonl").data == out

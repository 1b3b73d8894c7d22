"""The playground's edit model (inspector.tui.edits): pure, so checked without a screen."""

from __future__ import annotations

import copy

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from inspector import pipeline
from inspector.bundled import samples_dir
from inspector.tui.edits import (
    EditHistory, Native, NotEditable, Target, delete_edit, insert_edit, move_edit, parse_value,
    replace_edit, target_of, value_of,
)
from inspector.io import InputError

SAMPLES = samples_dir()


def native_of(name: str) -> tuple[Native, bytes, object]:
    data = (SAMPLES / name).read_bytes()
    imported = pipeline.load(data, name)
    return Native.of(imported.document, imported.history, imported.container), data, imported


def dump(native: Native, fmt: str) -> bytes:
    from inspector.formats import REGISTRY

    return native.data(lambda d: REGISTRY[fmt].dump(d, False))


# -- one edit at a time ------------------------------------------------------------------
def test_deleting_an_entry_removes_it_and_undo_gives_back_the_same_objects():
    native, _, imported = native_of("12-clean-history.json")
    history = EditHistory(native)
    before = history.current.items
    history.apply(delete_edit(history.current, Target("entries", 3)))
    assert len(history.current) == len(before) - 1
    assert history.current.items[3] is before[4]
    assert history.describe() == "edit 1 of 1" and history.unsaved
    history.undo()
    assert all(a is b for a, b in zip(history.current.items, before)) and len(history.current) == len(before)
    assert history.describe() == "edit 0 of 1" and not history.edited
    history.redo()
    assert len(history.current) == len(before) - 1


def test_an_edit_never_changes_the_document_it_was_read_from():
    native, _, imported = native_of("13-anthropic-retry-and-parallel-call.json")
    frozen = copy.deepcopy(imported.document)
    history = EditHistory(native)
    for i, loc in enumerate(imported.sources):
        target = target_of(history.current, loc)
        history.apply(replace_edit(history.current, target, {"edited": i}))
    history.apply(delete_edit(history.current, Target("entries", 0)))
    assert imported.document == frozen


def test_a_row_from_one_block_is_edited_as_that_block():
    native, _, imported = native_of("13-anthropic-retry-and-parallel-call.json")
    row = next(i for i, loc in enumerate(imported.sources) if loc.blocks is not None and len(loc.blocks) == 1)
    loc = imported.sources[row]
    target = target_of(native, loc)
    assert target.kind == "block" and (target.start, target.key, target.block) == (loc.message, loc.key, loc.blocks[0])
    block = value_of(native, target)
    assert block is imported.history[loc.message][loc.key][loc.blocks[0]]
    after = EditHistory(native).apply(delete_edit(native, target))
    message = after.items[loc.message]
    assert len(message[loc.key]) == len(imported.history[loc.message][loc.key]) - 1
    assert block not in message[loc.key]


def test_a_top_level_field_is_set_and_removed():
    native, _, imported = native_of("13-anthropic-retry-and-parallel-call.json")
    row = next((i for i, loc in enumerate(imported.sources) if isinstance(loc.message, str)), None)
    if row is None:
        pytest.skip("the sample has no top-level system field")
    target = target_of(native, imported.sources[row])
    assert target.kind == "field"
    history = EditHistory(native)
    history.apply(delete_edit(history.current, target))
    assert target.name not in history.current.document()
    history.undo()
    assert history.current.document()[target.name] == imported.document[target.name]


def test_moving_past_the_edge_is_no_edit():
    native, _, _ = native_of("12-clean-history.json")
    assert move_edit(native, Target("entries", 0), -1) is None
    assert move_edit(native, Target("entries", len(native) - 1), 1) is None
    moved = move_edit(native, Target("entries", 1), 1)
    assert moved is not None
    after = moved.apply(native)
    assert after.items[2] is native.items[1] and after.items[1] is native.items[2]


def test_an_edit_that_does_not_fit_the_state_is_refused():
    native, _, _ = native_of("12-clean-history.json")
    stale = delete_edit(native, Target("entries", 1))
    history = EditHistory(native)
    history.apply(delete_edit(native, Target("entries", 0)))
    with pytest.raises(ValueError):
        history.apply(stale)


def test_a_new_edit_after_an_undo_drops_what_was_undone():
    native, _, _ = native_of("12-clean-history.json")
    history = EditHistory(native)
    history.apply(delete_edit(history.current, Target("entries", 0)))
    history.apply(delete_edit(history.current, Target("entries", 0)))
    history.undo()
    assert history.describe() == "edit 1 of 2"
    history.apply(insert_edit(history.current, None, ["new"], "a string"))
    assert history.describe() == "edit 2 of 2" and history.redo() is None


def test_saved_follows_the_position():
    native, _, _ = native_of("12-clean-history.json")
    history = EditHistory(native)
    history.apply(delete_edit(history.current, Target("entries", 0)))
    history.saved = history.position
    assert not history.unsaved
    history.undo()
    assert not history.unsaved  # nothing edited: nothing to lose
    history.redo()
    assert not history.unsaved
    history.apply(delete_edit(history.current, Target("entries", 0)))
    assert history.unsaved


def test_the_editor_text_is_parsed_with_line_and_column():
    assert parse_value('{"role": "user"}') == {"role": "user"}
    with pytest.raises(InputError) as caught:
        parse_value('{\n  "role": "user",\n  oops\n}')
    assert (caught.value.line, caught.value.column) == (3, 3)
    with pytest.raises(InputError):
        parse_value("   ")


def test_a_store_that_is_not_a_json_document_or_lines_is_not_editable():
    with pytest.raises(NotEditable):
        Native.of(object(), [], None)
    with pytest.raises(NotEditable):  # a body whose history is not the list the import read
        Native.of({"messages": []}, [], "messages")


# -- any sequence of edits, undone, gives back the input ------------------------------------
FILES = ["12-clean-history.json", "04-duplicate-after-retry.json", "13-anthropic-retry-and-parallel-call.json",
         "14-openai-responses-lost-output.json", "15-gemini-calls-without-ids.json", "22-codex-rollout.jsonl",
         "21-claude-code-session.jsonl"]
ENTRY = st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=8),
                  st.fixed_dictionaries({"role": st.sampled_from(["user", "tool", "assistant"]),
                                         "content": st.text(max_size=8)}))
OPS = st.lists(st.tuples(st.sampled_from(["edit", "delete", "insert", "up", "down", "undo", "redo"]),
                         st.integers(0, 40), ENTRY), max_size=25)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(FILES), ops=OPS)
def test_undoing_every_edit_gives_back_the_original_bytes(name, ops):
    native, data, imported = native_of(name)
    fmt = imported.format
    original = dump(native, fmt)
    if native.shape == "lines":
        assert original == data  # a session file's lines are its own bytes
    history = EditHistory(native)
    for op, where, value in ops:
        current = history.current
        if op == "undo":
            history.undo()
            continue
        if op == "redo":
            history.redo()
            continue
        if not len(current) and op != "insert":
            continue
        k = where % len(current) if len(current) else 0
        target = Target("entries", k)
        if op == "edit":
            edit = replace_edit(current, target, value)
        elif op == "delete":
            edit = delete_edit(current, target)
        elif op == "insert":
            edit = insert_edit(current, target if len(current) else None, [value], "a value")
        else:
            edit = move_edit(current, target, -1 if op == "up" else 1)
        if edit is not None:
            history.apply(edit)
        orjson.dumps(history.current.items)  # every state is a document that can be written
    while history.undo() is not None:
        pass
    assert dump(history.current, fmt) == original
    assert not history.edited
    assert imported.document == pipeline.load(data, name).document  # the input's own objects untouched


def test_discard_takes_the_last_edit_back_with_nothing_to_redo():
    native, _, _ = native_of("12-clean-history.json")
    history = EditHistory(native)
    history.apply(delete_edit(history.current, Target("entries", 0)))
    history.discard()
    assert history.current is not native and history.current.items == native.items
    assert history.redo() is None and history.total == 0

"""Arrow values read as the JSON they were: struct fields that are null are absent keys,
null entries of a list (or values of a map) are JSON nulls; and writing back, what a struct
type has no field for is found before pyarrow would drop it without a word."""

from __future__ import annotations

import pytest

from extras import need

need("pyarrow", "parquet")

import pyarrow as pa  # noqa: E402

from inspector.batch.arrow_values import json_values, misfit  # noqa: E402

NESTED = [
    [{"role": "user", "content": "hi"}, None, {},
     {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f"}}, None]}],
    None,
    [],
    [{"role": "tool", "content": "r", "tool_call_id": "c1", "score": 0.5, "tags": ["a", None]}],
]


def test_struct_nulls_are_absent_and_entry_nulls_are_kept():
    array = pa.array(NESTED)
    assert json_values(array) == NESTED          # the JSON it was built from, absent keys absent
    assert array.to_pylist()[0][0]["tool_calls"] is None   # while Arrow itself says null


@pytest.mark.parametrize("start,length", [(0, 4), (1, 3), (3, 1), (2, 0)])
def test_a_slice_reads_only_its_rows(start, length):
    assert json_values(pa.array(NESTED).slice(start, length)) == NESTED[start:start + length]


def test_every_value_written_back_through_pyarrow_is_the_array_again():
    array = pa.array(NESTED)
    assert pa.array(json_values(array), type=array.type).equals(array)


def test_maps_keep_null_values_and_dictionaries_are_decoded():
    maps = pa.array([{"a": 1, "b": None}, None], type=pa.map_(pa.string(), pa.int64()))
    assert json_values(maps) == [{"a": 1, "b": None}, None]
    words = pa.array(["x", None, "x"]).dictionary_encode()
    assert json_values(words) == ["x", None, "x"]
    empty = pa.array([{}, None], type=pa.struct([]))
    assert json_values(empty) == [{}, None]


def test_misfit_names_the_path_to_what_the_type_has_no_place_for():
    typ = pa.array(NESTED).type
    assert misfit(NESTED[0], typ) is None
    extra = [{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f", "strict": True}}]}]
    assert misfit(extra, typ) == "[0].tool_calls[0].function has a field 'strict' that the type lacks"
    assert misfit([{"role": "user", "content": "x", "name": "n"}], typ) == "[0] has a field 'name' that the type lacks"
    assert misfit({"role": "user"}, typ) == "the history is an object where the type holds a list"
    assert misfit([["role"]], typ) == "[0] is an array where the type holds an object"

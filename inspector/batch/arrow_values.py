"""Arrow values as the JSON a history was, and back: which nulls are absent keys.

A struct type has a fixed set of fields, so a dataset built from JSON objects that did not
all carry the same keys (a user message has no ``tool_calls``, an assistant turn no
``tool_call_id``) holds a null wherever a key was missing: Arrow adds them. Reading a
struct, a null field is therefore an absent key, as ``datasets`` and ``pyarrow.json`` wrote
it. Arrow never adds an element to a list or a value to a map, so a null there is a real
JSON null (a ``null`` entry of the history is kept, and the engine drops it as it drops it
from a file). A struct column cannot tell ``"content": null`` from no ``content``; a
JSON-string column can, and keeps every null it holds.

Writing back, a key the struct type has no field for would be silently lost by
``pyarrow.array``: :func:`misfit` finds it first, so the row fails with the path named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..engine import kind_of

Reader = Callable[[Any], Any]


def is_text(typ: Any) -> bool:
    """A column of JSON text (string or binary of any width) rather than values."""
    import pyarrow.types as t

    return (t.is_string(typ) or t.is_large_string(typ) or t.is_binary(typ) or t.is_large_binary(typ)
            or _is(t, "is_string_view", typ) or _is(t, "is_binary_view", typ))


def _is(types: Any, name: str, typ: Any) -> bool:
    test = getattr(types, name, None)
    return bool(test and test(typ))


def _value_type(typ: Any) -> Any | None:
    """The element type of any list type (list, large, fixed-size, view), else None."""
    import pyarrow.types as t

    for name in ("is_list", "is_large_list", "is_fixed_size_list", "is_list_view", "is_large_list_view"):
        if _is(t, name, typ):
            return typ.value_type
    return None


def reader(typ: Any) -> Reader | None:
    """A function from ``Array.to_pylist(maps_as_pydicts="strict")`` values of ``typ`` to
    JSON values, dropping struct fields that are null; None when the values are JSON
    already (no struct anywhere inside)."""
    import pyarrow.types as t

    if t.is_dictionary(typ):
        return reader(typ.value_type)
    if t.is_struct(typ):
        fields = [(typ.field(i).name, reader(typ.field(i).type)) for i in range(typ.num_fields)]

        def read_struct(value: Any) -> Any:
            if value is None:
                return None
            out = {}
            for name, sub in fields:
                item = value[name]
                if item is not None:
                    out[name] = sub(item) if sub is not None else item
            return out
        return read_struct
    element = _value_type(typ)
    if element is not None:
        sub = reader(element)
        if sub is None:
            return None
        return lambda value: None if value is None else [sub(item) for item in value]
    if t.is_map(typ):
        sub = reader(typ.item_type)
        if sub is None:
            return None
        return lambda value: None if value is None else {k: sub(v) for k, v in value.items()}
    return None


def misfit(value: Any, typ: Any, path: str = "") -> str | None:
    """What in ``value`` the Arrow type ``typ`` has no place for (a key its struct lacks, an
    object or a list where it holds none), said with the path to it; None when it all fits.
    Scalars are left to ``pyarrow.array``, which refuses a wrong one itself."""
    import pyarrow.types as t

    if value is None:
        return None
    where = path or "the history"
    if t.is_dictionary(typ):
        return misfit(value, typ.value_type, path)
    if t.is_struct(typ):
        if not isinstance(value, Mapping):
            return f"{where} is {kind_of(value)} where the type holds an object"
        for key, item in value.items():
            index = typ.get_field_index(key) if isinstance(key, str) else -1
            if index < 0:
                return f"{where} has a field {key!r} that the type lacks"
            found = misfit(item, typ.field(index).type, f"{path}.{key}")
            if found:
                return found
        return None
    element = _value_type(typ)
    if element is not None:
        if not isinstance(value, list):
            return f"{where} is {kind_of(value)} where the type holds a list"
        for i, item in enumerate(value):
            found = misfit(item, element, f"{path}[{i}]")
            if found:
                return found
        return None
    if t.is_map(typ):
        if not isinstance(value, Mapping):
            return f"{where} is {kind_of(value)} where the type holds an object"
        for key, item in value.items():
            found = misfit(item, typ.item_type, f"{path}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(value, (Mapping, list)):
        return f"{where} is {kind_of(value)} where the type holds {typ}"
    return None

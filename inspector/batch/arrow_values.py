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


def json_values(array: Any) -> list[Any]:
    """The values of an Arrow array as JSON, null struct fields left out, built a column at a
    time: a struct's fields and a list's elements are converted as whole arrays and then
    assembled, several times faster than ``to_pylist`` walking one struct scalar at a time."""
    import pyarrow.types as t

    typ = array.type
    if t.is_dictionary(typ):
        return json_values(array.dictionary_decode())
    if t.is_struct(typ):
        import pyarrow.compute as pc

        names = [typ.field(i).name for i in range(typ.num_fields)]
        children = [array.field(i) for i in range(typ.num_fields)]
        out = [dict(zip(names, row)) for row in zip(*map(json_values, children))] if names else \
            [{} for _ in range(len(array))]
        for name, child in zip(names, children):
            if child.null_count:                   # the keys Arrow added: left out
                for j in pc.indices_nonzero(child.is_null()).to_pylist():
                    del out[j][name]
        if array.null_count:                       # a null entry is the JSON null
            for j in pc.indices_nonzero(array.is_null()).to_pylist():
                out[j] = None
        return out
    if t.is_list(typ) or t.is_large_list(typ):
        offsets = array.offsets.to_pylist()
        if not offsets:
            return []
        base = offsets[0]
        items = json_values(array.values.slice(base, offsets[-1] - base))
        out = [items[a - base:b - base] for a, b in zip(offsets, offsets[1:])]
        if array.null_count:
            for j, valid in enumerate(array.is_valid().to_pylist()):
                if not valid:
                    out[j] = None
        return out
    read = reader(typ)
    values = array.to_pylist(maps_as_pydicts="strict") if _has_map(typ) else array.to_pylist()
    return values if read is None else [read(v) for v in values]


def _has_map(typ: Any) -> bool:
    import pyarrow.types as t

    if t.is_map(typ):
        return True
    if t.is_struct(typ):
        return any(_has_map(typ.field(i).type) for i in range(typ.num_fields))
    if t.is_dictionary(typ):
        return _has_map(typ.value_type)
    element = _value_type(typ)
    return element is not None and _has_map(element)


Fit = Callable[[Any], "list[str] | None"]


def fitter(typ: Any) -> Fit | None:
    """A check that a JSON value has a place for everything in the Arrow type ``typ``: it
    returns None, or what does not fit followed by the path to it, innermost first. None
    for a type whose values pyarrow checks itself (scalars: it refuses a wrong one)."""
    import pyarrow.types as t

    if t.is_dictionary(typ):
        return fitter(typ.value_type)
    if t.is_struct(typ):
        names = frozenset(typ.field(i).name for i in range(typ.num_fields))
        nested = [(typ.field(i).name, sub) for i in range(typ.num_fields) if (sub := fitter(typ.field(i).type))]

        def fit_struct(value: Any) -> list[str] | None:
            if not isinstance(value, Mapping):
                return [f"is {kind_of(value)} where the type holds an object"]
            if not value.keys() <= names:
                key = next(k for k in value if k not in names)
                return [f"has a field {key!r} that the type lacks"]
            for key, sub in nested:
                item = value.get(key)
                if item is not None:
                    bad = sub(item)
                    if bad is not None:
                        bad.append(f".{key}")
                        return bad
            return None
        return fit_struct
    element = _value_type(typ)
    if element is not None or t.is_map(typ):
        sub = fitter(element if element is not None else typ.item_type)
        mapping = element is None

        def fit_list(value: Any) -> list[str] | None:
            if mapping and not isinstance(value, Mapping):
                return [f"is {kind_of(value)} where the type holds an object"]
            if not mapping and not isinstance(value, list):
                return [f"is {kind_of(value)} where the type holds a list"]
            if sub is None:
                return None
            for key, item in (value.items() if mapping else enumerate(value)):
                if item is not None:
                    bad = sub(item)
                    if bad is not None:
                        bad.append(f"[{key!r}]" if mapping else f"[{key}]")
                        return bad
            return None
        return fit_list
    return None


def misfit(value: Any, typ: Any, fit: Fit | None = None) -> str | None:
    """What in ``value`` the Arrow type ``typ`` has no place for (a key its struct lacks, an
    object or a list where it holds none), said with the path to it; None when it all fits
    (``fit``: ``fitter(typ)``, made once for many values)."""
    fit = fit if fit is not None else fitter(typ)
    bad = fit(value) if fit is not None and value is not None else None
    if bad is None:
        return None
    path = "".join(reversed(bad[1:]))
    return f"{path or 'the history'} {bad[0]}"

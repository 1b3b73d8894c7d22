"""Parquet datasets: repaired row group by row group, written back with the input's schema.

A task is one row group of one file (:class:`Group`): a worker (a local process or a Dask
worker, where the file lies) reads just that group, repairs the history column slice by
slice (``SLICE`` rows of Python objects at a time), and hands back an Arrow table of the
same schema: the history column in the representation it came in (structs stay structs,
JSON text stays JSON text), every other column the very Arrow buffers that were read, rows
in order. A row that cannot be repaired is left out (as a JSONL record is) and named in the
errors file by its row number. The output keeps the input's row groups one for one, its
schema with its metadata (``huggingface`` features, ``pandas``) and its compression codecs.
Memory is one row group in and out, whatever the number of rows in the file.

pyarrow is an optional extra (``pip install 'inspector[parquet]'``): it is imported when a
Parquet file is met, never by the rest of the package.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..io import InputError, JSONWriteError, OutputError, atomic_stream, describe_os_error, printable, write_failure
from .arrow_values import fitter, is_text, json_values, misfit
from .cells import CELL, Columns, excerpt, repair
from .changes import change_line, tally
from .report import Health

if TYPE_CHECKING:   # the worker runs row groups: this module does not import it
    from .worker import Conversion

SUFFIXES = (".parquet", ".pq", ".parq")
SLICE = 1024   # rows turned into Python objects at once: bounds memory inside a large row group


def is_parquet(path: str) -> bool:
    return str(path).lower().endswith(SUFFIXES)


def arrow() -> tuple[Any, Any]:
    """``(pyarrow, pyarrow.parquet)``, or a clear error when the extra is not installed."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise InputError("parquet", "reading and writing Parquet needs pyarrow: "
                                    "pip install 'inspector[parquet]'") from None
    return pyarrow, pyarrow.parquet


@dataclass(frozen=True, slots=True)
class Layout:
    """What a Parquet file holds, read from its footer alone (no data page is read)."""

    name: str                  # as the user named it
    path: str                  # absolute, to open on any worker
    schema: Any                # pyarrow.Schema, metadata included
    groups: tuple[int, ...]    # rows per row group
    sizes: tuple[int, ...]     # compressed bytes per row group
    compression: Any           # what the writer is given to keep the input's codecs

    @property
    def rows(self) -> int:
        return sum(self.groups)


@dataclass(frozen=True, slots=True)
class Group:
    """One task: row group ``index`` of a file, whose first row is row ``first`` of the file."""

    name: str
    path: str
    index: int
    first: int
    rows: int
    size: int


@dataclass(slots=True)
class GroupResult:
    """What one row group gave: its output rows (``table``, or an Arrow IPC file ``part``
    holding them), the change log's lines, the failed rows' errors-file entries, its health
    (rows counted from the group's first row)."""

    group: Group
    health: Health
    changes: bytes = b""
    errors: list[dict[str, Any]] = field(default_factory=list)
    table: Any = None
    part: str | None = None


def open_layout(path: str, columns: Columns, name: str | None = None) -> Layout:
    """The file's layout, after checking that it is Parquet and has the columns asked for."""
    _, pq = arrow()
    name = name or str(path)
    try:
        metadata = pq.read_metadata(path)
        schema = pq.read_schema(path)
    except OSError as exc:
        raise InputError(name, f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    except Exception as exc:  # noqa: BLE001 - pyarrow raises ArrowInvalid for a file that is not Parquet
        raise InputError(name, f"not a Parquet file: {exc}") from None
    names = schema.names
    for column, option in ((columns.history, "--column"), (columns.id, "--id-column")):
        if column is not None and column not in names:
            raise InputError(name, f"no column {column!r} ({option}); the file has: {', '.join(names)}")
    groups = tuple(metadata.row_group(i).num_rows for i in range(metadata.num_row_groups))
    sizes = tuple(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
    return Layout(name, os.path.abspath(path), schema, groups, sizes, _codecs(metadata))


def _codecs(metadata: Any) -> Any:
    """Each leaf column's codec as the first row group has it (``{path: codec}``)."""
    if not metadata.num_row_groups:
        return "snappy"
    first = metadata.row_group(0)
    codecs = {}
    for j in range(first.num_columns):
        chunk = first.column(j)
        codecs[chunk.path_in_schema] = "none" if chunk.compression == "UNCOMPRESSED" else chunk.compression.lower()
    return codecs


def plan_groups(layout: Layout) -> Iterator[Group]:
    first = 0
    for index, (rows, size) in enumerate(zip(layout.groups, layout.sizes)):
        yield Group(layout.name, layout.path, index, first, rows, size)
        first += rows


def same_schema(first: Layout, other: Layout) -> None:
    """Several files go into one output: their schemas must be one schema."""
    if not other.schema.equals(first.schema, check_metadata=False):
        raise InputError(other.name, f"its schema differs from {first.name!r}'s; Parquet inputs written to one "
                                     "output must share one schema")


def check_inputs(inputs: list[str], columns: Columns) -> list[Layout]:
    """Every input's layout; all must share the first one's schema (one output file)."""
    layouts: list[Layout] = []
    for path in inputs:
        if path == "-":
            raise InputError("-", "Parquet is read from files, not from standard input; save it to a file")
        layout = open_layout(path, columns, path)
        if layouts:
            same_schema(layouts[0], layout)
        layouts.append(layout)
    return layouts


def run_group(group: Group, conversion: Conversion, part: str | None = None) -> GroupResult:
    """Read one row group and repair its history column; with ``part``, the output rows
    go to that Arrow IPC file instead of the result (so that no process pickles them)."""
    pa, pq = arrow()
    source = pq.ParquetFile(group.path)
    try:
        # A damaged page fails in the codec (OSError), in Arrow's checks, or only when its
        # values are read (text that is not UTF-8): this group's rows fail, the batch goes on.
        result = repair_table(source.read_row_group(group.index), group, conversion, Columns.of(conversion))
    except (OSError, pa.ArrowException, UnicodeError, ValueError, OverflowError) as exc:
        result = unreadable_group(source.schema_arrow.empty_table(), group, exc)
    if part is not None:
        with pa.OSFile(part, "wb") as sink, pa.ipc.new_file(sink, result.table.schema) as writer:
            writer.write_table(result.table)
        result.table, result.part = None, part
    return result


def unreadable_group(empty: Any, group: Group, exc: BaseException) -> GroupResult:
    """A row group that cannot be read (a damaged page, a codec's error): each of its rows a
    failed record naming the file and the group, as a damaged line of a JSON Lines file is
    (R3-34); no output row."""
    said = " ".join(str(describe_os_error(exc) if isinstance(exc, OSError) else exc).split())
    # The codec's text can quote the damaged bytes: one line, control characters escaped.
    said = printable(said)
    reason = (f"row group {group.index} of {group.name} cannot be read (rows {group.first} to "
              f"{group.first + group.rows - 1}): {said}")
    result = GroupResult(group, Health(), table=empty)
    result.health.unread.append(reason)
    for k in range(group.rows):
        _failed(result, {"source": group.name, "row": group.first + k, "row_group": group.index}, reason, None)
    return result


def read_part(path: str) -> Any:
    """The table a worker left in an Arrow IPC file (memory-mapped: read once, by the writer)."""
    pa, _ = arrow()
    return pa.ipc.open_file(pa.memory_map(path, "r")).read_all()


def repair_table(table: Any, group: Group, conversion: Conversion, columns: Columns) -> GroupResult:
    """Every row of ``table`` (rows of ``group``): the history column repaired, failed rows
    left out, every other column as it was."""
    pa, _ = arrow()
    at = table.schema.get_field_index(columns.history)
    column = table.column(at)
    typ = column.type
    if pa.types.is_dictionary(typ) and is_text(typ.value_type):
        # JSON text stored dictionary-encoded (R3-32): read as its values; the new texts are
        # written back in the column's own dictionary type
        column = column.cast(typ.value_type)
    text = is_text(typ) or (pa.types.is_dictionary(typ) and is_text(typ.value_type))
    fit = None if text else fitter(typ)
    ids = table.column(columns.id) if columns.id is not None else None
    result = GroupResult(group, Health())
    changes: list[bytes] = []
    keep: list[bool] = []           # one per row: left in the output
    pieces: list[Any] = []          # the new history column, slice by slice
    for start in range(0, table.num_rows, SLICE):
        cells = column.slice(start, SLICE).combine_chunks()
        values = cells.to_pylist() if text else json_values(cells)
        id_values = ids.slice(start, SLICE).to_pylist() if ids is not None else None
        done = [_repair_row(value, text, fit, typ, conversion, columns) for value in values]
        converted = None if text else _convert_changed(pa, done, typ)
        new: list[Any] = []         # text: every kept row's new text; values: the changed rows' new values
        take: list[int] = []        # values: where each kept row's cell comes from (input row, or len + new)
        for k, (value, (repaired, change, failure)) in enumerate(zip(values, done)):
            where: dict[str, Any] = {"source": group.name, "row": group.first + start + k}
            if id_values is not None:
                where["id"] = id_values[k]
            if failure is not None:
                reason, line, col = failure
                _failed(result, where, reason, value, line, col)
                keep.append(False)
                continue
            keep.append(True)
            if text:
                new.append(repaired)
            elif change.changed:
                take.append(len(values) + len(new))
                new.append(repaired)
            else:
                take.append(k)
            result.health.add_record(change.dropped, change.kinds, change.changed, group.name, None,
                                     where["row"], change.problems)
            if change.logged:
                changes.append(change_line(change, where))
        if text:
            pieces.append(pa.array(new, type=typ))
        elif not new and len(take) == len(values):
            pieces.append(cells)               # nothing changed, nothing failed: the input's own buffers
        elif take:
            both = pa.chunked_array([cells, converted], type=typ)
            pieces.extend(both.take(pa.array(take, type=pa.int64())).chunks)
    output = pa.chunked_array(pieces, type=typ)
    kept = table if all(keep) else table.filter(pa.array(keep, type=pa.bool_()))
    result.table = kept.set_column(at, table.schema.field(at), output)
    result.changes = b"".join(changes)
    return result


Done = tuple  # (repaired value, RowChange, failure: (reason, line, column) or None)


def _repair_row(value: Any, text: bool, fit: Any, typ: Any, conversion: Conversion, columns: Columns) -> Done:
    """One row through the pipeline; a failure is caught here so that one row never stops
    the batch, and said as the errors file says it."""
    try:
        repaired, outcome = repair(value, text, conversion.fmt, conversion.to, conversion.strict, columns.history,
                                  conversion.reasoning)
        change = tally([outcome], columns.target)
        if not text and change.changed:
            wrong = misfit(repaired, typ, fit)
            if wrong is not None:
                raise InputError(CELL, f"the repaired history does not fit the column's type ({typ}): {wrong}")
        return repaired, change, None
    except InputError as exc:
        return None, None, (exc.reason, exc.line, exc.column)
    except (JSONWriteError, RecursionError) as exc:   # orjson reads deeper nesting than it writes
        return None, None, (write_failure(exc), None, None)
    except Exception as exc:  # noqa: BLE001 - one row must never stop a batch
        return None, None, (f"internal error: {type(exc).__name__}: {exc}", None, None)


def _convert_changed(pa: Any, done: list[Done], typ: Any) -> Any:
    """The changed rows' new values as one array of the column's type (in one go; one by
    one only when pyarrow refuses the lot, to find the rows it refuses: they fail)."""
    changed = [repaired for repaired, change, failure in done if failure is None and change.changed]
    try:
        return pa.array(changed, type=typ)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        pass
    for k, (repaired, change, failure) in enumerate(done):
        if failure is None and change.changed:
            try:
                pa.array([repaired], type=typ)
            except (pa.ArrowException, OverflowError, TypeError, ValueError) as exc:
                done[k] = (None, None, (f"the repaired history does not fit the column's type ({typ}): {exc}",
                                        None, None))
    return pa.array([r for r, change, failure in done if failure is None and change.changed], type=typ)


def _failed(result: GroupResult, where: dict[str, Any], reason: str, value: Any,
            line: int | None = None, column: int | None = None) -> None:
    entry = {**where, "line": line, "column": column, "reason": reason, "excerpt": excerpt(value)}
    result.errors.append(entry)
    result.health.add_failed(dict(entry))


@contextmanager
def parquet_target(path: str, layout: Layout, inputs: tuple = ()) -> Iterator[Any]:
    """A ``pyarrow.parquet.ParquetWriter`` for ``path`` with the input's schema and codecs,
    written atomically: a temporary file renamed once the footer is written, removed when
    anything fails. Write each table with :func:`write_group`."""
    _, pq = arrow()
    with atomic_stream(path, inputs=inputs) as handle:
        try:
            writer = pq.ParquetWriter(handle, layout.schema, compression=layout.compression)
        except OSError as exc:
            raise OutputError(path, f"cannot write: {describe_os_error(exc)}") from None
        try:
            yield writer
        except BaseException:
            with suppress(Exception):
                writer.close()
            raise
        try:
            writer.close()             # the footer
        except OSError as exc:
            raise OutputError(path, f"cannot write: {describe_os_error(exc)}") from None


def write_group(writer: Any, table: Any, path: str) -> None:
    """One input row group's output rows as one row group of the output."""
    if not table.num_rows:
        return
    try:
        writer.write_table(table, row_group_size=table.num_rows)
    except OSError as exc:
        raise OutputError(path, f"cannot write: {describe_os_error(exc)}") from None

"""A table of rows the cursor walks (the folder browser's): Home and End move the cursor to
the first and the last row, as they do in a list, rather than scrolling the view sideways
with the cursor left where it was (Textual's DataTable binds them to ``scroll_home`` and
``scroll_end``, which move a *column* cursor only: textual/widgets/_data_table.py, 8.2.8)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable


class RowTable(DataTable):
    BINDINGS = [
        Binding("home", "scroll_top", "First row", show=False, id="rows.first",
                tooltip="The cursor to the first row"),
        Binding("end", "scroll_bottom", "Last row", show=False, id="rows.last",
                tooltip="The cursor to the last row"),
    ]

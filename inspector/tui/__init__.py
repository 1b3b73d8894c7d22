"""The inspection TUI: a Textual view of the engine's result. Import ``make_app`` or ``run``
from ``inspector.tui.app``; nothing here applies a MEM-5 rule."""

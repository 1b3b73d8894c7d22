"""The TUI's shape (the design review's change 5): the main screen is split by responsibility
into collaborators, not subclasses that override its private steps, and stays readable."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import inspector.tui as tui


def _classes():
    for info in pkgutil.walk_packages(tui.__path__, "inspector.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                yield cls


def test_no_class_in_the_tui_overrides_a_private_method_of_another():
    """PlaygroundScreen overrode ten MainScreen methods, five of them private steps, steered
    by flags around super() calls (design.md §2.2, walk 2)."""
    found = []
    for cls in _classes():
        for name, value in vars(cls).items():
            if not name.startswith("_") or name.startswith("__") or not callable(value):
                continue
            if not getattr(value, "__module__", "").startswith("inspector."):
                continue   # what Textual's metaclass generates
            for base in cls.__mro__[1:]:
                if name in vars(base) and base.__module__.startswith("inspector."):
                    found.append(f"{cls.__qualname__}.{name} overrides {base.__qualname__}.{name}")
    assert not found, found


def test_the_main_screen_module_is_under_500_lines():
    path = Path(tui.__file__).parent / "screens" / "main.py"
    assert len(path.read_text("utf-8").splitlines()) < 500


def test_every_reactive_of_the_main_screen_says_what_it_holds():
    """posting's main screen gives each reactive a docstring; the view state's five do too."""
    source = (Path(tui.__file__).parent / "screens" / "main.py").read_text("utf-8").splitlines()
    declared = [i for i, line in enumerate(source) if ": reactive[" in line]
    assert len(declared) == 5
    for i in declared:
        assert source[i + 1].strip().startswith('"""'), source[i]


def test_the_workers_messages_are_dataclasses_and_progress_collapses():
    import dataclasses

    from inspector.tui import messages

    for name in ("LoadProgress", "DocumentLoaded", "LoadFailed", "SessionsOffered", "StagesPrepared",
                 "EditRead", "EditRefused"):
        assert dataclasses.is_dataclass(getattr(messages, name)), name
    first, second = messages.LoadProgress("Reading", 0.1), messages.LoadProgress("Parsing", 0.3)
    assert second.can_replace(first)

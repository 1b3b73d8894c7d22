"""Keys that mean the same on every screen, bound once (on the app) so no screen rebinds them.

``ctrl+s`` saves what the screen shows: the app's binding calls the screen's own
``action_save`` (the main screen exports the repaired history, the export dialog writes it,
an editing screen saves the history being edited); a screen without one says so."""

from __future__ import annotations

from textual.binding import Binding

SAVE_KEY = "ctrl+s"
# priority: an app binding otherwise never reaches a modal screen (the export dialog)
SAVE = Binding(SAVE_KEY, "app.save", "Save", show=False, priority=True, id="app.save",
               tooltip="Save what this screen shows: on the main screen, export the repaired history")

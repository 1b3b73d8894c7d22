"""How OpenCode 2.x resumes a session from the command line, where it differs from V1's.

Read in anomalyco/opencode (the 2.x command line is the package ``@opencode/cli``, 2.0.x):

- ``packages/cli/src/commands/commands.ts`` @ 0720c006ffd39af64a79a3b085c8a41f5ed76bba: the root
  command keeps V1's ``--session``/``-s`` ("Session ID to continue") and ``--continue``/``-c``,
  and adds ``--standalone`` ("Run with a private server instead of the background service");
  ``opencode service stop`` stops that background server. ``commands/handlers/default.ts`` @
  04c84ea57a1759e79e14372df0a5e1a8f01fa837 hands the session id to the TUI as ``sessionID``.
- ``packages/cli/src/services/server-connection.ts`` @ 11219944d88faf0b50d8199ad23773d533fc2b52
  and ``packages/client/src/effect/service.ts`` @ 018554f75161c3631ac03141d3f2803f6edd0583:
  without ``--standalone`` the TUI talks to the background server, reusing one already running
  (it outlives the TUI), so an ``OPENCODE_DB`` set on the command reaches no database.
- ``packages/cli/src/services/standalone.ts`` @ 665f64395a75625202fe0c7f2cec5496d0016f0a: the
  private server is ``opencode serve`` started with the caller's environment, so it opens the
  database ``OPENCODE_DB`` names.
- ``packages/core/src/database/database.ts`` @ 4dba5c9f74b9a95cd8c81f0576e3f3b54c98d109: an
  absolute ``OPENCODE_DB`` is the database (a relative one lies under the data folder); without
  it ``opencode.db`` on the latest, beta and prod channels, ``opencode-CHANNEL.db`` on others.

So a 2.x session resumes with V1's ``opencode --session ID`` once the repaired database is in
place, but putting it there means stopping the background server first (it holds the old file
open), and running the copy where it lies needs ``--standalone``. V1's TUI has no server of its
own to stop (``packages/opencode/src/cli/cmd/tui/thread.ts`` @
01d247b999ab76fa3cbb2a708eaa6cb01282f4cc: ``--session``/``-s``, ``--continue``, ``--fork``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..format import Agent, Source

# The copy where it lies: a private server started with the copy as its database.
COMMAND_ON_COPY = "OPENCODE_DB={path} opencode --standalone --session {session}"
# Quitting the TUI leaves the background server running with the database open.
STOP = "stop its background server with `opencode service stop`"
RESUME = ("`OPENCODE_DB=<repaired .db> opencode --standalone -s <session id>`; or quit OpenCode and stop its "
          "background server (`opencode service stop`), move opencode.db and its -wal and -shm aside (keep them: "
          "they are the original), put the repaired database in its place with no -wal or -shm beside it, then "
          "`opencode -s <session id>`")

SOURCES = (
    Source("anomalyco/opencode", "0720c006ffd3", ("packages/cli/src/commands/commands.ts",),
           "2.x: the command line (--session, --standalone, service stop)"),
    Source("anomalyco/opencode", "04c84ea57a17", ("packages/cli/src/commands/handlers/default.ts",),
           "2.x: the session id handed to the TUI"),
    Source("anomalyco/opencode", "11219944d88f", ("packages/cli/src/services/server-connection.ts",),
           "2.x: the background server, or --standalone's own"),
    Source("anomalyco/opencode", "018554f75161", ("packages/client/src/effect/service.ts",),
           "2.x: a running background server is reused"),
    Source("anomalyco/opencode", "665f64395a75", ("packages/cli/src/services/standalone.ts",),
           "2.x: --standalone's server inherits OPENCODE_DB"),
    Source("anomalyco/opencode", "4dba5c9f74b9", ("packages/core/src/database/database.ts",),
           "2.x: the database OPENCODE_DB names"),
    Source("anomalyco/opencode", "01d247b999ab", ("packages/opencode/src/cli/cmd/tui/thread.ts",),
           "V1: the command line (--session)"),
)


def record(v1: Agent) -> Agent:
    """OpenCode's record as 2.x resumes a session: V1's, with the background server."""
    return replace(v1, resume=RESUME, command_on_copy=COMMAND_ON_COPY, stop=STOP, by_version=None)


def is_v2(imported: Any) -> bool:
    """The session was read from OpenCode 2's ``session_message`` rows."""
    return bool(getattr(getattr(imported, "state", None), "v2", False))

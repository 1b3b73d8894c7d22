"""``inspector doctor``: every agent session on this machine, with what a resume would do.

:func:`scan` gives the rows (the command line and the TUI's folder browser render them);
:func:`fix` writes repaired copies into a new folder with a manifest of hashes and changes.
"""

from .agents import AGENTS, Agent, SelfRepair, claims_table
from .copies import MANIFEST, fix
from .homes import Home, known_homes
from .scan import Found, Row, Scan, found, rows_of, scan
from .verdict import AGENT_REPAIRS, CHANGES, FAILS, OK, STATUSES, UNREADABLE, RowVerdict, judge

__all__ = ["AGENTS", "AGENT_REPAIRS", "Agent", "CHANGES", "FAILS", "Found", "Home", "MANIFEST", "OK", "Row",
           "STATUSES", "Scan", "SelfRepair", "UNREADABLE", "RowVerdict", "claims_table", "fix", "found", "judge",
           "known_homes", "rows_of", "scan"]

"""Settings every folder of the suite shares.

A shell starts a background job (``pytest … &``) with SIGINT ignored, and an ignored signal
stays ignored across ``exec``: every command a test starts would then shrug off the Ctrl-C
the signal tests send it, and Python would not even install its KeyboardInterrupt handler.
The suite restores Python's own handler once, so that the children it starts see SIGINT as
they would from a terminal, whether pytest runs in the foreground, in the background or in
an xdist worker (each worker loads this file too).

The suite also collects garbage less often than Python's default (every 50,000 new container
objects, not 700): the TUI tests build and drop whole widget trees, and the default spends
about a tenth of their CPU in collections that find little. No test reads the thresholds, and
the commands a test starts run with the defaults.
"""

from __future__ import annotations

import gc
import signal


def pytest_configure(config):  # noqa: ARG001
    gc.set_threshold(50_000, 50, 50)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

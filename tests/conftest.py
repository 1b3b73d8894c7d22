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

And a Textual pilot waits for the app to go idle in steps of 5 ms, not 20 ms. Every key a
test presses and every ``pilot.pause()`` sleeps in such steps until a step passes with almost
no CPU used (``textual._wait``, Textual 8.2.8, pinned); the TUI tests spent most of their time
in them (the tests/tui folder, serially on the shared 2-core machine: 489 s -> 309 s wall,
CPU unchanged). What a test waits for is unchanged: the same idle test, checked more often.
"""

from __future__ import annotations

import gc
import signal


IDLE_STEP = 0.005  # seconds: how often a pilot checks whether the app has gone idle


def pytest_configure(config):  # noqa: ARG001
    gc.set_threshold(50_000, 50, 50)
    import textual._wait as wait

    wait.SLEEP_GRANULARITY = IDLE_STEP
    wait.SLEEP_IDLE = IDLE_STEP / 20   # "idle": under 5% of a step's time on the CPU, as Textual's own ratio
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

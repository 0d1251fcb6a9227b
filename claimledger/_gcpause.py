"""The cyclic garbage collector paused while a check runs.

A run allocates one result, evidence and finding after another and keeps nearly all of them until
its report is written: the collector's full passes then walk a heap that only grows (with 100,000
quotes, 9 full passes took 2.6 s of a 28 s run, about a tenth). Reference counting still frees
everything that is not in a cycle; what is in one waits for the first collection after the run.

The pause is counted across threads: the first run to start disables the collector (if it was on),
the last to finish enables it again, so runs that overlap in one process (the HTTP server, a batch)
never leave it off. ``CLAIMLEDGER_GC_PAUSE=0`` keeps the collector on during runs.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

_lock = threading.Lock()
_runs = 0  # runs in progress that paused the collector
_paused = False  # the collector was on when the first of them started, and is off now


def _wanted() -> bool:
    return os.environ.get("CLAIMLEDGER_GC_PAUSE", "1").strip() != "0"


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector for the duration (see the module); usable as a decorator."""
    global _runs, _paused
    if not _wanted():
        yield
        return
    with _lock:
        if _runs == 0 and gc.isenabled():
            gc.disable()
            _paused = True
        _runs += 1
    try:
        yield
    finally:
        with _lock:
            _runs -= 1
            if _runs == 0 and _paused:
                _paused = False
                gc.enable()

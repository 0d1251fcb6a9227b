"""The cyclic garbage collector paused while a check runs.

A run allocates one result, evidence and finding after another and keeps nearly all of them until
its report is written: the collector's full passes then walk a heap that only grows (with 100,000
quotes, 9 full passes took 2.6 s of a 28 s run, about a tenth). Reference counting still frees
everything that is not in a cycle; what is in one waits for the first full collection after the run
(the run's objects are moved to the oldest generation when it ends: :func:`_promote_young`).

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
                _promote_young()
                gc.enable()


def _promote_young() -> None:
    """Move every object the collector tracks to its oldest generation, in constant time.

    While the collector was off, the run's objects piled up in the youngest generation: the first
    allocation after it is back on started a collection of that generation, which walked every object
    the run still holds (its findings and their evidence: 24 ms of a 2 s run on 100 MB x 10k, inside
    the run). ``gc.freeze()`` splices every generation onto the permanent one and ``gc.unfreeze()``
    splices that onto the oldest, so they are examined by the next full collection, as objects that
    outlive two young collections are; what is in a cycle waits for that one. Skipped when the program
    froze objects itself (``gc.freeze()`` before a fork): unfreezing would hand those back."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()

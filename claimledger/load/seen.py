"""Which cheap readings an earlier run read: the second-sighting policy of the source index.

A cheap reading (:meth:`claimledger.load.index.Reading.cheap`: a plain text that is its bytes'
UTF-8 decoding, normalized by the compiled core) costs about as much to redo as its cache entry
costs to load, and writing the entry costs more. So it is cached the second time a run reads it,
not the first: the first check of a corpus writes no entry per source and leaves no copy of the
corpus in the cache folder, and a corpus checked again is cached for the runs after.

What the first reading leaves is one row in ``<cache>/index/v<N>/seen.sqlite`` (table ``seen``:
the entry's file name, an empty payload and the row's check, as every
:class:`~claimledger.load.rows.CheckedRows` store), written with the run's other rows in one
transaction when the run closes. Earlier this was an empty marker file per source beside its entry:
on the 1 GB bench row, creating 821 markers and their folders cost the kernel about 0.4 s of a 3 s
run (issue 19, eleventh session). A row holds nothing a run uses to decide a claim: a planted or
forged row only makes the next run write the entry (whose own checks are unchanged), and a store
that cannot be opened or written (a read-only cache) only means no entry is written: the reading is
redone, as it is without the cache.
"""

from __future__ import annotations

import threading
from pathlib import Path

from claimledger.load.rows import CheckedRows

__all__ = ["SeenReadings"]


class SeenReadings(CheckedRows):
    """The readings runs have read, by entry name; safe to ask from the reading threads."""

    TABLE = "seen"

    def __init__(self, path: Path) -> None:
        super().__init__(path, threads=True)
        self._lock = threading.Lock()

    def seen_before(self, name: str) -> bool:
        """Whether an earlier run (or this one) read the reading whose entry is ``name``; this
        run's reading is recorded now and written when the store closes."""
        with self._lock:
            if self._get([name]):
                return True
            self._new[name] = ""
            return False

    def close(self) -> None:
        with self._lock:
            super().close()

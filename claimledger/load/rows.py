"""One SQLite file of checked rows: the shape of the run's answer stores.

:mod:`claimledger.checks.overclaim.store` (rule hits), :mod:`claimledger.checks.scan_memo`
(answers of the scan) and :mod:`claimledger.load.seen` (which cheap readings a run has read) each
keep one table ``(key, payload, check_)`` in the cache directory. A row counts only if its
``check_`` is the SHA-256 of its key and payload (both ASCII): a torn, edited or foreign row is
never read as an answer, only searched for again. A store that cannot be opened or written costs
time, never a check. This run's new rows are kept in memory and written in one transaction by
:meth:`CheckedRows.close`.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import ClassVar

__all__ = ["CheckedRows", "row_check"]

_CHUNK = 500  # keys per query (SQLite's limit on host parameters is far above)


def row_check(key: str, payload: str) -> str:
    """The check of a row; raises ValueError (UnicodeEncodeError) for a key or payload not ASCII."""
    return hashlib.sha256(f"{key}\0{payload}".encode("ascii")).hexdigest()


class CheckedRows:
    """Rows of earlier runs (read as needed) and of this run (written by :meth:`close`)."""

    TABLE: ClassVar[str]  # a constant of the subclass, never input

    def __init__(self, path: Path, *, threads: bool = False) -> None:
        self.path = path
        self._threads = threads  # used from several threads (the caller serializes the calls)
        self._db: sqlite3.Connection | None = None
        self._broken = False
        self._empty = False  # the store held nothing when it was opened (a cold cache): no lookups
        self._new: dict[str, str] = {}

    def _open(self) -> sqlite3.Connection | None:
        if self._db is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=10, check_same_thread=not self._threads)
                db.execute(
                    f"CREATE TABLE IF NOT EXISTS {self.TABLE} "
                    "(key TEXT PRIMARY KEY, payload TEXT NOT NULL, check_ TEXT NOT NULL)"
                )
                self._empty = db.execute(f"SELECT 1 FROM {self.TABLE} LIMIT 1").fetchone() is None
                self._db = db
            except (OSError, sqlite3.Error):
                self._broken = True  # no store: every answer is computed afresh
        return self._db

    def cold(self) -> bool:
        """No earlier run's row can be found here: the store held nothing when opened, or cannot be
        opened (this run's own rows are still found)."""
        return self._open() is None or self._empty

    def _get(self, keys: list[str]) -> dict[str, str]:
        """The checked payloads stored under ``keys`` (this run's own rows first)."""
        out = {k: self._new[k] for k in keys if k in self._new}
        rest = [k for k in keys if k not in out]
        if not rest:
            return out
        db = self._open()
        if db is None or self._empty:  # a cold store: a query would find nothing
            return out
        try:
            for i in range(0, len(rest), _CHUNK):
                chunk = rest[i : i + _CHUNK]
                rows = db.execute(
                    f"SELECT key, payload, check_ FROM {self.TABLE} WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
                for key, payload, check in rows:
                    if isinstance(payload, str) and payload.isascii() and check == row_check(key, payload):
                        out[key] = payload
        except (sqlite3.Error, ValueError):  # ValueError: a key that is not ASCII
            return {k: v for k, v in out.items() if k in self._new}
        return out

    def close(self) -> None:
        """Write this run's new rows in one transaction (a failure only costs the next run time)."""
        try:
            db = self._open() if self._new else self._db
            if db is not None and self._new:
                with db:
                    db.executemany(
                        f"INSERT OR REPLACE INTO {self.TABLE} (key, payload, check_) VALUES (?, ?, ?)",
                        [(k, p, row_check(k, p)) for k, p in self._new.items()],
                    )
        except sqlite3.Error:
            pass
        finally:
            self._new.clear()
            if self._db is not None:
                self._db.close()
                self._db = None

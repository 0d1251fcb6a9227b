"""A SQLite cache of service answers, with an expiry, in the cache folder (``refs.sqlite``).

The key is the SHA-256 of everything that shapes an answer: the service, its
base URL, the request path and every query parameter except credentials
(the OpenAlex key and the polite-pool address never shape an answer and never
enter the file), the Accept type, the address policy it was fetched under (an
answer fetched with ``--allow-private-urls`` is never served to a run without
it) and the cache format version. Only answers
(200 and 404) are stored, never a verdict: verdicts are recomputed on every run
under the current matching options, so changing a threshold can never be
answered from a verdict made under another. Errors (429, 5xx, timeouts) are
never stored. A broken or locked cache file costs the cache, never the run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path

FORMAT = 1
DEFAULT_TTL = 7 * 24 * 3600.0  # an answer: a week
NOT_FOUND_TTL = 24 * 3600.0  # a 404: a day (a DOI registered today resolves tomorrow)
SECRET_PARAMS = frozenset({"mailto", "api_key"})


def cache_key(
    service: str, base_url: str, path: str, params: dict[str, str], accept: str, allow_private: bool = False
) -> str:
    shaping = {k: v for k, v in sorted(params.items()) if k not in SECRET_PARAMS}
    policy = "private-allowed" if allow_private else "public-only"
    blob = json.dumps([FORMAT, service, base_url.rstrip("/"), path, shaping, accept, policy], ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class AnswerCache:
    """``get``/``put`` of (status, body) by key; thread-safe; every failure is a miss."""

    def __init__(self, path: Path, ttl: float = DEFAULT_TTL, read: bool = True) -> None:
        self.path = path
        self.read = read  # False (--refresh): ask the services again, still store their answers
        self.ttl = ttl
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(path), timeout=5.0, check_same_thread=False)
            db.execute(
                "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, status INTEGER NOT NULL, "
                "body BLOB NOT NULL, expires REAL NOT NULL)"
            )
            db.commit()
            self._db = db
        except (OSError, sqlite3.Error):
            self._db = None  # no cache this run

    def get(self, key: str) -> tuple[int, bytes] | None:
        if self._db is None or not self.read:
            return None
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT status, body, expires FROM answers WHERE key = ?", (key,)
                ).fetchone()
            except sqlite3.Error:
                return None
        if row is None or float(row[2]) < time.time():
            return None
        return int(row[0]), bytes(row[1])

    def put(self, key: str, status: int, body: bytes) -> None:
        if self._db is None or status not in (200, 404):
            return
        ttl = self.ttl if status == 200 else min(self.ttl, NOT_FOUND_TTL)
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.execute(
                "INSERT OR REPLACE INTO answers (key, status, body, expires) VALUES (?, ?, ?, ?)",
                (key, status, body, time.time() + ttl),
            )
            self._db.commit()

    def close(self) -> None:
        if self._db is not None:
            with self._lock, contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

"""A content-hash cache of judge answers in SQLite: an unchanged claim is never asked twice.

The key is the SHA-256 of (backend kind, model, prompt version, canonical
request). Only schema-valid answers are stored; failures never are, so a
timeout is retried on the next run. The cached answer is re-checked like a
fresh one (its evidence quote must still be in the source).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

from claimledger.judge.types import JudgeRequest, JudgeVerdict

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_answers (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    answer TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def cache_key(kind: str, model: str, request: JudgeRequest) -> str:
    blob = json.dumps(
        {"kind": kind, "model": model, "prompt_version": request.prompt_version, "request": request.canonical_json()},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class JudgeCache:
    """Used from one thread (the pipeline's); the judge calls run in workers."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=10.0)
        self._db.execute(_SCHEMA)
        self._db.commit()

    def get(self, key: str) -> JudgeVerdict | None:
        row = self._db.execute("SELECT answer FROM judge_answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            data = json.loads(row[0])
            return JudgeVerdict(data["verdict"], data["evidence_quote"], data["rationale"])
        except (ValueError, KeyError, TypeError):
            return None  # a damaged row is a miss

    def put(self, key: str, kind: str, model: str, prompt_version: str, verdict: JudgeVerdict) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO judge_answers VALUES (?, ?, ?, ?, ?, ?)",
            (key, kind, model, prompt_version, json.dumps(verdict.to_dict(), ensure_ascii=False), time.time()),
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()

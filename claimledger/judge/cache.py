"""A content-hash cache of judge answers in SQLite: an unchanged claim is never asked twice.

The key is the SHA-256 of what shapes an answer: the backend kind, the model,
the prompt version and the canonical request (claim, passages). The endpoint
URL is deliberately not part of it (a model restarted on another port is the
same model). Each row also stores its key fields, and a row whose stored
fields differ from the ones asked for is a miss. Only
schema-valid answers are stored; failures never are, so a timeout is retried
on the next run. The cached answer is re-checked like a fresh one (its evidence
quote must still be in the source), and no judge answer can make a claim [V].
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


def key_fields(kind: str, model: str, request: JudgeRequest) -> str:
    """The canonical JSON of what shapes an answer (stored with the answer, compared on read)."""
    return json.dumps(
        {"kind": kind, "model": model, "prompt_version": request.prompt_version, "request": request.canonical_json()},
        sort_keys=True,
        ensure_ascii=False,
    )


def cache_key(kind: str, model: str, request: JudgeRequest) -> str:
    return hashlib.sha256(key_fields(kind, model, request).encode("utf-8")).hexdigest()


class JudgeCache:
    """Used from one thread (the pipeline's); the judge calls run in workers."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=10.0)
        self._db.execute(_SCHEMA)
        self._db.commit()

    def get(self, key: str, fields: str | None = None) -> JudgeVerdict | None:
        """The stored answer, when its stored key fields are ``fields`` (a row planted under another key is a miss)."""
        row = self._db.execute("SELECT answer FROM judge_answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            data = json.loads(row[0])
            if fields is not None and data.get("key_fields") != fields:
                return None
            return JudgeVerdict(data["verdict"], data["evidence_quote"], data["rationale"])
        except (ValueError, KeyError, TypeError):
            return None  # a damaged row is a miss

    def put(
        self, key: str, kind: str, model: str, prompt_version: str, verdict: JudgeVerdict, fields: str | None = None
    ) -> None:
        answer = {**verdict.to_dict(), "key_fields": fields}
        self._db.execute(
            "INSERT OR REPLACE INTO judge_answers VALUES (?, ?, ?, ?, ?, ?)",
            (key, kind, model, prompt_version, json.dumps(answer, ensure_ascii=False), time.time()),
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()

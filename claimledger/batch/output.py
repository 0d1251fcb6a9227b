"""The results file: one JSON line per finished job, appended so that a crash never leaves half a line.

Each line is written with one ``write`` to a file opened with ``O_APPEND`` and flushed to disk
before the next job is scheduled from it; on ``--resume`` a torn last line (a machine that lost
power mid-write) is cut off before anything is appended.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from claimledger._exceptions import InputError


class ResultsFile:
    """Append-only JSON lines."""

    def __init__(self, path: Path, *, resume: bool) -> None:
        self.path = path
        self.done: dict[str, dict[str, object]] = {}
        if resume and path.exists():
            self.done = _read_done(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if resume else os.O_TRUNC)
        try:
            self._fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise InputError(f"cannot write the results to {path}: {exc.strerror or exc}") from exc

    def append(self, line: str) -> None:
        data = (line.rstrip("\n") + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


def _read_done(path: Path) -> dict[str, dict[str, object]]:
    """Lines already in the file, by resume key; a torn last line is cut off."""
    raw = path.read_bytes()
    end = raw.rfind(b"\n") + 1
    if end < len(raw):
        with path.open("r+b") as fh:
            fh.truncate(end)
    done: dict[str, dict[str, object]] = {}
    for line in raw[:end].splitlines():
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        job = row.get("job") if isinstance(row, dict) else None
        if isinstance(job, dict) and isinstance(job.get("key"), str):
            done[job["key"]] = row
    return done

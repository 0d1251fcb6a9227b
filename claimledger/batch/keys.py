"""Resume keys: a job is skipped on ``--resume`` only when nothing that shapes its verdict changed.

The key is the SHA-256 of: the tool version, the job's paths, the batch options, and the bytes of the ledger, the
draft, every local source and dataset the ledger declares (a URL source by its URL: its content is
fetched at check time and kept in the URL cache) and every metrics file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from claimledger._version import __version__
from claimledger.batch.job import JobOptions
from claimledger.batch.jobs import Job


class FileHashes:
    """SHA-256 of files, computed once per (path, size, mtime) within a batch: a shared corpus is read once."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, int, int], str] = {}

    def of(self, path: Path) -> str:
        try:
            st = path.stat()
        except OSError as exc:
            return f"unreadable:{type(exc).__name__}"
        marker = (str(path.resolve()), st.st_size, st.st_mtime_ns)
        known = self._seen.get(marker)
        if known is None:
            digest = hashlib.sha256()
            try:
                with path.open("rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                known = digest.hexdigest()
            except OSError as exc:
                known = f"unreadable:{type(exc).__name__}"
            self._seen[marker] = known
        return known


def job_key(job: Job, options: JobOptions, hashes: FileHashes) -> str:
    parts: dict[str, object] = {
        "tool": __version__,
        "job": [job.ledger, job.draft],  # two jobs with the same bytes at two paths are two jobs
        "options": options.fingerprint(),
        "ledger": hashes.of(Path(job.ledger)),
        "draft": hashes.of(Path(job.draft)) if job.draft else None,
        "metrics": [hashes.of(Path(p)) for p in options.config.metrics_files],
        "inputs": _declared_inputs(job, options, hashes),
    }
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _declared_inputs(job: Job, options: JobOptions, hashes: FileHashes) -> dict[str, str]:
    from claimledger.load.ledger import load_ledger

    try:
        ledger = load_ledger(job.ledger)
    except Exception:  # the job itself reports why its ledger is unusable; the key is its bytes
        return {}
    base = Path(job.ledger).parent
    out: dict[str, str] = {}
    declared = {**{f"source:{k}": v for k, v in ledger.sources.items()},
                **{f"source:{k}": v for k, v in options.sources},
                **{f"dataset:{k}": v for k, v in ledger.datasets.items()}}  # fmt: skip
    for name, origin in sorted(declared.items()):
        if origin.startswith(("http://", "https://")):
            out[name] = "url:" + origin
        else:
            p = Path(origin)
            out[name] = hashes.of(p if p.is_absolute() else base / p)
    return out


def fsync_dir(path: Path) -> None:
    """Make a new file's directory entry durable (best effort)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

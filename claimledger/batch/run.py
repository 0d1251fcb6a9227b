"""One batch: find the jobs, skip the finished ones, run the rest on an engine, write and summarize."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claimledger._exceptions import InputError
from claimledger.batch.job import JobOptions, JobResult
from claimledger.batch.jobs import Job, discover
from claimledger.batch.keys import FileHashes, job_key
from claimledger.batch.output import ResultsFile

# the worst outcome decides the batch's exit code: FAIL 1 > PARTIAL 3 > NO_CLAIMS 4 > PASS 0
_EXIT_RANK = {1: 3, 3: 2, 4: 1, 0: 0}
JOB_LEVEL_REASONS = ("job_input_error", "job_timeout", "job_worker_lost", "check_crashed")

Progress = Callable[[int, int, int], None]  # done, total, failures


@dataclass
class BatchSummary:
    """What the batch did, for stderr and ``--summary FILE.json``."""

    engine: str
    workers: int
    jobs: int = 0
    skipped: int = 0
    ran: int = 0
    seconds: float = 0.0
    outcomes: dict[str, int] = field(default_factory=dict)
    exit_code: int = 0
    slowest: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False

    def add(self, row: dict[str, Any], exit_code: int, seconds: float | None) -> None:
        outcome = str(row.get("outcome"))
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
        if _EXIT_RANK.get(exit_code, 3) > _EXIT_RANK.get(self.exit_code, 3):
            self.exit_code = exit_code
        job = row.get("job") or {}
        for f in row.get("findings") or []:
            if f.get("claim_id") == "job" and f.get("reason") in JOB_LEVEL_REASONS:
                self.failures.append({"index": job.get("index"), "ledger": job.get("ledger"),
                                      "draft": job.get("draft"), "reason": f["reason"],
                                      "message": f.get("message")})  # fmt: skip
        if seconds is not None:
            self.slowest.append({"index": job.get("index"), "ledger": job.get("ledger"), "seconds": round(seconds, 3)})
            self.slowest.sort(key=lambda r: -float(r["seconds"]))
            del self.slowest[5:]

    @property
    def rate(self) -> float:
        return self.ran / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine, "workers": self.workers, "jobs": self.jobs, "skipped": self.skipped,
            "ran": self.ran, "seconds": round(self.seconds, 3), "jobs_per_second": round(self.rate, 3),
            "outcomes": dict(sorted(self.outcomes.items())), "exit_code": self.exit_code,
            "slowest": self.slowest, "failures": self.failures, "interrupted": self.interrupted,
        }  # fmt: skip

    def text(self) -> str:
        outcomes = ", ".join(f"{n} {o}" for o, n in sorted(self.outcomes.items())) or "none"
        lines = [
            f"batch: {self.jobs} jobs ({self.skipped} already done, {self.ran} run) on {self.engine} "
            f"with {self.workers} worker(s) in {self.seconds:.1f} s ({self.rate:.2f} jobs/s)",
            f"outcomes: {outcomes}; exit code {self.exit_code}",
        ]
        if self.interrupted:
            lines.append("interrupted: the results file holds every finished job; run again with --resume")
        if self.slowest:
            lines.append("slowest: " + "; ".join(f"{r['ledger']} {r['seconds']:.1f} s" for r in self.slowest[:3]))
        for f in self.failures[:10]:
            lines.append(f"failed: {f['ledger']}: {f['reason']}: {f['message']}")
        if len(self.failures) > 10:
            lines.append(f"... and {len(self.failures) - 10} more failures (see --summary)")
        return "\n".join(lines)


def make_engine(engine: str, workers: int, job_timeout: float | None, ray_address: str | None) -> Any:
    if engine == "local":
        from claimledger.batch.local import LocalEngine

        return LocalEngine(workers, job_timeout)
    if engine == "ray":
        from claimledger.batch.ray_engine import RayEngine

        return RayEngine(workers, job_timeout, ray_address)
    raise InputError(f"unknown engine {engine!r} (local or ray)")


def run_batch(
    paths: list[Path],
    output: Path,
    options: JobOptions | None = None,
    *,
    engine: str = "local",
    workers: int | None = None,
    ray_address: str | None = None,
    resume: bool = False,
    job_timeout: float | None = 900.0,
    progress: Progress | None = None,
) -> BatchSummary:
    """Check every job named by ``paths``; one JSON line per job in ``output``.

    Raises :class:`InputError` only when the batch itself cannot start (no such path, an unreadable
    manifest, an unwritable output, Ray missing); a job's own bad input is a line of its own.
    ``KeyboardInterrupt`` stops the batch with the results file valid (every line whole).
    """
    options = options or JobOptions()
    n_workers = workers or os.cpu_count() or 1
    jobs = discover(paths)
    hashes = FileHashes()
    keyed: list[tuple[Job, str]] = [(job, job_key(job, options, hashes)) for job in jobs]
    results = ResultsFile(output, resume=resume)
    summary = BatchSummary(engine=engine, workers=n_workers, jobs=len(jobs))
    todo: list[tuple[Job, str]] = []
    for job, key in keyed:
        row = results.done.get(key)
        if row is None:
            todo.append((job, key))
        else:
            summary.skipped += 1
            summary.add(row, _exit_of(row), None)
    started = time.perf_counter()
    runner = make_engine(engine, n_workers, job_timeout, ray_address) if todo else None
    try:
        if progress:
            progress(summary.skipped, len(jobs), 0)
        if runner is not None:
            for result in runner.run(todo, options):
                _record(results, summary, result)
                if progress:
                    progress(summary.skipped + summary.ran, len(jobs), len(summary.failures))
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        if runner is not None:
            runner.close()
        results.close()
        summary.seconds = time.perf_counter() - started
    return summary


def _record(results: ResultsFile, summary: BatchSummary, result: JobResult) -> None:
    results.append(result.line)
    summary.ran += 1
    summary.add(json.loads(result.line), result.exit_code, result.seconds)


def _exit_of(row: dict[str, Any]) -> int:
    from claimledger.model.report import EXIT_CODES, Outcome

    try:
        code = EXIT_CODES[Outcome(str(row.get("outcome")))]
    except ValueError:
        return 1
    if code == 1 and row.get("fail_closed") is False:
        return 3
    return code

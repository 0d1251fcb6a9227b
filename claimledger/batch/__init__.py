"""Batch checking: many (ledger, draft) jobs, one JSON report envelope per line.

The pipeline per job is the ordinary :func:`claimledger.gate`; this package only finds the jobs
(:mod:`.jobs`), runs one job fail-closed (:mod:`.job`, the one job function every engine calls),
writes the results as JSON lines that survive a crash (:mod:`.output`), and schedules the job
function on a local process pool (:mod:`.local`) or on a Ray cluster (:mod:`.ray_engine`).
"""

from __future__ import annotations

from claimledger.batch.job import JobOptions, JudgeSettings, run_job
from claimledger.batch.jobs import Job, discover
from claimledger.batch.run import BatchSummary, run_batch

__all__ = ["BatchSummary", "Job", "JobOptions", "JudgeSettings", "discover", "run_batch", "run_job"]

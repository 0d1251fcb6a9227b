"""The default engine: a pool of worker processes on this machine.

A home-made pool rather than :class:`concurrent.futures.ProcessPoolExecutor` because a batch must
stop one hung job without losing the others: each worker runs one job at a time, a job past its
time limit gets its worker killed and replaced, and a worker that dies mid-job (killed by the OOM
killer, a segfault in a native library) has its job retried once on a fresh worker, then reported.
Workers ignore Ctrl-C (the parent decides) and die with the parent (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from claimledger._exceptions import InputError
from claimledger.batch.job import JobOptions, JobResult, failed_report, finish, run_job
from claimledger.batch.jobs import Job
from claimledger.load._child import die_with_parent

Task = tuple[Job, str]  # a job and its resume key
MAX_ATTEMPTS = 2  # a job whose worker dies is tried once more, then reported


def _worker(conn: Connection, options: JobOptions, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)
    import claimledger._api  # noqa: F401 - load the checker before saying ready: a job's time counts from its start

    conn.send("ready")
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        job, key = task
        conn.send(run_job(job, options, key))


@dataclass
class _Slot:
    process: Any
    conn: Connection
    task: Task | None = None
    started: float = 0.0
    ready: bool = False


class LocalEngine:
    """Runs the job function on ``workers`` processes; yields results as jobs finish."""

    name = "local"

    def __init__(self, workers: int, job_timeout: float | None) -> None:
        self.workers = max(1, workers)
        self.job_timeout = job_timeout
        self._ctx = mp.get_context("spawn")
        self._slots: list[_Slot] = []
        self._restarts = 0
        self._options = JobOptions()

    def _start(self, options: JobOptions) -> _Slot:
        parent, child = self._ctx.Pipe()
        process = self._ctx.Process(target=_worker, args=(child, options, os.getpid()), daemon=True)
        process.start()
        child.close()
        return _Slot(process, parent)

    def run(self, tasks: list[Task], options: JobOptions) -> Iterator[JobResult]:
        self._options = options
        queue: deque[Task] = deque(tasks)
        attempts: dict[int, int] = {}
        self._slots = [self._start(options) for _ in range(min(self.workers, len(tasks)))]
        try:
            while queue or any(s.task is not None for s in self._slots):
                self._await_ready()
                for slot in self._slots:
                    if slot.ready and slot.task is None and queue:
                        slot.task = queue.popleft()
                        attempts[slot.task[0].index] = attempts.get(slot.task[0].index, 0) + 1
                        slot.started = time.monotonic()
                        slot.conn.send(slot.task)
                busy = [s for s in self._slots if s.task is not None]
                if not busy:
                    continue
                ready = wait([s.conn for s in busy] + [s.process.sentinel for s in busy], timeout=self._tick(busy))
                for i, slot in enumerate(self._slots):
                    if slot.task is None:
                        continue
                    job, key = slot.task
                    if slot.conn in ready:
                        try:
                            result = slot.conn.recv()
                        except (EOFError, OSError):
                            result = None
                        if isinstance(result, JobResult):
                            slot.task = None
                            yield result
                            continue
                    if slot.conn in ready or slot.process.sentinel in ready:
                        # the worker died mid-job: retry once on a fresh worker, then report it
                        self._replace(i, options)
                        if attempts[job.index] < MAX_ATTEMPTS:
                            queue.appendleft((job, key))
                        else:
                            yield _lost(job, key, time.monotonic() - slot.started, "job_worker_lost", (
                                f"the worker process running this job died twice (exit code "
                                f"{slot.process.exitcode}); nothing in it is verified"))  # fmt: skip
                        continue
                    elapsed = time.monotonic() - slot.started
                    if self.job_timeout is not None and elapsed > self.job_timeout:
                        self._replace(i, options)
                        yield _lost(job, key, elapsed, "job_timeout", (
                            f"the job ran past --job-timeout ({self.job_timeout:g} s) and was stopped; "
                            "nothing in it is verified (raise --job-timeout, or look for a slow source or query)"))  # fmt: skip
        finally:
            self.close()

    def _await_ready(self) -> None:
        """Collect "ready" from workers that have started (a worker that dies while starting is replaced)."""
        starting = [s for s in self._slots if not s.ready]
        if not starting:
            return
        idle = all(s.task is None for s in self._slots)
        ready = wait([s.conn for s in starting] + [s.process.sentinel for s in starting], timeout=0.5 if idle else 0)
        for i, slot in enumerate(self._slots):
            if slot.ready:
                continue
            if slot.conn in ready:
                try:
                    slot.ready = slot.conn.recv() == "ready"
                except (EOFError, OSError):
                    slot.ready = False
            if not slot.ready and slot.process.sentinel in ready:
                if slot.process.exitcode not in (None, 0) and self._restarts > 3 * self.workers:
                    raise InputError(
                        f"batch workers keep dying while starting (exit code {slot.process.exitcode}); "
                        "run one job with `claimledger check` to see why"
                    )
                self._restarts += 1
                self._replace(i, self._options)

    def _tick(self, busy: list[_Slot]) -> float:
        if self.job_timeout is None or not busy:
            return 1.0
        now = time.monotonic()
        return max(0.01, min(1.0, min(s.started + self.job_timeout - now for s in busy)))

    def _replace(self, i: int, options: JobOptions) -> None:
        old = self._slots[i]
        _kill(old)
        self._slots[i] = self._start(options)

    def close(self) -> None:
        for slot in self._slots:
            _kill(slot)
        self._slots = []


def _kill(slot: _Slot) -> None:
    with contextlib.suppress(OSError):
        slot.conn.close()
    if slot.process.is_alive():
        with contextlib.suppress(ProcessLookupError):
            os.kill(slot.process.pid, signal.SIGKILL)
    slot.process.join(timeout=5)


def _lost(job: Job, key: str, seconds: float, reason: str, message: str) -> JobResult:
    return finish(job, failed_report(job, (reason, message)), key, seconds)

"""The Ray engine: the same job function as Ray tasks, on a local Ray or an existing cluster.

Ray is an optional extra (``pip install 'claimledger[ray]'``), imported only when this engine is
asked for. Each job is one task (``max_retries=1``: a task whose worker dies is retried once by
Ray, then reported); at most ``workers`` tasks are in flight, so a job's time limit counts from
when it starts, and a task past ``--job-timeout`` is cancelled with ``force=True``. Sources are
read through the same on-disk index cache as the local engine, so on one machine, or on a cluster
whose nodes share the cache folder (``--cache-dir`` on a shared file system), a corpus is
extracted once.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

from claimledger._exceptions import InputError
from claimledger.batch.job import JobOptions, JobResult, failed_report, finish, run_job
from claimledger.batch.jobs import Job

Task = tuple[Job, str]


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise InputError(
            "--engine ray needs Ray: pip install 'claimledger[ray]' (or pip install 'ray>=2.9')"
        ) from exc
    return ray


_TOKEN_DIR: str | None = None


def _session_token() -> None:
    """A local Ray keeps token authentication, with a token of this process's own.

    Left alone, Ray writes a token to ``~/.ray/auth_token`` and leaves it there. Instead the token
    lives in a private temporary folder removed at exit. Ray reads these variables when it is
    imported, so this runs before the import; an explicit ``RAY_AUTH_MODE``, ``RAY_AUTH_TOKEN`` or
    ``RAY_AUTH_TOKEN_PATH`` is respected, and so is a Ray imported earlier by the caller.
    """
    global _TOKEN_DIR
    if _TOKEN_DIR is not None or "ray" in sys.modules:
        return
    if any(v in os.environ for v in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")):
        return
    import atexit
    import secrets
    import shutil
    import tempfile

    _TOKEN_DIR = tempfile.mkdtemp(prefix="claimledger-ray-")
    path = os.path.join(_TOKEN_DIR, "auth_token")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32))
    os.environ.update({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": path})
    atexit.register(shutil.rmtree, _TOKEN_DIR, True)


def _ray_job(job: Job, options: Any, key: str) -> JobResult:
    return run_job(job, options, key)


class RayEngine:
    """Submits :func:`run_job` as Ray tasks; yields results as tasks finish."""

    name = "ray"

    def __init__(self, workers: int, job_timeout: float | None, address: str | None = None) -> None:
        self.workers = max(1, workers)
        self.job_timeout = job_timeout
        self.address = address
        if address is None:
            _session_token()
        self.ray = _import_ray()
        self._started = False

    def _init(self) -> None:
        ray = self.ray
        if ray.is_initialized():
            return
        if self.address:
            ray.init(address=self.address, log_to_driver=False)
        else:
            kwargs: dict[str, Any] = {"num_cpus": self.workers, "include_dashboard": False,
                                      "log_to_driver": False}  # fmt: skip
            tmp = os.environ.get("RAY_TMPDIR")
            if tmp:
                kwargs["_temp_dir"] = tmp
            ray.init(**kwargs)
        self._started = True

    def run(self, tasks: list[Task], options: JobOptions) -> Iterator[JobResult]:
        ray = self.ray
        self._init()
        try:
            remote = ray.remote(num_cpus=1, max_retries=1)(_ray_job)
            options_ref = ray.put(options)
            queue: deque[Task] = deque(tasks)
            flying: dict[Any, tuple[Task, float]] = {}
            while queue or flying:
                while queue and len(flying) < self.workers:
                    job, key = queue.popleft()
                    flying[remote.remote(job, options_ref, key)] = ((job, key), time.monotonic())
                done, _ = ray.wait(list(flying), num_returns=1, timeout=self._tick(flying))
                for ref in done:
                    (job, key), started = flying.pop(ref)
                    yield self._result(ref, job, key, time.monotonic() - started)
                if self.job_timeout is not None:
                    now = time.monotonic()
                    for ref, ((job, key), started) in list(flying.items()):
                        if now - started > self.job_timeout:
                            ray.cancel(ref, force=True)
                            del flying[ref]
                            yield finish(job, failed_report(job, ("job_timeout", (
                                f"the job ran past --job-timeout ({self.job_timeout:g} s) and was stopped; "
                                "nothing in it is verified (raise --job-timeout, or look for a slow source or query)"))),
                                key, now - started)  # fmt: skip
        finally:
            self.close()

    def _tick(self, flying: dict[Any, tuple[Task, float]]) -> float:
        if self.job_timeout is None or not flying:
            return 1.0
        now = time.monotonic()
        return max(0.01, min(1.0, min(s + self.job_timeout - now for _, s in flying.values())))

    def _result(self, ref: Any, job: Job, key: str, seconds: float) -> JobResult:
        try:
            result = self.ray.get(ref)
        except Exception as exc:  # the worker died twice (Ray retried once), or Ray itself failed
            return finish(job, failed_report(job, ("job_worker_lost", (
                f"the Ray task running this job failed ({type(exc).__name__}); nothing in it is verified"))),
                key, seconds)  # fmt: skip
        if not isinstance(result, JobResult):
            return finish(job, failed_report(job, ("check_crashed", "the Ray task returned no result")), key, seconds)
        return result

    def close(self) -> None:
        if self._started and self.ray.is_initialized():
            self.ray.shutdown()
        self._started = False

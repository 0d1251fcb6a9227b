"""The HTTP service's worker processes: checks run in parallel, each bounded in time, the wait bounded in length.

Each worker is a separate process (``spawn``: nothing of the server's threads
or sockets is inherited) that opens the root itself and runs one request at a
time; a worker leads its own process group, so stopping it stops the children
it started (extraction, SQL). The server hands a request to an idle worker:

* at most ``size`` requests run at once, at most ``queue`` more wait; one more
  is refused at once (:class:`Busy`: HTTP 503 with ``Retry-After``);
* a request that runs past ``timeout`` seconds is stopped by killing its
  worker's process group (:class:`TimedOut`: HTTP 504, nothing verified) and
  the worker is replaced;
* a worker that dies (killed for memory, crashed) fails its request
  (:class:`WorkerDied`: HTTP 500, nothing verified) and is replaced;
* a worker is replaced after ``max_requests`` requests, so that what a run
  leaves behind in a process (caches, fragmentation) cannot grow without end.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from claimledger._config import GateConfig
from claimledger._exceptions import ClaimledgerError
from claimledger.load._child import die_with_parent
from claimledger.server._limits import (  # re-exported (defined apart: the CLI reads them without the pool)
    DEFAULT_MAX_READ_BYTES as DEFAULT_MAX_READ_BYTES,
)
from claimledger.server._limits import DEFAULT_MAX_REQUESTS as DEFAULT_MAX_REQUESTS
from claimledger.server._limits import DEFAULT_QUEUE as DEFAULT_QUEUE
from claimledger.server._limits import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from claimledger.server.judge_spec import JudgeSpec

log = logging.getLogger("claimledger.http")


class PoolError(ClaimledgerError):
    """The worker pool could not run a check (busy, timed out, a worker died); never a pass."""

    status = 500
    code = "internal_error"


class Busy(PoolError):
    status, code = 503, "busy"


class TimedOut(PoolError):
    status, code = 504, "timeout"


class WorkerDied(PoolError):
    status, code = 500, "worker_died"


# What a worker runs for each request: "module:function", a (workspace, kind, validated request) ->
# JSON answer function, imported in the worker by name (so this module never imports the server).
DEFAULT_RUNNER = "claimledger.server.http:run_request"


@dataclass(frozen=True)
class PoolSettings:
    root: Path
    config: GateConfig
    allow_urls: bool
    size: int
    queue: int
    timeout: float = DEFAULT_TIMEOUT
    max_requests: int = DEFAULT_MAX_REQUESTS
    judge: JudgeSpec | None = None  # the operator's judge, built afresh in the worker for each check
    runner: str = DEFAULT_RUNNER
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES  # files under the root one request may read (copied)


def default_size() -> int:
    """The number of cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _worker_main(
    conn: Connection, root: str, config: GateConfig, allow_urls: bool, parent: int,
    judge: JudgeSpec | None = None, runner: str = DEFAULT_RUNNER, max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
) -> None:  # fmt: skip
    """A worker: open the root, then answer (kind, request) with ("ok", result) or ("error", status, code, msg)."""
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)  # lead a process group: the pool stops the whole group
    die_with_parent(parent)  # a server killed with SIGKILL leaves no worker running
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group; the server stops the workers
    from claimledger.metrics import load_metrics_file
    from claimledger.server._core import Workspace, error_info

    module_name, _, function = runner.partition(":")
    run_request = getattr(importlib.import_module(module_name), function)

    for path in config.metrics_files:
        load_metrics_file(path)
    ws = Workspace.open(root, config=config, allow_urls=allow_urls, judge=judge, max_read_bytes=max_read_bytes)
    while True:
        try:
            seq, kind, req = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[Any, ...] = ("ok", run_request(ws, kind, req))
        except Exception as exc:
            status, code, message = error_info(exc)
            if status >= 500:
                logging.getLogger("claimledger.http").exception("request failed")
            answer = ("error", status, code, message)
        try:
            conn.send((seq, answer))
        except (OSError, ValueError):
            return


class _Worker:
    def __init__(self, settings: PoolSettings) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=_worker_main,
            args=(child, str(settings.root), settings.config, settings.allow_urls, os.getpid(), settings.judge,
                  settings.runner, settings.max_read_bytes),
            name="claimledger-worker",
            daemon=False,  # a worker may start children of its own (extraction, SQL)
        )
        self.proc.start()
        child.close()
        self.served = 0
        self.seq = 0

    def call(self, kind: str, req: Any, timeout: float) -> tuple[Any, ...]:
        self.seq += 1
        self.conn.send((self.seq, kind, req))
        if not self.conn.poll(timeout):
            self.kill()
            raise TimedOut(f"the check took longer than {timeout:g} s and was stopped; nothing was verified")
        try:
            seq, answer = self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise WorkerDied("the worker running this check stopped (out of memory or a crash); "
                             "nothing was verified") from None  # fmt: skip
        if seq != self.seq:  # never hand one request's answer to another
            self.kill()
            raise WorkerDied("the worker answered another request; nothing was verified")
        self.served += 1
        result: tuple[Any, ...] = answer
        return result

    def alive(self) -> bool:
        return self.proc.is_alive()

    def kill(self) -> None:
        pid = self.proc.pid
        if pid is not None:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)  # the worker and every child it started
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.proc.join(5)
        with contextlib.suppress(OSError):
            self.conn.close()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.close()  # the worker sees EOF and returns
        self.proc.join(2)
        if self.proc.is_alive():
            self.kill()


class WorkerPool:
    """``size`` worker processes behind a bounded wait; :meth:`run` is called from the event loop."""

    def __init__(self, settings: PoolSettings) -> None:
        self.settings = settings
        self._idle: asyncio.Queue[_Worker] | None = None
        self._threads = ThreadPoolExecutor(
            max_workers=settings.size + 1, thread_name_prefix="claimledger-pool"
        )
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self.running = 0
        self.waiting = 0

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._idle = asyncio.Queue()
        workers = await asyncio.gather(
            *(loop.run_in_executor(self._threads, _Worker, self.settings) for _ in range(self.settings.size))
        )
        for w in workers:
            self._track(w)
            self._idle.put_nowait(w)

    def _track(self, worker: _Worker) -> None:
        with self._lock:
            self._workers = [w for w in self._workers if w.alive()] + [worker]

    async def stop(self) -> None:
        for w in list(self._workers):
            w.stop()
        self._threads.shutdown(wait=False, cancel_futures=True)

    def stats(self) -> dict[str, int]:
        return {"workers": self.settings.size, "running": self.running, "waiting": self.waiting,
                "queue": self.settings.queue}  # fmt: skip

    async def run(self, kind: str, req: Any) -> tuple[Any, ...]:
        """Run one request in a worker: ("ok", result) or ("error", status, code, message)."""
        assert self._idle is not None, "start() the pool first"
        if self._idle.empty() and self.waiting >= self.settings.queue:
            raise Busy(f"{self.running} checks are running and {self.waiting} are waiting "
                       f"(the queue holds {self.settings.queue}); try again shortly")  # fmt: skip
        self.waiting += 1
        try:
            worker = await self._idle.get()
        finally:
            self.waiting -= 1
        self.running += 1
        loop = asyncio.get_running_loop()
        call = loop.run_in_executor(self._threads, worker.call, kind, req, self.settings.timeout)
        call.add_done_callback(lambda done: self._release(worker, done))
        # shielded: a cancelled request (shutdown) leaves the call running, and the worker is handed
        # back only when the call has really ended, never while it still answers another request
        return await asyncio.shield(call)

    def _release(self, worker: _Worker, done: asyncio.Future[tuple[Any, ...]]) -> None:
        """Back to the idle queue, or replaced (after a failure, a death, or its last request)."""
        self.running -= 1
        failed = done.cancelled() or done.exception() is not None
        if failed or not worker.alive() or worker.served >= self.settings.max_requests:
            task = asyncio.get_running_loop().create_task(self._replace(worker))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            assert self._idle is not None
            self._idle.put_nowait(worker)

    async def _replace(self, worker: _Worker) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._threads, worker.stop)
        while True:
            try:
                fresh = await loop.run_in_executor(self._threads, _Worker, self.settings)
                break
            except OSError as exc:  # out of processes or memory for a moment: try again
                log.warning("cannot start a worker (%s); retrying", exc)
                await asyncio.sleep(1.0)
        self._track(fresh)
        assert self._idle is not None
        self._idle.put_nowait(fresh)

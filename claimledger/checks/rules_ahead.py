"""The overclaim rules run ahead, in a helper process, while the scan still reads (issue 19).

A claim's rule hits are a pure function of three strings: the statement, the quote and the source
text around the found quote (:mod:`claimledger.checks.overclaim.store`). On a large ledger the rules
were the longest single step on the run's main thread, after the scan and on one core, while the
other core waited. Here a helper process, forked before the scan reads anything, runs them on
the inputs the scan makes known: each cited source's found quotes, as soon as the scan records
them, in scan order. The per-claim checks then take the claims of the sources scanned last first
(``_api._by_source``), so the main thread and the helper work from the two ends of the list. A
claim's check uses the helper's answer when it has arrived and computes its own otherwise. The
main thread waits for the helper :data:`PATIENCE` seconds at most over the whole run (an answer
on its way, see :meth:`RulesAhead.answer`); what has not come back by then is computed there.

What the helper answers can never differ from what the main thread would compute: it is a copy
of the same process (same code, same tables, same Unicode database) running the same function on
the same three strings, and an answer is only ever used for exactly the inputs it was computed on.
A helper that dies, stalls or cannot be started only means that the main thread computes every
answer itself, as without it. The helper is stopped (killed and reaped) when the run closes.

It is started only where a fork is safe and can pay: on Linux, from a process with no other
thread (a fork copies only the calling thread, and a lock another thread held would stay held in
the copy; threads a library started outside :mod:`threading` count too), with at least two CPUs
to run on, with :data:`MIN_CLAIMS` or more quote claims, and not when an earlier run's rule
results answer this one (a warm store). A threaded server or a Ray worker therefore never forks
one. ``CLAIMLEDGER_RULES_AHEAD=0`` turns it off. The helper runs at a lower priority (``nice``
+10): it takes what the run leaves of the CPUs.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from claimledger.model.claim import QuoteClaim

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext
    from claimledger.checks.overclaim._hit import Hit

__all__ = ["MIN_CLAIMS", "RulesAhead", "rules_ahead", "start_rules_ahead"]

MIN_CLAIMS = 1000  # quote claims below which the fork and the messages cost more than they save
CHUNK = 16  # the helper sends its answers after this many claims (or when it has nothing to do)
FLUSH_BYTES = 128 * 1024  # jobs written to the helper in blocks of about this size
PATIENCE = 0.05  # seconds a run waits in all for answers on their way (see RulesAhead.answer)
IDLE_WAIT = 0.005  # seconds the idle helper waits before it tries again to write answers left
NICE = 10
_BUFFER = 1 << 20  # socket buffers asked for (the system may give less)
_HEAD = struct.Struct("!I")

Job = tuple[str, str, str]  # the statement (or the quote), the quote, the source text around it
Answer = tuple[str, "list[Hit]"]  # the store key of the job, and the rules' hits


def enabled() -> bool:
    return os.environ.get("CLAIMLEDGER_RULES_AHEAD", "1").strip() != "0"


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> str | None:
    """Why no helper can be forked here (None: it can)."""
    if not enabled():
        return "CLAIMLEDGER_RULES_AHEAD=0"
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return "not on Linux"
    if _cpus() < 2:
        return "one CPU"
    if threading.active_count() > 1 or not _alone():
        return "other threads are running"
    return None


def _alone(patience: float = 0.02) -> bool:
    """Whether the process has no other thread, those a library started outside :mod:`threading` (a
    DuckDB pool) too. A thread that :meth:`threading.Thread.join` has returned for can still be in
    the system's list for a moment: it is given ``patience`` seconds to leave it."""
    deadline = time.monotonic() + patience
    while True:
        try:
            if len(os.listdir("/proc/self/task")) == 1:
                return True
        except OSError:
            return False  # unknown: taken as not alone
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.001)


class RulesAhead:
    """The parent's end: :meth:`feed` queues the inputs the scan found, :meth:`answer` gives the
    helper's answer for one input when it has arrived, :meth:`close` stops the helper.

    Writing and reading never wait: the jobs are written when the socket takes them, the answers
    read when they are there (only :meth:`answer` waits, within its patience). A write or read
    releases the GIL, which a reading thread may then hold for a while: the jobs are written in
    blocks of :data:`FLUSH_BYTES` (not once per source), and the answers are read only once the
    claims are checked (the helper keeps what the socket does not take).

    The helper's store keys are put in the run's store as they come: it computes them with the same
    code on the same inputs (:func:`claimledger.checks.overclaim.store.result_key`)."""

    def __init__(self, pid: int, jobs: socket.socket, answers: socket.socket,
                 wanted: dict[tuple[str, str], list[tuple[str, str]]]) -> None:  # fmt: skip
        self._pid = pid
        self._jobs: socket.socket | None = jobs
        self._answers_in = answers
        self._wanted = wanted  # (source id, normalized quote) -> the (statement, quote) of its claims
        self._ids: dict[Job, int] = {}
        self._answers: dict[int, Answer] = {}
        self._failed: set[int] = set()  # jobs on which the rules raised in the helper
        self._inbox = bytearray()
        self._outbox = bytearray()  # framed jobs not written yet
        self._patience = PATIENCE  # seconds left to wait for answers on their way
        self.used = 0

    @property
    def alive(self) -> bool:
        return self._jobs is not None

    def feed(self, source_id: str, found: Iterable[tuple[str, str]]) -> None:
        """The scan found these ``(normalized quote, context)`` in ``source_id``: the claims that
        cite it with that quote have their rules' inputs known. A fault here stops the helper (the
        claims compute their own answers)."""
        try:
            self._feed(source_id, found)
        except Exception:
            self.close()

    def answer(self, statement: str, quote: str, context: str) -> Answer | None:
        """The helper's answer for exactly these inputs, or None (not sent, not answered yet, or a
        fault here, which stops the helper).

        An answer on its way is waited for, within :data:`PATIENCE` seconds over the whole run: the
        claims checked first are those of the sources scanned last, whose inputs the helper was
        given last, and computing one here costs importing the rules (their patterns compile)."""
        try:
            return self._answer(statement, quote, context)
        except Exception:
            self.close()
            return None

    def _feed(self, source_id: str, found: Iterable[tuple[str, str]]) -> None:
        if self._jobs is None:
            return
        batch: list[Job] = []
        ids = self._ids
        for nq, context in found:
            for statement, quote in self._wanted.get((source_id, nq), ()):
                job = (statement, quote, context)
                if job not in ids:
                    ids[job] = len(ids)
                    batch.append(job)
        if batch:
            self._outbox += _frame((len(ids) - len(batch), batch))
            if len(self._outbox) >= FLUSH_BYTES:
                self._flush()

    def _answer(self, statement: str, quote: str, context: str) -> Answer | None:
        i = self._ids.get((statement, quote, context))
        if i is None:
            return None
        got = self._answers.get(i)
        if got is None and self._jobs is not None:
            self._exchange()
            got = self._answers.get(i)
            while got is None and i not in self._failed and self._patience > 0 and self._jobs is not None:
                self._patience -= self._exchange(self._patience)
                got = self._answers.get(i)
        if got is not None:
            self.used += 1
        return got

    def wait(self, timeout: float) -> bool:
        """Wait until every job queued so far is answered (at most ``timeout`` seconds); whether it
        is. The run never calls this (it computes what has not come); tests and benchmarks do."""
        try:
            return self._wait(timeout)
        except Exception:
            self.close()
            return False

    def _wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        self._exchange()
        while self._jobs is not None and len(self._answers) + len(self._failed) < len(self._ids):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._exchange(min(left, 0.05))
        return len(self._answers) + len(self._failed) >= len(self._ids)

    def _exchange(self, wait: float = 0.0) -> float:
        """Wait up to ``wait`` seconds for answers (none: not at all), then write the jobs the socket
        takes and take the answers that came; the seconds it took."""
        start = time.monotonic()
        if wait > 0:
            with contextlib.suppress(OSError, ValueError):
                select.select([self._answers_in], [], [], wait)
        self._flush()
        self._drain()
        return time.monotonic() - start

    def _flush(self) -> None:
        """Write what the socket takes now (the rest at the next call)."""
        if self._jobs is None:
            return
        try:
            _write_some(self._jobs, self._outbox)
        except OSError:  # the helper is gone
            self.close()

    def _drain(self) -> None:
        """Take every answer that has arrived."""
        if self._jobs is None:
            return
        try:
            while True:
                chunk = self._answers_in.recv(_BUFFER)
                if not chunk:  # the helper is gone
                    self.close()
                    break
                self._inbox += chunk
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self.close()
        for answers in _unframe(self._inbox):
            if not _well_formed(answers):  # not the helper's: none of its answers is used
                self._answers.clear()
                self.close()
                return
            for i, key, hits in answers:
                if hits is None:  # the rules raised there: the claim's own check runs them
                    self._failed.add(i)
                else:
                    self._answers[i] = (key, hits)

    def close(self) -> None:
        """Stop the helper (killed: it holds nothing to save) and reap it."""
        jobs, self._jobs = self._jobs, None
        if jobs is None:
            return
        for sock in (jobs, self._answers_in):
            with contextlib.suppress(OSError):
                sock.close()
        with contextlib.suppress(OSError):
            os.kill(self._pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(self._pid, 0)


def _well_formed(answers: object) -> bool:
    """A message of the helper's: a list of ``(job id, store key, hits or None)``."""
    from claimledger.checks.overclaim._hit import Hit

    if not isinstance(answers, list):
        return False
    for a in answers:
        if not (isinstance(a, tuple) and len(a) == 3 and type(a[0]) is int and isinstance(a[1], str)):
            return False
        hits = a[2]
        if hits is not None and (type(hits) is not list or (hits and not all(isinstance(h, Hit) for h in hits))):
            return False
    return True


def _frame(obj: object) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEAD.pack(len(data)) + data


def _unframe(buf: bytearray) -> list[Any]:
    """The whole messages at the start of ``buf``, removed from it."""
    out = []
    at = 0
    while len(buf) - at >= _HEAD.size:
        (n,) = _HEAD.unpack_from(buf, at)
        if len(buf) - at - _HEAD.size < n:
            break
        out.append(pickle.loads(buf[at + _HEAD.size : at + _HEAD.size + n]))
        at += _HEAD.size + n
    del buf[:at]
    return out


def _write_some(sock: socket.socket, box: bytearray) -> None:
    """Write the start of ``box`` that a non-blocking ``sock`` takes now, and remove it from ``box``."""
    try:
        while box:
            del box[: sock.send(box)]
    except (BlockingIOError, InterruptedError):
        pass


def _pair() -> tuple[socket.socket, socket.socket]:
    a, b = socket.socketpair()
    for sock in (a, b):
        for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, opt, _BUFFER)
    return a, b


def start_rules_ahead(
    ctx: RunContext, claims: Sequence[object], key_of: Callable[[str, str], tuple[str, str]]
) -> RulesAhead | None:
    """Fork the helper for ``claims`` (their quote claims; ``key_of(source, quote)`` is the scan's
    key of one) when it can pay (see the module); None otherwise, also on any fault (the claims
    then compute their own answers). It is stopped when ``ctx`` closes."""
    try:
        wanted = _wanted(ctx, claims, key_of)
    except Exception:
        return None
    if wanted is None:
        return None
    try:
        jobs_out, jobs_in = _pair()
        answers_in, answers_out = _pair()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        pid = -1
    if pid == 0:  # the helper: never returns
        code = 1
        try:
            jobs_out.close()
            answers_in.close()
            _close_inherited(jobs_in.fileno(), answers_out.fileno())
            _serve(jobs_in, answers_out)
            code = 0
        finally:
            os._exit(code)
    for sock in (jobs_in, answers_out) if pid > 0 else (jobs_out, jobs_in, answers_in, answers_out):
        sock.close()
    if pid < 0:
        return None
    ahead = RulesAhead(pid, jobs_out, answers_in, wanted)
    ctx.on_close(ahead.close)  # (first: nothing between the fork and this can leave it running)
    jobs_out.setblocking(False)
    answers_in.setblocking(False)
    ctx.shared[_SHARED] = ahead
    return ahead


def _wanted(
    ctx: RunContext, claims: Sequence[object], key_of: Callable[[str, str], tuple[str, str]]
) -> dict[tuple[str, str], list[tuple[str, str]]] | None:
    """The ``(statement, quote)`` of the quote claims under their scan key, when a helper can pay."""
    if can_fork() is not None or sum(isinstance(c, QuoteClaim) for c in claims) < MIN_CLAIMS:
        return None
    wanted: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for claim in claims:
        if isinstance(claim, QuoteClaim):
            try:
                key = key_of(claim.source, claim.quote)
            except Exception:  # the claim's own check reports it
                continue
            wanted.setdefault(key, []).append((claim.statement or claim.quote, claim.quote))
    from claimledger.checks.overclaim.store import run_store

    store = run_store(ctx)
    if store is not None and not store.cold():
        return None  # an earlier run's results answer this one (the warm run looks them up)
    return wanted


def _close_inherited(*keep: int) -> None:
    """Close every descriptor the helper inherited but its own sockets (and 0-2): a server's
    listening socket, a batch worker's pipe to its parent, a file being written stay the parent's
    alone (a pipe's reader sees its end when the parent's copy closes, not the helper's)."""
    try:
        open_fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return
    for fd in open_fds:
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):  # (the listing's own descriptor is gone by now)
                os.close(fd)


def _serve(jobs_in: socket.socket, answers_out: socket.socket) -> None:
    """The helper's loop: a thread reads the jobs as they come, this one runs the rules on them in
    order and writes the answers back as the socket takes them (never waiting on it while there
    are jobs: the parent reads the answers only once it checks the claims). The rules' modules are
    imported here, while the parent starts its scan (they compile their patterns on import)."""
    with contextlib.suppress(Exception):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which kills this
        os.nice(NICE)
    from claimledger.checks.overclaim.rules import overclaim_hits
    from claimledger.checks.overclaim.store import result_key

    def rules(statement: str, quote: str, context: str) -> Answer:
        return result_key(statement, quote, context), overclaim_hits(statement, quote, context)

    jobs: deque[tuple[int, Job]] = deque()
    ready = threading.Condition()
    ended = [False]

    def read() -> None:
        buf = bytearray()
        try:
            while chunk := jobs_in.recv(_BUFFER):
                buf += chunk
                got = [(first + k, job) for first, batch in _unframe(buf) for k, job in enumerate(batch)]
                if got:
                    with ready:
                        jobs.extend(got)
                        ready.notify()
        except OSError:
            pass
        finally:
            with ready:
                ended[0] = True
                ready.notify()

    threading.Thread(target=read, daemon=True).start()
    answers_out.setblocking(False)
    out = bytearray()
    while True:
        with ready:
            if not jobs and not ended[0]:
                ready.wait(IDLE_WAIT if out else None)
            if ended[0]:  # the run closed its end, or its process is gone: nobody reads what is left
                return
            take = [jobs.popleft() for _ in range(min(CHUNK, len(jobs)))]
        done: list[tuple[int, str, list[Hit] | None]] = []
        for i, (statement, quote, context) in take:
            try:
                done.append((i, *rules(statement, quote, context)))
            except Exception:  # the main thread runs this claim itself and reports the error
                done.append((i, "", None))
        if done:
            out += _frame(done)
        _write_some(answers_out, out)


def rules_ahead(ctx: RunContext) -> RulesAhead | None:
    """The run's helper (None: not started, or given up)."""
    got: Any = ctx.shared.get(_SHARED)
    return got if isinstance(got, RulesAhead) and got.alive else None


_SHARED = "overclaim_ahead"

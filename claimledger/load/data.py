"""Datasets in DuckDB, sandboxed.

Each declared dataset is loaded once: CSV and JSON are parsed into a DuckDB
table at start-up (so a thousand queries do not parse the file a thousand
times); Parquet stays a view, read lazily and column by column. Identical SQL
is computed once per run. After loading, the connection is locked down: file access only
to the declared files, no extension installs, no configuration changes, a
memory limit, and a time limit per query. Ledger SQL must be one read-only
SELECT statement. The connection lives in a child process with its own memory
limit, killed when a query outlives its time limit (:mod:`._sql_worker`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import selectors
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from claimledger._config import GateConfig
from claimledger._exceptions import ClaimledgerError, SourceError
from claimledger.load import _sql_worker

SQL_WORKER_COMMAND: tuple[str, ...] = (sys.executable, "-I", str(Path(_sql_worker.__file__).resolve()))

def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class QueryError(ClaimledgerError):
    """A query failed; ``reason`` is a reason code value."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class OtherValue:
    """A result value of a type that is never a number (a list, a date, ...), named by its type."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name


def _untag(tagged: list[Any]) -> Any:
    kind, text = str(tagged[0]), str(tagged[1])
    if kind == "none":
        return None
    if kind == "bool":
        return text == "True"
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "decimal":
        return Decimal(text)
    if kind == "str":
        return text
    return OtherValue(text)


KILL_GRACE = 3.0  # seconds past --sql-timeout before the SQL process is killed (DuckDB did not stop)
MAX_ANSWER = 4 << 20  # bytes: two rows of tagged values never come near it
LOAD_TIMEOUT = 120.0  # seconds to load the declared datasets into the SQL process


class _SqlProcess:
    """One child process holding the sandboxed DuckDB connection (see :mod:`._sql_worker`)."""

    def __init__(self, setup: dict[str, Any], memory: int) -> None:
        # DuckDB spills a large query to files in its temp directory, by default ``.tmp`` in the
        # working directory: a process killed at its deadline left them there (85 MB in a user's
        # folder). Each process gets a private one, removed when the process ends or is killed.
        self.temp = tempfile.mkdtemp(prefix="claimledger-sql-")
        self.proc = subprocess.Popen(
            [*SQL_WORKER_COMMAND, str(memory), str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.send({**setup, "temp_directory": self.temp})

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        blob = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(struct.pack(">I", len(blob)) + blob)
        self.proc.stdin.flush()

    def receive(self, timeout: float) -> Any:
        """The next answer, or None when the process ended or did not answer within ``timeout`` (killed)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        buf = bytearray()
        need = 4
        header_done = False
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while len(buf) < need:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.kill()
                    return None
                chunk = os.read(fd, need - len(buf))
                if not chunk:
                    return None
                buf += chunk
                if not header_done and len(buf) == 4:
                    (need,) = struct.unpack(">I", bytes(buf))
                    buf.clear()
                    header_done = True
                    if not 0 < need <= MAX_ANSWER:
                        self.kill()
                        return None
        return json.loads(bytes(buf))

    def ended_by(self) -> str:
        """How the process ended, for a message ("signal 9", "exit code 1")."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        return f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        self._close_pipes()

    def _close_pipes(self) -> None:
        """The pipes closed and the temp directory removed (the process has ended or been killed)."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError, ValueError):
                if pipe is not None:
                    pipe.close()
        shutil.rmtree(self.temp, ignore_errors=True)

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
        self._close_pipes()


class DataStore:
    """The run's datasets, each loaded once, queried through one sandboxed connection.

    The connection lives in one child process per run (:mod:`._sql_worker`) with a memory limit of
    its own; a query that outlives ``--sql-timeout`` by :data:`KILL_GRACE` seconds, or that takes
    the process past its memory limit, ends the process and is a finding; the next query starts a
    new one (datasets loaded again).
    """

    def __init__(self, datasets: dict[str, str], config: GateConfig) -> None:
        self.config = config
        self.errors: dict[str, SourceError] = {}
        self._memo: dict[str, float | QueryError] = {}
        self.sha256: dict[str, str] = {}
        self._datasets = dict(datasets)
        self._setup = {"datasets": self._datasets, "memory_limit": config.sql_memory_limit,
                       "timeout": config.sql_timeout}  # fmt: skip
        self._proc: _SqlProcess | None = None
        self._start()
        for name, origin in datasets.items():
            if name not in self.errors:
                try:
                    self.sha256[name] = file_sha256(Path(origin))
                except OSError as exc:
                    self.errors[name] = SourceError("dataset_unreadable", f"dataset {name!r}: {exc.strerror}")

    def _memory_message(self) -> str:
        return (f"query stopped: it needs more than the {self.config.sql_memory_limit} memory limit "
                f"(--sql-memory-limit) or the SQL process's {_size(self.config.sql_process_memory)} limit "
                "(--sql-process-memory)")  # fmt: skip

    def _start(self) -> _SqlProcess | None:
        try:
            proc = _SqlProcess(self._setup, self.config.sql_process_memory)
        except OSError as exc:
            for name in self._datasets:
                self.errors[name] = SourceError("dataset_unreadable", f"cannot start the SQL process: {exc}")
            return None
        answer = proc.receive(max(LOAD_TIMEOUT, self.config.sql_timeout))
        if not isinstance(answer, dict) or not isinstance(answer.get("errors"), dict):
            why = proc.ended_by()
            proc.kill()
            for name in self._datasets:
                self.errors[name] = SourceError(
                    "dataset_unreadable",
                    f"dataset {name!r}: loading the datasets stopped ({why}): over the SQL process memory "
                    f"limit of {_size(self.config.sql_process_memory)} (--sql-process-memory) or its time "
                    f"limit of {max(LOAD_TIMEOUT, self.config.sql_timeout):g}s",
                )
            return None
        for name, (reason, message) in answer["errors"].items():
            self.errors[str(name)] = SourceError(str(reason), str(message))
        self._proc = proc
        return proc

    def close(self) -> None:
        if self._proc is not None:
            self._proc.close()
            self._proc = None

    def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one request to the SQL process and wait for its answer under the time limit."""
        proc = self._proc or self._start()
        if proc is None:
            raise QueryError("metric_error", "the SQL process could not be started; no query was run")
        try:
            proc.send(message)
        except (OSError, ValueError):
            answer = None
        else:
            answer = proc.receive(self.config.sql_timeout + KILL_GRACE)
        if not isinstance(answer, dict):
            why = proc.ended_by()
            self._proc = None
            proc.kill()
            if "signal 9" in why:  # killed by us at the deadline
                raise QueryError(
                    "metric_error",
                    f"query stopped after the {self.config.sql_timeout:g}s time limit (--sql-timeout); "
                    "DuckDB did not stop it, so its process was killed",
                )
            raise QueryError(
                "metric_error",
                f"query stopped: the SQL process ended ({why}), most likely over its memory limit of "
                f"{_size(self.config.sql_process_memory)} (--sql-process-memory)",
            )
        return answer

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Run one read-only SELECT in the SQL process under the time and memory limits; its first two rows."""
        answer = self._ask({"sql": sql})
        if "error" in answer:
            reason, message = (str(x) for x in answer["error"])
            if reason == "memory":
                raise QueryError("metric_error", self._memory_message())
            raise QueryError(reason, message)
        return [tuple(_untag(v) for v in row) for row in answer["rows"]]

    def columns(self, name: str) -> list[str]:
        """The column names of a declared, loaded dataset, in order (exact case)."""
        answer = self._ask({"columns": name})
        if "error" in answer:
            reason, message = (str(x) for x in answer["error"])
            raise QueryError(reason, message)
        return [str(c) for c in answer["columns"]]

    def scalar(self, sql: str) -> float:
        """Run SQL that returns exactly one numeric value; fail closed on anything else.

        The same SQL text is computed once per run.
        """
        memo = self._memo.get(sql)
        if memo is None:
            try:
                memo = self._scalar(sql)
            except QueryError as exc:
                memo = exc
            self._memo[sql] = memo
        if isinstance(memo, QueryError):
            raise memo
        return memo

    def _scalar(self, sql: str) -> float:
        rows = self.rows(sql)
        if len(rows) != 1 or len(rows[0]) != 1:
            shape = f"{len(rows)}{'+' if len(rows) == 2 else ''} rows x {len(rows[0]) if rows else 0} columns"
            raise QueryError("result_not_scalar", f"SQL must return one row with one value, got {shape}")
        return to_number(rows[0][0])


def _size(n: int) -> str:
    return f"{n / (1 << 30):g} GB" if n >= 1 << 30 else f"{n / (1 << 20):g} MB"


def to_number(value: Any) -> float:
    """A recomputed result as a finite float, or a :class:`QueryError`."""
    if value is None:
        raise QueryError("result_null", "the recomputed value is NULL (no rows, or a division by zero?)")
    if isinstance(value, bool):
        raise QueryError("metric_error", "the recomputed value is a boolean, not a number")
    if isinstance(value, (int, float, Decimal)):
        number = float(value)
    else:
        name = value.type_name if isinstance(value, OtherValue) else type(value).__name__
        raise QueryError("metric_error", f"the recomputed value is {name}, not a number")
    if not math.isfinite(number):
        raise QueryError("result_non_finite", f"the recomputed value is {number} (not finite)")
    return number

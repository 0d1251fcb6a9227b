"""Datasets in DuckDB, sandboxed.

Each declared dataset is loaded once: CSV and JSON are parsed into a DuckDB
table at start-up (so a thousand queries do not parse the file a thousand
times); Parquet stays a view, read lazily and column by column. Identical SQL
is computed once per run. After loading, the connection is locked down: file access only
to the declared files, no extension installs, no configuration changes, a
memory limit, and a time limit per query. Ledger SQL must be one read-only
SELECT statement.
"""

from __future__ import annotations

import hashlib
import math
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

from claimledger._config import GateConfig
from claimledger._exceptions import ClaimledgerError, SourceError

_READERS = {
    ".csv": "read_csv_auto",
    ".tsv": "read_csv_auto",
    ".txt": "read_csv_auto",
    ".parquet": "read_parquet",
    ".pq": "read_parquet",
    ".json": "read_json_auto",
    ".jsonl": "read_json_auto",
    ".ndjson": "read_json_auto",
}


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _quote_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


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


class DataStore:
    """The run's datasets, each loaded once, queried through one sandboxed connection."""

    def __init__(self, datasets: dict[str, str], config: GateConfig) -> None:
        import duckdb

        self._duckdb = duckdb
        self.config = config
        self.errors: dict[str, SourceError] = {}
        self._memo: dict[str, float | QueryError] = {}
        self.sha256: dict[str, str] = {}
        self.con = duckdb.connect(
            ":memory:",
            config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
        )
        allowed: list[str] = []
        for name, origin in datasets.items():
            path = Path(origin)
            if not path.is_file():
                self.errors[name] = SourceError(
                    "dataset_file_missing", f"dataset {name!r}: file {origin} does not exist"
                )
                continue
            reader = _READERS.get(path.suffix.lower())
            if reader is None:
                self.errors[name] = SourceError(
                    "dataset_unreadable",
                    f"dataset {name!r}: unsupported file type {path.suffix!r} (use CSV, Parquet or JSON)",
                )
                continue
            kind = "VIEW" if reader == "read_parquet" else "TABLE"
            try:
                self.con.execute(
                    f"CREATE {kind} {_quote_ident(name)} AS SELECT * FROM {reader}({_quote_str(str(path))})"
                )
            except duckdb.Error as exc:
                self.errors[name] = SourceError(
                    "dataset_unreadable", f"dataset {name!r}: cannot read {origin}: {_short(exc)}"
                )
                continue
            self.sha256[name] = file_sha256(path)
            if kind == "VIEW":
                allowed.append(str(path))
        self.con.execute(f"SET allowed_paths=[{', '.join(_quote_str(p) for p in allowed)}]")
        self.con.execute("SET enable_progress_bar=false")  # never printed into a report on stdout
        self.con.execute("SET enable_external_access=false")
        self.con.execute(f"SET memory_limit={_quote_str(config.sql_memory_limit)}")
        self.con.execute("SET lock_configuration=true")

    def close(self) -> None:
        self.con.close()

    def _check_statement(self, sql: str) -> None:
        try:
            statements = self._duckdb.extract_statements(sql)
        except self._duckdb.Error as exc:
            raise QueryError("metric_error", f"SQL does not parse: {_short(exc)}") from None
        if len(statements) != 1:
            raise QueryError("metric_error", f"SQL must be exactly one statement, got {len(statements)}")
        if statements[0].type != self._duckdb.StatementType.SELECT:
            raise QueryError(
                "metric_error", f"only read-only SELECT queries are allowed, not {statements[0].type.name}"
            )

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Run one read-only SELECT under the time limit and return its rows."""
        self._check_statement(sql)
        timer = threading.Timer(self.config.sql_timeout, self.con.interrupt)
        timer.start()
        try:
            return self.con.execute(sql).fetchmany(2)
        except self._duckdb.InterruptException:
            raise QueryError(
                "metric_error", f"query stopped after the {self.config.sql_timeout:g}s time limit (--sql-timeout)"
            ) from None
        except self._duckdb.OutOfMemoryException:
            raise QueryError(
                "metric_error",
                f"query stopped: it needs more than the {self.config.sql_memory_limit} memory limit "
                "(--sql-memory-limit)",
            ) from None
        except self._duckdb.Error as exc:
            message = _short(exc)
            for name, err in self.errors.items():
                if name.lower() in message.lower():
                    raise QueryError(err.reason, err.message) from None
            if "does not exist" in message and "Table" in message:
                raise QueryError("dataset_undeclared", f"{message} (declare it under `datasets:`)") from None
            raise QueryError("metric_error", f"SQL error: {message}") from None
        finally:
            timer.cancel()

    def columns(self, name: str) -> list[str]:
        """The column names of a declared, loaded dataset, in order (exact case)."""
        try:
            cur = self.con.execute(f"SELECT * FROM {_quote_ident(name)} LIMIT 0")
        except self._duckdb.Error as exc:
            raise QueryError("dataset_unreadable", f"dataset {name!r}: {_short(exc)}") from None
        return [str(d[0]) for d in (cur.description or [])]

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


def to_number(value: Any) -> float:
    """A recomputed result as a finite float, or a :class:`QueryError`."""
    if value is None:
        raise QueryError("result_null", "the recomputed value is NULL (no rows, or a division by zero?)")
    if isinstance(value, bool):
        raise QueryError("metric_error", "the recomputed value is a boolean, not a number")
    if isinstance(value, (int, float, Decimal)):
        number = float(value)
    else:
        raise QueryError("metric_error", f"the recomputed value is {type(value).__name__}, not a number")
    if not math.isfinite(number):
        raise QueryError("result_non_finite", f"the recomputed value is {number} (not finite)")
    return number


def _short(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0][:300]

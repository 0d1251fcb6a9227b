"""Ledger SQL in a child process with an address-space limit (run by :mod:`claimledger.load.data`).

DuckDB's own memory limit and interrupt do not bound everything: ``repeat('x', 2e9)``
allocates past the memory limit, and a single long function call (``list_sort`` of a huge
list, ``unnest``) ignores the interrupt for many seconds. So the connection lives here, in
a child that limits its own memory before it imports DuckDB (``RLIMIT_DATA``, and
``RLIMIT_AS`` at its start-up reservation plus the same amount), and that the parent kills
when a query outlives its time limit. The parent and the child speak length-prefixed JSON
over stdin/stdout; values come back tagged by type (never pickled)::

    python -I _sql_worker.py MEMORY_BYTES PARENT_PID

First message: ``{"datasets": {name: path}, "memory_limit": "512MB", "timeout": 30.0, "temp_directory": dir}``;
answer ``{"errors": {name: [reason, message]}}``. Then one ``{"sql": ...}`` per query,
answered ``{"rows": [[tagged value, ...], ...]}`` or ``{"error": [reason, message]}``.
Imports only the standard library and duckdb, so it starts quickly.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import threading
from decimal import Decimal
from typing import Any, BinaryIO

MAX_TEXT = 200  # a text value is only ever reported, never used: keep its head

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


def read_message(stream: BinaryIO) -> Any:
    head = stream.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack(">I", head)
    return json.loads(stream.read(n))


def write_message(stream: BinaryIO, message: Any) -> None:
    blob = json.dumps(message).encode("ascii")
    stream.write(struct.pack(">I", len(blob)) + blob)
    stream.flush()


def tag(value: Any) -> list[Any]:
    """A result value as ``[type, text]``: exact for numbers, truncated for text."""
    if value is None:
        return ["none", ""]
    if isinstance(value, bool):
        return ["bool", str(value)]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, float):
        return ["float", repr(value)]
    if isinstance(value, Decimal):
        return ["decimal", str(value)]
    if isinstance(value, str):
        return ["str", value[:MAX_TEXT]]
    return ["other", type(value).__name__]


def _q_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _q_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _short(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__


class Worker:
    def __init__(self, duckdb: Any, setup: dict[str, Any]) -> None:
        self.duckdb = duckdb
        self.timeout = float(setup["timeout"])
        self.memory_limit = str(setup["memory_limit"])
        self.errors: dict[str, list[str]] = {}
        config: dict[str, Any] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
        if setup.get("temp_directory"):  # where a large query spills (the parent removes it), not ./.tmp
            config["temp_directory"] = str(setup["temp_directory"])
        self.con = duckdb.connect(":memory:", config=config)
        allowed: list[str] = []
        for name, origin in setup["datasets"].items():
            if not os.path.isfile(origin):
                self.errors[name] = ["dataset_file_missing", f"dataset {name!r}: file {origin} does not exist"]
                continue
            reader = _READERS.get(os.path.splitext(origin)[1].lower())
            if reader is None:
                ext = os.path.splitext(origin)[1]
                self.errors[name] = [
                    "dataset_unreadable",
                    f"dataset {name!r}: unsupported file type {ext!r} (use CSV, Parquet or JSON)",
                ]
                continue
            kind = "VIEW" if reader == "read_parquet" else "TABLE"
            try:
                self.con.execute(f"CREATE {kind} {_q_ident(name)} AS SELECT * FROM {reader}({_q_str(origin)})")
            except (duckdb.Error, MemoryError) as exc:
                self.errors[name] = ["dataset_unreadable", f"dataset {name!r}: cannot read {origin}: {_short(exc)}"]
                continue
            if kind == "VIEW":
                allowed.append(origin)
        self.con.execute(f"SET allowed_paths=[{', '.join(_q_str(p) for p in allowed)}]")
        self.con.execute("SET enable_progress_bar=false")
        self.con.execute("SET enable_external_access=false")
        self.con.execute(f"SET memory_limit={_q_str(self.memory_limit)}")
        self.con.execute("SET lock_configuration=true")

    def check_statement(self, sql: str) -> list[str] | None:
        try:
            statements = self.duckdb.extract_statements(sql)
        except self.duckdb.Error as exc:
            return ["metric_error", f"SQL does not parse: {_short(exc)}"]
        if len(statements) != 1:
            return ["metric_error", f"SQL must be exactly one statement, got {len(statements)}"]
        if statements[0].type != self.duckdb.StatementType.SELECT:
            return ["metric_error", f"only read-only SELECT queries are allowed, not {statements[0].type.name}"]
        return None

    def columns(self, name: str) -> dict[str, Any]:
        try:
            cur = self.con.execute(f"SELECT * FROM {_q_ident(name)} LIMIT 0")
        except self.duckdb.Error as exc:
            return {"error": ["dataset_unreadable", f"dataset {name!r}: {_short(exc)}"]}
        return {"columns": [str(d[0]) for d in (cur.description or [])]}

    def query(self, sql: str) -> dict[str, Any]:
        refused = self.check_statement(sql)
        if refused is not None:
            return {"error": refused}
        duckdb = self.duckdb
        timer = threading.Timer(self.timeout, self.con.interrupt)
        timer.start()
        try:
            rows = self.con.execute(sql).fetchmany(2)
            return {"rows": [[tag(v) for v in row] for row in rows]}
        except duckdb.InterruptException:
            return {"error": ["metric_error", f"query stopped after the {self.timeout:g}s time limit (--sql-timeout)"]}
        except (duckdb.OutOfMemoryException, MemoryError):
            return {"error": ["memory", ""]}
        except duckdb.Error as exc:
            message = _short(exc)
            for name, err in self.errors.items():
                if name.lower() in message.lower():
                    return {"error": err}
            if "does not exist" in message and "Table" in message:
                return {"error": ["dataset_undeclared", f"{message} (declare it under `datasets:`)"]}
            return {"error": ["metric_error", f"SQL error: {message}"]}
        finally:
            timer.cancel()


def _child() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("_claimledger_child", os.path.join(os.path.dirname(__file__), "_child.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    memory, parent = int(sys.argv[1]), int(sys.argv[2])
    child = _child()
    child.die_with_parent(parent)
    child.limit_memory(memory)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    import duckdb

    setup = read_message(stdin)
    if setup is None:
        return
    worker = Worker(duckdb, setup)
    child.limit_address_space(memory)
    write_message(stdout, {"errors": worker.errors})
    while True:
        message = read_message(stdin)
        if message is None:
            return
        try:
            if "columns" in message:
                answer = worker.columns(str(message["columns"]))
            else:
                answer = worker.query(str(message["sql"]))
        except MemoryError:
            answer = {"error": ["memory", ""]}
        write_message(stdout, answer)


if __name__ == "__main__":
    # run as a script, this folder is sys.path[0]: drop it, or claimledger/load/html.py would shadow
    # the standard library's html package
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    main()

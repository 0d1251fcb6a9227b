"""The SQL sandbox: ledger SQL reads only the declared datasets, writes nothing, and is bounded.

Every attack here is written by the ledger's author (an AI or a stranger). It
must end as a HIGH finding, never as a verified number, never as a file read
or written outside the datasets, never as a crash of the gate.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimledger import GateConfig, LedgerError, Outcome, Reason, Status, Tier, gate
from claimledger.load import data as data_module
from claimledger.load.data import DataStore, QueryError
from claimledger.load.ledger import parse_ledger

ROOT = Path(__file__).parent.parent


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DataStore]:
    (tmp_path / "daily.csv").write_text("day,clicks\n1,10\n2,20\n3,30\n")
    (tmp_path / "secret.csv").write_text("token\n42\n")  # on disk, never declared
    ds = DataStore({"daily": str(tmp_path / "daily.csv")}, GateConfig(sql_timeout=1.0, sql_memory_limit="128MB"))
    yield ds
    ds.close()


def test_declared_dataset_is_readable(store: DataStore) -> None:
    assert store.scalar("SELECT sum(clicks) FROM daily") == 60.0
    assert store.scalar("WITH t AS (SELECT clicks FROM daily) SELECT max(clicks) FROM t") == 30.0


ESCAPES = {
    "read_csv of a system file": "SELECT count(*) FROM read_csv('/etc/passwd')",
    "read_text": "SELECT count(*) FROM read_text('/etc/hostname')",
    "read_blob": "SELECT count(*) FROM read_blob('/etc/hostname')",
    "glob": "SELECT count(*) FROM glob('/*')",
    "an undeclared file next to the data": "SELECT sum(token) FROM read_csv('{tmp}/secret.csv')",
    "a file by its bare path": "SELECT count(*) FROM '{tmp}/secret.csv'",
    "the declared file by path (only the table is declared)": "SELECT count(*) FROM read_csv('{tmp}/daily.csv')",
    "/proc environment": "SELECT count(*) FROM read_csv('/proc/self/environ')",
    "http URL (httpfs)": "SELECT count(*) FROM read_csv('http://127.0.0.1:9/x.csv')",
    "https URL": "SELECT count(*) FROM read_parquet('https://127.0.0.1:9/x.parquet')",
    "s3 URL": "SELECT count(*) FROM read_parquet('s3://bucket/x.parquet')",
    "environment variable": "SELECT length(getenv('HOME'))",
    "sniff_csv": "SELECT count(*) FROM sniff_csv('/etc/passwd')",
    "extension listing (reads the extension folder)": "SELECT count(*) FROM duckdb_extensions()",
}

STATEMENTS = {
    "COPY TO a file": "COPY daily TO '{tmp}/out.csv'",
    "COPY FROM a file": "COPY daily FROM '{tmp}/secret.csv'",
    "EXPORT DATABASE": "EXPORT DATABASE '{tmp}/dump'",
    "ATTACH a database file": "ATTACH '{tmp}/x.duckdb' AS x",
    "ATTACH in memory": "ATTACH ':memory:' AS m",
    "INSTALL": "INSTALL httpfs",
    "LOAD": "LOAD httpfs",
    "SET a limit": "SET memory_limit='100GB'",
    "SET external access back on": "SET enable_external_access=true",
    "RESET": "RESET memory_limit",
    "PRAGMA": "PRAGMA memory_limit='100GB'",
    "PRAGMA function": "PRAGMA enable_profiling",
    "CREATE TABLE": "CREATE TABLE t AS SELECT 1",
    "CREATE TABLE from a CTE": "CREATE TABLE t AS WITH x AS (SELECT 1 AS a) SELECT a FROM x",
    "INSERT from a CTE": "WITH x AS (SELECT 1 AS day, 1 AS clicks) INSERT INTO daily SELECT * FROM x",
    "UPDATE": "UPDATE daily SET clicks = 0",
    "DELETE": "DELETE FROM daily",
    "DROP": "DROP TABLE daily",
    "CREATE MACRO": "CREATE MACRO f(x) AS x + 1",
    "CREATE SECRET": "CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')",
    "CALL": "CALL pragma_version()",
    "EXPLAIN ANALYZE": "EXPLAIN ANALYZE SELECT 1",
    "DETACH": "DETACH memory",
    "USE": "USE memory",
    "CHECKPOINT": "CHECKPOINT",
    "VACUUM": "VACUUM",
    "two statements": "SELECT 1; DROP TABLE daily",
    "a SELECT then SET": "SELECT 1; SET threads=64",
    "a statement in query()": "SELECT count(*) FROM query('COPY daily TO ''{tmp}/q.csv''')",
}


@pytest.mark.parametrize("sql", list(ESCAPES.values()), ids=list(ESCAPES))
def test_no_file_network_or_environment_access(store: DataStore, tmp_path: Path, sql: str) -> None:
    with pytest.raises(QueryError) as info:
        store.scalar(sql.format(tmp=tmp_path))
    assert info.value.reason in {"metric_error", "dataset_undeclared"}


@pytest.mark.parametrize("sql", list(STATEMENTS.values()), ids=list(STATEMENTS))
def test_only_one_read_only_select(store: DataStore, tmp_path: Path, sql: str) -> None:
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(QueryError) as info:
        store.scalar(sql.format(tmp=tmp_path))
    assert info.value.reason == "metric_error"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
    # the data and the limits are as they were
    assert store.scalar("SELECT sum(clicks) FROM daily") == 60.0
    limits = store.rows("SELECT current_setting('enable_external_access'), current_setting('lock_configuration')")
    assert limits == [(False, True)]


def test_statement_types_are_those_duckdb_reports() -> None:
    """The check relies on DuckDB's own parser, not on keywords: a CTE in front does not hide a write."""
    import duckdb

    kinds = {sql: duckdb.extract_statements(sql)[0].type.name for sql in (
        "CREATE TABLE t AS WITH x AS (SELECT 1) SELECT * FROM x",
        "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x",
        "WITH x AS (SELECT 1) SELECT * FROM x",
        "FROM daily",
    )}  # fmt: skip
    assert list(kinds.values()) == ["CREATE", "INSERT", "SELECT", "SELECT"]


def test_a_query_past_the_time_limit_is_stopped(store: DataStore) -> None:
    start = time.monotonic()
    with pytest.raises(QueryError, match="time limit") as info:
        store.scalar("SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = 7")
    assert info.value.reason == "metric_error"
    assert time.monotonic() - start < 20  # stopped at ~1 s, not after the heat death of the universe
    assert store.scalar("SELECT count(*) FROM daily") == 3.0  # the connection still works


def test_a_query_over_the_memory_limit_is_stopped(store: DataStore) -> None:
    with pytest.raises(QueryError, match="memory limit") as info:
        store.scalar("SELECT sum(len(x)) FROM (SELECT list(range) AS x FROM range(200000000))")
    assert info.value.reason == "metric_error"
    assert store.scalar("SELECT count(*) FROM daily") == 3.0


def test_a_query_that_allocates_outside_duckdbs_limit_is_stopped(store: DataStore) -> None:
    """`repeat` allocates outside DuckDB's buffer manager: the SQL process's own memory limit stops it."""
    for sql in ("SELECT length(repeat('x', 2000000000))", "SELECT length(repeat('長', 700000000))"):
        with pytest.raises(QueryError, match="memory limit") as info:
            store.scalar(sql)
        assert info.value.reason == "metric_error" and "--sql-process-memory" in str(info.value)
    assert store.scalar("SELECT count(*) FROM daily") == 3.0


def test_a_query_duckdb_does_not_interrupt_is_stopped(tmp_path: Path) -> None:
    """One long function call ignores DuckDB's interrupt (341 s with a 0.2 s limit before): stopped now,
    by DuckDB or by killing its process, whichever comes first on this machine."""
    (tmp_path / "daily.csv").write_text("day,clicks\n1,10\n2,20\n3,30\n")
    ds = DataStore({"daily": str(tmp_path / "daily.csv")}, GateConfig(sql_timeout=0.2))
    try:
        started = time.monotonic()
        # on a loaded machine the query may reach the SQL process's memory limit before the timer
        # fires: either way it is stopped, soon, with a reason that names the limit to raise
        with pytest.raises(QueryError, match=r"time limit|memory limit") as info:
            ds.scalar("SELECT len(list_distinct(range(40000000)))")
        assert time.monotonic() - started < 60  # stopped, not run to its end (341 s before)
        assert info.value.reason == "metric_error"
        assert "--sql-timeout" in str(info.value) or "--sql-process-memory" in str(info.value)
        assert ds.scalar("SELECT sum(clicks) FROM daily") == 60.0
    finally:
        ds.close()


def test_a_query_past_the_deadline_is_killed_and_the_next_one_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kill itself: the deadline is put before DuckDB's own interrupt, so the process must be killed."""
    (tmp_path / "daily.csv").write_text("day,clicks\n1,10\n2,20\n3,30\n")
    monkeypatch.setattr(data_module, "KILL_GRACE", -1.5)  # kill 0.5 s after the query, DuckDB waits 2 s
    ds = DataStore({"daily": str(tmp_path / "daily.csv")}, GateConfig(sql_timeout=2.0))
    try:
        first = ds._proc
        assert first is not None
        with pytest.raises(QueryError, match="process was killed") as info:
            ds.scalar("SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = 7")
        assert info.value.reason == "metric_error" and "--sql-timeout" in str(info.value)
        assert first.proc.poll() is not None  # killed and reaped
        monkeypatch.setattr(data_module, "KILL_GRACE", 3.0)
        assert ds.scalar("SELECT sum(clicks) FROM daily") == 60.0  # a new process, the datasets loaded again
        assert ds._proc is not first
    finally:
        ds.close()


def test_one_sql_process_serves_every_query_of_a_run(store: DataStore) -> None:
    first = store._proc
    assert first is not None
    for i in range(200):
        assert store.scalar(f"SELECT sum(clicks) + {i} FROM daily") == 60.0 + i
    assert store._proc is first and first.proc.poll() is None
    store.close()
    assert first.proc.poll() is not None  # closing the store ends its process


def test_no_spill_files_are_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A query over the memory limit may not spill to a temporary folder (that is a write)."""
    (tmp_path / "d.csv").write_text("a\n1\n")
    monkeypatch.chdir(tmp_path)
    ds = DataStore({"d": str(tmp_path / "d.csv")}, GateConfig(sql_timeout=1.0, sql_memory_limit="32MB"))
    try:
        with pytest.raises(QueryError):
            ds.scalar("SELECT count(*) FROM (SELECT * FROM range(20000000) ORDER BY random())")
    finally:
        ds.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


def test_cli_sql_timeout_reaches_the_query(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("a\n1\n")
    (tmp_path / "ledger.yaml").write_text(
        "version: 1\ndatasets:\n  d: d.csv\nclaims:\n"
        "  - id: SLOW\n    kind: number\n    value: 1\n"
        "    sql: SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range = b.range + 3\n"
        "  - id: FAST\n    kind: number\n    value: 1\n    sql: SELECT sum(a) FROM d\n"
    )
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "claimledger", "check", "--ledger", str(tmp_path / "ledger.yaml"),
         "-f", "json", "--sql-timeout", "0.5", "--sql-memory-limit", "256MB"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert time.monotonic() - start < 60
    import json

    findings = {f["claim_id"]: f for f in json.loads(done.stdout)["findings"]}
    assert findings["SLOW"]["reason"] == "metric_error" and "0.5s time limit" in findings["SLOW"]["message"]
    assert findings["SLOW"]["tier"] == "HIGH"
    assert findings["FAST"]["status"] == "verified"


def test_cli_refuses_a_bad_memory_limit(tmp_path: Path) -> None:
    (tmp_path / "ledger.yaml").write_text("version: 1\nclaims: []\n")
    done = subprocess.run(
        [sys.executable, "-m", "claimledger", "check", "--ledger", str(tmp_path / "ledger.yaml"),
         "--sql-memory-limit", "all of it"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2 and "512MB" in done.stderr


def test_escapes_through_the_gate_are_high_findings(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("a\n5\n")
    claims = "".join(
        f"  - id: X{i}\n    kind: number\n    value: 5\n    sql: \"{sql.format(tmp=tmp_path)}\"\n"
        for i, sql in enumerate([*ESCAPES.values(), *STATEMENTS.values()])
        if '"' not in sql
    )
    (tmp_path / "ledger.yaml").write_text("version: 1\ndatasets:\n  d: d.csv\nclaims:\n" + claims)
    report = gate(tmp_path / "ledger.yaml", config=GateConfig(sql_timeout=2.0))
    assert report.outcome is Outcome.FAIL
    assert len(report.findings) == claims.count("- id:") > 40
    for f in report.findings:
        assert f.status is not Status.VERIFIED and f.tier is Tier.HIGH, f
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "ledger.yaml"]


@pytest.mark.parametrize(
    "field",
    ["metrics_files: [evil.py]", "metrics_file: evil.py", "python: evil.py", "plugins: [evil]", "import: evil"],
)
def test_a_ledger_cannot_name_python_code(field: str) -> None:
    """Python metrics load only from --metrics / GateConfig.metrics_files, never from the ledger."""
    with pytest.raises(LedgerError, match="Extra inputs are not permitted"):
        parse_ledger(f"version: 1\n{field}\nclaims: []\n")


def test_a_claim_cannot_name_python_code_either() -> None:
    with pytest.raises(LedgerError):
        parse_ledger(
            "version: 1\nclaims:\n  - id: N\n    kind: number\n    value: 1\n    metric: m\n    metrics_file: evil.py\n"
        )


def test_a_metric_named_like_a_file_is_just_an_unknown_metric(tmp_path: Path) -> None:
    evil = tmp_path / "evil.py"
    marker = tmp_path / "ran"
    evil.write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    (tmp_path / "ledger.yaml").write_text(
        f"version: 1\nclaims:\n  - id: N\n    kind: number\n    value: 1\n    metric: {evil}\n"
    )
    f = gate(tmp_path / "ledger.yaml").findings[0]
    assert f.reason is Reason.METRIC_UNKNOWN and f.tier is Tier.HIGH
    assert not marker.exists()
    assert not os.path.exists(str(marker))


def test_duckdbs_temporary_files_stay_in_a_folder_removed_with_its_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB puts its temporary files in ./.tmp by default: a SQL process killed at its deadline left
    them in the user's working directory (85 MB once). Each process has a folder of its own, removed
    when the process ends or is killed; nothing is written where the run was started."""
    (tmp_path / "daily.csv").write_text("day,clicks\n1,10\n2,20\n3,30\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(data_module, "KILL_GRACE", -1.5)  # kill 0.5 s after the query, DuckDB waits 2 s
    ds = DataStore({"daily": str(tmp_path / "daily.csv")}, GateConfig(sql_timeout=2.0, sql_memory_limit="32MB"))
    try:
        first = ds._proc
        assert first is not None
        own = Path(first.temp)
        assert own.is_dir() and tmp_path not in own.parents
        # DuckDB's temporary folder is the process's own
        assert ds.scalar(f"SELECT (current_setting('temp_directory') = '{own}')::INT") == 1.0
        with pytest.raises(QueryError, match="process was killed"):
            ds.scalar("SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = 7")
        assert first.proc.poll() is not None and not own.exists()  # killed, and its folder removed
        second = ds._proc
        monkeypatch.setattr(data_module, "KILL_GRACE", 3.0)
        assert ds.scalar("SELECT sum(clicks) FROM daily") == 60.0  # a new process, with a folder of its own
        assert ds._proc is not None and ds._proc is not second and Path(ds._proc.temp).is_dir()
        last = Path(ds._proc.temp)
    finally:
        ds.close()
    assert not last.exists()  # closing the store removes the last one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["daily.csv"]

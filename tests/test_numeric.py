"""Numeric recompute: metrics, SQL over DuckDB datasets, and figures printed in sources."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from claimledger import GateConfig, InputError, Outcome, Reason, Status, Tier, gate, metric
from claimledger.metrics import unregister

ROOT = Path(__file__).parent.parent


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    (tmp_path / "daily.csv").write_text(
        "day,week,clicks,impressions\n"
        + "".join(f"{d},prev,0,0\n" for d in range(1, 8))
        + "".join(f"{d},this,{c},{c * 10}\n" for d, c in zip(range(8, 15), [150, 162, 171, 180, 175, 190, 174], strict=True))
    )  # fmt: skip
    (tmp_path / "sales.json").write_text('[{"region": "東", "yen": 120000000}, {"region": "西", "yen": 180000000}]')
    (tmp_path / "doc.txt").write_text(
        "The programme cost $1.2 million over two years. Adoption reached 42% in 2023.\n"
        "回答企業は1.2万社で、売上は3億円であった。"
    )
    return tmp_path


def ledger(claims: str) -> str:
    return (
        "version: 1\nsources:\n  doc: doc.txt\ndatasets:\n  daily: daily.csv\n  sales: sales.json\n"
        "metrics:\n  clicks.total: \"SELECT sum(clicks) FROM daily WHERE week = 'this'\"\n"
        "  clicks.avgPerDay: \"SELECT avg(clicks) FROM daily WHERE week = 'this'\"\n"
        "  wowChangePct: \"SELECT (sum(clicks) FILTER (WHERE week = 'this') - sum(clicks) FILTER (WHERE week = 'prev'))"
        " / sum(clicks) FILTER (WHERE week = 'prev') * 100 FROM daily\"\n"
        "claims:\n" + claims
    )


def n(cid: str, value: str, **kw: str) -> str:
    extra = "".join(f"    {k}: {v}\n" for k, v in kw.items())
    return f"  - id: {cid}\n    kind: number\n    value: \"{value}\"\n{extra}"


@pytest.fixture
def run(data_dir: Path, write_ledger: Callable[..., Path]) -> Callable[..., dict[str, object]]:
    def _run(claims: str, **cfg: object) -> dict[str, object]:
        report = gate(write_ledger(ledger(claims)), config=GateConfig(**cfg))  # type: ignore[arg-type]
        return {f.claim_id: f for f in report.findings} | {"_report": report}

    return _run


def test_seed000_scenario(run: Callable[..., dict[str, object]]) -> None:
    out = run(
        n("N1", "1,202", metric="clicks.total")
        + n("N2", "171.7", metric="clicks.avgPerDay")
        + n("N3", "12%", metric="wowChangePct")
    )
    assert out["N1"].status is Status.VERIFIED and out["N1"].expected == 1202
    assert out["N2"].status is Status.VERIFIED
    # previous week had zero clicks: the change is not finite, and the gate fails closed
    assert out["N3"].reason in (Reason.RESULT_NON_FINITE, Reason.RESULT_NULL)
    assert out["N3"].tier is Tier.HIGH
    assert out["_report"].outcome is Outcome.FAIL


def test_bundled_seed000_example() -> None:
    cfg = GateConfig(metrics_files=(ROOT / "examples/en/metrics.py",))
    report = gate(ROOT / "examples/en/ledger.yaml", config=cfg)
    by = {f.claim_id: f for f in report.findings}
    assert by["N1"].status is Status.VERIFIED and by["N2"].status is Status.VERIFIED
    assert by["N3"].reason is Reason.RESULT_NON_FINITE  # the Python metric returns NaN (seed 000)
    assert by["N4"].tier is Tier.EXPLAINED
    assert by["N5"].status is Status.VERIFIED
    unregister("wowChangePct")


@pytest.mark.parametrize(
    ("value", "ok"),
    [("1,202", True), ("1202", True), ("1,200", False), ("1.2k", True), ("1.20k", True), ("1.21k", False), ("1203", False)],
)
def test_precision_and_tolerance(run: Callable[..., dict[str, object]], value: str, ok: bool) -> None:
    out = run(n("N", value, metric="clicks.total", tolerance="0"))
    assert (out["N"].status is Status.VERIFIED) is ok


def test_default_relative_tolerance(run: Callable[..., dict[str, object]]) -> None:
    assert run(n("N", "1208", metric="clicks.total"))["N"].status is Status.VERIFIED  # 0.5%
    assert run(n("N", "1209", metric="clicks.total"))["N"].status is Status.DISCREPANCY
    out = run(n("N", "1209", metric="clicks.total"), default_tolerance=0.01)
    assert out["N"].status is Status.VERIFIED


def test_mismatch_message_and_expected(run: Callable[..., dict[str, object]]) -> None:
    f = run(n("N", "1,500", metric="clicks.total"))["N"]
    assert f.reason is Reason.NUMBER_MISMATCH and f.tier is Tier.HIGH and f.expected == 1202
    assert "claimed 1,500 but recomputed 1,202" in f.message


def test_ratio_shown_as_percent_needs_a_unit_or_scale(run: Callable[..., dict[str, object]]) -> None:
    sql = "\"SELECT sum(clicks) / sum(impressions) FROM daily WHERE week = 'this'\""
    f = run(n("N", "10%", sql=sql))["N"]
    assert f.reason is Reason.UNIT_AMBIGUOUS and f.tier is Tier.HIGH and "unit: ratio" in f.message
    assert run(n("N", "10%", sql=sql, scale="100"))["N"].status is Status.VERIFIED
    assert run(n("N", "10%", sql=sql, unit="ratio"))["N"].status is Status.VERIFIED


def test_japanese_values_over_json_data(run: Callable[..., dict[str, object]]) -> None:
    out = run(
        n("J1", "3億", sql='"SELECT sum(yen) FROM sales"')
        + n("J2", "３億円", sql='"SELECT sum(yen) FROM sales"')
        + n("J3", "1.2億", sql="\"SELECT sum(yen) FROM sales WHERE region = '東'\"")
        + n("J4", "2億", sql='"SELECT sum(yen) FROM sales"')
    )
    assert out["J1"].status is Status.VERIFIED
    assert out["J2"].status is Status.VERIFIED
    assert out["J3"].status is Status.VERIFIED
    assert out["J4"].status is Status.DISCREPANCY


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        (n("X", "5", metric="no.such.metric"), Reason.METRIC_UNKNOWN),
        (n("X", "5", sql='"SELECT sum(nope) FROM daily"'), Reason.METRIC_ERROR),
        (n("X", "5", sql='"SELECT * FROM nosuchtable"'), Reason.DATASET_UNDECLARED),
        (n("X", "5", sql='"SELECT NULL"'), Reason.RESULT_NULL),
        (n("X", "5", sql="\"SELECT 'nan'::DOUBLE\""), Reason.RESULT_NON_FINITE),
        (n("X", "5", sql="\"SELECT 'inf'::DOUBLE\""), Reason.RESULT_NON_FINITE),
        (n("X", "5", sql='"SELECT clicks FROM daily"'), Reason.RESULT_NOT_SCALAR),
        (n("X", "5", sql="\"SELECT 'five'\""), Reason.METRIC_ERROR),
        (n("X", "five apples", sql='"SELECT 5"'), Reason.VALUE_UNPARSEABLE),
        (n("X", "5", sql="\"SELECT count(*) FROM read_csv('/etc/passwd')\""), Reason.METRIC_ERROR),
        (n("X", "5", sql='"COPY daily TO \'/tmp/out.csv\'"'), Reason.METRIC_ERROR),
        (n("X", "5", sql='"SELECT 1; SELECT 2"'), Reason.METRIC_ERROR),
        (n("X", "5", sql='"INSTALL httpfs"'), Reason.METRIC_ERROR),
    ],
)
def test_fail_closed(run: Callable[..., dict[str, object]], claim: str, reason: Reason) -> None:
    out = run(claim)
    f = out["X"]
    assert f.reason is reason, f.message
    assert f.tier is Tier.HIGH and f.status is not Status.VERIFIED
    assert out["_report"].outcome is Outcome.FAIL


def test_missing_dataset_file(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    path = write_ledger(
        "version: 1\ndatasets:\n  gone: nothing.csv\nclaims:\n" + n("X", "5", sql='"SELECT count(*) FROM gone"')
    )
    f = gate(path).findings[0]
    assert f.reason is Reason.DATASET_FILE_MISSING and "nothing.csv" in f.message


def test_python_metric_via_decorator(run: Callable[..., dict[str, object]]) -> None:
    @metric("test.days")
    def days(data: object) -> float:
        return data.scalar("SELECT count(*) FROM daily")  # type: ignore[attr-defined,no-any-return]

    @metric("test.broken")
    def broken(data: object) -> float:
        raise ZeroDivisionError("boom")

    try:
        out = run(n("A", "14", metric="test.days") + n("B", "1", metric="test.broken"))
        assert out["A"].status is Status.VERIFIED
        assert out["B"].reason is Reason.METRIC_ERROR and "ZeroDivisionError" in out["B"].message
    finally:
        unregister("test.days")
        unregister("test.broken")


def test_metrics_file_errors_are_input_errors(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    bad = tmp_path / "m.py"
    bad.write_text("raise RuntimeError('bad metrics file')\n")
    path = write_ledger("version: 1\nclaims: []\n")
    with pytest.raises(InputError, match="bad metrics file"):
        gate(path, config=GateConfig(metrics_files=(bad,)))
    with pytest.raises(InputError, match="not found"):
        gate(path, config=GateConfig(metrics_files=(tmp_path / "none.py",)))


@pytest.mark.parametrize(
    ("value", "quote", "ok"),
    [
        ("$1,200,000", "The programme cost $1.2 million over two years", True),
        ("1.2 million", "The programme cost $1.2 million over two years", True),
        ("42%", "Adoption reached 42% in 2023", True),
        ("24%", "Adoption reached 42% in 2023", False),
        ("12,000", "回答企業は1.2万社で、売上は3億円であった", True),
        ("300,000,000円", "回答企業は1.2万社で、売上は3億円であった", True),
        ("4億円", "回答企業は1.2万社で、売上は3億円であった", False),
    ],
)
def test_number_backed_by_a_source_passage(
    run: Callable[..., dict[str, object]], value: str, quote: str, ok: bool
) -> None:
    f = run(n("S", value, source="doc", quote=f'"{quote}"'))["S"]
    assert (f.status is Status.VERIFIED) is ok, f.message
    if not ok:
        assert f.reason is Reason.NUMBER_NOT_IN_QUOTE and f.tier is Tier.HIGH


def test_number_passage_must_itself_verify(run: Callable[..., dict[str, object]]) -> None:
    f = run(n("S", "42%", source="doc", quote='"Adoption reached 42% in 2024"'))["S"]
    assert f.status is not Status.VERIFIED and f.reason is Reason.QUOTE_NEAR_MISS


def test_parquet_dataset_and_repeated_sql(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    import duckdb

    duckdb.sql(
        "COPY (SELECT range AS id, range % 7 AS k FROM range(100000)) "
        f"TO '{tmp_path / 'big.parquet'}' (FORMAT parquet)"
    )
    sql = '"SELECT count(*) FROM big WHERE k = 3"'
    path = write_ledger(
        "version: 1\ndatasets:\n  big: big.parquet\nclaims:\n"
        + n("A", "14,286", sql=sql) + n("B", "1.4万", sql=sql) + n("C", "15,000", sql=sql)
    )  # fmt: skip
    by = {f.claim_id: f for f in gate(path).findings}
    assert by["A"].status is Status.VERIFIED and by["B"].status is Status.VERIFIED
    assert by["C"].status is Status.DISCREPANCY and by["C"].expected == 14286

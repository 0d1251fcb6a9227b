"""Issue 13, class 2: a percent is never compared with a ratio by accident.

"0.25%" against a query returning 0.248 (24.8 %) used to verify silently; "31%"
against 0.3114 was caught only by luck. With no ``unit:`` declared, both readings
are shown and nothing verifies (``unit_ambiguous``, HIGH); a declared unit decides.
Data: a CSV with a byte-order mark and CRLF lines, as spreadsheets export it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimledger import GateConfig, gate, mark
from claimledger.model.finding import Reason, Status, Tier
from tests.realdocs import survey_csv


@pytest.fixture
def world(tmp_path: Path) -> Path:
    # 1,000 requests, 248 of them slow (ratio 0.248); 3114 of 10,000 sessions converted (0.3114)
    survey_csv(tmp_path / "requests.csv", ["id", "slow", "region"],
               [[i, 1 if i <= 248 else 0, "東日本" if i % 2 else "west"] for i in range(1, 1001)])  # fmt: skip
    survey_csv(tmp_path / "sessions.csv", ["id", "converted"], [[i, 1 if i <= 3114 else 0] for i in range(1, 10001)])
    (tmp_path / "metrics.py").write_text(
        "from claimledger import metric\n\n"
        "@metric('slow.share', unit='ratio')\n"
        "def slow_share(data):\n"
        "    return data.scalar('SELECT avg(slow) FROM requests')\n",
        encoding="utf-8",
    )
    return tmp_path


def _gate(world: Path, claims: str, metrics: str = "", **kw: object) -> dict[str, object]:
    text = (
        "version: 1\ndatasets:\n  requests: requests.csv\n  sessions: sessions.csv\n"
        + (f"metrics:\n{metrics}" if metrics else "")
        + "claims:\n"
        + claims
    )
    path = world / "ledger.yaml"
    path.write_text(text, encoding="utf-8")
    report = gate(path, **kw)  # type: ignore[arg-type]
    return {f.claim_id: f for f in report.findings}


SLOW = "SELECT avg(slow) FROM requests"
CONV = "SELECT avg(converted) FROM sessions"


def claim(cid: str, value: str, extra: str) -> str:
    return f"  - id: {cid}\n    kind: number\n    value: \"{value}\"\n{extra}"


def test_undeclared_unit_never_verifies_under_one_reading(world: Path) -> None:
    out = _gate(world, claim("A", "0.25%", f"    sql: \"{SLOW}\"\n") + claim("B", "31%", f"    sql: \"{CONV}\"\n"))
    for cid in ("A", "B"):
        f = out[cid]
        assert f.reason is Reason.UNIT_AMBIGUOUS and f.tier is Tier.HIGH and f.status is Status.UNVERIFIABLE
        assert "`unit: ratio`" in f.message and "`unit: percent`" in f.message
    assert "as percent points it is 0.248% (matches 0.25%)" in out["A"].message
    assert "as a ratio it is 24.8% (does not match 0.25%)" in out["A"].message
    assert "as a ratio it is 31.14% (matches 31%)" in out["B"].message
    assert out["A"].extra["readings"] == {"percent": pytest.approx(0.248), "ratio": pytest.approx(24.8)}


def test_declared_units_decide(world: Path) -> None:
    claims = (
        claim("R1", "0.25%", f"    sql: \"{SLOW}\"\n    unit: ratio\n")  # 24.8 %, not 0.25 %
        + claim("R2", "24.8%", f"    sql: \"{SLOW}\"\n    unit: ratio\n")
        + claim("R3", "31%", "    metric: conv\n")  # unit from the metric's long form
        + claim("R4", "0.25%", f"    sql: \"{SLOW}\"\n    unit: percent\n")  # the writer says: percent points
        + claim("R5", "25%", "    metric: slow.share\n")  # unit from @metric(..., unit="ratio")
        + claim("R6", "0.248", f"    sql: \"{SLOW}\"\n")  # a plain number: no percent involved
        + claim("R7", "12%", "    sql: \"SELECT count(*) FROM requests WHERE slow = 1\"\n    unit: count\n")
    )
    metrics = f"  conv: {{sql: \"{CONV}\", unit: ratio}}\n"
    out = _gate(world, claims, metrics, config=GateConfig(metrics_files=[str(world / "metrics.py")]))
    assert out["R1"].reason is Reason.NUMBER_MISMATCH and "24.8" in out["R1"].message
    assert out["R2"].status is Status.VERIFIED and "(a ratio, x100)" in out["R2"].message
    assert out["R3"].status is Status.VERIFIED
    assert out["R4"].status is Status.VERIFIED
    assert out["R5"].status is Status.VERIFIED
    assert out["R6"].status is Status.VERIFIED
    assert out["R7"].reason is Reason.NUMBER_MISMATCH and "a count" in out["R7"].message


def test_reverse_reading_is_shown_too(world: Path) -> None:
    # the query returns percent points (24.8), the draft shows a ratio (0.248)
    out = _gate(world, claim("P", "0.248", f"    sql: \"100.0 * ({SLOW})\"\n".replace('"100.0 * (', '"SELECT 100.0 * (')))
    assert out["P"].reason is Reason.UNIT_AMBIGUOUS and "the ratio 0.248, which matches" in out["P"].message


def test_a_bad_unit_fails_closed(world: Path) -> None:
    from claimledger._exceptions import ClaimledgerError

    with pytest.raises(ClaimledgerError, match="unit"):
        _gate(world, claim("X", "1%", f"    sql: \"{SLOW}\"\n    unit: percentage\n"))


def test_japanese_draft_mark_on_ambiguous_percent(world: Path) -> None:
    ledger = world / "ja.yaml"
    ledger.write_text(
        "version: 1\ndatasets:\n  requests: requests.csv\nclaims:\n"
        f"  - {{id: N1, kind: number, value: '0.25％', sql: \"{SLOW}\", location: {{line: 3}}}}\n"
        f"  - {{id: N2, kind: number, value: '24.8％', sql: \"{SLOW}\", unit: ratio, location: {{line: 4}}}}\n",
        encoding="utf-8",
    )
    draft = world / "ja.md"
    draft.write_text("# 結果\n\n遅いリクエストは全体の0.25％[V]だった。\n比率にすると24.8％[V]である。\n", encoding="utf-8")
    result = mark(draft, ledger=ledger)
    assert [(v.letter, v.finding.reason.value) for v in result.verdicts] == [
        ("D", "unit_ambiguous"),
        ("V", "number_match"),
    ]
    assert "0.25％[D]" in result.text and "24.8％[V]" in result.text

"""Reports cite the committed operating points (benchmark version, false-verify and miss rates)."""

from __future__ import annotations

from pathlib import Path

from claimledger import gate
from claimledger.model.claim import Ledger, QuoteClaim
from claimledger.operating_points import cite, load_operating_points
from claimledger.output.markdown import render_markdown
from evaluation import BENCHMARK_VERSION


def test_the_committed_file_loads_and_has_every_deterministic_check() -> None:
    data = load_operating_points()
    assert data is not None
    assert data["benchmark_version"] == BENCHMARK_VERSION
    assert len(data["inputs_sha256"]) == 6 and isinstance(data["seed"], int)
    checks = data["checks"]
    assert set(checks["literal_quote"]) == {"en", "ja"}
    assert set(checks["overclaim"]) == {"en", "ja"}
    assert checks["literal_quote"]["en"]["false_verify_rate"] == 0.0
    assert checks["numeric_recompute"]["en"]["false_verify_rate"] == 0.0
    for per_lang in checks.values():
        for point in per_lang.values():
            assert point["n"] > 0
            assert 0.0 <= point["false_verify_rate"] <= 1.0 and 0.0 <= point["miss_rate"] <= 1.0


def test_cite_only_the_checks_that_ran() -> None:
    assert cite([]) == {}
    assert cite(["unlisted_audit"]) == {}
    cited = cite(["literal_quote", "literal_quote"])
    assert list(cited["checks"]) == ["literal_quote"]
    assert cited["benchmark_version"] == BENCHMARK_VERSION


def test_json_and_markdown_reports_cite_the_operating_points(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_text("The harbour survey found about 1274 damaged blocks on the outer wall.\n")
    ledger = Ledger(
        version=1,
        sources={"s": "s.txt"},
        claims=[QuoteClaim(kind="quote", id="C1", source="s", quote="found about 1274 damaged blocks")],
    )
    report = gate(ledger, base_dir=tmp_path)
    data = load_operating_points()
    assert data is not None
    points = report.to_dict()["operating_points"]
    assert points["benchmark_version"] == BENCHMARK_VERSION
    assert set(points["checks"]) == {"literal_quote"}
    en = points["checks"]["literal_quote"]["en"]
    measured = data["checks"]["literal_quote"]["en"]
    assert en["false_verify_rate"] == measured["false_verify_rate"]
    assert en["miss_rate"] == measured["miss_rate"] and en["benchmark"] == BENCHMARK_VERSION
    text = render_markdown(report)
    assert "### Operating points" in text
    section = text.split("### Operating points", 1)[1].split("###", 1)[0]
    assert BENCHMARK_VERSION in section and "`literal_quote`" in section
    assert f"miss {100 * measured['miss_rate']:.2f}%" in section
    assert "false-verify 0.00%" in section

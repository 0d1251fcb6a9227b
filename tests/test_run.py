"""The run object: extra sources merged once, per-run metrics (no lock), the fail-closed step wrapper."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from claimledger import GateConfig, InputError, Reason, Status, Tier, gate
from claimledger.metrics import registered
from claimledger.model.finding import Finding
from claimledger.reconcile import tiered
from claimledger.run import Reproducibility, Run, guarded

LEDGER = """\
version: 1
datasets:
  daily: daily.csv
claims:
  - id: N1
    kind: number
    value: {value}
    metric: clicks.total
"""


def _world(tmp_path: Path, name: str, total: int) -> tuple[Path, Path]:
    """A folder with a dataset, a metrics file whose `clicks.total` gives ``total``, and a ledger claiming it."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "daily.csv").write_text("day,clicks\n1,10\n2,20\n", "utf-8")
    metrics = folder / "metrics.py"
    metrics.write_text(
        "from claimledger import metric\n\n"
        "@metric('clicks.total')\n"
        f"def total(data):\n    return data.scalar('SELECT sum(clicks) FROM daily') * 0 + {total}\n",
        "utf-8",
    )
    ledger = folder / "ledger.yaml"
    ledger.write_text(LEDGER.format(value=total), "utf-8")
    return ledger, metrics


def test_two_runs_with_different_metrics_files_never_see_each_others(tmp_path: Path) -> None:
    """Same metric name, different files, run at the same time in threads: each run uses its own."""
    worlds = [_world(tmp_path, f"w{i}", 100 + i) for i in range(4)]

    def one(i: int) -> tuple[int, Status]:
        ledger, metrics = worlds[i % 4]
        report = gate(ledger, config=GateConfig(metrics_files=(metrics,)))
        [f] = report.findings
        return i % 4, f.status

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, range(24)))
    assert all(status is Status.VERIFIED for _, status in results), results
    assert "clicks.total" not in registered()  # nothing leaked into the process


def test_a_metric_from_a_file_is_unknown_to_a_run_without_the_file(tmp_path: Path) -> None:
    ledger, metrics = _world(tmp_path, "w", 30)
    assert gate(ledger, config=GateConfig(metrics_files=(metrics,))).findings[0].status is Status.VERIFIED
    f = gate(ledger).findings[0]
    assert f.reason is Reason.METRIC_UNKNOWN and f.tier is Tier.HIGH


def test_extra_sources_are_merged_once_and_keep_the_ledger_identity(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha", "utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text("version: 1\nsources:\n  a: a.txt\n  b: b.txt\nclaims: []\n", "utf-8")
    with Run.open(ledger, sources={"b": "/elsewhere/b.txt", "c": "c.txt"}) as run:
        assert run.ledger.sources == {"a": "a.txt", "b": "/elsewhere/b.txt", "c": "c.txt"}
        assert run.ledger._path == str(ledger.resolve()) and run.ledger._sha256 is not None
        assert run.folder == tmp_path.resolve()
        repro = run.reproducibility(None, semantic_check="x").to_dict()
    assert list(repro) == [
        "tool", "tool_version", "python", "ledger", "sources", "datasets", "config", "draft", "semantic_check",
    ]  # fmt: skip
    assert repro["ledger"]["sha256"] == run.ledger._sha256


def test_guarded_turns_a_crash_into_a_finding_and_lets_input_errors_through() -> None:
    findings: list[Finding] = []

    def boom() -> int:
        raise ZeroDivisionError("division by zero")

    value, error = guarded(findings, boom, claim_id="draft", check="draft", what="checking the draft")
    assert value is None and isinstance(error, ZeroDivisionError)
    [f] = findings
    assert f.tier is None  # untiered, like every check's finding: reconcile assigns the tier once
    [f] = tiered(findings)
    assert f.status is Status.ERROR and f.reason is Reason.CHECK_CRASHED and f.tier is Tier.HIGH
    assert "internal error while checking the draft (ZeroDivisionError: division by zero)" in f.message
    judged, _ = guarded(findings, boom, claim_id="judge", check="semantic", what="asking the judge",
                        reason=Reason.JUDGE_FAILED)  # fmt: skip
    assert judged is None and tiered(findings)[-1].tier is Tier.MED  # a judge failure: MED, never a pass
    assert guarded(findings, lambda: 7, claim_id="x", check="x", what="x") == (7, None)

    def bad_input() -> None:
        raise InputError("section 'Nope' not found")

    with pytest.raises(InputError):
        guarded(findings, bad_input, claim_id="x", check="x", what="x")


def test_the_reproducibility_block_reports_only_what_was_asked() -> None:
    r = Reproducibility(ledger={}, sources={}, datasets={}, config={})
    assert "summary_support" not in r.to_dict() and "references" not in r.to_dict()
    r.summary_support = "not run"
    assert r.to_dict()["summary_support"] == "not run"

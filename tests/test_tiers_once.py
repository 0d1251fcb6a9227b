"""Tiers are assigned in one place: checks return findings without a tier (with what the claim's author
offered), and reconcile.tiered gives every finding its tier from the reason table, once per run."""

from __future__ import annotations

import ast
from pathlib import Path

import claimledger
from claimledger import gate
from claimledger.checks.context import RunContext
from claimledger.load.ledger import parse_ledger
from claimledger.model.finding import Finding, Offered, Reason, Status, Tier
from claimledger.reconcile import tiered
from claimledger.registry import run_checks
from claimledger.run import DraftRun, crashed

PACKAGE = Path(claimledger.__file__).parent
ALT = "the 2023 figure counts only paid subscriptions, which the dashboard filters out"


def test_assign_tier_is_called_only_by_reconcile() -> None:
    callers = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "assign_tier":
                callers.add(str(path.relative_to(PACKAGE.parent)))
    assert callers == {"claimledger/reconcile.py"}  # reference verdicts and batch job errors too


def _ledger(tmp_path: Path, alternative: str) -> Path:
    (tmp_path / "d.csv").write_text("n\n10\n20\n")
    (tmp_path / "ledger.yaml").write_text(
        "version: 1\ndatasets:\n  d: d.csv\nclaims:\n"
        f"  - {{id: N1, kind: number, value: 31, sql: 'SELECT SUM(n) FROM d', author_alternative: '{alternative}'}}\n"
        "  - {id: N2, kind: number, value: 30, sql: 'SELECT SUM(n) FROM d'}\n"
    )
    return tmp_path / "ledger.yaml"


def test_a_check_returns_untiered_findings_and_reconcile_tiers_them(tmp_path: Path) -> None:
    path = _ledger(tmp_path, ALT)
    ledger = parse_ledger(path.read_text(), str(path))
    from claimledger import GateConfig
    from claimledger.metrics import run_registry

    ctx = RunContext.create(ledger, tmp_path, GateConfig(), run_registry(()))
    try:
        raw = run_checks(ledger.claims[0], ctx)
    finally:
        ctx.close()
    assert [f.tier for f in raw] == [None] and raw[0].reason is Reason.NUMBER_MISMATCH
    (explained,) = tiered([Finding(**{**raw[0].__dict__, "offered": Offered(ALT)})])
    assert explained.tier is Tier.EXPLAINED and explained.status is Status.EXPLAINED
    (plain,) = tiered(raw)
    assert plain.tier is Tier.HIGH


def test_gate_tiers_every_finding_once(tmp_path: Path) -> None:
    report = gate(_ledger(tmp_path, ALT))
    tiers = {f.claim_id: (f.tier, f.status) for f in report.findings}
    assert tiers == {"N1": (Tier.EXPLAINED, Status.EXPLAINED), "N2": (None, Status.VERIFIED)}
    (n1,) = [f for f in report.findings if f.claim_id == "N1"]
    assert n1.message.count("explained by the author") == 1 and n1.author_alternative == ALT
    assert "offered" not in n1.to_dict()
    vague = gate(_ledger(tmp_path, "rounding"))
    assert {f.claim_id: f.tier for f in vague.findings}["N1"] is Tier.HIGH


def test_tiered_keeps_a_tier_already_given_and_leaves_verified_untiered() -> None:
    given = Finding("R1", "reference", Status.UNVERIFIABLE, Reason.SOURCE_TIMEOUT, "m", tier=Tier.LOW)
    verified = Finding("Q1", "quote", Status.VERIFIED, Reason.QUOTE_FOUND, "m", offered=Offered(ALT))
    assert tiered([given, verified]) == [given, Finding("Q1", "quote", Status.VERIFIED, Reason.QUOTE_FOUND, "m")]


def test_a_crash_is_untiered_until_reconcile_and_never_passes() -> None:
    f = crashed("judge", "semantic", Reason.JUDGE_FAILED, "boom")
    assert f.tier is None
    assert tiered([f])[0].tier is Tier.MED
    assert tiered([crashed("draft", "draft", Reason.CHECK_CRASHED, "boom")])[0].tier is Tier.HIGH


def test_a_drafts_verdicts_come_tiered_from_the_run(tmp_path: Path) -> None:
    """The mark checker returns untiered verdicts; the run reconciles them once (mark and lint read tiers)."""
    ledger = _ledger(tmp_path, ALT)
    (tmp_path / "draft.md").write_text("Sales were 31 [V] in total. <!-- claim: N1 -->\n")
    run = DraftRun.open(tmp_path / "draft.md", ledger)
    try:
        raw = run.checker.verdicts()
        done = run.verdicts()
    finally:
        run.close()
    assert raw and all(v.finding.tier is None for v in raw)
    assert [v.finding.tier for v in done] == [f.tier for f in tiered(v.finding for v in raw)]
    assert all(v.finding.offered is None for v in done)

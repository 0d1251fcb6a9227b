"""Tiers and outcome, as in seed 003."""

from __future__ import annotations

import pytest

from claimledger.model.finding import Finding, Reason, Status, Tier
from claimledger.model.report import Outcome
from claimledger.reconcile import assign_tier, is_concrete_alternative, outcome_of


def finding(reason: Reason, status: Status = Status.DISCREPANCY) -> Finding:
    return Finding("C1", "test", status, reason, "msg")


def test_every_reason_has_a_full_row_in_the_table() -> None:
    for reason in Reason:
        assert reason.tier is not Tier.EXPLAINED  # EXPLAINED is given by reconcile, never a default
        assert reason.description.strip() and reason.action.strip(), reason
        assert not (reason.explainable and reason.tier is not Tier.HIGH), reason  # only a HIGH can be explained
    verified = {r for r in Reason if r.tier is None}
    assert verified == {
        Reason.QUOTE_FOUND, Reason.NUMBER_MATCH, Reason.REFERENCE_VERIFIED, Reason.ATTRIBUTION_SUPPORTED,
        Reason.DATASET_FACT_CONFIRMED,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("reason", "tier"),
    [
        (Reason.QUOTE_ABSENT, Tier.HIGH),
        (Reason.QUOTE_MISATTRIBUTED, Tier.HIGH),
        (Reason.QUOTE_TOO_SHORT, Tier.HIGH),
        (Reason.SOURCE_UNDECLARED, Tier.HIGH),
        (Reason.SOURCE_FILE_MISSING, Tier.HIGH),
        (Reason.NUMBER_MISMATCH, Tier.HIGH),
        (Reason.METRIC_UNKNOWN, Tier.HIGH),
        (Reason.RESULT_NON_FINITE, Tier.HIGH),
        (Reason.SOURCE_TIMEOUT, Tier.MED),
        (Reason.SOURCE_SERVER_ERROR, Tier.MED),
        (Reason.SOURCE_FORBIDDEN, Tier.LOW),
    ],
)
def test_seed003_tiers(reason: Reason, tier: Tier) -> None:
    assert assign_tier(finding(reason), None).tier is tier


def test_explained_needs_a_concrete_alternative() -> None:
    alt = "Rate computed on the 10% sampled impressions, not the raw log"
    f = assign_tier(finding(Reason.NUMBER_MISMATCH), alt)
    assert f.tier is Tier.EXPLAINED and f.status is Status.EXPLAINED and alt in f.message
    for vague in ("", "   ", "n/a", "TBD", "rounding", "see notes", "なし", "不明"):
        g = assign_tier(finding(Reason.NUMBER_MISMATCH), vague)
        assert g.tier is Tier.HIGH, vague
    ja = assign_tier(finding(Reason.NUMBER_MISMATCH), "2023年度版の改訂値を使用")
    assert ja.tier is Tier.EXPLAINED


@pytest.mark.parametrize(
    "reason",
    [Reason.QUOTE_ABSENT, Reason.QUOTE_MISATTRIBUTED, Reason.SOURCE_UNDECLARED, Reason.METRIC_UNKNOWN],
)
def test_fabrication_is_never_explained(reason: Reason) -> None:
    f = assign_tier(finding(reason), "A perfectly concrete and specific named reason, version 2")
    assert f.tier is Tier.HIGH


def test_a_non_verified_finding_never_goes_untiered() -> None:
    f = assign_tier(finding(Reason.QUOTE_FOUND, status=Status.DISCREPANCY), None)
    assert f.tier is Tier.HIGH


def test_outcomes() -> None:
    ok = assign_tier(finding(Reason.QUOTE_FOUND, Status.VERIFIED), None)
    high = assign_tier(finding(Reason.QUOTE_ABSENT), None)
    med = assign_tier(finding(Reason.SOURCE_TIMEOUT, Status.UNVERIFIABLE), None)
    low = assign_tier(finding(Reason.SOURCE_FORBIDDEN, Status.UNVERIFIABLE), None)
    expl = assign_tier(finding(Reason.NUMBER_MISMATCH), "Uses the 2023 revised series, not the preliminary one")
    assert outcome_of([]) is Outcome.NO_CLAIMS
    assert outcome_of([ok]) is Outcome.PASS
    assert outcome_of([ok, low, expl]) is Outcome.PASS
    assert outcome_of([ok, med, low]) is Outcome.PARTIAL
    assert outcome_of([ok, med, high]) is Outcome.FAIL


def test_concrete_alternative_rules() -> None:
    assert not is_concrete_alternative(None)
    assert not is_concrete_alternative("short")
    assert is_concrete_alternative("Fiscal year ends in March, not December")

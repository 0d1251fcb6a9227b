"""Stage 4: tiers and outcome, exactly as in seed 003.

* HIGH: fabricated or missing source, quote absent or misattributed, number out
  of tolerance, unknown metric, non-finite result ... (fail closed).
* MED: transient failure (URL timeout, 5xx, network).
* LOW: source truly inaccessible (401/402/403).
* EXPLAINED: a numeric discrepancy with a concrete, named ``author_alternative``.
  Never for an absent or misattributed quote; an empty or vague alternative
  stays HIGH.

Outcome: FAIL on any HIGH, PARTIAL on MED without HIGH, PASS otherwise;
NO_CLAIMS when there was nothing to verify (never PASS).
"""

from __future__ import annotations

import dataclasses
import re

from claimledger.model.finding import Finding, Reason, Status, Tier
from claimledger.model.report import Outcome

REASON_TIER: dict[Reason, Tier | None] = {
    Reason.QUOTE_FOUND: None,
    Reason.NUMBER_MATCH: None,
    Reason.QUOTE_ABSENT: Tier.HIGH,
    Reason.QUOTE_NEAR_MISS: Tier.HIGH,
    Reason.QUOTE_MISATTRIBUTED: Tier.HIGH,
    Reason.QUOTE_TOO_SHORT: Tier.HIGH,
    Reason.QUOTE_ONLY_IN_HIDDEN_TEXT: Tier.HIGH,
    Reason.SOURCE_UNDECLARED: Tier.HIGH,
    Reason.SOURCE_FILE_MISSING: Tier.HIGH,
    Reason.SOURCE_UNREADABLE: Tier.HIGH,
    Reason.SOURCE_NO_TEXT: Tier.HIGH,
    Reason.SOURCE_TOO_LARGE: Tier.HIGH,
    Reason.SOURCE_NOT_FOUND: Tier.HIGH,
    Reason.SOURCE_URL_REFUSED: Tier.HIGH,
    Reason.SOURCE_BAD_CONTENT_TYPE: Tier.HIGH,
    Reason.SOURCE_EXTRACTION_TIMEOUT: Tier.HIGH,
    Reason.SOURCE_TIMEOUT: Tier.MED,
    Reason.SOURCE_SERVER_ERROR: Tier.MED,
    Reason.SOURCE_NETWORK_ERROR: Tier.MED,
    Reason.SOURCE_FORBIDDEN: Tier.LOW,
    Reason.NUMBER_MISMATCH: Tier.HIGH,
    Reason.NUMBER_NOT_IN_QUOTE: Tier.HIGH,
    Reason.UNIT_AMBIGUOUS: Tier.HIGH,
    Reason.VALUE_UNPARSEABLE: Tier.HIGH,
    Reason.METRIC_UNKNOWN: Tier.HIGH,
    Reason.METRIC_ERROR: Tier.HIGH,
    Reason.RESULT_NULL: Tier.HIGH,
    Reason.RESULT_NON_FINITE: Tier.HIGH,
    Reason.RESULT_NOT_SCALAR: Tier.HIGH,
    Reason.DATASET_UNDECLARED: Tier.HIGH,
    Reason.DATASET_FILE_MISSING: Tier.HIGH,
    Reason.DATASET_UNREADABLE: Tier.HIGH,
    Reason.CHECK_CRASHED: Tier.HIGH,
    Reason.JOB_INPUT_ERROR: Tier.HIGH,
    Reason.JOB_TIMEOUT: Tier.HIGH,
    Reason.JOB_WORKER_LOST: Tier.HIGH,
    Reason.JUDGE_CONTRADICTED: Tier.HIGH,
    Reason.JUDGE_OVERCLAIM: Tier.HIGH,
    Reason.JUDGE_NOT_FOUND: Tier.HIGH,
    Reason.JUDGE_FAILED: Tier.MED,
    Reason.JUDGE_EVIDENCE_NOT_IN_SOURCE: Tier.MED,
    Reason.JUDGE_INJECTION_SUSPECTED: Tier.MED,
    Reason.JUDGE_DRAFT_LEAK: Tier.HIGH,
    Reason.OVERCLAIM_NUMBER_CHANGED: Tier.HIGH,
    Reason.OVERCLAIM_HEDGE_DROPPED: Tier.HIGH,
    Reason.OVERCLAIM_MODALITY: Tier.HIGH,
    Reason.OVERCLAIM_QUANTIFIER: Tier.HIGH,
    Reason.OVERCLAIM_NEGATION: Tier.HIGH,
    Reason.OVERCLAIM_SCOPE: Tier.HIGH,
    Reason.OVERCLAIM_QUOTE_OMITS_HEDGE: Tier.HIGH,
    Reason.SCOPE_MISMATCH: Tier.HIGH,
    Reason.SCOPE_NOT_STATED: Tier.MED,
    Reason.NEGATIVE_CLAIM_UNSUPPORTED: Tier.HIGH,
    Reason.NEGATIVE_CLAIM_SEARCHED: Tier.LOW,
    Reason.MARK_NOT_VERIFIED: Tier.HIGH,
    Reason.MARK_MISSING: Tier.HIGH,
    Reason.MARK_ORPHAN: Tier.HIGH,
    Reason.QUOTE_UNCITED: Tier.HIGH,
    Reason.NUMBER_UNBACKED: Tier.HIGH,
    Reason.UNLISTED_NUMBER: Tier.HIGH,
    Reason.UNLISTED_QUOTE: Tier.HIGH,
    Reason.UNLISTED_CITATION: Tier.HIGH,
    Reason.RECEIPT_MISMATCH: Tier.HIGH,
    Reason.REFERENCE_VERIFIED: None,
    Reason.REFERENCE_NOT_FOUND: Tier.HIGH,
    Reason.REFERENCE_MISMATCH: Tier.HIGH,
    Reason.DOI_RESOLVES_ELSEWHERE: Tier.HIGH,
    Reason.REFERENCE_RETRACTED: Tier.HIGH,
    Reason.REFERENCE_CORRECTED: Tier.LOW,
    Reason.REFERENCE_PARTLY_CONFIRMED: Tier.LOW,
    Reason.REFERENCE_SERVICE_ERROR: Tier.MED,
    Reason.REFERENCE_NOT_CHECKED: Tier.LOW,
    Reason.ATTRIBUTION_SUPPORTED: None,
    Reason.ATTRIBUTION_NUMBER_ABSENT: Tier.HIGH,
    Reason.ATTRIBUTION_NAME_ABSENT: Tier.HIGH,
    Reason.ATTRIBUTION_MEANING_UNCHECKED: Tier.MED,
    Reason.LOCATOR_WRONG: Tier.HIGH,
    Reason.LOCATOR_UNCHECKED: Tier.MED,
    Reason.DATASET_FACT_CONFIRMED: None,
    Reason.DATASET_FIELD_ABSENT: Tier.HIGH,
    Reason.DATASET_ROWS_MISMATCH: Tier.HIGH,
    Reason.DATASET_FIELD_HAS_NULLS: Tier.HIGH,
}

# Only these discrepancies can be explained by an author_alternative.
EXPLAINABLE: frozenset[Reason] = frozenset(
    {
        Reason.NUMBER_MISMATCH,
        Reason.NUMBER_NOT_IN_QUOTE,
        # overclaims: a concrete alternative (another edition, a named wider source) can explain them
        Reason.OVERCLAIM_NUMBER_CHANGED,
        Reason.OVERCLAIM_HEDGE_DROPPED,
        Reason.OVERCLAIM_MODALITY,
        Reason.OVERCLAIM_QUANTIFIER,
        Reason.OVERCLAIM_NEGATION,
        Reason.OVERCLAIM_SCOPE,
        Reason.OVERCLAIM_QUOTE_OMITS_HEDGE,
        # a named proxy ("no figure for individual developers exists; employees' figure used") can explain it
        Reason.SCOPE_MISMATCH,
        # a figure the cited source does not print, when the author names how it was derived
        Reason.ATTRIBUTION_NUMBER_ABSENT,
    }
)

_VAGUE = re.compile(
    r"^\s*(n/?a|none|tbd|todo|tbc|unknown|various|misc|other|see (above|below|notes?)|"
    r"rounding|different|differs|approx(imately)?|ok|fine|known|expected|-+|\?+|\.+|なし|不明|その他|諸般の事情)\s*[.。]?\s*$",
    re.IGNORECASE,
)
MIN_ALTERNATIVE_CHARS = 12


def is_concrete_alternative(text: str | None) -> bool:
    """A named, specific reason: not empty, not a placeholder, not one vague word."""
    if text is None:
        return False
    stripped = text.strip()
    if not stripped or _VAGUE.match(stripped):
        return False
    cjk = sum(1 for ch in stripped if ord(ch) > 0x2E80)
    return len(stripped) >= (6 if cjk > len(stripped) / 2 else MIN_ALTERNATIVE_CHARS)


def assign_tier(
    finding: Finding, author_alternative: str | None, *, also_explainable: frozenset[Reason] = frozenset()
) -> Finding:
    """Give a finding its tier; turn an explainable discrepancy into EXPLAINED when justified.

    ``also_explainable``: reasons explainable for this claim kind only (an attribution the
    judge finds contradicted may be EXPLAINED by a concrete alternative, seed 003).
    """
    tier = REASON_TIER[finding.reason]
    explainable = EXPLAINABLE | also_explainable
    if finding.status is Status.VERIFIED:
        return dataclasses.replace(finding, tier=None)
    if tier is None:  # a non-verified finding never goes untiered: fail closed
        tier = Tier.HIGH
    if tier is Tier.HIGH and finding.reason in explainable and is_concrete_alternative(author_alternative):
        return dataclasses.replace(
            finding,
            tier=Tier.EXPLAINED,
            status=Status.EXPLAINED,
            author_alternative=author_alternative,
            message=f"{finding.message}; explained by the author: {author_alternative}",
        )
    if tier is Tier.HIGH and finding.reason in explainable and author_alternative is not None:
        return dataclasses.replace(
            finding,
            tier=tier,
            author_alternative=author_alternative,
            message=f"{finding.message}; the author_alternative is empty or too vague to explain it",
        )
    return dataclasses.replace(finding, tier=tier)


def outcome_of(findings: list[Finding]) -> Outcome:
    if not findings:
        return Outcome.NO_CLAIMS
    tiers = {f.tier for f in findings if f.status is not Status.VERIFIED}
    if Tier.HIGH in tiers:
        return Outcome.FAIL
    if Tier.MED in tiers:
        return Outcome.PARTIAL
    return Outcome.PASS

"""Findings: what a check concluded about one claim, with its evidence."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    VERIFIED = "verified"
    DISCREPANCY = "discrepancy"
    UNVERIFIABLE = "unverifiable"
    EXPLAINED = "explained"
    ERROR = "error"


class Tier(StrEnum):
    HIGH = "HIGH"
    MED = "MED"
    LOW = "LOW"
    EXPLAINED = "EXPLAINED"


class Reason(StrEnum):
    """Reason codes. Every code has a default tier in ``claimledger.reconcile.REASON_TIER``."""

    # verified
    QUOTE_FOUND = "quote_found"
    NUMBER_MATCH = "number_match"
    # quotes
    QUOTE_ABSENT = "quote_absent"
    QUOTE_NEAR_MISS = "quote_near_miss"
    QUOTE_MISATTRIBUTED = "quote_misattributed"
    QUOTE_TOO_SHORT = "quote_too_short"
    QUOTE_ONLY_IN_HIDDEN_TEXT = "quote_only_in_hidden_text"
    # sources
    SOURCE_UNDECLARED = "source_undeclared"
    SOURCE_FILE_MISSING = "source_file_missing"
    SOURCE_UNREADABLE = "source_unreadable"
    SOURCE_NO_TEXT = "source_no_text"
    SOURCE_TOO_LARGE = "source_too_large"
    SOURCE_NOT_FOUND = "source_not_found"
    SOURCE_TIMEOUT = "source_timeout"
    SOURCE_SERVER_ERROR = "source_server_error"
    SOURCE_NETWORK_ERROR = "source_network_error"
    SOURCE_FORBIDDEN = "source_forbidden"
    SOURCE_URL_REFUSED = "source_url_refused"
    SOURCE_BAD_CONTENT_TYPE = "source_bad_content_type"
    SOURCE_EXTRACTION_TIMEOUT = "source_extraction_timeout"
    # numbers
    NUMBER_MISMATCH = "number_mismatch"
    NUMBER_NOT_IN_QUOTE = "number_not_in_quote"
    UNIT_AMBIGUOUS = "unit_ambiguous"
    VALUE_UNPARSEABLE = "value_unparseable"
    METRIC_UNKNOWN = "metric_unknown"
    METRIC_ERROR = "metric_error"
    RESULT_NULL = "result_null"
    RESULT_NON_FINITE = "result_non_finite"
    RESULT_NOT_SCALAR = "result_not_scalar"
    DATASET_UNDECLARED = "dataset_undeclared"
    DATASET_FILE_MISSING = "dataset_file_missing"
    DATASET_UNREADABLE = "dataset_unreadable"
    # infrastructure
    CHECK_CRASHED = "check_crashed"
    # batch jobs (claimledger batch): the whole job is not verified
    JOB_INPUT_ERROR = "job_input_error"
    JOB_TIMEOUT = "job_timeout"
    JOB_WORKER_LOST = "job_worker_lost"
    # semantic judge (claimledger.checks.judged): a judge only ever adds findings
    JUDGE_CONTRADICTED = "judge_contradicted"
    JUDGE_OVERCLAIM = "judge_overclaim"
    JUDGE_NOT_FOUND = "judge_not_found"
    JUDGE_FAILED = "judge_failed"
    JUDGE_EVIDENCE_NOT_IN_SOURCE = "judge_evidence_not_in_source"
    JUDGE_INJECTION_SUSPECTED = "judge_injection_suspected"
    JUDGE_DRAFT_LEAK = "judge_draft_leak"
    # overclaim rules (statement says more than its quote or source)
    OVERCLAIM_NUMBER_CHANGED = "overclaim_number_changed"
    OVERCLAIM_HEDGE_DROPPED = "overclaim_hedge_dropped"
    OVERCLAIM_MODALITY = "overclaim_modality"
    OVERCLAIM_QUANTIFIER = "overclaim_quantifier"
    OVERCLAIM_NEGATION = "overclaim_negation"
    OVERCLAIM_SCOPE = "overclaim_scope"
    OVERCLAIM_QUOTE_OMITS_HEDGE = "overclaim_quote_omits_hedge"
    # scope: does the evidence answer the question for the population, place and period it asks about?
    SCOPE_MISMATCH = "scope_mismatch"
    SCOPE_NOT_STATED = "scope_not_stated"
    # negative literature claims ("no prior work studies X")
    NEGATIVE_CLAIM_UNSUPPORTED = "negative_claim_unsupported"
    NEGATIVE_CLAIM_SEARCHED = "negative_claim_searched"
    # drafts: program-applied marks, the unlisted audit, receipts
    MARK_NOT_VERIFIED = "mark_not_verified"
    MARK_MISSING = "mark_missing"
    MARK_ORPHAN = "mark_orphan"
    QUOTE_UNCITED = "quote_uncited"
    NUMBER_UNBACKED = "number_unbacked"
    UNLISTED_NUMBER = "unlisted_number"
    UNLISTED_QUOTE = "unlisted_quote"
    UNLISTED_CITATION = "unlisted_citation"
    RECEIPT_MISMATCH = "receipt_mismatch"
    # references (claimledger.refs): bibliography entries against Crossref, DataCite, arXiv, OpenAlex
    REFERENCE_VERIFIED = "reference_verified"
    REFERENCE_NOT_FOUND = "reference_not_found"
    REFERENCE_MISMATCH = "reference_mismatch"
    DOI_RESOLVES_ELSEWHERE = "doi_resolves_elsewhere"
    REFERENCE_RETRACTED = "reference_retracted"
    REFERENCE_CORRECTED = "reference_corrected"
    REFERENCE_PARTLY_CONFIRMED = "reference_partly_confirmed"
    REFERENCE_SERVICE_ERROR = "reference_service_error"
    REFERENCE_NOT_CHECKED = "reference_not_checked"
    # attributions ("Smith (2019) shows X"): claimledger.checks.attribution
    ATTRIBUTION_SUPPORTED = "attribution_supported"
    ATTRIBUTION_NUMBER_ABSENT = "attribution_number_absent"
    ATTRIBUTION_NAME_ABSENT = "attribution_name_absent"
    ATTRIBUTION_MEANING_UNCHECKED = "attribution_meaning_unchecked"
    # page and section locators ("p. 4", "Section 3", "4頁"): claimledger.checks.locator
    LOCATOR_WRONG = "locator_wrong"
    LOCATOR_UNCHECKED = "locator_unchecked"
    # dataset claims (field exists, row count, never null): claimledger.checks.dataset
    DATASET_FACT_CONFIRMED = "dataset_fact_confirmed"
    DATASET_FIELD_ABSENT = "dataset_field_absent"
    DATASET_ROWS_MISMATCH = "dataset_rows_mismatch"
    DATASET_FIELD_HAS_NULLS = "dataset_field_has_nulls"


@dataclass(frozen=True)
class Evidence:
    """A place in a source: the exact original text and where it sits."""

    source: str
    start: int
    end: int
    text: str  # as a reader sees it (line ends as \n, no PDF hyphen marks); start/end are exact
    page: int | None = None
    end_page: int | None = None  # a quote that runs across a page break: the last page
    line: int | None = None  # 1-based line and column in the original file (HTML, Markdown, text)
    column: int | None = None
    spans: tuple[tuple[int, int], ...] = ()  # the pieces, when the match skips text (page furniture, elisions)
    reading: str | None = None  # the second reading that matched: furigana, pdf_body, elided

    def where(self) -> str:
        """``p. 3``, ``pp. 3-4``, ``line 12, col 5`` or ``chars 10-40``."""
        if self.page is not None:
            return f"pp. {self.page}-{self.end_page}" if self.end_page else f"p. {self.page}"
        if self.line is not None:
            return f"line {self.line}, col {self.column}"
        return f"chars {self.start}-{self.end}"


@dataclass(frozen=True)
class Finding:
    """The conclusion of one check about one claim."""

    claim_id: str
    check: str
    status: Status
    reason: Reason
    message: str
    tier: Tier | None = None
    evidence: Evidence | None = None
    nearest: Evidence | None = None
    diff: str | None = None
    expected: float | None = None
    claimed: str | None = None
    author_alternative: str | None = None
    location: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return self.status is Status.VERIFIED

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["status"] = self.status.value
        out["reason"] = self.reason.value
        out["tier"] = self.tier.value if self.tier else None
        for key in ("evidence", "nearest"):
            if isinstance(out.get(key), dict):  # JSON has no tuples: the same value on every surface
                out[key]["spans"] = [list(span) for span in out[key].get("spans", ())]
        return out

"""Findings: what a check concluded about one claim, with its evidence."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from claimledger.model.reasons import Reason, Tier

__all__ = ["Evidence", "Finding", "Offered", "Reason", "Status", "Tier"]


class Status(StrEnum):
    VERIFIED = "verified"
    DISCREPANCY = "discrepancy"
    UNVERIFIABLE = "unverifiable"
    EXPLAINED = "explained"
    ERROR = "error"


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
class Offered:
    """What a claim's author offers to explain a discrepancy (``author_alternative``), and the reasons
    that may be explained for this claim's kind besides the explainable rows of the reason table
    (an attribution the judge finds contradicted, seed 003). A check attaches it to its finding;
    :func:`claimledger.reconcile.tiered` decides, once, whether it explains anything."""

    author_alternative: str | None = None
    also_explainable: frozenset[Reason] = frozenset()


@dataclass(frozen=True)
class Finding:
    """The conclusion of one check about one claim.

    A check returns it without a tier (``tier=None``), with what the claim's author offered
    (``offered``); the tier is assigned once, from the reason table, by
    :func:`claimledger.reconcile.tiered`. ``offered`` is not part of the report.
    """

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
    offered: Offered | None = field(default=None, compare=False, repr=False)

    @property
    def verified(self) -> bool:
        return self.status is Status.VERIFIED

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["offered"]  # an input of reconcile, not a conclusion
        out["status"] = self.status.value
        out["reason"] = self.reason.value
        out["tier"] = self.tier.value if self.tier else None
        for key in ("evidence", "nearest"):
            if isinstance(out.get(key), dict):  # JSON has no tuples: the same value on every surface
                out[key]["spans"] = [list(span) for span in out[key].get("spans", ())]
        return out

"""A rule hit and its conversion into a Finding."""

from __future__ import annotations

from dataclasses import dataclass

from claimledger.model.finding import Finding, Reason, Status

CHECK = "overclaim"

# When two hits cover the same words of the statement, the earlier family wins.
PRIORITY: tuple[Reason, ...] = (
    Reason.OVERCLAIM_NUMBER_CHANGED,
    Reason.OVERCLAIM_HEDGE_DROPPED,
    Reason.OVERCLAIM_QUOTE_OMITS_HEDGE,
    Reason.OVERCLAIM_NEGATION,
    Reason.OVERCLAIM_QUANTIFIER,
    Reason.OVERCLAIM_SCOPE,
    Reason.OVERCLAIM_MODALITY,
)


@dataclass(frozen=True)
class Hit:
    """One overclaim: which rule, where in the statement, what in the quote or source, the fix."""

    reason: Reason
    rule: str
    statement_span: tuple[int, int] | None
    statement_text: str
    source_span: tuple[int, int]
    source_text: str
    source_in: str  # "quote" or "source_context"
    suggestion: str
    message: str

    def to_finding(self, claim_id: str) -> Finding:
        return Finding(
            claim_id=claim_id,
            check=CHECK,
            status=Status.DISCREPANCY,
            reason=self.reason,
            message=self.message,
            extra={
                "rule": self.rule,
                "statement_span": list(self.statement_span) if self.statement_span else None,
                "statement_text": self.statement_text,
                "source_span": list(self.source_span),
                "source_text": self.source_text,
                "source_in": self.source_in,
                "suggestion": self.suggestion,
            },
        )


def dedupe(hits: list[Hit]) -> list[Hit]:
    """One hit per statement span (the higher-priority family), in statement order."""
    if len(hits) < 2:
        return list(hits)  # nothing to clash with (most claims have no hit): a fresh list, as below
    ranked = sorted(hits, key=lambda h: PRIORITY.index(h.reason))
    kept: list[Hit] = []
    for hit in ranked:
        clash = False
        for other in kept:
            if hit.rule == other.rule and hit.source_span == other.source_span:
                clash = True
            a, b = hit.statement_span, other.statement_span
            if a is not None and b is not None and a[0] < b[1] and b[0] < a[1]:
                clash = True
            if a is None and b is None and hit.source_span == other.source_span:
                clash = True
        if not clash:
            kept.append(hit)
    return sorted(kept, key=lambda h: (h.statement_span or (10**9, 0))[0])

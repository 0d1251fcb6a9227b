"""Deterministic overclaim rules: does the sentence that uses a quote say more than the quote?

The literal check proves a quote is real; these rules compare the draft's
``statement`` with its ``quote`` and with the source text right around the
quoted span, and report where the statement is stronger:

* ``number_changed``: a number in the statement that differs from the quote's;
* ``hedge_dropped`` / ``bound_changed``: 約, about, up to, 以上/以下 ... dropped or turned;
* ``modality_strengthened`` / ``association_to_causation``: may -> is, 可能性がある -> である;
* ``quantifier_broadened``: some -> all, 一部 -> 全て;
* ``negation_dropped`` / ``negation_added``: polarity flipped;
* ``scope_dropped``: 言葉を扱う生成AI -> 生成AI, "text-generating AI" -> "AI";
* ``quote_omits_*``: the source says 約4倍 and the quote takes only 4倍 (also
  hedges, negations and restricting modifiers next to the quote).

Every finding is a DISCREPANCY (HIGH unless a concrete ``author_alternative``
explains it, see :mod:`claimledger.reconcile`) with both spans and a suggested
correction in ``Finding.extra``. Precision is preferred over recall: these
rules run on every quote claim that has a statement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from claimledger.checks.negative import (
    NegativeSpan,
    coverage,
    find_negative_claims,
    is_negative_claim,
    negative_claim_findings,
    negative_claims_from_text,
)
from claimledger.checks.overclaim._hit import CHECK, Hit, dedupe
from claimledger.checks.overclaim.around import around_hits, locate
from claimledger.checks.overclaim.figures import number_hits
from claimledger.checks.overclaim.hedges import word_hedge_hits
from claimledger.checks.overclaim.modality import (
    modality_hits,
    negation_hits,
    qualifier_hits,
    quantifier_hits,
)
from claimledger.checks.overclaim.scope import scope_hits
from claimledger.model.finding import Finding

if TYPE_CHECKING:
    from claimledger.checks.overclaim.store import ResultStore

__all__ = [
    "CHECK",
    "Hit",
    "NegativeSpan",
    "coverage",
    "find_negative_claims",
    "is_negative_claim",
    "locate",
    "negative_claim_findings",
    "negative_claims_from_text",
    "overclaim_findings",
    "overclaim_hits",
]


def _strip_outer_quotes(quote: str) -> str:
    from claimledger.checks.quote import strip_outer_quotes

    return strip_outer_quotes(quote)


def overclaim_hits(statement: str, quote: str | None, source_context: str | None = None) -> list[Hit]:
    """All rule hits (deduplicated), before they become findings."""
    if not statement or not statement.strip():
        return []
    q = _strip_outer_quotes(quote) if quote else ""
    hits: list[Hit] = []
    if q:
        hits += number_hits(statement, q, source_context)
        hits += word_hedge_hits(statement, q)
        hits += negation_hits(statement, q)
        hits += quantifier_hits(statement, q)
        hits += qualifier_hits(statement, q)
        hits += scope_hits(statement, q)
        hits += modality_hits(statement, q)
        if source_context:
            hits += around_hits(statement, q, source_context)
    return dedupe(hits)


def overclaim_findings(
    claim_id: str, statement: str, quote: str, source_context: str | None, *, store: ResultStore | None = None
) -> list[Finding]:
    """Findings (check ``overclaim``, status DISCREPANCY, untiered) where ``statement`` says more
    than ``quote`` or than the source text around it (``source_context``, e.g. ±200 characters
    of the source's original text around the verified quote; ``None`` when unknown).

    Tiers are given by :func:`claimledger.reconcile.assign_tier` with the claim's
    ``author_alternative``. An empty list means no rule fired, not that the
    statement is supported. With ``store`` (:mod:`claimledger.checks.overclaim.store`) the hits of
    an earlier run on the same input and code are reused.
    """
    if store is None:
        hits = overclaim_hits(statement, quote, source_context)
    else:
        hits = store.remembered(statement, quote, source_context, overclaim_hits)
    return [hit.to_finding(claim_id) for hit in hits]

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

from collections.abc import Callable
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
from claimledger.checks.overclaim._text import is_japanese
from claimledger.checks.overclaim.around import around_hits, locate
from claimledger.checks.overclaim.figures import finite_numbers, number_hits, numbers_in, same_value
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
    strip = _STRIP.get("")
    if strip is None:  # imported at first use (checks.quote imports this package's users)
        from claimledger.checks.quote import strip_outer_quotes

        strip = _STRIP[""] = strip_outer_quotes
    return strip(quote)


_STRIP: dict[str, Callable[[str], str]] = {}


def overclaim_hits(statement: str, quote: str | None, source_context: str | None = None) -> list[Hit]:
    """All rule hits (deduplicated), before they become findings."""
    if not statement or not statement.strip():
        return []
    q = _strip_outer_quotes(quote) if quote else ""
    hits: list[Hit] = []
    if q:
        hits += _self_hits(q, source_context) if statement == q else _pair_hits(statement, q, source_context)
        if source_context:
            hits += around_hits(statement, q, source_context)
    return dedupe(hits)


def _pair_hits(statement: str, q: str, source_context: str | None) -> list[Hit]:
    """The rules that compare the statement with the quote (every one of them)."""
    return [
        *number_hits(statement, q, source_context),
        *word_hedge_hits(statement, q),
        *negation_hits(statement, q),
        *quantifier_hits(statement, q),
        *qualifier_hits(statement, q),
        *scope_hits(statement, q),
        *modality_hits(statement, q),
    ]


def _self_hits(q: str, source_context: str | None) -> list[Hit]:
    """:func:`_pair_hits` for a statement that IS the quote (a quote claim without a ``statement``
    stands for itself): only the rules that can fire on two identical texts run.

    The others cannot (tests/test_overclaim_self.py runs each on identical texts, English and
    Japanese, and compares this function with :func:`_pair_hits`):

    * ``number_hits``: every statement number finds itself among the quote's numbers with the
      same unit and hedges, so neither ``hedge_dropped`` nor ``bound_changed`` fires, and the
      source context is read only for a number the quote does not hold. A number that is not equal
      to itself (a non-finite value) would not find itself: then the rule runs. A quote on which
      the parse can give none (:func:`finite_numbers`: any quote of fewer than 256 characters) is
      not parsed at all (nor can its parse raise).
    * ``negation_hits``: the negations of one side are all negated on the other side;
    * ``quantifier_hits``: each quantifier pairs with itself (same anchors, same level), and a
      universal without anchors is found in the quote itself;
    * ``qualifier_hits``: the statement carries as many qualifiers as the quote;
    * ``modality_hits``: the statement carries the quote's hedges (the suppress pattern holds the
      modal one), and a causal word of the statement is in the quote too;
    * ``scope_hits`` in English: the modifier the quote puts before a noun is in the statement.

    Two rules can fire on identical texts and run: ``word_hedge_hits`` (a hedged "nearly doubled"
    and a bare "doubled" later in the same quote) and ``scope_hits`` in Japanese (a modifier whose
    content is a single kana or Latin letter is not "mentioned" by :func:`ja_mentions`).
    """
    hits = []
    if not finite_numbers(q) and any(not same_value(n, n) for n in numbers_in(q)):
        hits = number_hits(q, q, source_context)
    hits += word_hedge_hits(q, q)  # in the order of _pair_hits: dedupe keeps the first of a kind
    if is_japanese(q):
        hits += scope_hits(q, q)
    return hits


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

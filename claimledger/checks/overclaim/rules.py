"""The overclaim rules' entry points (see the package's docstring): every rule hit of a statement
against its quote and the source text around it, deduplicated, and the findings they become.

Imported at first use through the package (its names are read from here): the rules' modules
compile their patterns on import, which a run whose answers all came from the helper process
(checks/rules_ahead.py), or that has no quote claim, never pays for."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from claimledger.checks.overclaim._hit import Hit, dedupe
from claimledger.checks.overclaim._text import is_japanese
from claimledger.checks.overclaim.around import around_hits
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

__all__ = ["overclaim_findings", "overclaim_hits"]


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

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

The package imports none of the rules' modules itself: they compile their patterns on import, and
its names are read from them at first use (``rules.py`` holds the entry points). Importing the
package, its store or its ``Hit`` (the helper process's answers, checks/rules_ahead.py) costs
nothing of that.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claimledger.checks.negative import (
        NegativeSpan,
        coverage,
        find_negative_claims,
        is_negative_claim,
        negative_claim_findings,
        negative_claims_from_text,
    )
    from claimledger.checks.overclaim._hit import CHECK, Hit
    from claimledger.checks.overclaim.around import locate
    from claimledger.checks.overclaim.rules import _pair_hits as _pair_hits
    from claimledger.checks.overclaim.rules import _self_hits as _self_hits
    from claimledger.checks.overclaim.rules import overclaim_findings, overclaim_hits

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

_NEGATIVE = "claimledger.checks.negative"
_RULES = "claimledger.checks.overclaim.rules"
# where each name of the package is defined
_HOME = {
    "CHECK": "claimledger.checks.overclaim._hit",
    "Hit": "claimledger.checks.overclaim._hit",
    "locate": "claimledger.checks.overclaim.around",
    "NegativeSpan": _NEGATIVE,
    "coverage": _NEGATIVE,
    "find_negative_claims": _NEGATIVE,
    "is_negative_claim": _NEGATIVE,
    "negative_claim_findings": _NEGATIVE,
    "negative_claims_from_text": _NEGATIVE,
    "overclaim_findings": _RULES,
    "overclaim_hits": _RULES,
    "_pair_hits": _RULES,
    "_self_hits": _RULES,
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:  # (a submodule, ``from claimledger.checks.overclaim import around``, is imported then)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value

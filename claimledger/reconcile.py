"""Stage 4: tiers and outcome, exactly as in seed 003. The one place tiers are assigned.

Checks return findings without a tier, carrying what the claim's author offered
(:class:`~claimledger.model.finding.Offered`); every run (gate, mark, lint,
audit, and the servers through them) passes its findings through :func:`tiered`
once, before the outcome is computed.

Each reason's default tier and whether it is explainable come from the reason
table (:mod:`claimledger.model.reasons`); this module applies them:

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
from collections.abc import Iterable
from typing import Any

from claimledger.model.finding import Finding, Reason, Status, Tier
from claimledger.model.report import Outcome

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
    return _replaced(finding, _tier_changes(finding, author_alternative, also_explainable))


def _tier_changes(finding: Finding, author_alternative: str | None, also_explainable: frozenset[Reason]) -> dict[str, Any]:
    """The fields :func:`assign_tier` sets on ``finding``."""
    if finding.status is Status.VERIFIED:  # (first: most findings, and nothing else is read for them)
        return {"tier": None}
    explainable = finding.reason.explainable or finding.reason in also_explainable
    tier = finding.reason.tier
    if tier is None:  # a non-verified finding never goes untiered: fail closed
        tier = Tier.HIGH
    if tier is Tier.HIGH and explainable and is_concrete_alternative(author_alternative):
        return {
            "tier": Tier.EXPLAINED,
            "status": Status.EXPLAINED,
            "author_alternative": author_alternative,
            "message": f"{finding.message}; explained by the author: {author_alternative}",
        }
    if tier is Tier.HIGH and explainable and author_alternative is not None:
        return {
            "tier": tier,
            "author_alternative": author_alternative,
            "message": f"{finding.message}; the author_alternative is empty or too vague to explain it",
        }
    return {"tier": tier}


def _replaced(finding: Finding, changes: dict[str, Any]) -> Finding:
    """``dataclasses.replace(finding, **changes)`` in one step, or ``finding`` itself when every field
    already holds its new value (a frozen finding: the same object is as good as a copy)."""
    if all(getattr(finding, name) is value for name, value in changes.items()):
        return finding
    return replaced(finding, changes)


_FINDING_FIELDS = frozenset(f.name for f in dataclasses.fields(Finding))
# dataclasses.replace builds a Finding through __init__, which only sets each field (every field is
# an __init__ argument; no __post_init__): the same object is built by copying the fields.
_PLAIN = all(f.init for f in dataclasses.fields(Finding)) and not hasattr(Finding, "__post_init__")


def replaced(finding: Finding, changes: dict[str, Any]) -> Finding:
    """``dataclasses.replace(finding, **changes)``: for a :class:`Finding` (not a subclass) the fields
    are copied without a call of ``__init__`` (the same fields, the same values, a fifth of the time);
    anything else, or a name that is not a field, goes through ``dataclasses.replace``."""
    if not _PLAIN or type(finding) is not Finding or not changes.keys() <= _FINDING_FIELDS:
        return dataclasses.replace(finding, **changes)
    new = object.__new__(Finding)
    fields = new.__dict__
    fields.update(finding.__dict__)
    fields.update(changes)
    return new


def tiered(findings: Iterable[Finding]) -> list[Finding]:
    """Every finding with its tier from the reason table and what its author offered (see
    :func:`assign_tier`). A finding that already has a tier keeps it (a finding made outside the
    checks, such as a reference verdict, may come tiered)."""
    out = []
    for f in findings:
        if f.tier is not None:
            out.append(f)
            continue
        offered = f.offered
        if offered is None:
            out.append(assign_tier(f, None))
        else:  # the tier and the offer dropped in one copy (offered is an input, not part of the report)
            changes = _tier_changes(f, offered.author_alternative, offered.also_explainable)
            out.append(_replaced(f, {"offered": None, **changes}))
    return out


def outcome_of(findings: list[Finding]) -> Outcome:
    if not findings:
        return Outcome.NO_CLAIMS
    tiers = {f.tier for f in findings if f.status is not Status.VERIFIED}
    if Tier.HIGH in tiers:
        return Outcome.FAIL
    if Tier.MED in tiers:
        return Outcome.PARTIAL
    return Outcome.PASS

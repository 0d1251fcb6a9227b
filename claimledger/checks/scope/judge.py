"""With a judge: one more Chain-of-Verification question per claim that answers a research question.

"Does this evidence answer <question> for <population>?" The judge sees the
question, the population (declared or read from the question) and passages of
the cited source, never the draft, exactly like the claim-level CoVe question
(:mod:`claimledger.checks.judged`), and may abstain:

* ``supported``: the evidence answers it; nothing is added;
* ``contradicted`` / ``overclaim``: the evidence is about another population,
  place or period: HIGH ``scope_mismatch`` (check ``scope_judge``);
* ``not_found``: the judge abstains, the evidence does not say: MED
  ``scope_not_stated``;
* every failure (timeout, malformed answer, evidence quote not in the source,
  injection) keeps the existing fail-closed reasons (MED), a draft leak stays
  HIGH. A judge never turns a deterministic finding into a pass.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimledger.checks.scope.check import question_scope
from claimledger.model.finding import Finding, Offered, Reason, Status

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext
    from claimledger.judge import Judge
    from claimledger.model.claim import Ledger, Question

CHECK = "scope_judge"
SUFFIX = "#scope"


@dataclass(frozen=True)
class ScopeQuestionClaim:
    """A judgeable claim: "this evidence answers <question> for <population>", with its own CoVe question."""

    id: str
    statement: str
    source: str
    quote: str
    cove_question: str
    answers_for: str
    author_alternative: str | None = None
    kind: str = "quote"


def _is_ja(text: str) -> bool:
    from claimledger.checks.scope.slots import is_japanese

    return is_japanese(text)


def scope_question(q: Question) -> tuple[str, str, str]:
    """(claim text, CoVe question, the population it is asked for)."""
    scope = question_scope(q)
    assert scope is not None
    asked = scope.asked_populations()
    who = q.population or " / ".join(m.text for m in asked) or ""
    extra = [x for x in (q.place, q.period) if x]
    if _is_ja(q.text):
        target = "、".join([who, *extra]) if who or extra else "問いの対象"
        claim = f"この根拠は「{q.text}」という問いに、{target}について答えている。"
        question = (
            f"この根拠は「{q.text}」という問いに、{target}について答えているか。根拠が数えている対象（誰・何）、"
            "場所、時期を根拠の文言どおりに示し、別の対象・場所・時期についての根拠なら contradicted、"
            "根拠がそれを述べていないなら not_found（判断を保留）と答えよ。"
        )
    else:
        target = ", ".join([who, *extra]) if who or extra else "the population the question asks about"
        claim = f'This evidence answers the question "{q.text}" for {target}.'
        question = (
            f'Does this evidence answer "{q.text}" for {target}? Say who or what the evidence counts, where '
            "and when, in its own words. Answer contradicted if it is about another population, place or "
            "period, and not_found (abstain) if the evidence does not say."
        )
    return claim, question, target


def scope_judge_claims(ledger: Ledger, ctx: RunContext) -> list[ScopeQuestionClaim]:
    from claimledger.checks.scope.check import _found

    out: list[ScopeQuestionClaim] = []
    for claim in ledger.claims:
        source, quote = getattr(claim, "source", None), getattr(claim, "quote", None)
        if not isinstance(source, str) or not isinstance(quote, str):
            continue
        q = ledger.claim_question(claim)
        if q is None or _found(source, quote, ctx) is None:
            continue
        text, question, target = scope_question(q)
        out.append(ScopeQuestionClaim(f"{claim.id}{SUFFIX}", text, source, quote, question, target,
                                      claim.author_alternative))  # fmt: skip
    return out


_MAP = {
    Reason.JUDGE_CONTRADICTED: (Reason.SCOPE_MISMATCH, Status.DISCREPANCY),
    Reason.JUDGE_OVERCLAIM: (Reason.SCOPE_MISMATCH, Status.DISCREPANCY),
    Reason.JUDGE_NOT_FOUND: (Reason.SCOPE_NOT_STATED, Status.UNVERIFIABLE),
}


def scope_judge_findings(
    ledger: Ledger, ctx: RunContext, judge: Judge, *, cache_path: str | Path | None = None, draft: str | None = None
) -> tuple[list[Finding], dict[str, Any]]:
    """Ask the scope question of every found claim that answers a question (untiered findings)."""
    from claimledger.checks.judged import semantic_findings

    claims = scope_judge_claims(ledger, ctx)
    if not claims:
        return [], {"asked": 0}
    found, meta = semantic_findings(claims, ctx, judge, cache_path=cache_path, draft=draft)
    by_id = {c.id: c for c in claims}
    out: list[Finding] = []
    for f in found:
        claim = by_id.get(f.claim_id)
        base_id = f.claim_id.removesuffix(SUFFIX)
        if f.reason in _MAP:
            reason, status = _MAP[f.reason]
            verb = "abstained: the evidence does not say" if reason is Reason.SCOPE_NOT_STATED else "found"
            msg = f"judge {verb} whether it answers the question for {claim.answers_for if claim else '?'}: {f.message}"
            g = dataclasses.replace(f, claim_id=base_id, check=CHECK, reason=reason, status=status, tier=None,
                                    message=msg)  # fmt: skip
            out.append(dataclasses.replace(g, offered=Offered(claim.author_alternative if claim else None)))
        else:  # failures and leaks keep their fail-closed reasons and tiers
            out.append(dataclasses.replace(f, claim_id=base_id, check=CHECK))
    return out, {"asked": len(claims), "counts": meta.get("counts", {})}

"""The built-in checks of the built-in claim kinds, registered the way a plugin registers its own.

``quote``: the literal check, then the overclaim rules (with or without a
``statement``), the scope check and the locator (when the quote was found);
``number``: the recomputation, then for a figure read from a passage the
overclaim rules and the scope check; ``negative``: the search record; ``attribution``: figures and
names the cited source must print; ``dataset``: field, rows, nulls. Each kind's
checks run in this order and see the findings of the ones before them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from types import ModuleType

from claimledger._exceptions import SourceError
from claimledger.checks.context import RunContext
from claimledger.checks.negative import negative_claim_findings
from claimledger.checks.numeric import CHECK as NUMERIC
from claimledger.checks.numeric import check_number
from claimledger.checks.quote import CHECK as LITERAL
from claimledger.checks.quote import check_quote_text, quote_key
from claimledger.checks.rules_ahead import rules_ahead
from claimledger.model.claim import AttributionClaim, DatasetClaim, NegativeClaim, NumberClaim, QuoteClaim
from claimledger.model.finding import Finding, Status
from claimledger.registry import check, passed


@check("quote", name=LITERAL)
def literal_quote(claim: QuoteClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    return [check_quote_text(claim.id, claim.source, claim.quote, ctx)]


@check("quote", name="overclaim")
def overclaim(claim: QuoteClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    """The draft's sentence against the quote and, when the quote was found, the source text around it.

    Without a statement the quote stands for itself: a quote cut so that it leaves
    out a hedge, qualifier or negation standing right next to it in the source is
    still a finding (issue 13).
    """
    return _overclaims(claim.id, claim.statement, claim.source, claim.quote, passed(earlier, LITERAL), ctx)


def _overclaims(claim_id: str, statement: str | None, source: str, quote: str, found: bool,
                ctx: RunContext) -> list[Finding]:  # fmt: skip
    context = ctx.quote_result(*quote_key(source, quote, ctx)).context if found else None
    if not statement and context is None:
        return []
    store = _overclaim_store()
    answer = None
    if context is not None and (ahead := rules_ahead(ctx)) is not None:
        answer = ahead.answer(statement or quote, quote, context)
    if answer is not None:  # the helper ran the rules on exactly these inputs (checks/rules_ahead.py)
        key, got = answer
        kept = store.run_store(ctx)
        if kept is not None:
            kept.put(key, got)
        return [hit.to_finding(claim_id) for hit in got]
    # the hits remembered across runs (checks/overclaim/store.py)
    hits: list[Finding] = _overclaim_rules().overclaim_findings(
        claim_id, statement or quote, quote, context, store=store.run_store(ctx)
    )
    return hits


@functools.cache
def _overclaim_rules() -> ModuleType:
    """The rules' entry points, imported at the first claim that runs them here: the rules' modules
    compile their patterns on import, which a ledger without quotes, or a run whose answers all came
    from the helper process, never pays for (an import statement in :func:`_overclaims` itself cost a
    lookup in ``sys.modules`` for every claim). The functions are read from the module at each
    call, as an import statement would."""
    import claimledger.checks.overclaim.rules

    return claimledger.checks.overclaim.rules


@functools.cache
def _overclaim_store() -> ModuleType:
    """The rules' store (it imports none of the rules)."""
    import claimledger.checks.overclaim.store

    return claimledger.checks.overclaim.store


@check("quote", name="scope")
def quote_scope(claim: QuoteClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    """Does the evidence around the found quote answer the question, for the statement's scope?"""
    if not _scoped(claim, ctx) or not passed(earlier, LITERAL):
        return []
    return _scope(claim, claim.source, claim.quote, ctx)


@check("quote", name="locator")
def quote_locator(claim: QuoteClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    """The quote's ``locator`` (p. 4, Section 3): the found evidence must be there."""
    if not claim.locator:
        return []
    literal = next((f for f in earlier if f.check == LITERAL), None)
    if literal is None or literal.status is not Status.VERIFIED or literal.evidence is None:
        return []
    from claimledger.checks.locator import check_locator

    loaded = ctx.source(claim.source)
    if isinstance(loaded, SourceError):
        return []
    finding = check_locator(claim.id, claim.locator, loaded.source, literal.evidence)
    return [finding] if finding is not None else []


@check("number", name=NUMERIC)
def numeric_recompute(claim: NumberClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    return [check_number(claim, ctx)]


@check("number", name="overclaim")
def number_overclaim(claim: NumberClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    """A figure read from a passage: the statement keeps the passage's hedge, the passage is not cut from it."""
    if claim.source is None or claim.quote is None:
        return []
    return _overclaims(claim.id, claim.statement, claim.source, claim.quote, passed(earlier, NUMERIC), ctx)


@check("number", name="scope")
def number_scope(claim: NumberClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    """For a figure read from a cited passage that verified: the scope of that passage."""
    if claim.source is None or claim.quote is None or not _scoped(claim, ctx) or not passed(earlier, NUMERIC):
        return []
    return _scope(claim, claim.source, claim.quote, ctx)


@check("negative", name="negative_claim")
def negative_claim(claim: NegativeClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    return negative_claim_findings(claim.id, claim.statement, claim.search)


@check("attribution", name="attribution")
def attribution(claim: AttributionClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    from claimledger.checks.attribution import attribution_findings

    return attribution_findings(claim, ctx)


@check("dataset", name="dataset")
def dataset(claim: DatasetClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    from claimledger.checks.dataset import check_dataset

    return check_dataset(claim, ctx)


def _scoped(claim: QuoteClaim | NumberClaim, ctx: RunContext) -> bool:
    """False when the scope check has nothing to compare: no question (none named, none for a section,
    none for the draft) and no statement (claim_scope_findings would answer [] at once). Tested before
    the literal verdict, the cheaper test first; the scope modules stay unimported."""
    ledger = ctx.ledger
    return not (claim.answers is None and ledger.question is None and not ledger.questions
                and not (claim.statement or "").strip())  # fmt: skip


def _scope(claim: QuoteClaim | NumberClaim, source: str, quote: str, ctx: RunContext) -> list[Finding]:
    from claimledger.checks.scope.check import claim_scope_findings

    question = ctx.ledger.claim_question(claim)
    return claim_scope_findings(claim.id, source, quote, claim.statement, question, ctx)

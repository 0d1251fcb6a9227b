"""The scope check of one ledger claim: findings from the slot comparison.

Runs on quote claims and on number claims read from a source passage
(``source`` + ``quote``) once the literal check has found the passage; a quote
that was not found has no evidence passage, and the literal check already
reports it. The question is the claim's ``answers:``, its section's question,
or the ledger's ``question:``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from claimledger.checks.scope.compare import (
    MISMATCH,
    QuestionScope,
    ScopeIssue,
    evidence_population,
    scope_issues,
)
from claimledger.checks.scope.passage import Passage, build_passage
from claimledger.checks.scope.slots import figures
from claimledger.model.finding import Evidence, Finding, Reason, Status

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext
    from claimledger.model.claim import Question

CHECK = "scope"


def question_scope(q: Question | None) -> QuestionScope | None:
    if q is None:
        return None
    return QuestionScope(q.text, q.population, q.place, q.period, q.measure, q.design)


def _found(source_id: str, quote: str, ctx: RunContext) -> tuple[Evidence, str] | None:
    from claimledger._exceptions import SourceError
    from claimledger.checks.quote import quote_key

    key = quote_key(source_id, quote, ctx)
    if len(key[1]) < ctx.config.min_quote_chars or source_id not in ctx.ledger.sources:
        return None
    result = ctx.quote_result(*key)
    if result.found is None:
        return None
    loaded = ctx.source(source_id)
    if isinstance(loaded, SourceError):
        return None
    return result.found, loaded.source.text


def issues_to_findings(claim_id: str, issues: list[ScopeIssue], evidence: Evidence | None, statement: str | None,
                       check: str = CHECK) -> list[Finding]:  # fmt: skip
    out = []
    for issue in issues:
        reason = Reason.SCOPE_MISMATCH if issue.severity == MISMATCH else Reason.SCOPE_NOT_STATED
        status = Status.DISCREPANCY if issue.severity == MISMATCH else Status.UNVERIFIABLE
        out.append(Finding(
            claim_id, check, status, reason, f"{issue.slot}: {issue.message}",
            evidence=evidence, claimed=statement,
            extra={"slot": issue.slot, "slots": issue.sides()},
        ))  # fmt: skip
    return out


def passage_issues(question: QuestionScope | None, statement: str | None, passage: Passage,
                   quote: str) -> list[ScopeIssue]:  # fmt: skip
    """The issues of one claim, plus "the source never says who" for a figure the question scopes."""
    issues = scope_issues(question, statement, passage)
    if (
        question is not None
        and not any(i.slot == "population" for i in issues)
        and question.asked_populations()
        and evidence_population(passage)[0] is None
        and (figures(quote) or (statement and figures(statement)))
    ):
        asked = " / ".join(m.text for m in question.asked_populations())
        issues.append(ScopeIssue(
            "population", "not_stated", asked, None, None, None,
            f"the question asks about {asked}; the source passage does not say who this figure counts",
        ))  # fmt: skip
    return issues


def claim_scope_findings(
    claim_id: str,
    source_id: str,
    quote: str,
    statement: str | None,
    question: Question | None,
    ctx: RunContext,
) -> list[Finding]:
    """Scope findings (untiered) of one claim whose quote or passage was found in its source."""
    q = question_scope(question)
    if q is None and not (statement and statement.strip()):
        return []
    found = _found(source_id, quote, ctx)
    if found is None:
        return []
    evidence, text = found
    passage = build_passage(text, evidence.start, evidence.end)
    return issues_to_findings(claim_id, passage_issues(q, statement, passage, quote), evidence, statement)

"""Summary sentences must keep the scope of the claims they rest on (seed 004: read summaries as interpretation).

With ``--summary-section``, each sentence of that section that states a scope
slot (a population, a place, a period or a figure) is compared with the
evidence passages of the ledger claims it rests on: the claims whose evidence
prints the same figure, else the claims it shares the most words with. The
sentence passes when its slots match at least one of them; otherwise the
issues against the closest claim are reported (check ``summary_scope``). No
judge is needed; with a judge, summary support runs as well.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import TYPE_CHECKING

from claimledger.checks.scope.check import _found, issues_to_findings, passage_issues
from claimledger.checks.scope.compare import MISMATCH, ScopeIssue
from claimledger.checks.scope.passage import Passage, build_passage
from claimledger.checks.scope.slots import figures, fold, is_japanese, period, places, primary_population

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext
    from claimledger.extract.draft import Draft
    from claimledger.model.claim import Ledger
    from claimledger.model.finding import Finding

CHECK = "summary_scope"
_DESIGN_FREE = ("population", "place", "period", "measure")


def _words(text: str) -> set[str]:
    t = fold(text).lower()
    if is_japanese(t):
        chars = [c for c in t if c.isalnum()]
        return {a + b for a, b in pairwise(chars)}
    return {w for w in re.findall(r"[a-z][a-z'-]{2,}", t)}


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def summary_scope_findings(draft: Draft, section: str, ledger: Ledger, ctx: RunContext) -> list[Finding]:
    from claimledger.checks.summary import summary_sentences

    sentences, _body, _text = summary_sentences(draft, section)
    bases: list[tuple[str, str, str | None, Passage]] = []  # claim id, quote, statement, passage
    for claim in ledger.claims:
        source, quote = getattr(claim, "source", None), getattr(claim, "quote", None)
        if not isinstance(source, str) or not isinstance(quote, str):
            continue
        found = _found(source, quote, ctx)
        if found is None:
            continue
        evidence, text = found
        bases.append((claim.id, quote, claim.statement, build_passage(text, evidence.start, evidence.end)))
    out: list[Finding] = []
    if not bases:
        return out
    for s in sentences:
        text = s.statement
        pop = primary_population(text)
        figs = figures(text)
        if pop is None and not places(text) and period(text) is None and not figs:
            continue
        values = {f.value for f in figs}
        rests = [b for b in bases if values & {f.value for f in figures(b[3].text_of("quote sentence"))}]
        if not rests:
            words = _words(text)
            scored = sorted(bases, key=lambda b: -_overlap(words, _words(b[3].text_of("quote sentence"))))
            rests = scored[:2]
        results: list[tuple[str, list[ScopeIssue]]] = []
        for claim_id, quote, _statement, passage in rests:
            issues = [i for i in passage_issues(None, text, passage, quote) if i.slot in _DESIGN_FREE]
            results.append((claim_id, issues))
        if any(not issues for _, issues in results):
            continue
        claim_id, issues = min(results, key=lambda r: (sum(i.severity == MISMATCH for i in r[1]), len(r[1])))
        for f in issues_to_findings(s.id, issues, None, text, check=CHECK):
            f.extra["rests_on"] = claim_id
            out.append(_located(f, draft, s.line, s.column))
    return out


def _located(f: Finding, draft: Draft, line: int, column: int) -> Finding:
    import dataclasses

    return dataclasses.replace(f, location={"file": draft.path, "line": line, "column": column})

"""The scope check of a quote without a statement and without any question returns at once (issue 19,
per-claim cost: it read the ledger's question for every claim first). Every other claim goes the way
it went: the same findings as asking claim_scope_findings for every claim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claimledger import gate
from claimledger.checks import builtin
from claimledger.checks.scope.check import claim_scope_findings
from tests.test_scope import EMPLOYEE_QUOTE, SEED_QUESTION, _ledger


def _always_asked(claim: Any, source: str, quote: str, ctx: Any) -> list[Any]:
    return claim_scope_findings(claim.id, source, quote, claim.statement, ctx.ledger.claim_question(claim), ctx)


CLAIMS: list[dict[str, object]] = [
    {"id": "A", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE},
    {"id": "B", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE, "statement": "   "},
    {"id": "C", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE,
     "statement": "個人開発者の32％が、会社より先に生成AIを使い始めている。"},
    {"id": "D", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE, "answers": {"text": SEED_QUESTION}},
    {"id": "E", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE, "answers": "dev"},
]  # fmt: skip


@pytest.mark.parametrize(
    "top",
    [
        {},
        {"question": SEED_QUESTION},
        {"question": {"text": SEED_QUESTION, "population": "個人開発者"}},
        {"questions": {"dev": {"text": SEED_QUESTION, "population": "個人開発者"}}},
    ],
)
def test_the_same_scope_findings_as_asking_for_every_claim(
    tmp_path: Path, top: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    claims = [c for c in CLAIMS if c.get("answers") != "dev" or "questions" in top]
    fast = gate(_ledger(tmp_path, claims, **top))
    monkeypatch.setattr(builtin, "_scope", _always_asked)
    slow = gate(_ledger(tmp_path, claims, **top))
    assert [f.to_dict() for f in fast.findings] == [f.to_dict() for f in slow.findings]
    # a question with a population (the ledger's, or one a claim names) reaches claims without a
    # statement too: the shortcut must not skip them
    unstated = {f.claim_id for f in fast.findings if f.check == "scope" and f.claim_id in ("A", "B", "D", "E")}
    assert unstated == ({"A", "B"} if "population" in str(top.get("question")) else {"E"} if "questions" in top else set())


def test_a_claim_without_statement_or_question_has_no_scope_finding(tmp_path: Path) -> None:
    report = gate(_ledger(tmp_path, CLAIMS[:2]))
    assert [f.check for f in report.findings] == ["literal_quote", "literal_quote"]

"""Reports for the output tests: the bundled examples, optionally placed in a draft.

The drafts here are written for the tests; each finding is given the draft
line and column of its claimed text, as the draft extractor reports them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from claimledger import GateConfig, gate
from claimledger.model.report import Report

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"

EN_DRAFT = """# Weekly report

This week the site received 1,202 clicks. That is 171.7 clicks per day on average.
The click-through rate was 11.9%.

Smith et al. put it plainly: "adding an independent verification step reduced errors by 73 percent".
In their summary: "adding an independent verification step reduced errors by 37 percent".
As they say, "Verification is a discipline, not a mood".
Jones goes further: "Independent checks eliminate all errors."
The programme cost $1,200,000 over two years.
"""

JA_DRAFT = """# 調査ダイジェスト

調査は「言葉を扱う生成AIを業務で使う企業は、前年の約4倍に増えた」と述べる。
別の箇所では「生成AIを業務で使う企業は、前年の4倍に増えた」とある。
「社内で個人として先に使い始めた社員が多い」という。
記事は「すべての企業で生産性が2倍になった」と書いた。
回答企業は1.2万社。そのうち３０％が全社で導入済み。導入企業の平均利用部署数は8.5。合計12,000社。
"""


def en_report() -> Report:
    return gate(
        EXAMPLES / "en" / "ledger.yaml",
        config=GateConfig(metrics_files=(EXAMPLES / "en" / "metrics.py",)),
    )


def ja_report() -> Report:
    return gate(EXAMPLES / "ja" / "ledger.yaml")


def place_in_draft(report: Report, draft: str, name: str, *, keep_in_ledger: tuple[str, ...] = ()) -> Report:
    """Give each finding the draft position of its claimed text (1-based line and column).

    Claims listed in ``keep_in_ledger`` (and any whose text is not in the draft) keep
    their ledger location.
    """
    findings = []
    for f in report.findings:
        at = draft.find(f.claimed) if f.claimed and f.claim_id not in keep_in_ledger else -1
        if at >= 0:
            line = draft.count("\n", 0, at) + 1
            column = at - (draft.rfind("\n", 0, at) + 1) + 1
            f = dataclasses.replace(f, location={"file": name, "line": line, "column": column})
        findings.append(f)
    return dataclasses.replace(report, findings=findings)

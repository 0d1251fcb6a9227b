"""The unlisted audit: number forms in English and Japanese, structural numbers, allowlist, sections."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger import Reason, audit
from claimledger.cli import cli
from claimledger.extract.draft import parse_draft
from claimledger.extract.marks import Analysis
from claimledger.extract.mentions import find_mentions, number_key, same_number

# (as the draft writes it, as the ledger states it, same figure?)
FORMS: list[tuple[str, str, bool]] = [
    ("12,000", "12000", True),
    ("1.2万", "12,000", True),
    ("12k", "12,000", True),
    ("12K", "1.2万", True),
    ("１２，０００", "12000", True),
    ("12 thousand", "12,000", True),
    ("30%", "３０％", True),
    ("３０％", "30%", True),
    ("30 percent", "30%", True),
    ("30パーセント", "30%", True),
    ("3割", "30%", True),
    ("4倍", "4x", True),
    ("4x", "4倍", True),
    ("four times", "4倍", True),
    ("４倍", "four times", True),
    ("四倍", "4x", True),
    ("twice", "2x", True),
    ("1億2000万", "120,000,000", True),
    ("1.2億", "1億2000万", True),
    ("120 million", "1億2000万", True),
    ("3億", "300,000,000", True),
    ("5千", "5000", True),
    ("三十", "30", True),
    ("二千五百", "2500", True),
    ("twenty-one", "21", True),
    ("four", "4", True),
    ("seventeen", "17", True),
    ("twenty", "20", True),
    ("$1.2 million", "$1,200,000", True),
    ("1,200円", "1200円", True),
    ("11.7%", "11.7%", True),
    ("1.2万", "12,034", True),  # the draft rounds a backed figure
    ("2024-03-15", "March 15, 2024", True),
    ("2024年3月15日", "2024-03-15", True),
    ("2024/3/15", "15 March 2024", True),
    ("2024", "2024", True),
    ("12,000", "12,001", False),
    ("12,034", "1.2万", False),  # never more precise than the ledger
    ("30%", "30倍", False),
    ("4倍", "40%", False),
    ("1.2万", "1.2億", False),
    ("three", "4", False),
    ("2024-03-15", "2024-03-16", False),
    ("2024-03-15", "2024", False),
    ("11.7%", "11.9%", False),
    ("3割", "3%", False),
]


@pytest.mark.parametrize(("draft", "ledger", "same"), FORMS)
def test_number_forms(draft: str, ledger: str, same: bool) -> None:
    d, k = number_key(draft), number_key(ledger)
    assert d is not None and k is not None
    assert same_number(d, k) is same


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("売上は1.2万件、前年の4倍に。", ["1.2万", "4倍"]),
        ("It grew four times, to 12k users.", ["four times", "12k"]),
        ("一方で、三つの企業が十分に対応した。", ["三"]),
        ("On March 15, 2024 we saw 30%.", ["March 15, 2024", "30%"]),
        ("2024年5月に1,500人を調査した。", ["2024年5月", "1,500"]),
        ("one of the answers", []),
        ("COVID-19 and GPT-4 are names.", []),
    ],
)
def test_mentions_in_text(text: str, found: list[str]) -> None:
    assert [m.text for m in find_mentions(text)] == found


@pytest.fixture
def audit_case(tmp_path: Path, write_ledger: Callable[..., Path]) -> Callable[[str, str], list[tuple[str, str]]]:
    (tmp_path / "src.txt").write_text("The programme cost $1.2 million over two years.", encoding="utf-8")

    def run(draft: str, claims: str = "") -> list[tuple[str, str]]:
        ledger = write_ledger(
            "version: 1\nsources:\n  smith2019: src.txt\nclaims:\n" + (textwrap.dedent(claims) or "  []\n")
        )
        path = tmp_path / "draft.md"
        path.write_text(textwrap.dedent(draft), encoding="utf-8")
        report = audit(path, ledger=ledger)
        return [(f.reason.value, str(f.claimed)) for f in report.findings]

    return run


def test_audit_flags_unlisted_figures_in_both_languages(audit_case: Callable[..., list[tuple[str, str]]]) -> None:
    found = audit_case("Clicks rose to 1,202 last week.\n\n売上は前年の4倍、1.2万件だった。\n")
    assert found == [("unlisted_number", "1,202"), ("unlisted_number", "4倍"), ("unlisted_number", "1.2万")]


def test_audit_backed_by_ledger_in_another_form(audit_case: Callable[..., list[tuple[str, str]]]) -> None:
    claims = """\
      - {id: N1, kind: number, value: "12,000", sql: "SELECT 12000", location: {line: 1}}
      - {id: N2, kind: number, value: "4x", sql: "SELECT 4", location: {line: 1}}
      - {id: N3, kind: number, value: "30%", sql: "SELECT 30", location: {line: 1}}
    """
    draft = "We have 1.2万 users, four times more; ３０％ pay.\n"
    assert audit_case(draft, claims) == []
    # the same claims without a tie to this line back nothing: their values merely coincide
    untied = claims.replace(", location: {line: 1}", "")
    assert [r for r, _ in audit_case(draft, untied)] == ["unlisted_number"] * 3


def test_structural_numbers_are_not_claims(audit_case: Callable[..., list[tuple[str, str]]]) -> None:
    draft = """\
    # 2. Results

    1. First item.
    2. Second item, see Fig. 3 and p. 4 and 第2章.

    As shown [@smith2019, p. 12], it works.[^1]

    [^1]: A footnote.
    """
    found = audit_case(draft, "  - {id: C1, kind: quote, source: smith2019, quote: \"The programme cost\"}\n")
    assert found == []


def test_years_and_dates_count_unless_in_a_citation(audit_case: Callable[..., list[tuple[str, str]]]) -> None:
    claims = "  - {id: C1, kind: quote, source: smith2019, quote: \"The programme cost\"}\n"
    found = audit_case("In 2023 sales fell [@smith2019, 2019]. 調査は2024年5月に実施。\n", claims)
    assert found == [("unlisted_number", "2023"), ("unlisted_number", "2024年5月")]


def test_figure_printed_by_a_cited_ledger_quote_is_backed(audit_case: Callable[..., list[tuple[str, str]]]) -> None:
    claims = "  - {id: C1, kind: quote, source: smith2019, quote: \"The programme cost $1.2 million\"}\n"
    assert audit_case("It cost $1.2 million [@smith2019].\n", claims) == []
    assert audit_case("It cost $1.2 million.\n", claims) == [("unlisted_number", "$1.2 million")]


def test_unlisted_quotes_and_citation_keys(audit_case: Callable[..., list[tuple[str, str]]]) -> None:
    found = audit_case("He said “costs were never tracked at all” [@smith2019] and [@ghost2020].\n")
    assert ("unlisted_quote", "costs were never tracked at all") in found
    assert ("unlisted_citation", "smith2019") in found
    assert ("unlisted_citation", "ghost2020") in found


def test_code_math_and_front_matter_are_not_audited(audit_case: Callable[..., list[tuple[str, str]]]) -> None:
    draft = """\
    ---
    date: 2024-01-01
    n: 500
    ---

    The value $x = 42$ and `n = 7`.

    ```
    total = 12345
    ```

    <!-- draft note: 99 -->
    See <https://example.com/2024/report-77> too.
    """
    assert audit_case(draft) == []


def test_allow_patterns_and_sections(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    ledger = write_ledger("version: 1\nclaims: []\n")
    draft = tmp_path / "r.md"
    draft.write_text("# Body\n\nPython 3.11 and 2024 and 500 users.\n\n## Summary\n\nUp 30% this year.\n", "utf-8")
    report = audit(draft, ledger=ledger, allow=[r"3\.11", "2024"])
    assert [f.claimed for f in report.findings] == ["500", "30%"]
    summary = audit(draft, ledger=ledger, section="summary")
    assert [f.claimed for f in summary.findings] == ["30%"]
    assert all(f.reason is Reason.UNLISTED_NUMBER for f in summary.findings)
    assert summary.findings[0].location == {"file": str(draft), "line": 7, "column": 4}


def test_audit_cli(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    ledger = write_ledger("version: 1\nclaims: []\n")
    draft = tmp_path / "r.md"
    draft.write_text("Up 30% this year.\n", "utf-8")
    allow = tmp_path / "allow.txt"
    allow.write_text("# figures we accept\n30%\n", "utf-8")
    runner = CliRunner()
    fail = runner.invoke(cli, ["audit", str(draft), "--ledger", str(ledger), "--format", "json"])
    assert fail.exit_code == 1 and "unlisted_number" in fail.output
    ok = runner.invoke(cli, ["audit", str(draft), "--ledger", str(ledger), "--allow-file", str(allow)])
    assert ok.exit_code == 0, ok.output
    missing = runner.invoke(cli, ["audit", str(draft), "--ledger", str(ledger), "--section", "Nope"])
    assert missing.exit_code == 2 and "not found" in missing.output


def test_latex_audit_ignores_commands_and_math() -> None:
    text = r"""\documentclass{article}
\usepackage{amsmath}
\begin{document}
\section{Results}\label{sec:2}
Errors fell by 37\% \citep[p.~4]{smith2019}, see Figure~\ref{fig:3}.
\begin{equation} E = mc^2 + 5 \end{equation}
% a comment with 99
\end{document}
"""
    analysis = Analysis(parse_draft(text, "latex", "p.tex"))
    assert [(m.text, m.key.unit) for m in analysis.mentions] == [("37%", "%")]

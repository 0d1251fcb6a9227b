"""Issue 13, class 1: a figure is [V] only when the ledger claim about *that statement* backs it.

Reproduces the reports (a latency of 120 ms marked [V] by an unrelated claim that
counted 120 survey items; 約2割 backed by an unrelated 20%) on real-format documents
(a reportlab PDF with header, page numbers, caption and footnote; a CSV with a BOM),
then shows each way a claim is tied to its place: location (line, line + column),
statement, and citation with the same meaning.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger import audit, extract_ledger, lint, mark
from claimledger.cli import cli
from tests.realdocs import paper_pdf, survey_csv

EN_PAPER = [
    "We sent a questionnaire of 120 items to the operators of the service.",
    "After the cache was enabled, median request latency fell to 95 ms in the second week.",
    "Error budgets were respected in approximately 2,000 servers of the fleet.",
]


@pytest.fixture
def en_world(tmp_path: Path) -> Path:
    paper_pdf(tmp_path / "perf.pdf", "Cache rollout report - Example Lab", EN_PAPER,
              caption="Figure 1: latency by week (ms).", footnote="1 Survey run in March 2026.")  # fmt: skip
    survey_csv(
        tmp_path / "items.csv",
        ["item_id", "section"],
        [[i, "ops" if i % 2 else "dev"] for i in range(1, 121)],
    )
    return tmp_path


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    return p


EN_LEDGER = """version: 1
sources:
  perf: perf.pdf
datasets:
  items: items.csv
claims:
  - id: N1
    kind: number
    sql: "SELECT count(*) FROM items"
    value: 120
    statement: "The survey had 120 items."
"""
EN_DRAFT = """# Results

The survey had 120[V] items in total.

After the change, latency fell to 120[V] ms [@perf].
"""


def test_en_unrelated_claim_of_the_same_value_backs_nothing(en_world: Path) -> None:
    ledger = _write(en_world, "ledger.yaml", EN_LEDGER)
    draft = _write(en_world, "draft.md", EN_DRAFT)
    result = mark(draft, ledger=ledger)
    assert [(v.target.text, v.letter, v.backing) for v in result.verdicts] == [
        ("120", "V", "N1"),  # tied by its statement (a part of the sentence, figure at the same place)
        ("120", "D", None),  # the latency: the same value, another statement
    ]
    latency = result.verdicts[1].finding
    assert latency.reason.value == "number_unbacked"
    assert "N1 states the same value but is not tied to this place (line 5)" in latency.message
    problems = lint(draft, ledger=ledger).problems
    assert [(p.line, p.reason.value) for p in problems] == [(5, "mark_not_verified")]
    report = audit(draft, ledger=ledger)
    unlisted = [
        (f.location or {}).get("line") for f in report.findings if f.reason.value == "unlisted_number"
    ]
    assert unlisted == [5] and report.outcome.value == "FAIL"
    assert all(f.tier is not None and f.tier.value == "HIGH" for f in report.findings)


def test_en_location_ties_line_and_column(en_world: Path) -> None:
    # the claim was located (by `extract`) on the unmarked draft: line 3, column 30
    ledger = _write(en_world, "ledger.yaml", EN_LEDGER.replace(
        '    statement: "The survey had 120 items."\n', "    location: {line: 3, column: 30}\n"))  # fmt: skip
    draft = _write(en_world, "draft.md", "# R\n\nLatency fell to 120[V] ms while 120[V] items were sent.\n")
    result = mark(draft, ledger=ledger)
    # the marks shift the second figure to column 33: the nearest figure of that value still ties
    assert [(v.column, v.letter) for v in result.verdicts] == [(17, "D"), (33, "V")]
    marked = _write(en_world, "marked.md", result.text)
    assert lint(marked, ledger=ledger).ok
    # without a column, the line ties its first figure of that value
    ledger2 = _write(en_world, "l2.yaml", EN_LEDGER.replace(
        '    statement: "The survey had 120 items."\n', "    location: {line: 3}\n"))  # fmt: skip
    assert [v.letter for v in mark(draft, ledger=ledger2).verdicts] == ["V", "D"]
    # another line, or another file named in the location, ties nothing
    for loc in ("{line: 4, column: 30}", "{file: other.md, line: 3, column: 30}"):
        other = _write(en_world, "l3.yaml", EN_LEDGER.replace(
            '    statement: "The survey had 120 items."\n', f"    location: {loc}\n"))  # fmt: skip
        assert [v.letter for v in mark(draft, ledger=other).verdicts] == ["D", "D"]


def test_en_citation_ties_only_the_same_meaning(en_world: Path) -> None:
    ledger = _write(
        en_world,
        "ledger.yaml",
        """version: 1
sources:
  perf: perf.pdf
claims:
  - id: N2
    kind: number
    source: perf
    quote: "a questionnaire of 120 items"
    value: 120
""",
    )
    draft = _write(
        en_world,
        "draft.md",
        """# Results

The operators answered a questionnaire of 120[V] items [@perf].
Latency fell to 120[V] ms [@perf].
""",
    )
    result = mark(draft, ledger=ledger)
    assert [(v.line, v.letter, v.backing) for v in result.verdicts] == [(3, "V", "N2"), (4, "D", None)]
    report = audit(draft, ledger=ledger)
    assert [(f.location or {}).get("line") for f in report.findings] == [4]


def test_extract_writes_a_location_that_ties_every_drafted_claim(en_world: Path) -> None:
    draft = _write(en_world, "draft.md", EN_DRAFT.replace("[V]", ""))
    text = extract_ledger(draft)
    assert text.count("location: {") == 3  # two numbers and the cited sentence as an attribution
    assert text.count("kind: attribution") == 1
    filled = (
        text.replace('perf: "TODO"', 'perf: "perf.pdf"')
        .replace("metric: TODO", 'sql: "SELECT count(*) FROM items"')
        .replace("sources:", "datasets:\n  items: items.csv\nsources:")
    )
    ledger = _write(en_world, "extracted.yaml", filled)
    result = mark(draft, ledger=ledger)
    assert [(v.target.text, v.letter, v.backing) for v in result.verdicts] == [
        ("120", "V", "N1"),
        ("120", "V", "N2"),
    ]


# ---------------------------------------------------------------------------- Japanese

JA_PAPER = [
    "本調査では全国の会社員1,500人を対象にアンケートを実施した。",
    "在宅勤務を週3日以上している人は、回答者の21%にとどまった。",
    "離職を考えたことがある人は全体の35%だった。",
]
JA_LEDGER = """version: 1
sources:
  chosa: chosa.pdf
datasets:
  staff: staff.csv
claims:
  - id: N1
    kind: number
    sql: "SELECT 100.0 * avg(remote) FROM staff"
    value: "20%"
    statement: "在宅勤務の社員は20%だった。"
"""


@pytest.fixture
def ja_world(tmp_path: Path) -> Path:
    paper_pdf(tmp_path / "chosa.pdf", "働き方調査 2026 速報", JA_PAPER, lang="ja",
              caption="図1 在宅勤務の日数", footnote="注：回答者は全国の会社員。")  # fmt: skip
    survey_csv(tmp_path / "staff.csv", ["id", "remote"], [[i, 1 if i % 5 == 0 else 0] for i in range(1, 101)])
    return tmp_path


def test_ja_unrelated_twenty_percent_does_not_back_niwari(ja_world: Path) -> None:
    ledger = _write(ja_world, "ledger.yaml", JA_LEDGER)
    draft = _write(
        ja_world,
        "draft.md",
        "# 結果\n\n在宅勤務の社員は20%[V]だった。\n一方、離職を考えた人は約2割[V]にのぼる [@chosa]。\n",
    )
    result = mark(draft, ledger=ledger)
    assert [(v.target.text, v.letter, v.backing) for v in result.verdicts] == [
        ("20%", "V", "N1"),
        ("2割", "D", None),
    ]
    assert "N1 states the same value" in result.verdicts[1].finding.message
    assert [p.line for p in lint(draft, ledger=ledger).problems] == [4]
    report = audit(draft, ledger=ledger)
    found = [(f.reason.value, (f.location or {}).get("line")) for f in report.findings]
    assert found == [("unlisted_number", 4), ("unlisted_citation", 4)]


def test_ja_citation_ties_the_same_meaning_only(ja_world: Path) -> None:
    ledger = _write(
        ja_world,
        "ledger.yaml",
        """version: 1
sources:
  chosa: chosa.pdf
claims:
  - id: N2
    kind: number
    source: chosa
    quote: "在宅勤務を週3日以上している人は、回答者の21%にとどまった"
    value: "21%"
""",
    )
    draft = _write(ja_world, "draft.md",
                   "# 結果\n\n在宅勤務を週3日以上する人は21%[V]だった [@chosa]。\n離職を考えた人も21%[V]いる [@chosa]。\n")  # fmt: skip
    result = mark(draft, ledger=ledger)
    assert [(v.line, v.letter) for v in result.verdicts] == [(3, "V"), (4, "D")]


def test_cli_lint_and_check_fail_on_the_coincidence(en_world: Path) -> None:
    ledger = _write(en_world, "ledger.yaml", EN_LEDGER)
    draft = _write(en_world, "draft.md", EN_DRAFT)
    runner = CliRunner()
    res = runner.invoke(cli, ["lint", str(draft), "--ledger", str(ledger)])
    assert res.exit_code == 1 and f"{draft}:5:" in res.output
    res = runner.invoke(cli, ["check", str(draft), "--ledger", str(ledger), "--format", "json"])
    assert res.exit_code == 1 and '"reason": "mark_not_verified"' in res.output

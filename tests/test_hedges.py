"""Issue 13, class 3: hedges and qualifiers that the literal check cannot see.

Real-format sources: release notes in HTML (nav, hidden block, script) and a Japanese
report as a reportlab PDF (running header, page number, caption, footnote). Each case
passed before this change (a [V] or no finding); now each is HIGH or [D].
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimledger import gate, mark
from claimledger.checks.overclaim import overclaim_hits
from tests.realdocs import paper_pdf, release_html

NOTES = """<p>Support staff answer every ticket usually within a day, according to the vendor.</p>
<p>The cluster now runs on approximately 2,000 servers in three regions.</p>
<p>Throughput rose by roughly a factor of three after the upgrade.</p>"""
REPORT = [
    "問い合わせには、通常1日以内に回答する体制を整えた。",
    "導入企業は前年の約2倍に増えた。",
    "生成AIの導入で生産性はおそらく向上する。",
]


@pytest.fixture
def world(tmp_path: Path) -> Path:
    release_html(tmp_path / "notes.html", "Release 4.2", NOTES)
    paper_pdf(tmp_path / "report.pdf", "業務調査 2026", REPORT, lang="ja",
              caption="図1 回答までの日数", footnote="注：2026年3月時点。")  # fmt: skip
    return tmp_path


def _gate(world: Path, claims: str) -> dict[str, list[tuple[str, str]]]:
    path = world / "ledger.yaml"
    path.write_text("version: 1\nsources:\n  notes: notes.html\n  report: report.pdf\nclaims:\n" + claims, "utf-8")
    out: dict[str, list[tuple[str, str]]] = {}
    for f in gate(path).findings:
        out.setdefault(f.claim_id, []).append((f.reason.value, f.tier.value if f.tier else "-"))
    return out


def test_quote_without_statement_that_leaves_out_the_adjacent_hedge(world: Path) -> None:
    out = _gate(world, """\
  - {id: E1, kind: quote, source: notes, quote: "within a day, according to the vendor"}
  - {id: E2, kind: quote, source: notes, quote: "usually within a day, according to the vendor"}
  - {id: J1, kind: quote, source: report, quote: "1日以内に回答する体制を整えた"}
  - {id: J2, kind: quote, source: report, quote: "通常1日以内に回答する体制を整えた"}
  - {id: N1, kind: number, source: notes, quote: "2,000 servers in three regions", value: 2000}
""")
    assert out["E1"] == [("quote_found", "-"), ("overclaim_quote_omits_hedge", "HIGH")]
    assert out["J1"] == [("quote_found", "-"), ("overclaim_quote_omits_hedge", "HIGH")]
    assert out["N1"] == [("number_match", "-"), ("overclaim_quote_omits_hedge", "HIGH")]
    assert out["E2"] == [("quote_found", "-")] and out["J2"] == [("quote_found", "-")]


def test_number_backed_by_a_passage_keeps_its_hedge(world: Path) -> None:
    out = _gate(world, """\
  - id: N1
    kind: number
    source: notes
    quote: "The cluster now runs on approximately 2,000 servers"
    value: "2,000"
    statement: "The cluster runs on 2,000 servers."
  - id: N2
    kind: number
    source: notes
    quote: "The cluster now runs on approximately 2,000 servers"
    value: "2,000"
    statement: "The cluster runs on about 2,000 servers."
  - id: Q3
    kind: quote
    source: notes
    quote: "Throughput rose by roughly a factor of three"
    statement: "Throughput tripled after the upgrade."
  - id: J3
    kind: number
    source: report
    quote: "導入企業は前年の約2倍に増えた"
    value: "2倍"
    statement: "導入企業は2倍に増えた。"
  - id: J4
    kind: quote
    source: report
    quote: "生成AIの導入で生産性はおそらく向上する"
    statement: "生成AIの導入で生産性は向上する。"
""")
    assert ("overclaim_hedge_dropped", "HIGH") in out["N1"]
    assert out["N2"] == [("number_match", "-")]
    assert ("overclaim_hedge_dropped", "HIGH") in out["Q3"]
    assert ("overclaim_hedge_dropped", "HIGH") in out["J3"]
    assert ("overclaim_modality", "HIGH") in out["J4"]


def test_draft_marks_need_the_hedge_kept(world: Path) -> None:
    ledger = world / "ledger.yaml"
    ledger.write_text("""version: 1
sources: {notes: notes.html, report: report.pdf}
claims:
  - {id: N1, kind: number, source: notes, quote: "approximately 2,000 servers", value: 2000, location: {line: 5}}
  - {id: N2, kind: number, source: notes, quote: "approximately 2,000 servers", value: 2000, location: {line: 6}}
""", "utf-8")  # fmt: skip
    draft = world / "draft.md"
    draft.write_text(
        "# Release 4.2\n\n"
        "Tickets are answered “within a day, according to the vendor”[V] [@notes].\n"
        "Tickets are usually answered “within a day, according to the vendor”[V] [@notes].\n"
        "The cluster runs on 2,000[V] servers [@notes].\n"
        "The cluster runs on approximately 2,000[V] servers [@notes].\n\n"
        "窓口は「1日以内に回答する体制を整えた」[V] [@report]。\n"
        "窓口は通常「1日以内に回答する体制を整えた」[V] [@report]。\n",
        "utf-8",
    )
    result = mark(draft, ledger=ledger)
    got = [(v.line, v.letter, v.finding.reason.value) for v in result.verdicts]
    assert got == [
        (3, "D", "overclaim_quote_omits_hedge"),
        (4, "V", "quote_found"),
        (5, "D", "overclaim_hedge_dropped"),
        (6, "V", "number_match"),
        (8, "D", "overclaim_quote_omits_hedge"),
        (9, "V", "quote_found"),
    ]
    assert "(the literal check passed)" in result.verdicts[0].finding.message


@pytest.mark.parametrize(
    ("statement", "quote"),
    [
        ("Costs tripled.", "costs rose by roughly a factor of three"),
        ("Costs tripled.", "costs rose roughly threefold"),
        ("Errors doubled.", "errors about doubled"),
        ("Errors rose twice.", "errors rose about two-fold"),
        ("It took two weeks.", "it took about two weeks"),
        ("Users prefer dark mode.", "in most cases users prefer dark mode"),
        ("Users prefer dark mode.", "users usually prefer dark mode"),
        ("Users prefer dark mode.", "users almost always prefer dark mode"),
        ("Users prefer dark mode.", "users tend to prefer dark mode"),
        ("The drug works.", "the drug likely works"),
        ("生産性は2倍になった。", "生産性は約2倍になった"),
        ("売上は倍増した。", "売上はおよそ倍増した"),
        ("生産性が向上する。", "生産性がおそらく向上する"),
        ("サポートは1日以内に回答する。", "サポートは通常1日以内に回答する"),
        ("企業は生成AIを導入した。", "多くの場合、企業は生成AIを導入した"),
        ("企業は生成AIを導入した。", "大概の企業は生成AIを導入した"),
        ("全ての企業が導入した。", "ほとんどの企業が導入した"),
    ],
)
def test_widened_lexicons_catch_the_dropped_hedge(statement: str, quote: str) -> None:
    assert overclaim_hits(statement, quote), (statement, quote)


@pytest.mark.parametrize(
    ("statement", "quote"),
    [
        ("Costs roughly tripled.", "costs rose by roughly a factor of three"),
        ("Errors about doubled.", "errors about doubled"),
        ("Users typically prefer dark mode.", "users usually prefer dark mode"),
        ("生産性は約2倍になった。", "生産性は約2倍になった"),
        ("生産性がおそらく向上する。", "生産性がおそらく向上する"),
        ("サポートはたいてい1日以内に回答する。", "サポートは通常1日以内に回答する"),
        ("The double-check caught it.", "the double-check caught it"),
        ("Two reviewers agreed.", "two reviewers agreed"),
    ],
)
def test_faithful_restatements_raise_nothing(statement: str, quote: str) -> None:
    assert overclaim_hits(statement, quote) == []

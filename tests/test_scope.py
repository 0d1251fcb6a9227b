"""Scope checks: does the evidence answer the question for the population, place and period asked about?

The first tests are seed 004's case, in Japanese, through the whole pipeline
on a real PDF: a figure about employees inside companies who started using
generative AI on their own, read as a figure about individual developers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from claimledger import gate
from claimledger._exceptions import LedgerError
from claimledger.checks.scope import QuestionScope, build_passage, read_slots, scope_issues
from claimledger.checks.scope.slots import design, figures, period, places, primary_population
from claimledger.load.ledger import load_ledger
from claimledger.model.finding import Reason, Tier
from tests.scope_docs import write_en_survey_html, write_ja_survey_pdf

EMPLOYEE_QUOTE = "個人として生成AIを業務で使い始めている割合は32％だった"


def _ledger(tmp_path: Path, claims: list[dict[str, object]], **top: object) -> Path:
    write_ja_survey_pdf(tmp_path / "survey.pdf")
    write_en_survey_html(tmp_path / "survey.html")
    data = {"version": 1, **top, "sources": {"survey": "survey.pdf", "en": "survey.html"}, "claims": claims}
    path = tmp_path / "ledger.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _scope(report: object) -> list[object]:
    return [f for f in report.findings if f.check == "scope"]  # type: ignore[attr-defined]


SEED_QUESTION = "個人開発と企業の中の開発では、生成AIの使い方はどう違うか"


def test_seed_004_employees_inside_companies_read_as_individual_developers_is_high(tmp_path: Path) -> None:
    """Seed 004: the quote is real and not overclaimed, but it counts employees, not individual developers."""
    ledger = _ledger(tmp_path, [{
        "id": "D1", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE,
        "statement": "個人開発者の32％が、会社より先に生成AIを使い始めている。",
    }], question=SEED_QUESTION)  # fmt: skip
    report = gate(ledger)
    literal = [f for f in report.findings if f.check == "literal_quote"]
    assert [f.reason for f in literal] == [Reason.QUOTE_FOUND]  # the quote itself is real
    scope = _scope(report)
    assert [(f.reason, f.tier, f.extra["slot"]) for f in scope] == [
        (Reason.SCOPE_MISMATCH, Tier.HIGH, "population")
    ]
    slots = scope[0].extra["slots"]
    assert slots["statement"] == "個人開発者"
    assert "社員" in slots["evidence"] and slots["evidence_from"] == "quote sentence"
    assert "個人開発" in slots["question"]
    assert report.outcome.value == "FAIL"


def test_seed_004_the_question_alone_is_enough(tmp_path: Path) -> None:
    """The statement does not name a population; the question it answers does."""
    ledger = _ledger(tmp_path, [{
        "id": "D2", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE,
        "statement": "32％が、会社より先に生成AIを使い始めている。", "answers": "indie",
    }], question=SEED_QUESTION, questions={"indie": {"text": "個人開発者は生成AIをどう使っているか", "population": "個人開発者"}})  # fmt: skip
    scope = _scope(gate(ledger))
    assert [(f.reason, f.tier) for f in scope] == [(Reason.SCOPE_MISMATCH, Tier.HIGH)]
    assert scope[0].extra["slots"]["question"] == "個人開発者"
    assert scope[0].extra["slots"]["statement"] is None


def test_seed_004_the_right_reading_passes(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, [
        {"id": "D3", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE,
         "statement": "企業の中では、社員の32％が個人として先に生成AIを使い始めている。"},
        {"id": "D4", "kind": "quote", "source": "survey", "quote": "生成AIを毎日使う人は45％だった", "answers": "indie",
         "statement": "個人開発者の45％が生成AIを毎日使っている。"},
    ], question=SEED_QUESTION, questions={"indie": {"text": "個人開発者は生成AIをどう使っているか"}})  # fmt: skip
    report = gate(ledger)
    assert _scope(report) == []
    assert report.outcome.value == "PASS"


def test_number_claim_read_from_a_passage_is_scope_checked(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, [{
        "id": "N1", "kind": "number", "value": "32%", "source": "survey", "quote": EMPLOYEE_QUOTE,
        "statement": "個人開発者の32％が生成AIを先に使い始めた。",
    }])  # fmt: skip
    scope = _scope(gate(ledger))
    assert [(f.reason, f.extra["slot"]) for f in scope] == [(Reason.SCOPE_MISMATCH, "population")]


def test_english_html_population_place_period_measure_and_design(tmp_path: Path) -> None:
    q1 = "32% of employees at large firms said they had started using generative AI tools"
    claims = [
        {"id": "E1", "kind": "quote", "source": "en", "quote": q1,
         "statement": "In 2023, 32% of individual developers started using generative AI before their employer."},
        {"id": "E2", "kind": "quote", "source": "en", "quote": q1,
         "statement": "In 2023, 32% of employees at large firms worldwide had started using generative AI tools."},
        {"id": "E3", "kind": "quote", "source": "en", "quote": q1,
         "statement": "In 2021, 32% of employees at large firms had started using generative AI tools."},
        {"id": "E4", "kind": "quote", "source": "en", "quote": "spending on AI tools grew 40% year on year",
         "statement": "40% of firms spend on AI tools."},
        {"id": "E5", "kind": "quote", "source": "en", "quote": "Employees who used AI assistants daily reported 20% higher output",
         "statement": "Daily use of AI assistants raised employees' output by 20%."},
        {"id": "E6", "kind": "quote", "source": "en", "quote": q1,
         "statement": "In 2023, 32% of US employees at large firms had started using generative AI tools."},
    ]  # fmt: skip
    report = gate(_ledger(tmp_path, claims))
    got = {(f.claim_id, f.reason, f.extra["slot"]) for f in _scope(report)}
    assert got == {
        ("E1", Reason.SCOPE_MISMATCH, "population"),
        ("E2", Reason.SCOPE_MISMATCH, "place"),
        ("E3", Reason.SCOPE_MISMATCH, "period"),
        ("E4", Reason.SCOPE_MISMATCH, "measure"),
        ("E5", Reason.SCOPE_MISMATCH, "causal_from_correlational"),
    }


def test_a_slot_the_evidence_does_not_state_is_med(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, [{
        "id": "M1", "kind": "quote", "source": "survey", "quote": "生成AIを毎日使う人は45％だった",
        "statement": "東京の個人開発者の45％が生成AIを毎日使う。",
    }])  # fmt: skip
    scope = _scope(gate(ledger))
    assert [(f.reason, f.tier, f.extra["slot"]) for f in scope] == [
        (Reason.SCOPE_MISMATCH, Tier.HIGH, "place")
    ]
    src = "Adoption is rising.\nAbout 45% of developers use AI daily.\n"
    a = src.index("45%")
    issues = scope_issues(None, "45% of individual developers use AI daily.", build_passage(src, a, a + 30))
    assert [(i.slot, i.severity) for i in issues] == [("population", "not_stated")]


def test_a_quote_that_was_not_found_gets_no_scope_finding(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, [{
        "id": "X1", "kind": "quote", "source": "survey", "quote": "個人開発者の32％が生成AIを使い始めた",
        "statement": "個人開発者の32％が生成AIを使い始めた。",
    }], question=SEED_QUESTION)  # fmt: skip
    report = gate(ledger)
    assert _scope(report) == []
    assert {f.reason for f in report.findings} & {Reason.QUOTE_ABSENT, Reason.QUOTE_NEAR_MISS}


def test_answers_must_name_a_declared_question(tmp_path: Path) -> None:
    path = _ledger(
        tmp_path,
        [{"id": "Q", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE, "answers": "nope"}],
    )
    with pytest.raises(LedgerError, match="nope"):
        load_ledger(path)


def test_an_author_alternative_can_explain_a_named_proxy(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, [{
        "id": "P1", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE,
        "statement": "個人開発者の32％が、会社より先に生成AIを使い始めている。",
        "author_alternative": "個人開発者の数字は存在しないため、企業の社員の数字を代わりに使った",
    }])  # fmt: skip
    scope = _scope(gate(ledger))
    assert [f.tier for f in scope] == [Tier.EXPLAINED]


# ------------------------------------------------------------------ slot reading


@pytest.mark.parametrize(
    ("text", "who"),
    [
        (
            "企業の中で、社員が会社の方針より先に、個人として生成AIを使い始めている割合は32％だった。",
            "employee",
        ),
        ("個人開発者の32％が、会社より先に生成AIを使い始めている", "individual_developer"),
        ("従業員50人以上の企業のうち30％が導入した", "firm"),
        ("回答企業は1.2万社で、そのうち30％が全社で導入済みと答えた。", "firm"),
        ("全国の会社員1,500人を対象に実施した。", "employee"),
        ("中小企業の4割が生成AIを試した。", "sme"),
        ("32% of employees at large firms use AI", "employee"),
        ("Among surveyed firms, 40% had adopted AI.", "firm"),
        ("Employees at 40% of firms use AI tools.", "firm"),
        ("Individual developers were the fastest adopters, with 45% using AI daily.", "individual_developer"),
        ("Most students used chatbots as individuals, not in class.", "student"),
    ],
)
def test_population_is_the_unit_of_analysis(text: str, who: str) -> None:
    found = primary_population(text)
    assert found is not None and found.value == who


def test_population_words_used_as_manner_are_not_populations() -> None:
    assert primary_population("個人として使っている") is None
    assert primary_population("They use it as individuals.") is None
    assert primary_population("個人情報の扱いが課題だった") is None


@pytest.mark.parametrize(
    ("text", "years", "fiscal"),
    [
        ("2023年度の調査では", {2023}, True),
        ("令和5年度", {2023}, True),
        ("FY2023 revenue", {2023}, True),
        ("2020年から2022年まで", {2020, 2021, 2022}, False),
        ("between 2019 and 2021, firms", {2019, 2020, 2021}, False),
        ("2019–21", {2019, 2020, 2021}, False),
        ("in 2024, 2,000 employees", {2024}, False),
    ],
)
def test_period(text: str, years: set[int], fiscal: bool) -> None:
    p = period(text)
    assert p is not None and set(p.years) == years and p.fiscal is fiscal


def test_no_period_in_counts_and_percentages() -> None:
    assert period("2,023 firms and 2023% growth") is None


@pytest.mark.parametrize(
    ("text", "measure"),
    [
        ("AI use grew 30% year-on-year", "growth"),
        ("30% of firms use AI", "share"),
        ("利用企業は前年比30%増えた", "growth"),
        ("利用率は30％だった", "share"),
        ("前年の約4倍に増えた", "multiple"),
        ("rose by 5 percentage points", "points"),
        ("3割の企業", "share"),
        ("the average was 30%", "average"),
    ],
)
def test_measure(text: str, measure: str) -> None:
    assert [f.measure for f in figures(text)] == [measure]


def test_design_and_place() -> None:
    assert design("AI use is associated with higher productivity")[0] == "correlational"
    assert design("AI use raised productivity")[0] == "causal"
    assert design("生成AIの利用が生産性の向上につながった")[0] == "causal"
    assert design("利用頻度が高い人ほど満足度が高い傾向が見られた")[0] == "correlational"
    assert design("In a randomized trial, AI raised output")[0] == "experimental"
    assert [m.value for m in places("全国の会社員1,500人")] == ["japan"]
    assert [m.value for m in places("Japanese firms and U.S. firms")] == ["japan", "us"]
    assert places("Japanese text was translated") == []


def test_question_declared_measure_and_design() -> None:
    src = "Firms' spending on AI grew 40% year on year, a trend associated with higher profits."
    p = build_passage(src, 0, len(src))
    issues = scope_issues(QuestionScope("What share of firms spend on AI?", measure="share"), None, p)
    assert [(i.slot, i.severity) for i in issues] == [("measure", "mismatch")]
    issues = scope_issues(QuestionScope("Does AI spending raise profits?", design="causal"), None, p)
    assert [(i.slot, i.severity) for i in issues] == [("causal_from_correlational", "mismatch")]


def test_evidence_layers_resolve_respondents_through_the_sample() -> None:
    src = (
        "職種の移り変わりに関する調査（2024年）\n"
        "この1年で職種を変えた人は、回答者全体の12％だった。\n"
        "調査は2024年5月に、全国の会社員1,500人を対象にインターネットで実施した。"
    )
    a = src.index("この1年")
    p = build_passage(src, a, a + 20)
    assert [layer.where for layer in p.layers] == ["quote sentence", "neighbours", "heading", "sample"]
    issues = scope_issues(None, "個人開発者の12％が職種を変えた。", p)
    assert [(i.slot, i.severity, i.evidence_where) for i in issues] == [
        ("population", "mismatch", "quote sentence (回答者) + sample")
    ]
    assert scope_issues(None, "会社員の12％が、この1年で職種を変えた。", p) == []


@given(st.text(max_size=300), st.text(max_size=120))
def test_slot_reading_never_raises(source: str, statement: str) -> None:
    read_slots(source)
    p = build_passage(source, 0, len(source))
    scope_issues(
        QuestionScope(statement or None, population=statement or None, period=statement or None), statement, p
    )


def test_a_section_question_applies_to_the_claims_located_in_that_section(tmp_path: Path) -> None:
    draft = tmp_path / "digest.md"
    draft.write_text(
        "# 調査ダイジェスト\n\n## 企業の中の開発\n\n社員の32％が先に使い始めている [@survey]。\n\n"
        "## 個人開発者\n\n### 利用の始まり\n\n32％が先に使い始めている [@survey]。\n",
        encoding="utf-8",
    )
    statement = "32％が先に使い始めている。"
    ledger = _ledger(tmp_path, [
        {"id": "S1", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE, "statement": statement,
         "location": {"line": 5}},
        {"id": "S2", "kind": "quote", "source": "survey", "quote": EMPLOYEE_QUOTE, "statement": statement,
         "location": {"line": 11}},
    ], questions={"indie": {"text": "個人開発者は生成AIをどう使っているか", "section": "個人開発者"}})  # fmt: skip
    scope = _scope(gate(ledger, draft=draft))
    assert [(f.claim_id, f.reason) for f in scope] == [("S2", Reason.SCOPE_MISMATCH)]
    assert _scope(gate(ledger)) == []  # without the draft no section is known, and no top-level question

"""Overclaim rules and negative literature claims.

The cases live in tests/corpus/overclaim_{en,ja}.yaml: ``overclaim`` cases must
raise the named rule, ``faithful`` cases (faithful uses and paraphrases of the
same quotes) must raise nothing.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic
import pytest
import yaml

from claimledger.checks.overclaim import (
    find_negative_claims,
    is_negative_claim,
    negative_claim_findings,
    negative_claims_from_text,
    overclaim_findings,
)
from claimledger.model.claim import Ledger, NegativeClaim, SearchRecord
from claimledger.model.finding import Finding, Reason, Status, Tier
from claimledger.reconcile import assign_tier
from tests.scripts_loader import load_script

CORPUS = Path(__file__).parent / "corpus"

RULE_REASON: dict[str, Reason] = {
    "number_changed": Reason.OVERCLAIM_NUMBER_CHANGED,
    "hedge_dropped": Reason.OVERCLAIM_HEDGE_DROPPED,
    "bound_changed": Reason.OVERCLAIM_HEDGE_DROPPED,
    "modality_strengthened": Reason.OVERCLAIM_MODALITY,
    "association_to_causation": Reason.OVERCLAIM_MODALITY,
    "quantifier_broadened": Reason.OVERCLAIM_QUANTIFIER,
    "negation_dropped": Reason.OVERCLAIM_NEGATION,
    "negation_added": Reason.OVERCLAIM_NEGATION,
    "scope_dropped": Reason.OVERCLAIM_SCOPE,
    "quote_omits_hedge": Reason.OVERCLAIM_QUOTE_OMITS_HEDGE,
    "quote_omits_modality": Reason.OVERCLAIM_QUOTE_OMITS_HEDGE,
    "quote_omits_negation": Reason.OVERCLAIM_QUOTE_OMITS_HEDGE,
    "quote_omits_scope": Reason.OVERCLAIM_QUOTE_OMITS_HEDGE,
}


def _load(kind: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for lang in ("en", "ja"):
        data = yaml.safe_load((CORPUS / f"overclaim_{lang}.yaml").read_text(encoding="utf-8"))
        cases += [{**c, "lang": lang} for c in data[kind]]
    return cases


OVERCLAIMS = _load("overclaim")
FAITHFUL = _load("faithful")


def _run(case: dict[str, Any]) -> list[Finding]:
    return overclaim_findings(case["id"], case["statement"], case["quote"], case.get("context"))


# --- the corpus itself --------------------------------------------------------------------


def test_corpus_is_large_enough_and_balanced() -> None:
    assert len(OVERCLAIMS) >= 60
    assert len(FAITHFUL) >= 60
    assert len(FAITHFUL) >= len(OVERCLAIMS)
    assert len({c["id"] for c in OVERCLAIMS + FAITHFUL}) == len(OVERCLAIMS) + len(FAITHFUL)


def test_corpus_covers_every_rule_in_both_languages() -> None:
    for lang in ("en", "ja"):
        rules = {c["rule"] for c in OVERCLAIMS if c["lang"] == lang}
        assert rules == set(RULE_REASON), (lang, set(RULE_REASON) - rules)


# --- overclaims are found -----------------------------------------------------------------


@pytest.mark.parametrize("case", OVERCLAIMS, ids=[c["id"] for c in OVERCLAIMS])
def test_overclaim_is_found(case: dict[str, Any]) -> None:
    findings = _run(case)
    rules = [f.extra["rule"] for f in findings]
    assert case["rule"] in rules, (case["statement"], rules)
    f = next(f for f in findings if f.extra["rule"] == case["rule"])
    assert f.claim_id == case["id"]
    assert f.check == "overclaim"
    assert f.status is Status.DISCREPANCY
    assert f.reason is RULE_REASON[case["rule"]]
    assert f.message
    # both spans point at the text they name
    src = case["quote"].strip() if f.extra["source_in"] == "quote" else case["context"]
    s0, s1 = f.extra["source_span"]
    assert src[s0:s1] == f.extra["source_text"]
    if f.extra["statement_span"] is not None:
        a, b = f.extra["statement_span"]
        assert case["statement"][a:b] == f.extra["statement_text"]
    assert f.extra["suggestion"]
    assert f.extra["suggestion"] != case["statement"]


@pytest.mark.parametrize("case", FAITHFUL, ids=[c["id"] for c in FAITHFUL])
def test_faithful_use_raises_nothing(case: dict[str, Any]) -> None:
    findings = _run(case)
    assert findings == [], [(f.extra["rule"], f.extra["statement_text"], f.extra["source_text"]) for f in findings]


# --- seed 004 ----------------------------------------------------------------------------


def test_seed_004_source_says_about_4x_the_quote_and_draft_say_4x() -> None:
    source = "調査では、言葉を扱う生成AIを仕事で使う人は約4倍に増えたという。"
    statement = "生成AIを仕事で使う人は4倍に増えた。"
    findings = overclaim_findings("C1", statement, "4倍", source)
    f = next(f for f in findings if f.reason is Reason.OVERCLAIM_QUOTE_OMITS_HEDGE)
    assert f.extra["statement_text"] == "4倍"
    assert "約4倍" in f.extra["source_text"]
    assert f.extra["suggestion"] == "生成AIを仕事で使う人は約4倍に増えた。"


def test_seed_004_text_generating_ai_widened_to_all_generative_ai() -> None:
    quote = "言葉を扱う生成AIを仕事で使う人は約4倍に増えた"
    findings = overclaim_findings("C2", "生成AIを仕事で使う人は約4倍に増えた。", quote, None)
    assert [f.reason for f in findings] == [Reason.OVERCLAIM_SCOPE]
    f = findings[0]
    assert f.extra["statement_text"] == "生成AI"
    assert f.extra["source_text"] == "言葉を扱う生成AI"
    assert "扱う生成AI" in f.extra["suggestion"]


def test_the_same_statement_with_hedge_and_scope_kept_is_clean() -> None:
    quote = "言葉を扱う生成AIを仕事で使う人は約4倍に増えた"
    assert overclaim_findings("C3", "言葉を扱う生成AIを仕事で使う人は約4倍になった。", quote, None) == []


# --- details of single rules ---------------------------------------------------------------


def test_number_changed_names_both_numbers_and_the_fix() -> None:
    [f] = overclaim_findings("N", "Errors fell by 47%.", "errors fell by 37%", None)
    assert f.reason is Reason.OVERCLAIM_NUMBER_CHANGED
    assert f.extra["statement_text"] == "47%"
    assert f.extra["source_text"] == "37%"
    assert f.extra["suggestion"] == "Errors fell by 37%."


def test_full_width_and_kanji_scale_numbers_compare_by_value() -> None:
    assert overclaim_findings("N", "利用率は30%だった。", "利用率は３０％だった", None) == []
    assert overclaim_findings("N", "登録者は12,000人に達した。", "登録者は1.2万人に達した", None) == []


def test_a_hedged_statement_number_within_reach_of_the_quote_is_not_an_overclaim() -> None:
    assert overclaim_findings("N", "Errors fell by about 40%.", "errors fell by 37.5%", None) == []
    assert overclaim_findings("N", "Errors fell by more than 35%.", "errors fell by 37.5%", None) == []


def test_citation_years_are_not_compared_with_figures() -> None:
    quote = "errors fell by 37 percent"
    assert overclaim_findings("N", "Smith (2019) found that errors fell by 37 percent.", quote, None) == []


def test_statement_that_keeps_the_quote_verbatim_is_clean() -> None:
    quote = "the supplement may reduce fatigue in about 30% of older adults"
    statement = f'The trial report says that "{quote}".'
    assert overclaim_findings("Q", statement, quote, None) == []


def test_outer_quotation_marks_of_the_quote_are_ignored() -> None:
    [f] = overclaim_findings("Q", "Usage grew 4 times.", "“about 4 times”", None)
    assert f.reason is Reason.OVERCLAIM_HEDGE_DROPPED


def test_no_statement_no_findings() -> None:
    assert overclaim_findings("Q", "", "about 4 times", None) == []
    assert overclaim_findings("Q", "   ", "about 4 times", "usage grew about 4 times") == []


def test_quote_not_in_context_skips_only_the_context_rules() -> None:
    findings = overclaim_findings("Q", "Usage grew 5 times.", "usage grew 4 times", "something else entirely")
    assert [f.reason for f in findings] == [Reason.OVERCLAIM_NUMBER_CHANGED]


def test_context_found_after_typographic_normalization() -> None:
    context = "Usage of the service grew about\n4 times in two years."
    findings = overclaim_findings("Q", "Usage grew 4 times in two years.", "4 times in two years", context)
    assert [f.extra["rule"] for f in findings] == ["quote_omits_hedge"]


# --- tiers -------------------------------------------------------------------------------


def test_every_new_reason_has_a_tier() -> None:
    for reason in set(RULE_REASON.values()):
        assert reason.tier is Tier.HIGH
        assert reason.explainable
    assert Reason.NEGATIVE_CLAIM_UNSUPPORTED.tier is Tier.HIGH
    assert Reason.NEGATIVE_CLAIM_SEARCHED.tier is Tier.LOW
    assert not Reason.NEGATIVE_CLAIM_UNSUPPORTED.explainable


def test_overclaim_is_high_unless_a_concrete_alternative_explains_it() -> None:
    [f] = overclaim_findings("C1", "Usage grew 4 times.", "usage grew about 4 times", None)
    assert assign_tier(f, None).tier is Tier.HIGH
    assert assign_tier(f, "rounding").tier is Tier.HIGH
    explained = assign_tier(f, "the 2024 edition of the same survey reports exactly 4.0 times")
    assert explained.tier is Tier.EXPLAINED
    assert explained.status is Status.EXPLAINED


# --- negative literature claims ------------------------------------------------------------

NEGATIVE_TEXTS = [
    "No prior work has studied overclaiming in Japanese news summaries.",
    "To our knowledge, we are the first to measure hedge loss in AI-written digests.",
    "This question has never been systematically examined.",
    "The effect of reminders on rural clinics remains largely unexplored.",
    "There is no existing research on citation drift in blogs.",
    "この問題を扱った先行研究は存在しない。",
    "本研究は世界で初めてこの現象を明らかにした。",
    "この点はこれまでほとんど研究されていない。",
    "地方の小規模病院での導入効果は未解明である。",
]
NOT_NEGATIVE_TEXTS = [
    "Prior work has studied overclaiming in English news.",
    "Participants saw the image for the first time in the second session.",
    "The drug did not reduce mortality.",
    "Smith (2019) examined 40 clinics.",
    "先行研究では効果が確認されている。",
    "参加者は初めてその画像を見た。",
    "この薬は血圧を下げない。",
]


@pytest.mark.parametrize("text", NEGATIVE_TEXTS)
def test_negative_claims_are_detected(text: str) -> None:
    spans = find_negative_claims(text)
    assert len(spans) == 1
    assert spans[0].text == text.strip()
    assert is_negative_claim(text)


@pytest.mark.parametrize("text", NOT_NEGATIVE_TEXTS)
def test_ordinary_sentences_are_not_negative_claims(text: str) -> None:
    assert find_negative_claims(text) == []


def test_negative_claims_are_extracted_from_a_draft_as_their_own_kind() -> None:
    draft = (
        "Errors fell by 37 percent in the pilot. No prior work has studied this in Japan.\n"
        "先行研究は存在しない。残りの段落は意見である。"
    )
    claims = negative_claims_from_text(draft)
    assert [c.kind for c in claims] == ["negative", "negative"]
    assert [c.id for c in claims] == ["NEG1", "NEG2"]
    assert claims[0].statement == "No prior work has studied this in Japan."
    assert claims[1].statement == "先行研究は存在しない。"
    spans = find_negative_claims(draft)
    assert draft[spans[0].start : spans[0].end] == claims[0].statement


def _search(**kw: Any) -> SearchRecord:
    base: dict[str, Any] = {
        "queries": ["overclaim detection Japanese", "誇張 検出 要約"],
        "databases": ["Google Scholar", "CiNii"],
        "date": "2024-05-01",
        "hits": {"Google Scholar": 12, "CiNii": 0},
    }
    base.update(kw)
    return SearchRecord.model_validate(base)


def test_negative_claim_without_search_is_high() -> None:
    [f] = negative_claim_findings("L1", "No prior work has studied X.", None)
    assert f.reason is Reason.NEGATIVE_CLAIM_UNSUPPORTED
    assert f.status is Status.DISCREPANCY
    assert f.extra["pattern"] == "no_prior_work"
    assert assign_tier(f, "a long and very concrete alternative").tier is Tier.HIGH


def test_negative_claim_with_search_reports_coverage_and_is_never_verified() -> None:
    [f] = negative_claim_findings("L1", "先行研究は存在しない。", _search(), today=datetime.date(2024, 6, 1))
    assert f.reason is Reason.NEGATIVE_CLAIM_SEARCHED
    assert f.status is Status.UNVERIFIABLE
    assert not f.verified
    assert f.message.startswith("no counter-evidence found in Google Scholar, CiNii")
    assert "2024-05-01" in f.message and "CiNii: 0" in f.message and "誇張 検出 要約" in f.message
    tiered = assign_tier(f, None)
    assert tiered.tier is Tier.LOW
    assert tiered.status is Status.UNVERIFIABLE


def test_incomplete_or_impossible_search_record_stays_high() -> None:
    no_count = _search(hits={"Google Scholar": 12})
    [f] = negative_claim_findings("L1", "No prior work studies X.", no_count, today=datetime.date(2024, 6, 1))
    assert f.reason is Reason.NEGATIVE_CLAIM_UNSUPPORTED
    assert "CiNii" in f.message
    per_query = _search(hits={"Google Scholar: overclaim detection Japanese": 3, "CiNii: 誇張 検出 要約": 0})
    [ok] = negative_claim_findings("L1", "No prior work studies X.", per_query, today=datetime.date(2024, 6, 1))
    assert ok.reason is Reason.NEGATIVE_CLAIM_SEARCHED
    [future] = negative_claim_findings("L1", "No prior work studies X.", _search(), today=datetime.date(2024, 1, 1))
    assert future.reason is Reason.NEGATIVE_CLAIM_UNSUPPORTED
    assert "future" in future.message


def test_ledger_accepts_a_negative_claim_with_a_search_record() -> None:
    ledger = Ledger.model_validate(
        yaml.safe_load(
            """
            version: 1
            claims:
              - id: L1
                kind: negative
                statement: "No prior work has studied overclaiming in Japanese digests."
                search:
                  queries: ["overclaim Japanese digest"]
                  databases: [Google Scholar]
                  date: 2024-05-01
                  hits: {Google Scholar: 4}
              - id: L2
                kind: negative
                statement: "先行研究は存在しない。"
            """
        )
    )
    first, second = ledger.claims
    assert isinstance(first, NegativeClaim) and isinstance(second, NegativeClaim)
    assert first.search is not None and first.search.date == datetime.date(2024, 5, 1)
    assert second.search is None


@pytest.mark.parametrize(
    "bad",
    [
        {"queries": [], "databases": ["CiNii"], "date": "2024-05-01"},
        {"queries": ["x"], "databases": [" "], "date": "2024-05-01"},
        {"queries": ["x"], "databases": ["CiNii"], "date": "not a date"},
        {"queries": ["x"], "databases": ["CiNii"], "date": "2024-05-01", "hits": {"CiNii": -1}},
        {"queries": ["x"], "databases": ["CiNii"], "date": "2024-05-01", "extra": 1},
    ],
)
def test_malformed_search_records_are_rejected(bad: dict[str, Any]) -> None:
    with pytest.raises(pydantic.ValidationError):
        SearchRecord.model_validate(bad)


def test_negative_claim_needs_a_statement() -> None:
    with pytest.raises(pydantic.ValidationError):
        NegativeClaim.model_validate({"id": "L1", "kind": "negative"})


# --- the bench evaluation script, on a 20-row sample ----------------------------------------


def _eval_module() -> ModuleType:
    return load_script("eval_overclaim")


def test_eval_script_runs_on_a_20_row_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = tmp_path / "bench"
    rows = {
        "summedits": [
            ("Usage of the tool grew about 4 times in 2023. Costs stayed flat.", "Usage grew 4 times.", "unsupported"),
            ("Usage of the tool grew about 4 times in 2023. Costs stayed flat.", "Usage grew about 4 times.", "supported"),
            ("The new filter did not block spam. Users complained.", "The new filter blocked spam.", "unsupported"),
            ("The new filter did not block spam. Users complained.", "Users complained.", "supported"),
            ("Some teams adopted the checklist in May.", "All teams adopted the checklist.", "unsupported"),
        ],
        "jnli": [
            ("利用者は約4倍に増えた。", "利用者は4倍に増えた。", "unsupported"),
            ("利用者は約4倍に増えた。", "利用者はおよそ4倍に増えた。", "supported"),
            ("一部の店舗で売上が伸びた。", "全ての店舗で売上が伸びた。", "unsupported"),
            ("駅前に赤い車が止まっている。", "駅前に車が止まっている。", "supported"),
            ("この薬は血圧を下げない。", "この薬は血圧を下げる。", "unsupported"),
        ],
    }
    for name, items in rows.items():
        (bench / name).mkdir(parents=True)
        lines = [
            json.dumps({"id": f"{name}/{i}", "source": s, "claim": c, "label": label,
                        "lang": "ja" if name == "jnli" else "en", "meta": {}, "gold": {}}, ensure_ascii=False)
            for i, (s, c, label) in enumerate(items * 2)
        ]  # fmt: skip
        (bench / name / "bench.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "accuracy.md"
    assert _eval_module().main(["--bench", str(bench), "--sample", "20", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    doc = out.read_text(encoding="utf-8")
    assert "| summedits | en | 10 | 100.0 |" in printed
    assert "| jnli | ja | 10 | 100.0 |" in printed
    assert "| summedits | en | 10 |" in doc and "GPT-4 83.2" in doc
    assert "false-alarm rate" in doc


def test_eval_script_refuses_an_empty_bench(tmp_path: Path) -> None:
    assert _eval_module().main(["--bench", str(tmp_path), "--out", "-"]) == 2

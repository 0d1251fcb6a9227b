"""The overclaim rules' fast paths (issue 19, per-claim cost) change nothing but the time.

Each rule now returns early when the quote (or statement) holds none of the words its hits are
anchored on, one combined pattern decides whether the hedge classes around a number need a look,
and the parses of a text (tokens, numbers, quantifier and negation cues, stems) are remembered.
These tests show every rule with an early exit still fires, in English and in Japanese, that the
combined patterns agree with the patterns they stand for, and that remembered parses are handed
out as fresh lists.
"""

from __future__ import annotations

import re

import pytest

from claimledger._exceptions import ClaimledgerError
from claimledger.checks.overclaim import overclaim_hits
from claimledger.checks.overclaim._text import any_of, stems_in, words
from claimledger.checks.overclaim.figures import _ANY_PREFIX, _ANY_SUFFIX, number_hits, numbers_in
from claimledger.checks.overclaim.lexicon import NUM_PREFIX, NUM_SUFFIX
from claimledger.checks.overclaim.modality import (
    _negations,
    _quantifiers,
    modality_hits,
    negation_hits,
    qualifier_hits,
)

# (rule, quote, statement): each rule with a fast path, fired in English and in Japanese
FIRES = [
    ("qualifier_dropped", "The new scheduler usually answers within a day.", "The new scheduler answers within a day."),
    ("qualifier_dropped", "新しい窓口は通常、一日以内に回答する。", "新しい窓口は一日以内に回答する。"),
    ("modality_strengthened", "The drug may reduce errors in the ward.", "The drug reduces errors in the ward."),
    ("modality_strengthened", "生産性が向上する可能性がある。", "生産性が向上する。"),
    ("association_to_causation", "Smoking is associated with lung cancer.", "Smoking causes lung cancer."),
    ("association_to_causation", "喫煙は肺がんと関連がある。", "喫煙は肺がんの原因である。"),
    ("negation_dropped", "The treatment did not improve survival.", "The treatment did improve survival."),
    ("negation_dropped", "その治療は生存率を改善しなかった。", "その治療は生存率を改善した。"),
    ("negation_added", "The treatment improved survival.", "The treatment did not improve survival."),
    ("negation_added", "その治療は生存率を改善した。", "その治療は生存率を改善しなかった。"),
    ("hedge_dropped", "Sales grew about 40% last year.", "Sales grew 40% last year."),
    ("hedge_dropped", "売上は約4倍に増えた。", "売上は4倍に増えた。"),
    ("hedge_dropped", "The queue held 300 or so requests at noon.", "The queue held 300 requests at noon."),
    ("hedge_dropped", "参加者は1万人前後だった。", "参加者は1万人だった。"),
    ("bound_changed", "Latency fell by up to 30% on the new cluster.", "Latency fell by more than 30% on the new cluster."),
    ("bound_changed", "効果は最大で3割だった。", "効果は3割以上だった。"),
    ("quantifier_broadened", "Some users prefer the dark theme.", "All users prefer the dark theme."),
    ("quantifier_broadened", "一部の利用者は暗いテーマを好む。", "全ての利用者は暗いテーマを好む。"),
    ("scope_dropped", "35% of text-generating AI users pay for it.", "35% of AI users pay for it."),
    ("scope_dropped", "言葉を扱う生成AIの利用者の35%が支払う。", "生成AIの利用者の35%が支払う。"),
]


@pytest.mark.parametrize(("rule", "quote", "statement"), FIRES)
def test_rules_with_a_fast_path_still_fire(rule: str, quote: str, statement: str) -> None:
    assert rule in [h.rule for h in overclaim_hits(statement, quote)]


@pytest.mark.parametrize(
    ("rule", "quote"),
    [
        ("qualifier", "The new scheduler answers within a day."),
        ("qualifier", "新しい窓口は一日以内に回答する。"),
        ("modality", "The drug reduces errors in the ward."),
        ("modality", "生産性が向上する。"),
        ("negation", "The treatment improved survival."),
        ("negation", "その治療は生存率を改善した。"),
    ],
)
def test_no_cue_on_either_side_no_hit(rule: str, quote: str) -> None:
    """The early exits: a quote without the rule's cue words, restated with other words."""
    statement = quote.replace("ward", "clinic").replace("回答", "返答").replace("survival", "outcomes")
    fn = {"qualifier": qualifier_hits, "modality": modality_hits, "negation": negation_hits}[rule]
    assert fn(statement, quote) == []
    assert fn(quote, quote) == []


def test_the_context_is_read_only_for_a_number_the_quote_does_not_hold() -> None:
    quote = "Revenue rose to 40 million dollars in the second quarter."
    context = "In the second quarter, with 12 new stores, " + quote + " Costs stayed at 41 million dollars."
    # the quote holds the statement's number: no finding, whatever the context says
    assert number_hits(quote, quote, context) == []
    # a changed number: a finding without the context, none when the context prints it next to the quote
    changed = "Revenue rose to 41 million dollars in the second quarter."
    assert [h.rule for h in number_hits(changed, quote, None)] == ["number_changed"]
    assert number_hits(changed, quote, context) == []
    ja_quote = "売上高は第2四半期に40億円に増えた。"
    ja_changed = "売上高は第2四半期に45億円に増えた。"
    assert [h.rule for h in number_hits(ja_changed, ja_quote, None)] == ["number_changed"]
    assert number_hits(ja_changed, ja_quote, "費用は45億円だった。" + ja_quote) == []


WINDOWS = [
    "grew by about ", "rose to roughly ", "up to ", "at least ", "more than ", "no fewer than ",
    "fell ", "the ", "", "  ", "~ ", "≈", "< ", "≥ ", "an estimated ", "some ", "ca. ", "max. ",
    "売上は約", "およそ", "最大で", "少なくとも", "最低でも", "推定で", "売上は", "ほぼ ",
    " or so", " or more", " or less", "-ish", "程度", "前後", "以上", "以下", "未満", "超", "+",
    "人前後", " people", "倍", "", " at most", "を上回った", "余り",
]


@pytest.mark.parametrize("text", WINDOWS)
def test_combined_hedge_patterns_agree_with_the_classes(text: str) -> None:
    assert (_ANY_PREFIX.search(text) is not None) == any(p.search(text) for p in NUM_PREFIX.values())
    assert (_ANY_SUFFIX.match(text) is not None) == any(p.match(text) for p in NUM_SUFFIX.values())


def test_any_of_refuses_what_it_cannot_combine() -> None:
    with pytest.raises(ClaimledgerError):
        any_of([re.compile("a", re.M), re.compile("b")])
    mixed = any_of([re.compile("a", re.I), re.compile("b")])  # re.I kept in a scoped group
    assert mixed.match("A") and mixed.match("b") and not mixed.match("B")
    with pytest.raises(ClaimledgerError):
        any_of([re.compile(r"(a)\1"), re.compile("b")])
    with pytest.raises(ClaimledgerError):
        any_of([re.compile(r"(?P<x>a)(?P=x)")])
    both = any_of([re.compile(r"^x\d$"), re.compile(r"^y$")])
    assert both.match("x1") and both.match("y") and not both.match("z")


def test_remembered_parses_are_handed_out_fresh() -> None:
    text = "Some of the users did not renew: about 40% of them, most of the time."
    for parse in (lambda: words(text), lambda: numbers_in(text), lambda: _quantifiers(text, False),
                  lambda: _negations(text, False), lambda: stems_in(text)):  # fmt: skip
        first = parse()
        assert first
        first.clear()
        assert parse()
    ja = "一部の利用者は更新しなかった。約4割だった。"
    assert _negations(ja, True) and _quantifiers(ja, True)

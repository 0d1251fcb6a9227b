"""The overclaim rules on a statement that IS the quote (issue 19, per-claim cost).

A quote claim without a ``statement`` stands for itself: ``overclaim_hits(quote, quote, context)``.
Then only the statement-vs-quote rules that can fire on two identical texts run
(``_self_hits``); the source-context rules (``around_hits``) run as before. These tests show
that the rules left out cannot fire on identical texts and that the short path gives exactly the
hits of every rule (``_pair_hits``), on the texts of the repository (the overclaim corpora, the
docs, the examples' sources), English and Japanese, and on generated texts dense in cue words.
The same comparison over 201,049 texts cut from ../shared/bench: scripts/check_self_rules.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from claimledger.checks.overclaim import _pair_hits, _self_hits, overclaim_hits
from claimledger.checks.overclaim._hit import dedupe
from claimledger.checks.overclaim._text import is_japanese
from claimledger.checks.overclaim.around import around_hits
from claimledger.checks.overclaim.figures import number_hits
from claimledger.checks.overclaim.modality import (
    modality_hits,
    negation_hits,
    qualifier_hits,
    quantifier_hits,
)
from claimledger.checks.overclaim.scope import scope_hits

ROOT = Path(__file__).parent.parent
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")
_TAG = re.compile(r"<[^>]+>")


def _corpus_texts() -> list[tuple[str, str | None]]:
    """Every quote, statement and context of the overclaim corpora, with the case's context."""
    out: list[tuple[str, str | None]] = []
    for lang in ("en", "ja"):
        data = yaml.safe_load((ROOT / "tests" / "corpus" / f"overclaim_{lang}.yaml").read_text(encoding="utf-8"))
        for case in data["overclaim"] + data["faithful"]:
            ctx = case.get("context")
            for key in ("quote", "statement", "context"):
                if case.get(key):
                    out.append((case[key], ctx))
    return out


def _prose_texts() -> list[tuple[str, str | None]]:
    """Sentences of the docs and of the examples' text sources, with the text around each."""
    out: list[tuple[str, str | None]] = []
    files = sorted((ROOT / "docs").glob("*.md")) + sorted(
        p for p in (ROOT / "examples").glob("*/sources/*") if p.suffix in (".md", ".txt", ".html", ".xhtml")
    )
    for path in files:
        text = _TAG.sub(" ", path.read_text(encoding="utf-8"))
        for m in _SENTENCE.finditer(text):
            t = m.group().strip()
            if len(t) >= 6:
                out.append((t, text[max(0, m.start() - 200) : m.end() + 200]))
    return out


CORPUS = _corpus_texts()
PROSE = _prose_texts()


def test_the_texts_hold_both_languages_and_the_cues() -> None:
    texts = [t for t, _ in CORPUS + PROSE]
    assert len(texts) > 2000
    assert sum(is_japanese(t) for t in texts) > 250
    assert sum(not is_japanese(t) for t in texts) > 1000
    # the texts carry the words the left-out rules anchor on, in both languages
    for cue in ("may", "not", "some", "all", "usually", "about", "可能性", "ない", "一部", "全て", "通常", "約"):
        assert any(cue in t for t in texts), cue


def _left_out(t: str, ctx: str | None) -> list[str]:
    """The rules the short path leaves out, run on identical texts: the rules that fired."""
    hits = number_hits(t, t, ctx) + negation_hits(t, t) + quantifier_hits(t, t) + qualifier_hits(t, t)
    hits += modality_hits(t, t)
    if not is_japanese(t):
        hits += scope_hits(t, t)
    return [h.rule for h in hits]


def test_the_left_out_rules_never_fire_on_identical_texts() -> None:
    fired = [(t, rules) for t, ctx in CORPUS + PROSE if (rules := _left_out(t, ctx))]
    assert fired == []


def test_the_short_path_gives_every_rules_hits() -> None:
    for t, ctx in CORPUS + PROSE:
        assert _self_hits(t, ctx) == _pair_hits(t, t, ctx), t
        full = dedupe(_pair_hits(t, t, ctx) + (around_hits(t, t, ctx) if ctx else []))
        assert overclaim_hits(t, t, ctx) == full, t


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # a hedged "nearly doubled" and a bare "doubled" later in the same quote
        ("The queue nearly doubled in May and doubled again in June.", "hedge_dropped"),
        ("売上はほぼ半減し、利益も半減した。", "hedge_dropped"),
        # a modifier whose only content is one Latin letter or kana: ja_mentions does not see it
        ("Xの生成AIの利用者は35%で、生成AIの利用者の多くは学生だった。", "scope_dropped"),
    ],
)
def test_the_rules_that_can_fire_on_identical_texts_still_run(text: str, rule: str) -> None:
    """Why word_hedge_hits (both languages) and scope_hits (Japanese) stay on the short path."""
    assert rule in [h.rule for h in _pair_hits(text, text, None)]
    assert _self_hits(text, None) == _pair_hits(text, text, None)
    assert rule in [h.rule for h in overclaim_hits(text, text, None)]


def test_a_quote_in_quotation_marks_is_not_identical_to_its_statement() -> None:
    """The statement is compared with the quote stripped of its outer quotation marks: a statement
    that keeps the marks differs from it and gets every rule."""
    quote = "\u201cThe drug may reduce errors in the ward.\u201d"
    assert overclaim_hits(quote, quote) == dedupe(_pair_hits(quote, quote.strip("\u201c\u201d"), None))
    assert overclaim_hits("The drug reduces errors in the ward.", quote)  # the pair path still fires


_EN_WORDS = [
    "may", "might", "not", "never", "did", "cannot", "some", "all", "every", "most", "many", "usually",
    "often", "about", "nearly", "up to", "more than", "at least", "doubled", "twice", "half", "associated with",
    "causes", "suggests that", "40%", "3x", "1,200", "four times", "30 percent", "text-generating", "AI", "users",
    "survival", "improve", "improved", "errors", "the", "of", "in", "and", "new", "small", "firms", ",", ".",
]
_JA_WORDS = [
    "約", "ほぼ", "一部の", "全ての", "多くの", "通常", "可能性がある", "かもしれない", "ない", "なかった", "ません",
    "わけではない", "4倍", "35%", "3割", "1万人", "程度", "以上", "最大で", "生成AI", "利用者", "学生", "端末",
    "Xの", "言葉を扱う", "は", "が", "の", "を", "に", "、", "。", "増えた", "半減", "関連がある", "原因", "改善した",
]


@given(st.lists(st.sampled_from(_EN_WORDS), min_size=1, max_size=16), st.lists(st.sampled_from(_EN_WORDS), max_size=8))
def test_generated_english_texts(words: list[str], before: list[str]) -> None:
    t = " ".join(words)
    ctx = " ".join(before) + " " + t + " usually."
    assert _left_out(t, ctx) == []
    assert _self_hits(t, ctx) == _pair_hits(t, t, ctx)


@given(st.lists(st.sampled_from(_JA_WORDS), min_size=1, max_size=16), st.lists(st.sampled_from(_JA_WORDS), max_size=8))
def test_generated_japanese_texts(words: list[str], before: list[str]) -> None:
    t = "".join(words)
    ctx = "".join(before) + t + "可能性がある。"
    assert _left_out(t, ctx) == []
    assert _self_hits(t, ctx) == _pair_hits(t, t, ctx)


# --- the source-context rules: the modifier before the quote found from the text near it ---------


def _full_modifier(text: str, pos: int) -> object:
    from claimledger.checks.overclaim._text import words
    from claimledger.checks.overclaim.scope import en_modifier_before

    toks = words(text)
    idx = next((i for i, t in enumerate(toks) if t.start == pos), None)
    return None if idx is None else ("token", en_modifier_before(text, toks, idx), toks[idx])


def _near_modifier(text: str, pos: int) -> object:
    from claimledger.checks.overclaim.around import _tokens_at
    from claimledger.checks.overclaim.scope import en_modifier_before

    near = _tokens_at(text, pos)
    return None if near is None else ("token", en_modifier_before(text, near[0], near[1]), near[0][near[1]])


@given(st.lists(st.sampled_from(["a", "B", "text-", "-", "'", " ", "  ", "\n", "\u3000", ".", "(", "AI", "x1", "é"]), max_size=24))
def test_the_modifier_before_a_position_is_read_as_from_every_token(parts: list[str]) -> None:
    text = "".join(parts)
    for pos in range(len(text) + 1):
        assert _near_modifier(text, pos) == _full_modifier(text, pos), (text, pos)


def test_the_modifier_before_every_word_of_real_texts() -> None:
    for t, ctx in CORPUS + PROSE[::7]:
        text = ctx or t
        for pos in range(len(text) + 1):
            if pos == 0 or text[pos - 1] in " \n\t\u3000(\"'":
                assert _near_modifier(text, pos) == _full_modifier(text, pos), (text, pos)


# --- numbers: the finders are not run on text they could find nothing in -------------------------

_NUMBERISH = ["one", "Two", "THREE", "twenty", "hundred", "fold", "-fold", "four", "fourfold", "Fourfold", "twice",
              "thrice", "half", "once", "factor", "a factor of", "doubled", "Tripling", "quadruples", "double",
              "doubl", "some", "none", "often", "someone", "ten", "often", "_", "-", "'", " ", "  ", "\n", "x", "é",
              "K", "ſix", "7", "٣", "３", "%", "倍", "三", "and", "times", "percent", "of"]  # fmt: skip


def _assert_prefilters_sound(text: str) -> None:
    from claimledger.checks.overclaim.figures import _DIGIT, _may_hold_number_words
    from claimledger.numbers import find_multiplier_words, find_numbers, find_word_numbers

    if _DIGIT.search(text) is None:
        assert find_numbers(text) == [], text
    if not _may_hold_number_words(text):
        assert find_multiplier_words(text) == [] and find_word_numbers(text) == [], text


@given(st.lists(st.sampled_from(_NUMBERISH), max_size=12))
def test_the_number_finders_find_nothing_where_they_are_not_run(parts: list[str]) -> None:
    for sep in ("", " "):
        _assert_prefilters_sound(sep.join(parts))


def test_the_number_finders_find_nothing_where_they_are_not_run_in_real_texts() -> None:
    from claimledger.checks.overclaim.figures import _DIGIT, _may_hold_number_words

    texts = [t for pair in CORPUS + PROSE for t in pair if t]
    for text in texts:
        _assert_prefilters_sound(text)
    # and the prefilters do skip most of them (what they are for)
    skipped = [t for t in texts if t.isascii() and not _DIGIT.search(t) and not _may_hold_number_words(t)]
    assert len(skipped) > len(texts) // 10

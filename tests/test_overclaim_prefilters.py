"""Cheap pre-tests in the overclaim rules (issue 19, per-claim cost, round 3): each decides that a
rule can find nothing before the rule parses anything, and must never skip a rule that would fire.

* :func:`finite_numbers`: on a text shorter than ``FINITE_CHARS`` the number parse gives finite
  values only and raises nothing, so ``_self_hits`` does not parse a quote to look for a non-finite
  number (the only kind the number rule can fire on when the statement is the quote);
* ``around._number_hits``: without a hedge pattern right before or after the quote in the source,
  nothing is parsed;

Each is compared here with the same code with the pre-test turned off, on the texts of the
repository (English and Japanese), on generated texts dense in numbers and cues, and on the
largest numbers the parsers can read from short texts.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimledger.checks.overclaim import _pair_hits, _self_hits, around, figures, overclaim_hits
from claimledger.checks.overclaim.figures import FINITE_CHARS, finite_numbers, numbers_in
from tests.test_overclaim_self import CORPUS, PROSE


def _parsed(text: str) -> list[float]:
    figures._numbers_in.cache_clear()
    return [n.value for n in numbers_in(text)]


# --- finite_numbers: the largest numbers a short text can hold ------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "九" * (FINITE_CHARS - 2) + "割",  # positional kanji digits, times ten for 割
        "九" * (FINITE_CHARS - 4) + "千兆倍",  # times 1,000 and 1e12
        "九" * (FINITE_CHARS - 2) + "倍",
        "nine " + " ".join(["hundred"] * ((FINITE_CHARS - 20) // 8)) + " times",  # the only repeated multiplier
        "ninety-nine hundred " * ((FINITE_CHARS - 1) // 20),
        "9" * 200 + "兆",  # digits: at most MAX_VALUE_CHARS are read
        "9" * 199 + "%",
        "$" + "9" * 190 + " trillion",
        "9" * 190 + "万" + "9" * 30 + "割",
        "a factor of " + "9" * 190,
    ],
)
def test_the_largest_numbers_of_a_short_text_are_finite(text: str) -> None:
    assert finite_numbers(text)
    assert all(math.isfinite(v) for v in _parsed(text)), text


def test_a_longer_numeral_is_parsed_as_every_rule_would() -> None:
    """The bound is conservative: a kanji numeral of 310 characters is more than a float holds (its
    parse raised OverflowError, a crashed check, until claimledger.numbers stopped reading a numeral
    longer than any value as a number); such a quote is parsed on the short path too, so it behaves
    exactly as every rule would."""
    long = "九" * 309 + "割"
    assert not finite_numbers(long)
    assert all(math.isfinite(v) for v in _parsed(long))
    assert _self_hits(long, None) == _pair_hits(long, long, None) == []


_NUMERIC = [
    "九", "一", "〇", "十", "百", "千", "万", "億", "兆", "割", "倍", "％", "%", "円", "パーセント", "約", "程度",
    "nine", "ninety", "hundred", "thousand", "million", "billion", "and", "-", " ", "times", "fold", "percent",
    "twice", "doubled", "a factor of", "9", "99999", "1,234", ".", "３", "٣", "$", "€", "trillion", "bn", "k", "x",
]  # fmt: skip


@given(st.lists(st.sampled_from(_NUMERIC), max_size=60))
def test_short_texts_dense_in_numbers_parse_to_finite_values(parts: list[str]) -> None:
    for sep in ("", " "):
        text = sep.join(parts)[: FINITE_CHARS - 1]
        assert all(math.isfinite(v) for v in _parsed(text)), text


def test_the_texts_of_the_repository_parse_to_finite_values() -> None:
    for t, ctx in CORPUS + PROSE:
        for text in (t, ctx or ""):
            if finite_numbers(text):
                assert all(math.isfinite(v) for v in _parsed(text)), text


# --- the source-context number rule: no hedge next to the quote, nothing parsed --------------------


def _around_both(statement: str, quote: str, ctx: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = around.around_hits(statement, quote, ctx)
    with monkeypatch.context() as m:
        m.setattr(around, "finite_numbers", lambda text: False)  # the pre-test never answers: full path
        full = around.around_hits(statement, quote, ctx)
    assert fast == full, (statement, quote, ctx)


def test_the_number_pretest_keeps_every_hit_on_real_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for t, ctx in CORPUS + PROSE[::3]:
        if not ctx or t not in ctx:
            continue
        for statement in (t, t.split(" ", 1)[-1], "About " + t, t + " 程度"):
            _around_both(statement, t, ctx, monkeypatch)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize(
    ("ctx", "quote", "statement"),
    [
        ("Sales grew by about 40% in the third quarter of the year.", "40% in the third quarter", None),
        ("売上は約4倍に増えた。", "4倍に増えた", None),
        ("売上は4倍程度に増えた。", "売上は4倍", None),
        ("Profits fell by up to 12 percent last year.", "12 percent last year", "Profits fell 12 percent."),
        ("The trial enrolled 300 or more patients.", "The trial enrolled 300", None),
    ],
)
def test_a_hedge_next_to_the_quote_still_fires(
    ctx: str, quote: str, statement: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = statement or quote
    hits = overclaim_hits(said, quote, ctx)
    assert "quote_omits_hedge" in [h.rule for h in hits], hits
    _around_both(said, quote, ctx, monkeypatch)


_CUES = ["about", "約", "up to", "at least", "over", "under", "~", "程度", "以上", "or more", "-ish", "nearly", "some",
         "最大で", "およそ", "未満", "or so", "the", "a", "in", "、", "。"]  # fmt: skip
_FIGS = ["40%", "4倍", "3割", "1,200", "four times", "twice", "doubled", "十三羽", "2.5x", "30 percent", "users",
         "売上", "grew", "増えた"]  # fmt: skip


@given(
    st.lists(st.sampled_from(_CUES + _FIGS), max_size=6),
    st.lists(st.sampled_from(_FIGS + _CUES), min_size=1, max_size=6),
    st.lists(st.sampled_from(_CUES + _FIGS), max_size=6),
    st.sampled_from(["", " "]),
)
def test_generated_contexts(before: list[str], quote: list[str], after: list[str], sep: str) -> None:
    q = sep.join(quote).strip()
    if not q:
        return
    ctx = sep.join(before) + sep + q + sep + sep.join(after)
    with pytest.MonkeyPatch.context() as m:
        for statement in (q, "about " + q, q.split(" ", 1)[-1]):
            _around_both(statement, q, ctx, m)


# --- the word-hedge rule: a quote without any hedge word is not scanned ---------------------------


def test_every_character_a_pattern_matches_to_an_ascii_letter_is_lowered_or_set_aside() -> None:
    """``may_hold_word_hedge`` compares lower-cased ASCII words: a character that the patterns' case
    folding matches to an ASCII letter must become that letter under ``str.lower()`` or send the quote
    down the patterns' path (``_NOT_LOWERED``). Every code point of the running Python is tried."""
    import sys

    from claimledger.checks.overclaim._text import NOT_LOWERED as _NOT_LOWERED

    letter = re.compile("[a-z]", re.I)
    odd = {chr(c) for c in range(0x80, sys.maxunicode + 1) if letter.match(chr(c))}
    assert odd  # the Kelvin sign, the long s, the dotted and dotless i
    for ch in odd:
        low = ch.lower()
        assert ch in _NOT_LOWERED or (len(low) == 1 and low.isascii() and letter.match(low)), hex(ord(ch))


def _hedge_both(statement: str, quote: str) -> None:
    from claimledger.checks.overclaim import hedges

    fast = hedges.word_hedge_hits(statement, quote)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(hedges, "may_hold_word_hedge", lambda quote, ja: True)
        full = hedges.word_hedge_hits(statement, quote)
    assert fast == full, (statement, quote)


@pytest.mark.parametrize(
    ("statement", "quote"),
    [
        ("The queue doubled.", "The queue nearly doubled."),
        ("The queue doubled.", "The queue NEARLY doubled."),
        ("The queue doubled.", "The queue ne\u0430rly doubled."),  # a Cyrillic a: no hedge word
        ("The queue doubled.", "The queue almo\u017ft doubled."),  # a long s: the pattern's case folding
        ("The queue doubled.", "The queue \u212aindly and roughly doubled."),
        ("The queue doubled.", "The queue more or less doubled."),
        ("The queue doubled.", "The queue close to doubled."),
        ("売上は半減した。", "売上はほぼ半減した。"),
        ("売上は半減した。", "売上は大体半減した。"),
        ("The queue nearly doubled and doubled again.", "The queue nearly doubled and doubled again."),
    ],
)
def test_the_hedge_pretest_keeps_every_hit(statement: str, quote: str) -> None:
    _hedge_both(statement, quote)


def test_a_hedge_in_odd_case_still_fires() -> None:
    from claimledger.checks.overclaim.hedges import word_hedge_hits

    for hedge in ("nearly", "NEARLY", "almo\u017ft", "Roughly"):
        hits = word_hedge_hits("The queue doubled.", f"The queue {hedge} doubled.")
        assert [h.rule for h in hits] == ["hedge_dropped"], hedge
    assert word_hedge_hits("The queue doubled.", "The queue ne\u0430rly doubled.") == []


def test_the_hedge_pretest_keeps_every_hit_on_real_texts() -> None:
    for t, ctx in CORPUS + PROSE:
        for statement in (t, t.split(" ", 1)[-1], ctx or t):
            _hedge_both(statement, t)


_HEDGEY = ["nearly", "Nearly", "ALMOST", "almo\u017ft", "more", "or", "less", "close", "to", "about", "doubled", "half",
           "all", "never", "same", "ほぼ", "約", "半減", "全て", "同じ", "\u0130", "\u0131", "\u212a", "  ", " ", "\n",
           "twice", "x", "."]  # fmt: skip


@given(st.lists(st.sampled_from(_HEDGEY), min_size=1, max_size=14), st.sampled_from(["", " "]))
def test_generated_hedged_texts(parts: list[str], sep: str) -> None:
    quote = sep.join(parts)
    for statement in (quote, quote.replace("nearly", "").replace("ほぼ", ""), "doubled half all 半減"):
        _hedge_both(statement, quote)


def test_every_hedge_of_the_lexicon_still_fires() -> None:
    from claimledger.checks.overclaim.hedges import word_hedge_hits
    from claimledger.checks.overclaim.lexicon import WORD_HEDGES_EN, WORD_HEDGES_JA

    for alt in WORD_HEDGES_EN:
        hedge = alt.replace(r"\s+", " ")
        for written in (hedge, hedge.upper(), hedge.title()):
            hits = word_hedge_hits("Sales doubled.", f"Sales {written} doubled.")
            assert [h.rule for h in hits] == ["hedge_dropped"], written
    for hedge in WORD_HEDGES_JA:
        hits = word_hedge_hits("売上は半減した。", f"売上は{hedge}半減した。")
        assert [h.rule for h in hits] == ["hedge_dropped"], hedge


# --- the patterns read at the end of the text before a quote: searched from its last pieces --------


def _tail_cases() -> list[tuple[object, int]]:
    from claimledger.checks.overclaim.figures import _ANY_PREFIX
    from claimledger.checks.overclaim.lexicon import (
        CONTEXT_MODAL_BEFORE_EN,
        CONTEXT_NEGATION_BEFORE_EN,
        NUM_PREFIX,
    )

    cases: list[tuple[object, int]] = [(_ANY_PREFIX, around._PREFIX_PARTS)]
    cases += [(p, around._PREFIX_PARTS) for p in NUM_PREFIX.values()]
    return [*cases, (CONTEXT_MODAL_BEFORE_EN, around._MODAL_PARTS), (CONTEXT_NEGATION_BEFORE_EN, around._NEGATION_PARTS)]


def _same_match(text: str) -> None:
    for pattern, parts in _tail_cases():
        full = pattern.search(text)  # type: ignore[attr-defined]
        tail = pattern.search(text, around._tail(text, parts))  # type: ignore[attr-defined]
        assert (full and (full.span(), full.group())) == (tail and (tail.span(), tail.group())), (pattern, text)


def _alternatives() -> list[str]:
    """Every word alternative of the patterns written out (each \\s+ as one space, optional parts both ways)."""
    from claimledger.checks.overclaim.lexicon import (
        CONTEXT_MODAL_BEFORE_EN_WORDS,
        CONTEXT_NEGATION_BEFORE_EN_WORDS,
        NUM_PREFIX_WORDS,
    )

    out = []
    for w in [*CONTEXT_MODAL_BEFORE_EN_WORDS, *CONTEXT_NEGATION_BEFORE_EN_WORDS, *(w for ws in NUM_PREFIX_WORDS.values() for w in ws)]:
        w = re.sub(r"\(\?:([^|)]*)[^)]*\)", r"\1", w.replace(r"\s+", " "))  # a group: its first alternative
        w = w.replace(r"\.", "\0")  # an escaped dot, kept apart from the optional marks
        out += [re.sub(r"(.)\?", r"\1", w).replace("\0", "."), re.sub(r".\?", "", w).replace("\0", ".")]
    return sorted(set(out))


def test_every_alternative_is_found_from_the_tail() -> None:
    alts = _alternatives()
    assert len(alts) > 60 and "in the region of" in alts and "no evidence that" in alts
    for alt in alts:
        for before in ("", "the figure was, ", "x\n(", "It is said that\tthe   rate was "):
            for space in (" ", "  \n ", "\u3000", "\t"):
                text = before + alt.replace(" ", space) + space
                _same_match(text)
                assert any(p.search(text) for p, _ in _tail_cases()[1:]), text  # type: ignore[attr-defined]


def test_the_tail_search_finds_what_the_full_search_finds_in_real_texts() -> None:
    for t, ctx in CORPUS + PROSE[::5]:
        for text in (t, ctx or ""):
            for cut in range(0, len(text), 13):
                _same_match(text[max(0, cut - 40) : cut])


_TAILISH = [*_alternatives(), "the", "rate", "40%", "~", "≈", "<", "約", "ほぼ", "最大で", "n't", "didn't", ",", ".", "(", "'",
            " ", "  ", "\n", "\t", "\u3000", "\x1c", "\u2028", "-", "x"]  # fmt: skip


@given(st.lists(st.sampled_from(_TAILISH), max_size=14))
def test_generated_text_before_a_quote(parts: list[str]) -> None:
    for sep in ("", " ", "\n "):
        text = sep.join(parts)
        _same_match(text)
        _same_match(text[-40:])


def test_tail_gives_the_start_of_the_last_pieces() -> None:
    assert [around._tail("a  b c ", k) for k in (1, 2, 3, 4)] == [5, 3, 0, 0]
    assert [around._tail("x y\n z\u3000 ", k) for k in (1, 2)] == [5, 2]
    assert around._tail("", 2) == around._tail("   ", 1) == 0

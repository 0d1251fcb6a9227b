"""The source-context rules' pre-tests (issue 19, fourth session, per-claim cost) change nothing but the time.

* :class:`EndCues` reads the last pieces of the matches of end-anchored patterns from the patterns
  (:func:`match_ends`); ``may_match`` answers False only when none of them can match. Used by
  ``around_hits`` (the number, modal and negation cues right before a quote) and by
  ``figures._hedges`` (the number prefixes).
* :class:`InnerCues`: the longest piece of every match of a pattern, read the same way; used by
  ``scope.states_quantity`` before the quantifier patterns.
* ``around._modifier_at``: the English modifier before the quote, with the tests of
  ``en_modifier_before`` that need no token object run first.

Each is compared with the code it stands for (the patterns' own searches, ``_tokens_at`` with
``en_modifier_before``, ``around_hits`` without the pre-tests) on the texts of the repository,
English and Japanese, at every position, and on generated texts made of the cue words themselves.
The same comparison on the bench texts: ``scripts/check_self_rules.py --digest`` (same digest).
"""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimledger.checks.overclaim import around, figures, scope
from claimledger.checks.overclaim._text import NOT_LOWERED, EndCues, InnerCues, ends_at_end, match_ends
from claimledger.checks.overclaim.lexicon import (
    CONTEXT_HEDGE_BEFORE_JA,
    CONTEXT_MODAL_AFTER_EN,
    CONTEXT_MODAL_AFTER_JA,
    CONTEXT_MODAL_BEFORE_EN,
    CONTEXT_NEGATION_AFTER_JA,
    CONTEXT_NEGATION_BEFORE_EN,
    NUM_PREFIX,
    NUM_SUFFIX,
    QUANT_EN,
    QUANT_JA,
)
from claimledger.checks.overclaim.scope import en_modifier_before
from tests.test_overclaim_self import CORPUS, PROSE

BEFORE = [*NUM_PREFIX.values(), CONTEXT_MODAL_BEFORE_EN, CONTEXT_NEGATION_BEFORE_EN, CONTEXT_HEDGE_BEFORE_JA]
AFTER = [*NUM_SUFFIX.values(), CONTEXT_MODAL_AFTER_EN, CONTEXT_MODAL_AFTER_JA, CONTEXT_NEGATION_AFTER_JA]
ENDS = sorted({e for p in BEFORE for e in match_ends(p) or ()})
QUANT_CUES = (scope._QUANT_CUES_EN, scope._QUANT_CUES_JA)


def _sound(cues: EndCues, patterns: list[re.Pattern[str]], text: str) -> None:
    if not cues.may_match(text):
        assert not any(p.search(text) for p in patterns), text


# --- EndCues: the last piece of the text before a quote ------------------------------------------


def test_the_cues_are_read_from_every_pattern() -> None:
    assert all(ends_at_end(p) for p in BEFORE)
    assert around._BEFORE_CUES.by_last is not None and figures._PREFIX_CUES.by_last is not None
    for word in ("about", "approx.", "ca.", "to", "of", "than", "may", "cases,", "rule,", "n't", "not", "whether",
                 "~", "≈", "<", "≧", "約", "推定で", "最低でも", "おそらく、", "通常は"):  # fmt: skip
        assert word in ENDS, word


def test_what_cannot_be_read_is_always_looked_for() -> None:
    for p in (re.compile(r"\w+\s*$"), re.compile(r"a$", re.M), re.compile(r"about"), re.compile(r"x*$"),
              re.compile(r"\s*$"), re.compile(r"a{2,5}$")):  # fmt: skip
        cues = EndCues([NUM_PREFIX["approx"], p])
        assert cues.by_last is None
        assert cues.may_match("") and cues.may_match("nothing here")
    assert match_ends(re.compile(r"(?:a|b)\s+c?d$")) == {"cd", "d"}


def test_every_character_the_patterns_match_case_insensitively_is_lowered() -> None:
    """``may_match`` compares ``str.lower()``: every character that a case-insensitive pattern matches
    to a character of the ends must lower to that character lower-cased, or be set aside
    (``NOT_LOWERED``). Every code point of the running Python is tried."""
    chars = sorted(
        {c for e in ENDS for c in e} | {c for cues in QUANT_CUES for c in "".join(cues.pieces or ())}
    )
    any_char = re.compile("[" + "".join(re.escape(c) for c in chars) + "]", re.I)
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        if ch in NOT_LOWERED or not any_char.fullmatch(ch):
            continue
        low = ch.lower()
        assert any(re.fullmatch(re.escape(c), ch, re.I) and low == c.lower() for c in chars), hex(code)


def test_the_cues_before_every_position_of_real_texts() -> None:
    checked = 0
    for t, ctx in CORPUS[::2] + PROSE[::25]:
        text = ctx or t
        for pos in range(len(text) + 1):
            before = text[max(0, pos - 40) : pos]
            _sound(around._BEFORE_CUES, BEFORE, before)
            _sound(figures._PREFIX_CUES, list(NUM_PREFIX.values()), before)
            checked += 1
    assert checked > 20_000


_PIECES = [*ENDS, *(e.upper() for e in ENDS), *(e.title() for e in ENDS), "in the region", "up", "at", "no more",
           "appears", "is thought", "little evidence", "don", "x", "abouts", "(", "'", ".", ",", "、", "5", "約5",
           "İ", "ı", "ſ", "\u212a", "ABOUT", "aBoUt", "売上は", "AI", "—", "“"]  # fmt: skip
_GAPS = ["", " ", "  ", "\n", "\t", "\u3000", "\u00a0", "\u2028", " \n"]


@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_GAPS)), max_size=8))
def test_the_cues_on_texts_made_of_the_cue_words(parts: list[tuple[str, str]]) -> None:
    text = "".join(p + g for p, g in parts)
    _sound(around._BEFORE_CUES, BEFORE, text)
    _sound(figures._PREFIX_CUES, list(NUM_PREFIX.values()), text)


def test_every_cue_word_is_seen() -> None:
    for e in ENDS:
        for text in (e, e + " ", "x " + e + "\n", e.upper() + "\u3000"):
            if any(p.search(text) for p in BEFORE):
                assert around._BEFORE_CUES.may_match(text), text


# --- the English modifier before the quote ---------------------------------------------------------


def _full(text: str, pos: int) -> object:
    near = around._tokens_at(text, pos)
    if near is None:
        return None
    mod = en_modifier_before(text, near[0], near[1])
    return None if mod is None else (mod, near[0][near[1]])


@given(st.lists(st.sampled_from(["a", "B", "text-", "-", "'", " ", "  ", "\n", "\u3000", ".", "(", "AI", "x1", "é",
                                 "state-run", "Floating", "NASA", "the", "female", "“", ":", "Bridge"]), max_size=24))  # fmt: skip
def test_the_modifier_on_generated_texts(parts: list[str]) -> None:
    text = "".join(parts)
    for pos in range(len(text) + 1):
        assert around._modifier_at(text, pos) == _full(text, pos), (text, pos)


def test_the_modifier_at_every_position_of_real_texts() -> None:
    found = 0
    for t, ctx in CORPUS + PROSE[::4]:
        text = ctx or t
        for pos in range(len(text) + 1):
            fast = around._modifier_at(text, pos)
            assert fast == _full(text, pos), (text, pos)
            found += fast is not None
    assert found > 200


# --- around_hits against the rules without the pre-tests -------------------------------------------


def _around_both(statement: str, quote: str, ctx: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = around.around_hits(statement, quote, ctx)
    with monkeypatch.context() as m:
        m.setattr(around, "_BEFORE_CUES", EndCues([re.compile(r"\w*")]))  # unreadable: always looked for
        m.setattr(around, "_modifier_at", _full)
        m.setattr(figures, "_PREFIX_CUES", EndCues([re.compile(r"\w*")]))
        full = around.around_hits(statement, quote, ctx)
    assert fast == full, (statement, quote, ctx)


def test_around_hits_on_quotes_cut_at_every_word_of_real_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    fired = 0
    for t, ctx in CORPUS[::2] + PROSE[::20]:
        text = ctx or t
        starts = [m.start() for m in re.finditer(r"\S+", text)]
        for i, start in enumerate(starts[1:-1], 1):
            quote = text[start : starts[min(len(starts) - 1, i + 6)]].strip()
            for statement in (quote, "About " + quote, quote.split(" ", 1)[-1]):
                _around_both(statement, quote, text, monkeypatch)
            fired += bool(around.around_hits(quote, quote, text))
    assert fired > 20


@given(
    st.lists(
        st.sampled_from([*_PIECES, "40%", "4倍", "3割", "1,200", "twice", "users", "grew", "may", "not"]),
        max_size=6,
    ),
    st.lists(
        st.sampled_from(["40%", "4倍", "1,200 people", "users", "grew", "Sales", "state-run", "AI"]),
        min_size=1,
        max_size=4,
    ),
    st.lists(
        st.sampled_from(
            ["", " or more", "程度", " usually", "可能性がある", "ない", ", in part", "以上", "."]
        ),
        max_size=2,
    ),
)
def test_around_hits_on_generated_contexts(before: list[str], quote: list[str], after: list[str]) -> None:
    q = " ".join(quote)
    ctx = " ".join(before) + " " + q + "".join(after)
    with pytest.MonkeyPatch.context() as m:
        for statement in (q, "about " + q):
            _around_both(statement, q, ctx, m)


def test_number_hedges_are_read_as_before() -> None:
    """``figures._hedges`` asks EndCues before its search: every number of the texts gets the same hedges."""
    texts = [t for t, _ in CORPUS] + [c for _, c in PROSE[::3] if c]
    texts += [
        "about 40%",
        "up to 4x",
        "at least 12",
        "最大で約4倍",
        "~ 5",
        "ca. 30 people",
        "NEARLY 200",
        "ſome 40",
    ]
    for text in texts:
        figures._numbers_in.cache_clear()
        fast = figures.numbers_in(text)
        figures._numbers_in.cache_clear()
        with pytest.MonkeyPatch.context() as m:
            m.setattr(figures, "_PREFIX_CUES", EndCues([re.compile(r"\w*")]))
            full = figures.numbers_in(text)
        figures._numbers_in.cache_clear()
        assert fast == full, text


# --- InnerCues: the quantifiers of states_quantity ------------------------------------------------


def test_the_quantifier_cues_are_read() -> None:
    assert all(cues.pieces for cues in QUANT_CUES)
    assert "all" in (scope._QUANT_CUES_EN.pieces or ()) and "一部" in (scope._QUANT_CUES_JA.pieces or ())
    assert (
        InnerCues([re.compile(r"\w+ly")]).pieces is None and InnerCues([re.compile(r"a|\s*")]).pieces is None
    )


def _quant_sound(text: str) -> None:
    for cues, table in zip(QUANT_CUES, (QUANT_EN, QUANT_JA), strict=True):
        if not cues.may_match(text):
            assert not any(p.search(text) for _, p in table), text


def test_the_quantifier_cues_on_real_texts() -> None:
    for t, ctx in CORPUS + PROSE[::3]:
        _quant_sound(t)
        if ctx:
            for start in range(0, len(ctx), 29):
                _quant_sound(ctx[start : start + 60])


_QUANT_WORDS = ["all", "ALL", "Every", "most", "Almost", "majority", "a lot of", "lots", "some", "several", "Usually",
                "in most cases", "as a rule", "a few", "sometimes", "ſome", "İ", "\u212a", "small", "全て", "ほぼ", "一部",
                "いくつか", "多くの場合", "よく見", "ことがある", "x", " ", "\n", "-", "'", "."]  # fmt: skip


@given(st.lists(st.sampled_from(_QUANT_WORDS), max_size=10), st.sampled_from(["", " ", "\u3000"]))
def test_the_quantifier_cues_on_texts_made_of_them(parts: list[str], sep: str) -> None:
    _quant_sound(sep.join(parts))


def test_states_quantity_is_unchanged() -> None:
    texts = [t for t, _ in CORPUS + PROSE] + [
        "all users",
        "ſome users",
        "ほぼ全ての人",
        "40% of users",
        "twice as many",
    ]
    always = InnerCues([re.compile(r"\w")])
    for text in texts:
        scope.states_quantity.cache_clear()
        fast = scope.states_quantity(text)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(scope, "_QUANT_CUES_EN", always)
            m.setattr(scope, "_QUANT_CUES_JA", always)
            scope.states_quantity.cache_clear()
            assert scope.states_quantity(text) == fast, text
    scope.states_quantity.cache_clear()

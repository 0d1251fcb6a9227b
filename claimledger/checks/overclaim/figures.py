"""Figure rules: a changed number, and a hedge or bound attached to a number that was dropped or turned.

(A hedge on a quantity without a number, "nearly doubled", is :mod:`claimledger.checks.overclaim.hedges`.)

Numbers are read by :mod:`claimledger.numbers`: digits (``1,234``, ``12.5%``, ``３０％``,
``1.2万``, ``4倍``, ``4x``, ``3割`` = 30%), number words (``four times``, ``forty percent``,
``twice``), multiplier words (``doubled``, ``a factor of four``, ``倍増``) and kanji numerals
with a unit (``二倍``, ``三割``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from claimledger.checks.overclaim._hit import Hit
from claimledger.checks.overclaim._text import (
    EN_STOPWORDS,
    EndCues,
    any_of,
    context_agrees,
    is_japanese,
    replace_span,
    stem,
)
from claimledger.checks.overclaim.lexicon import (
    NUM_PREFIX,
    NUM_SUFFIX,
)
from claimledger.model.finding import Reason
from claimledger.numbers import (
    _ADVERBS,
    _VERB_STEMS,
    COUNTER_PATTERN,
    EN_NUMBER_WORDS,
    Mention,
    find_kanji_numbers,
    find_multiplier_words,
    find_numbers,
    find_word_numbers,
)

# A Japanese counter between a number and its suffix hedge: 1万人前後, 20分程度.
_COUNTER = re.compile(COUNTER_PATTERN)
_YEAR = re.compile(r"^(?:1[89]|20)\d\d$")
_MONTH = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b",
    re.I,
)


@dataclass(frozen=True)
class Num:
    """A number in running text, with the hedges that stand right next to it."""

    start: int
    end: int
    text: str
    value: float
    half: float
    unit: str | None
    hedges: frozenset[str]
    hedge_start: int  # span of the number together with its hedge words
    hedge_end: int
    anchor: str | None  # the counter or word after it (人, users), for unitless numbers

    @property
    def hedged_text(self) -> str:
        return self.text

    def is_year(self) -> bool:
        return self.unit is None and _YEAR.match(self.text.strip()) is not None

    def is_date_part(self, text: str) -> bool:
        """A day, month or year in a date (March 6, 6 March, 2024年5月1日, 2020-21)."""
        if self.unit is not None:
            return False
        near = text[max(0, self.start - 12) : self.end + 12]
        return bool(_MONTH.search(near)) or text[self.end : self.end + 1] in ("年", "月", "日")


_WORD_AFTER = re.compile(r"\s*(?:of\s+(?:the\s+)?)?([A-Za-z][A-Za-z-]+)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z-]+)\s*$")
# Any prefix hedge / any suffix hedge: one search decides whether the classes need a look at all.
_ANY_PREFIX = any_of(NUM_PREFIX.values())
_ANY_SUFFIX = any_of(NUM_SUFFIX.values())
# The prefixes are anchored at the end of the text before a number: the last piece of that text
# tells whether a search could find one (EndCues), without the search.
_PREFIX_CUES = EndCues(NUM_PREFIX.values())


def _anchor(text: str, end: int, start: int) -> str | None:
    rest = text[end : end + 20]
    if is_japanese(rest[:1]):
        return rest[:1] if rest[:1] and rest[0] not in "、。のはがをにでと" else None
    m = _WORD_AFTER.match(rest)
    if m and m.group(1).lower() not in EN_STOPWORDS:
        return stem(m.group(1))
    before = _WORD_BEFORE.search(text[max(0, start - 20) : start])
    if before and before.group(1).lower() not in EN_STOPWORDS:
        return "<" + stem(before.group(1))
    return None


def _hedges(text: str, start: int, end: int) -> tuple[frozenset[str], int, int]:
    found: set[str] = set()
    hs, he = start, end
    before = text[max(0, start - 40) : start]
    counter = _COUNTER.match(text[end : end + 4])
    skip = counter.end() if counter else 0
    after = text[end + skip : end + skip + 20]
    for cls, pat in (
        NUM_PREFIX.items() if _PREFIX_CUES.may_match(before) and _ANY_PREFIX.search(before) else ()
    ):
        m = pat.search(before)
        if m:
            found.add(cls)
            hs = min(hs, start - (len(before) - m.start()))
            # 最大で約4倍: a second prefix before the first
            inner = before[: m.start()]
            for cls2, pat2 in NUM_PREFIX.items():
                m2 = pat2.search(inner)
                if m2 and cls2 != cls:
                    found.add(cls2)
                    hs = min(hs, start - (len(before) - m2.start()))
    for cls, pat in NUM_SUFFIX.items() if _ANY_SUFFIX.match(after) else ():
        m = pat.match(after)
        if m:
            found.add(cls)
            he = max(he, end + skip + m.end())
    return frozenset(found), hs, he


def numbers_in(text: str) -> list[Num]:
    """The numbers of ``text`` with their hedges, in order (a fresh list; the parse is remembered:
    every rule of a claim reads the numbers of the same quote and context again)."""
    return list(_numbers_in(text))


# What the number finders of claimledger/numbers.py need to find anything, read from the same
# tables they are built from. find_numbers: a decimal digit (its pattern's body starts with \d, and
# full-width digits are \d too). find_word_numbers and find_multiplier_words, in ASCII text (where
# their case-insensitive patterns compare ASCII letters only): a whole word (a run of \w, as their
# \b see it) that is a number word (or one with "fold": "fourfold"), a multiplier adverb,
# "factor" or a multiplier verb ("doubled"). Text with neither is not scanned by those patterns:
# they could not match (tests/test_overclaim_self.py compares both ways on real and generated text).
_DIGIT = re.compile(r"\d")
_WORD_RUN = re.compile(r"\w+")
_NUMBER_TOKENS = frozenset(
    [*EN_NUMBER_WORDS, *(w + "fold" for w in EN_NUMBER_WORDS), *_ADVERBS, "factor"]
    + [stem + end for stem in _VERB_STEMS for end in ("ed", "es", "e", "ing")]
)


def _may_hold_number_words(text: str) -> bool:
    return not text.isascii() or not _NUMBER_TOKENS.isdisjoint(_WORD_RUN.findall(text.lower()))


# numbers_in on a text shorter than this returns finite values only and raises nothing (see
# finite_numbers); the rules that need a non-finite value or the parse's error parse longer texts.
FINITE_CHARS = 256


def finite_numbers(text: str) -> bool:
    """True when :func:`numbers_in` certainly returns only finite values, and raises nothing, on
    ``text``: then a rule that can fire only on a non-finite number (a number that is not equal to
    itself), or would only raise, need not parse it. Shorter than :data:`FINITE_CHARS` suffices:

    * digits (:func:`~claimledger.numbers.find_numbers`): ``parse_value`` returns finite values or
      None (``_parse_plain`` rejects a non-finite one; its word reading reads no digits) of at most
      ``MAX_VALUE_CHARS`` (200) characters, below 1e230 with kanji and word scales, whatever the
      text's length; ten times that (a 割 after it, below) is finite too;
    * kanji numerals (:func:`~claimledger.numbers.find_kanji_numbers`: ``float(n)``, ``n * 10.0``
      for 割, which raise or overflow for a large ``n``): ``parse_kanji`` of ``L`` characters is
      below ``10 ** (L + 16)`` (positional digits below ``10 ** L``, times at most 1,000 for 十百千
      and 1e12 for 万億兆, at most ``L`` sections summed): finite, also times ten, for ``L < 290``;
    * number words (:func:`~claimledger.numbers.find_word_numbers`: ``float(n)``): only "hundred"
      (seven letters and a separator) multiplies more than once before ``parse_english_words`` adds
      the part to its total, so ``L`` characters stay below ``10 ** (L / 4 + 12)``;
    * multiplier words: a factor from :data:`~claimledger.numbers.MULTIPLIER_WORDS` or a
      ``parse_value`` (finite).

    tests/test_overclaim_self.py builds the largest numbers each finder can read from
    ``FINITE_CHARS - 1`` characters (and shows a longer kanji numeral does overflow).
    """
    return len(text) < FINITE_CHARS


@functools.lru_cache(maxsize=4096)
def _numbers_in(text: str) -> tuple[Num, ...]:
    out: list[Num] = []
    taken: list[tuple[int, int]] = []
    for m in find_numbers(text) if _DIGIT.search(text) else ():
        start, end, raw, val = m.start, m.end, m.text, m.value
        value, half, unit = val.value, val.half_unit or 0.0, val.unit
        if unit is None and text[end : end + 1] == "割":
            end += 1
            raw = text[start:end]
            value, half, unit = value * 10, half * 10, "%"
        if (start > 0 and text[start - 1] in "#§") or text[max(0, start - 1) : start] == "v":
            continue
        hedges, hs, he = _hedges(text, start, end)
        out.append(Num(start, end, raw, value, half, unit, hedges, hs, he, _anchor(text, end, start)))
        taken.append((start, end))
    words: list[Mention] = []
    if _may_hold_number_words(text):
        words = find_multiplier_words(text) + find_word_numbers(text)
    words += [k for k in find_kanji_numbers(text) if k.value.unit in ("x", "%")]
    for wm in sorted(words, key=lambda m: m.start):
        start, end = wm.start, wm.end
        if any(a < end and start < b for a, b in taken):
            continue
        value, unit = wm.value.value, wm.value.unit
        hedges, hs, he = _hedges(text, start, end)
        anchor = _anchor(text, end, start) if unit is None else None
        out.append(Num(start, end, wm.text, value, 0.5, unit, hedges, hs, he, anchor))
        taken.append((start, end))
    return tuple(sorted(out, key=lambda n: n.start))


def same_value(a: Num, b: Num) -> bool:
    tol = max(a.half, b.half, 1e-9 * max(abs(a.value), abs(b.value)))
    return abs(a.value - b.value) <= tol + 1e-12


def _consistent_with_hedge(s: Num, q: Num) -> bool:
    """A hedged statement number that the quote's number satisfies (about 40% vs 38.6%)."""
    if "approx" in s.hedges and abs(s.value - q.value) <= 0.15 * max(abs(q.value), 1e-9):
        return True
    if "lower" in s.hedges and q.value >= s.value and "upper" not in q.hedges:
        return True
    return "upper" in s.hedges and q.value <= s.value and "lower" not in q.hedges


def _comparable(s: Num, q: Num) -> bool:
    if s.unit is not None or q.unit is not None:
        return s.unit == q.unit
    return s.anchor is not None and s.anchor == q.anchor


def _hedge_words(text: str, n: Num) -> str:
    return text[n.hedge_start : n.hedge_end]


def _transplant(statement: str, s: Num, quote: str, q: Num) -> str:
    """The statement with its number written as the quote writes it (hedge included)."""
    prefix = quote[q.hedge_start : q.start]
    suffix = quote[q.end : q.hedge_end]
    return replace_span(statement, s.hedge_start, s.hedge_end, prefix + statement[s.start : s.end] + suffix)


def _bound_turned(sh: frozenset[str], qh: frozenset[str]) -> bool:
    if not qh or not sh:
        return False
    if "upper" in qh and "lower" in sh and "upper" not in sh:
        return True
    if "lower" in qh and "upper" in sh and "lower" not in sh:
        return True
    if qh == {"approx"} and sh == {"lower"}:
        return True
    return "upper" in qh and "approx" in sh and not ({"upper", "lower"} & sh)


def number_hits(statement: str, quote: str, source_context: str | None = None) -> list[Hit]:
    hits: list[Hit] = []
    s_nums = numbers_in(statement)
    if not s_nums:
        return hits
    q_nums = numbers_in(quote)
    if not q_nums:
        return hits
    # the source context's numbers are read only for a statement number the quote does not hold
    c_nums: list[Num] | None = None
    for s in s_nums:
        matches = [q for q in q_nums if same_value(s, q)]
        if matches:
            q = min(matches, key=lambda q: (q.unit != s.unit, len(q.hedges ^ s.hedges)))
            if q.hedges and not s.hedges:
                cue = _hedge_words(quote, q)
                hits.append(
                    Hit(
                        Reason.OVERCLAIM_HEDGE_DROPPED, "hedge_dropped",
                        (s.start, s.end), s.text, (q.hedge_start, q.hedge_end), cue, "quote",
                        _transplant(statement, s, quote, q),
                        f"the quote says {cue!r} but the statement says {s.text!r}: the hedge was dropped",
                    )
                )  # fmt: skip
            elif _bound_turned(s.hedges, q.hedges):
                cue, said = _hedge_words(quote, q), _hedge_words(statement, s)
                hits.append(
                    Hit(
                        Reason.OVERCLAIM_HEDGE_DROPPED, "bound_changed",
                        (s.hedge_start, s.hedge_end), said, (q.hedge_start, q.hedge_end), cue, "quote",
                        replace_span(statement, s.hedge_start, s.hedge_end, cue),
                        f"the quote says {cue!r} but the statement says {said!r}: the bound was changed",
                    )
                )  # fmt: skip
            continue
        if (s.is_year() and not any(q.is_year() for q in q_nums)) or s.is_date_part(statement):
            continue
        if c_nums is None:
            c_nums = numbers_in(source_context) if source_context else []
        if any(same_value(s, c) and (c.unit == s.unit or c.unit is None or s.unit is None) for c in c_nums):
            continue  # the figure stands in the source right around the quote: not made up
        ja = is_japanese(statement)
        rivals = [
            q for q in q_nums
            if _comparable(s, q) and context_agrees(statement, (s.start, s.end), quote, (q.start, q.end), ja)
        ]  # fmt: skip
        if not rivals or any(_consistent_with_hedge(s, q) for q in rivals):
            continue
        q = min(rivals, key=lambda q: abs(q.value - s.value) / max(abs(q.value), abs(s.value), 1e-9))
        cue = _hedge_words(quote, q)
        hits.append(
            Hit(
                Reason.OVERCLAIM_NUMBER_CHANGED, "number_changed",
                (s.hedge_start, s.hedge_end), statement[s.hedge_start : s.hedge_end],
                (q.hedge_start, q.hedge_end), cue, "quote",
                replace_span(statement, s.hedge_start, s.hedge_end, cue),
                f"the statement says {statement[s.hedge_start:s.hedge_end]!r} but the quote says {cue!r}",
            )
        )  # fmt: skip
    return hits

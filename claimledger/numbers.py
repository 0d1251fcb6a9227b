"""Reading displayed numbers in English and Japanese.

``parse_value("11.7%")`` gives the value 11.7 with a half-unit of 0.05: the
displayed precision covers 11.65 to 11.75. Forms understood:

* separators and decimals: ``1,234``, ``1,234.5``, ``12.5``;
* full-width: ``３０％``, ``１，２３４``;
* scale words: ``12k``, ``3.4M``, ``2bn``, ``1.2 million``, ``1.2万``,
  ``3億``, ``1億2000万``, ``5千``;
* Japanese numerals: ``三十``, ``二千五百``, ``四``;
* English number words up to the thousands: ``four``, ``twenty-one``;
* signs and currency: ``-5%``, ``−5``, ``▲5`` (Japanese minus), ``$1.2 million``,
  ``¥3億``, ``1,200円``;
* units kept as a label: ``%``, ``倍``/``x``/``times``, ``pp``, ``円``, ...;
  ``割`` is tenths (``三割``, ``3割`` -> 30%);
* counters after the number are read and dropped: ``680万人``, ``十三羽``, ``12社``;
* approximate values: ``約680万``, ``およそ3割``, ``680万人程度``, ``about 40%``. The
  hedge is kept (:attr:`Value.hedge`, for the overclaim rules); the precision stays that of
  the display (an approximation never widens what a figure covers).

Digits are read, never guessed: anything else returns ``None``.

This module owns every displayed-number form; the readers of running text are here too:
:func:`find_numbers` (digits, and kanji numerals with ``kanji=True``), :func:`find_word_numbers`
(``four``, ``twenty-one``, ``four times``, ``fourfold``, ``twice``), :func:`find_kanji_numbers`
(``十三羽``, ``三割``, ``四倍``) and :func:`find_multiplier_words` (``doubled``, ``a factor of
four``, ``倍増``). :mod:`claimledger.extract.mentions` and the overclaim figure rules read numbers
through them; the one list of counters is :data:`COUNTERS`, the one table of multiplier words
:data:`MULTIPLIER_WORDS`.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from dataclasses import dataclass

SCALE_WORDS: dict[str, float] = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "tn": 1e12,
    "trillion": 1e12,
}
KANJI_SCALES: dict[str, float] = {"千": 1e3, "万": 1e4, "億": 1e8, "兆": 1e12}
KANJI_DIGITS: dict[str, int] = {
    "〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
KANJI_SMALL: dict[str, int] = {"十": 10, "百": 100, "千": 1000}
EN_WORDS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
EN_MULTIPLIERS: dict[str, int] = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
# English number words as running text writes them (the multipliers and scale words included).
EN_NUMBER_WORDS: tuple[str, ...] = (*EN_WORDS, *EN_MULTIPLIERS)
# The one table of multiplier words: the word (an adverb, or a verb's stem: doubled, triples;
# 倍増 and 倍に are "doubled") and its factor.
MULTIPLIER_WORDS: dict[str, float] = {
    "half": 0.5, "once": 1.0, "twice": 2.0, "thrice": 3.0,
    "doubl": 2.0, "tripl": 3.0, "quadrupl": 4.0, "倍": 2.0,
}  # fmt: skip
_ADVERBS = ("half", "once", "twice", "thrice")  # read alone: parse_value("twice") is 2x
_VERB_STEMS = ("doubl", "tripl", "quadrupl")  # doubled, tripling, quadruples

UNIT_ALIASES: dict[str, str] = {
    "%": "%",
    "percent": "%",
    "per cent": "%",
    "パーセント": "%",
    "pp": "pp",
    "pt": "pp",
    "pts": "pp",
    "ポイント": "pp",
    "percentage point": "pp",
    "percentage points": "pp",
    "倍": "x",
    "x": "x",
    "×": "x",
    "times": "x",
    "fold": "x",
    "円": "JPY",
    "¥": "JPY",
    "$": "USD",
    "us$": "USD",
    "ドル": "USD",
    "€": "EUR",
    "£": "GBP",
}

# Words that make a displayed value approximate; the hedge is kept on the Value.
APPROX_PREFIXES = (
    "おおよそ", "およそ", "おおむね", "概ね", "約", "ほぼ", "approximately", "approx.", "approx",
    "about", "around", "roughly", "circa", "ca.", "some", "~",
)  # fmt: skip
APPROX_SUFFIXES = ("程度", "前後", "ほど", "ぐらい", "くらい", "余り", "強", "弱")
# The one list of Japanese counters: read after a number and dropped from its value (they name
# what is counted, not a unit: 680万人, 十三羽, 12社, 3か月, 20分). Longest first where they share
# a start (時間 before 時).
COUNTERS = (
    "世帯", "か国", "カ国", "ヶ国", "か所", "カ所", "ヶ所", "箇所", "か月", "カ月", "ヶ月", "時間",
    "人", "名", "社", "件", "個", "羽", "匹", "頭", "本", "枚", "台", "校", "店", "戸", "歳", "才",
    "冊", "点", "局", "機", "隻", "通", "回", "種", "位", "つ", "分", "秒",
    "団体", "施設", "自治体", "市町村",
)  # fmt: skip
COUNTER_PATTERN = "(?:" + "|".join(sorted(COUNTERS, key=len, reverse=True)) + ")"
# Calendar words: after a number a date part as often as a duration (2000年, 5日), so not a
# counter (2000年以降 is not a hedged 2000); one kanji digit before one is a figure (三年, 五日).
DATE_UNITS = ("年", "日")
_APPROX_PREFIX_RE = re.compile(
    "^(?:" + "|".join(re.escape(w) for w in sorted(APPROX_PREFIXES, key=len, reverse=True)) + r")\s*"
)
_APPROX_SUFFIX_RE = re.compile(r"\s*(?:" + "|".join(map(re.escape, APPROX_SUFFIXES)) + ")$")
_COUNTER_RE = re.compile("(?<=[0-9〇零一二三四五六七八九十百千万億兆割])" + COUNTER_PATTERN + "$")

MAX_VALUE_CHARS = 200
_MINUS = "-\u2212\u2012\u2013\u2014\u2010\u2011\ufe63\uff0d▲△"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_VALUE_RE = re.compile(
    rf"""^\s*
    (?P<cur1>us\$|\$|€|£|¥)?\s*
    (?P<sign>[{_MINUS}+])?\s*
    (?P<cur2>us\$|\$|€|£|¥)?\s*
    (?P<body>(?:{_NUM})(?:\s*[千万億兆](?:\s*(?:{_NUM}))?)*)\s*
    (?P<scale>thousand|million|billion|trillion|bn|mn|tn|[kmbt](?![a-z]))?\s*
    (?P<unit>percentage\ points?|per\ cent|percent|パーセント|ポイント|pp|pts?|%|倍|times|fold|[x×]|円|ドル|€|£|割)?
    \s*$""",
    re.VERBOSE,
)
_KANJI_NUM_RE = re.compile(r"^[〇零一二三四五六七八九十百千万億兆]+$")


@dataclass(frozen=True)
class Value:
    """A parsed displayed number: its value, the half-width of its last digit, and unit."""

    value: float
    half_unit: float | None = None
    unit: str | None = None
    text: str = ""
    hedge: str = ""  # "約", "about", "程度", ...: the display is approximate

    @property
    def approximate(self) -> bool:
        return bool(self.hedge)

    def covers(self, expected: float, rel_tol: float) -> bool:
        """True when ``expected`` rounds to this display or lies within ``rel_tol``."""
        if not math.isfinite(expected):
            return False
        diff = abs(expected - self.value)
        denom = abs(expected) or 1.0
        if diff / denom <= rel_tol + 1e-12:
            return True
        return self.half_unit is not None and diff <= self.half_unit * (1 + 1e-9)


def _prep(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).strip().lower()
    return text.replace("\u00a0", " ").replace("\u202f", " ")


def _decimals(num: str) -> int:
    return len(num.split(".", 1)[1]) if "." in num else 0


def _body_value(body: str) -> tuple[float, float]:
    """Value and half-unit of a digits body such as ``1.2``, ``1,234`` or ``1億2000万``."""
    body = body.replace(" ", "")
    parts = re.findall(rf"({_NUM})([千万億兆]?)", body)
    total = 0.0
    half = 0.5
    pending: list[tuple[str, float]] = []
    for num, scale_char in parts:
        scale = KANJI_SCALES.get(scale_char, 1.0)
        pending.append((num, scale))
    for num, scale in pending:
        total += float(num.replace(",", "")) * scale
        half = 0.5 * 10 ** (-_decimals(num)) * scale
    return total, half


def parse_kanji(text: str) -> int | None:
    """Japanese numerals: ``三十`` -> 30, ``二千五百`` -> 2500, ``一億二千万`` -> 120000000."""
    if not text or not _KANJI_NUM_RE.match(text) or text[0] in "万億兆":
        return None
    total = 0
    section = 0
    digit: int | None = None
    for ch in text:
        if ch in KANJI_DIGITS:
            # positional digits (二〇二四) accumulate
            digit = KANJI_DIGITS[ch] if digit is None else digit * 10 + KANJI_DIGITS[ch]
        elif ch in KANJI_SMALL:
            section += (digit if digit is not None else 1) * KANJI_SMALL[ch]
            digit = None
        else:  # 万 億 兆
            section += digit or 0
            total += (section or 1) * int(KANJI_SCALES[ch])
            section = 0
            digit = None
    return total + section + (digit or 0)


def parse_english_words(text: str) -> int | None:
    """English number words: ``four`` -> 4, ``twenty-one`` -> 21, ``two hundred`` -> 200."""
    words = re.split(r"[\s-]+", text.strip().lower())
    if not words or words == [""]:
        return None
    total = 0
    current = 0
    seen = False
    last: int | None = None  # the number word just read (None after a multiplier)
    for w in words:
        if w == "and" and seen:
            continue
        if w in EN_WORDS:
            if last is not None and (last < 20 or last % 10 or EN_WORDS[w] >= 10):
                return None  # "one two", "twelve fifty": two numbers, not one
            current += EN_WORDS[w]
            last = EN_WORDS[w]
        elif w in EN_MULTIPLIERS and seen:
            current = (current or 1) * EN_MULTIPLIERS[w]
            if EN_MULTIPLIERS[w] >= 1000:
                total += current
                current = 0
            last = None
        else:
            return None
        seen = True
    return total + current


def _unit(*candidates: str | None) -> str | None:
    for c in candidates:
        if c:
            return UNIT_ALIASES.get(c.strip(), c.strip())
    return None


def parse_value(raw: str | float | int) -> Value | None:
    """Parse a displayed value; ``None`` when it is not a number a reader would recognise."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        if not math.isfinite(float(raw)):
            return None
        return Value(float(raw), None, None, str(raw))
    if len(raw) > MAX_VALUE_CHARS:
        return None  # no reader recognises a 300-character number; and the regexes stay cheap
    if type(raw) is str:  # (a str subclass is parsed each time: the remembered answer is for str)
        return _parse_text(raw)
    return _parse_text.__wrapped__(raw)


@functools.lru_cache(maxsize=4096)
def _parse_text(raw: str) -> Value | None:
    """:func:`parse_value` of a string, remembered: the same figures come back again and again (the
    100 MB bench's quotes hold 5,993 numbers, 952 of them different; a parse costs ~45 us). A
    :class:`Value` is frozen, so every caller may share the one answer."""
    text = _prep(raw)
    if not text:
        return None
    text, hedge = _strip_hedge(text)
    if not text:
        return None
    value = _parse_plain(text, raw)
    if value is None or not hedge:
        return value
    return Value(value.value, value.half_unit, value.unit, raw, hedge)


def _strip_hedge(text: str) -> tuple[str, str]:
    """``約680万人程度`` -> (``680万``, ``約 程度``): the approximation words and the counter removed."""
    hedges: list[str] = []
    m = _APPROX_PREFIX_RE.match(text)
    if m and m.end() < len(text):
        hedges.append(m.group().strip())
        text = text[m.end() :]
    m = _APPROX_SUFFIX_RE.search(text)
    if m and m.start() > 0:
        hedges.append(m.group().strip())
        text = text[: m.start()]
    c = _COUNTER_RE.search(text)
    if c and c.start() > 0:
        text = text[: c.start()].rstrip()
    return text, " ".join(hedges)


def _parse_plain(text: str, raw: str) -> Value | None:
    m = _VALUE_RE.match(text)
    if m:
        value, half = _body_value(m.group("body"))
        scale = SCALE_WORDS.get(m.group("scale") or "", 1.0)
        value *= scale
        half *= scale
        if m.group("sign") and m.group("sign") != "+":
            value = -value
        unit = _unit(m.group("unit"), m.group("cur1"), m.group("cur2"))
        if unit == "割":  # tenths: 3割 is 30%
            value, half, unit = value * 10, half * 10, "%"
        if not math.isfinite(value):
            return None
        return Value(value, half, unit, raw)
    return _parse_words(text, raw)


_WORD_UNIT_RE = re.compile(
    r"^(?P<body>.+?)\s*(?P<unit>倍|times|percent|per cent|パーセント|%|円|割)?$"
)


def _parse_words(text: str, raw: str) -> Value | None:
    if text in _ADVERBS:
        return Value(MULTIPLIER_WORDS[text], None, "x", raw)
    m = _WORD_UNIT_RE.match(text)
    if not m:
        return None
    body = m.group("body")
    n = parse_kanji(body)
    if n is None:
        n = parse_english_words(body)
    if n is None:
        return None
    unit = _unit(m.group("unit"))
    try:
        value = float(n)
    except OverflowError:
        return None
    if unit == "割":
        return Value(value * 10, 5.0, "%", raw)
    return Value(value, 0.5 if unit != "x" else None, unit, raw)


# Number mentions inside running text (quotes, drafts). Spans index into the text.
# A lower-case m, b, t or tn after a currency is a scale ($8.2m, €3bn, $2tn); without one it may be
# a unit of length or weight (8.2m), so it is not read as a scale.
_MENTION_RE = re.compile(
    rf"""
    (?P<cur>US\$|\$|€|£|¥|￥)?
    (?P<sign>[{_MINUS}+](?=[\d０-９]))?
    (?P<body>(?:\d{{1,3}}(?:[,，]\d{{3}})+(?:[.．]\d+)?|\d+(?:[.．]\d+)?)
        (?:[千万億兆](?:\d+(?:[.．]\d+)?)?)*)
    (?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn|[kKMB](?![A-Za-z]))
       |(?(cur)(?P<cscale>tn|[mbt])(?![A-Za-z])|(?!)))?
    (?:\s?(?P<unit>percentage\ points?|per\ cent|percent|pp|%|％|倍|times|fold|[x×](?![A-Za-z])|円|ドル
       |パーセント|ポイント))?
    """,
    re.VERBOSE,
)
_FW_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


@dataclass(frozen=True)
class Mention:
    """A number written in running text."""

    start: int
    end: int
    text: str
    value: Value


# Kanji numerals in running text: 十羽, 十三羽, 二十九, 三割, 四倍. A lone 一/二/千... without a
# counter or unit is part of a word (一部, 千葉), so one character counts only with one after it;
# 十分 ("enough") and 一分 ("a little") are words too.
_KANJI_MENTION_RE = re.compile(r"(?P<body>[〇零一二三四五六七八九十百千万億兆]+)(?P<unit>倍|割|パーセント|％|%|円)?")
_KANJI_COUNTER_RE = re.compile(COUNTER_PATTERN[:-1] + "|" + "|".join(DATE_UNITS) + ")")
_KANJI_UNITS: dict[str, str | None] = {"": None, "倍": "x", "円": "JPY"}  # 割 is tenths; the rest %
_HEDGE_BEFORE_RE = re.compile(
    r"(?:おおよそ|およそ|おおむね|概ね|約|ほぼ|approximately|about|around|roughly)\s*$", re.I
)
_HEDGE_AFTER_RE = re.compile(
    COUNTER_PATTERN + "?(?P<h>" + "|".join(map(re.escape, APPROX_SUFFIXES)) + ")"
)
# English number words in running text: four, twenty-one, two hundred and five, four times,
# fourfold, forty percent; and the multiplier adverbs (twice, thrice). A bare zero or one is not a
# figure ("one of the", "zero-shot").
_WORD_ALT = "|".join(sorted(EN_NUMBER_WORDS, key=len, reverse=True))
_TIMES_ADVERBS = "|".join(w for w in _ADVERBS if MULTIPLIER_WORDS[w] >= 2)
_WORDS_RE = re.compile(
    rf"\b(?P<body>(?:{_WORD_ALT})(?:(?:[\s-]+|\s+and\s+)(?:{_WORD_ALT}))*)"
    r"(?P<unit>-?fold|\s+times|\s+percent|\s+per\s+cent)?\b"
    rf"|\b(?P<times>{_TIMES_ADVERBS})\b",
    re.IGNORECASE,
)
# Multiplier words that are not a number word: doubled, triples, a factor of four, 倍増, 倍に.
_MULTIPLIER_RE = re.compile(
    rf"\b(?:(?:an?\s+)?factor\s+of\s+(?P<f>{_WORD_ALT}|\d+(?:\.\d+)?)"
    rf"|(?P<m>{'|'.join(_VERB_STEMS)})(?:ed|es|e|ing)(?!-))\b"
    r"|(?<![0-9０-９〇一二三四五六七八九十百千万.])(?P<bai>倍)(?=増|に|と|近く|以上)",
    re.IGNORECASE,
)


def _with_hedge(text: str, start: int, end: int, value: Value) -> Value:
    """The approximation words printed next to a mention (約680万, 680万人程度) kept on its value."""
    hedges = []
    before = _HEDGE_BEFORE_RE.search(text, max(0, start - 14), start)
    if before:
        hedges.append(before.group().strip())
    after = _HEDGE_AFTER_RE.match(text, end, min(len(text), end + 8))
    if after:
        hedges.append(after.group("h"))
    if not hedges:
        return value
    return Value(value.value, value.half_unit, value.unit, value.text, " ".join(hedges))


def find_numbers(text: str, *, kanji: bool = False) -> list[Mention]:
    """Every digit-based number in ``text`` with its span (full-width digits included).

    With ``kanji`` also numbers written in kanji (``十三羽``, ``二十九``, ``三割``: see
    :func:`find_kanji_numbers`; the counter is part of the mention); the passages of sources are
    read that way, drafts are not (``一部`` is not a figure). A hedge printed next to a number
    (``約``, ``程度``, ``about``) is kept on its value.
    """
    probe = text.translate(_FW_DIGITS)  # 1:1, offsets unchanged
    out: list[Mention] = []
    for m in _MENTION_RE.finditer(probe):
        start, end = m.span()
        if start > 0 and probe[start - 1].isalnum() and probe[start - 1].isascii() and not m.group("cur"):
            continue  # part of a word such as "COVID19" or "v2": not a figure
        if end < len(probe) and probe[end] == "割" and not m.group("unit"):
            end += 1  # 3割 is 30%
        raw = text[start:end]
        value = parse_value(raw)
        if value is not None:
            out.append(Mention(start, end, raw, _with_hedge(text, start, end, value)))
    if kanji:
        taken = [(m.start, m.end) for m in out]
        for k in find_kanji_numbers(text, with_counter=True):
            if not any(a < k.end and k.start < b for a, b in taken):
                out.append(k)
        out.sort(key=lambda m: m.start)
    return out


def find_kanji_numbers(text: str, *, with_counter: bool = False) -> list[Mention]:
    """Numbers written in kanji numerals: ``二十九``, ``十三羽``, ``三割`` (30%), ``四倍``,
    ``五パーセント``. One kanji digit counts only with a unit or a counter after it; a numeral
    after ``第`` is an ordinal, one after a digit part of a digit number. With ``with_counter``
    the counter (``羽``) is part of the mention's span and text."""
    out: list[Mention] = []
    for k in _KANJI_MENTION_RE.finditer(text):
        body, unit = k.group("body"), k.group("unit")
        start, end = k.span()
        if body[0] in "万億兆" or (start > 0 and text[start - 1] in "第0123456789０１２３４５６７８９"):
            continue
        counter = None if unit else _KANJI_COUNTER_RE.match(text, end)
        if len(body) < 2 and not unit and (counter is None or counter.group() == "分"):
            continue
        # a numeral longer than any value (MAX_VALUE_CHARS) is not a number: 310 kanji digits are
        # more than a float holds (OverflowError)
        n = parse_kanji(body) if len(body) <= MAX_VALUE_CHARS else None
        if n is None:
            continue
        if unit == "割":
            value = Value(n * 10.0, 5.0, "%", body + unit)
        else:
            value = Value(float(n), 0.5, _KANJI_UNITS.get(unit or "", "%"), body + (unit or ""))
        if with_counter and counter is not None and counter.group() not in DATE_UNITS:
            end = counter.end()
        raw = text[start:end]
        value = Value(value.value, value.half_unit, value.unit, raw)
        out.append(Mention(start, end, raw, _with_hedge(text, start, end, value)))
    return out


def find_word_numbers(text: str) -> list[Mention]:
    """English number words: ``four``, ``twenty-one``, ``two hundred and five``, ``two million``,
    ``four times`` and ``fourfold`` (4x), ``forty percent``, ``twice`` and ``thrice``. A bare
    ``zero`` or ``one`` is not a figure. The half-unit is 0.5 (none for a multiplier)."""
    out: list[Mention] = []
    for m in _WORDS_RE.finditer(text):
        if m.group("times"):
            factor = MULTIPLIER_WORDS[m.group("times").lower()]
            out.append(Mention(m.start(), m.end(), m.group(), Value(factor, None, "x", m.group())))
            continue
        unit_word = (m.group("unit") or "").strip().lower().lstrip("-")
        unit = "x" if unit_word in ("times", "fold") else ("%" if unit_word else None)
        for start, end in _word_runs(text, m.start("body"), m.end("body")):
            body = text[start:end]
            last = end == m.end("body")
            if last:
                end = m.end()
            if body.lower() in ("zero", "one") and not (last and unit):
                continue
            n = parse_english_words(body.lower().replace(" and ", " "))
            if n is None:
                continue
            u = unit if last else None
            value = Value(float(n), None if u == "x" else 0.5, u, text[start:end])
            out.append(Mention(start, end, text[start:end], _with_hedge(text, start, end, value)))
    return out


_WORD_TOKEN_RE = re.compile(r"[A-Za-z]+")


def _word_runs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A run of number words split into numbers: ``twenty five`` is one, ``one two`` two, each
    the longest run from its first word that reads as one number."""
    if parse_english_words(text[start:end].lower().replace(" and ", " ")) is not None:
        return [(start, end)]
    tokens = [(t.start(), t.end()) for t in _WORD_TOKEN_RE.finditer(text, start, end)]
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        j = len(tokens) - 1
        while j > i and (
            text[tokens[j][0] : tokens[j][1]].lower() == "and"
            or parse_english_words(text[tokens[i][0] : tokens[j][1]].lower()) is None
        ):
            j -= 1
        if text[tokens[i][0] : tokens[i][1]].lower() != "and":
            runs.append((tokens[i][0], tokens[j][1]))
        i = j + 1
    return runs


def find_multiplier_words(text: str) -> list[Mention]:
    """Multipliers written as words that are not number words: ``doubled``, ``triples``,
    ``quadrupling``, ``a factor of four`` (or ``of 2.5``), ``倍増`` / ``倍に`` (2x)."""
    out: list[Mention] = []
    for m in _MULTIPLIER_RE.finditer(text):
        if m.group("f"):
            parsed = parse_value(m.group("f"))
            if parsed is None:
                continue
            factor = parsed.value
        else:
            factor = MULTIPLIER_WORDS[(m.group("m") or m.group("bai")).lower()]
        value = Value(factor, None, "x", m.group())
        out.append(Mention(m.start(), m.end(), m.group(), value))
    return out


def format_number(value: float) -> str:
    """A short, readable rendering of a recomputed value."""
    if not math.isfinite(value):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}" if abs(value) >= 1e-4 else f"{value:.6g}"

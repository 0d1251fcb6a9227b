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
"""

from __future__ import annotations

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
EN_MULTIPLIERS: dict[str, int] = {"hundred": 100, "thousand": 1000}
ORDINAL_TIMES = {"once": 1, "twice": 2, "thrice": 3, "half": 0.5}

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
# Japanese counters read after a number and dropped (they name what is counted, not a unit).
COUNTERS = (
    "世帯", "か国", "カ国", "ヶ国", "か所", "カ所", "ヶ所", "箇所", "か月", "カ月", "ヶ月",
    "人", "名", "社", "件", "個", "羽", "匹", "頭", "本", "枚", "台", "校", "店", "戸", "歳", "才",
    "冊", "点", "局", "機", "隻", "通", "団体", "施設", "自治体", "市町村",
)  # fmt: skip
_APPROX_PREFIX_RE = re.compile(
    "^(?:" + "|".join(re.escape(w) for w in sorted(APPROX_PREFIXES, key=len, reverse=True)) + r")\s*"
)
_APPROX_SUFFIX_RE = re.compile(r"\s*(?:" + "|".join(map(re.escape, APPROX_SUFFIXES)) + ")$")
_COUNTER_RE = re.compile("(?<=[0-9〇零一二三四五六七八九十百千万億兆割])(?:" + "|".join(COUNTERS) + ")$")

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
    for w in words:
        if w == "and" and seen:
            continue
        if w in EN_WORDS:
            current += EN_WORDS[w]
        elif w in EN_MULTIPLIERS and seen:
            current = (current or 1) * EN_MULTIPLIERS[w]
            if EN_MULTIPLIERS[w] >= 1000:
                total += current
                current = 0
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
    r"^(?P<body>.+?)\s*(?P<unit>倍|times|percent|per cent|%|円|人|件|個|回|年|割)?$"
)


def _parse_words(text: str, raw: str) -> Value | None:
    if text in ORDINAL_TIMES:
        return Value(float(ORDINAL_TIMES[text]), None, "x", raw)
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
_MENTION_RE = re.compile(
    rf"""
    (?P<cur>US\$|\$|€|£|¥|￥)?
    (?P<sign>[{_MINUS}+](?=[\d０-９]))?
    (?P<body>(?:\d{{1,3}}(?:[,，]\d{{3}})+(?:[.．]\d+)?|\d+(?:[.．]\d+)?)
        (?:[千万億兆](?:\d+(?:[.．]\d+)?)?)*)
    (?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn|[kKMB](?![A-Za-z])))?
    (?:\s?(?P<unit>percentage\ points?|per\ cent|percent|pp|%|％|倍|times|fold|[x×](?![A-Za-z])|円|ドル))?
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


# Kanji numerals in running text: 十羽, 十三羽, 二十九, 三割. A lone 一/二/千... without a counter is
# part of a word (一部, 千葉), so one character counts only with a counter or 割 after it.
_KANJI_MENTION_RE = re.compile(
    "(?P<body>[〇一二三四五六七八九十百千][〇一二三四五六七八九十百千万億兆]*)"
    "(?P<tail>割|" + "|".join(COUNTERS) + ")?"
)
_HEDGE_BEFORE_RE = re.compile(
    r"(?:おおよそ|およそ|おおむね|概ね|約|ほぼ|approximately|about|around|roughly)\s*$", re.I
)
_HEDGE_AFTER_RE = re.compile(
    "(?:" + "|".join(COUNTERS) + ")?(?P<h>" + "|".join(map(re.escape, APPROX_SUFFIXES)) + ")"
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

    With ``kanji`` also numbers written in kanji (``十三羽``, ``二十九``, ``三割``); the passages
    of sources are read that way, drafts are not (``一部`` is not a figure). A hedge printed next to
    a number (``約``, ``程度``, ``about``) is kept on its value.
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
        for k in _KANJI_MENTION_RE.finditer(text):
            start, end = k.span()
            if len(k.group("body")) == 1 and not k.group("tail"):
                continue
            if start > 0 and text[start - 1] in "0123456789０１２３４５６７８９万億兆":
                continue
            if any(a < end and start < b for a, b in taken):
                continue
            raw = k.group("body") + ("割" if k.group("tail") == "割" else "")
            value = parse_value(raw)
            if value is not None:
                value = Value(value.value, value.half_unit, value.unit, k.group())
                out.append(Mention(start, end, k.group(), _with_hedge(text, start, end, value)))
        out.sort(key=lambda m: m.start)
    return out


def format_number(value: float) -> str:
    """A short, readable rendering of a recomputed value."""
    if not math.isfinite(value):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}" if abs(value) >= 1e-4 else f"{value:.6g}"
